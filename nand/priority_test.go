package nand

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// A read sent first waits for the operation in progress on its die, not
// for the programs queued behind it, which start later by the read's
// time; reads that follow it go straight after it; with nothing queued,
// or read-first off, it is a plain read. Expected times come from the
// configuration (tPROG, tR, bus times), not from a run.
func TestReadFirst(t *testing.T) {
	cases := []struct {
		name   string
		first  bool
		queued int   // programs queued on die 0 from time 0
		at     int64 // when the read may start
	}{
		{"queue of 20, read-first", true, 20, 100_000},
		{"queue of 20, off", false, 20, 100_000},
		{"nothing queued", true, 0, 100_000},
		{"read during the last program", true, 1, 100_000},
		{"queue deeper than remembered", true, opRing + 10, 100_000},
	}
	c := onfiPart(1, 1, 1)
	bt := BusTimesOf(c, 1, 8192)
	prog := bt.ProgramNs + c.Timing.ProgLSBNs // page 0's type: every page below is page 0
	read := bt.ReadCmdNs + c.Timing.ReadNs + bt.ReadOutNs
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tl := NewTimeline(c)
			tl.SetReadFirst(tc.first)
			var queueEnd int64
			for range tc.queued {
				queueEnd = tl.Program(0, 0, 1, 0)
			}
			require.Equal(t, int64(tc.queued)*prog, queueEnd)
			r := tl.ReadPageFirst(0, 0, 1, 8192, tc.at)
			switch {
			case !tc.first || tc.queued <= 1:
				// Behind the whole queue (or the one program).
				require.Equal(t, max(tc.at, queueEnd)+read, r)
				require.Equal(t, r, tl.DieFree(0))
			case tc.queued > opRing:
				// The program in progress is older than the ring: the read
				// waits for the oldest remembered end, later than it would,
				// never earlier.
				within(t, int64(tc.queued-opRing+1)*prog+read, r, bt.ProgramNs)
				end := tl.DieFree(0)
				require.GreaterOrEqual(t, end, queueEnd+read)
				require.LessOrEqual(t, end, queueEnd+read+bt.ProgramNs)
			default:
				// After the first program, which is in progress at tc.at.
				within(t, prog+read, r, bt.ProgramNs)
				d1 := r - prog // the read's time, with any wait for the bus
				require.Equal(t, queueEnd+d1, tl.DieFree(0), "the queue ends later by the read")
				// A second read right behind goes next; one arriving later
				// waits for the program that started after them.
				r2 := tl.ReadPageFirst(0, 0, 1, 8192, tc.at)
				within(t, r+read, r2, bt.ProgramNs)
				r3 := tl.ReadPageFirst(0, 0, 1, 8192, r2+1)
				within(t, r2+prog+read, r3, bt.ProgramNs)
				end := tl.DieFree(0)
				require.GreaterOrEqual(t, end, queueEnd+3*read)
				require.LessOrEqual(t, end, queueEnd+3*(read+bt.ProgramNs))
				// The next program follows the queue.
				require.Equal(t, end+prog, tl.Program(0, 0, 1, 0))
			}
		})
	}
}

// within checks that got is want or later by at most slack: the queued
// programs' data-in stays booked on the channel at its first time (the
// calendar is not moved), so a read sent first may wait up to one
// program's bus time for the channel.
func within(t *testing.T, want, got, slack int64) {
	t.Helper()
	require.GreaterOrEqual(t, got, want)
	require.LessOrEqual(t, got, want+slack)
}

// A suspend limit bounds the reads in a row that go first: the next
// waits for the queue.
func TestReadFirstLimit(t *testing.T) {
	c := onfiPart(1, 1, 1)
	tl := NewTimeline(c)
	tl.SetReadFirst(true)
	tl.SetSuspendLimit(2)
	var queueEnd int64
	for range 10 {
		queueEnd = tl.Program(0, 0, 1, 0)
	}
	r1 := tl.ReadPageFirst(0, 0, 1, 8192, 1)
	r2 := tl.ReadPageFirst(0, 0, 1, 8192, 1)
	require.Less(t, r2, queueEnd)
	r3 := tl.ReadPageFirst(0, 0, 1, 8192, 1)
	require.Equal(t, tl.DieFree(0), r3)
	require.Greater(t, r3, queueEnd)
	require.Less(t, r1, r2)
}

// TestOpEndsAgainstAList checks a die's ring of operation ends against a
// plain list of the last opRing ends: pushes in the order of time, delays
// after any time, and the end in progress at any time.
func TestOpEndsAgainstAList(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const dies = 2
		o := newOpEnds(dies)
		var ref [dies][]int64
		last := [dies]int64{}
		for range rapid.IntRange(1, 1200).Draw(t, "steps") {
			die := rapid.IntRange(0, dies-1).Draw(t, "die")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				end := last[die] + rapid.Int64Range(0, 50).Draw(t, "after")
				last[die] = end
				o.push(die, end)
				ref[die] = append(ref[die], end)
				if len(ref[die]) > opRing {
					ref[die] = ref[die][1:]
				}
			case 1:
				at := rapid.Int64Range(0, last[die]+10).Draw(t, "t")
				d := rapid.Int64Range(0, 30).Draw(t, "d")
				o.delay(die, at, d)
				for i, e := range ref[die] {
					if e > at {
						ref[die][i] = e + d
					}
				}
				if n := len(ref[die]); n > 0 {
					last[die] = ref[die][n-1]
				}
			case 2:
				s := rapid.Int64Range(0, last[die]+10).Draw(t, "s")
				want, wantOK := int64(0), false
				for _, e := range ref[die] {
					if e > s {
						want, wantOK = e, true
						break
					}
				}
				got, ok := o.current(die, s)
				if got != want || ok != wantOK {
					t.Fatalf("die %d: current(%d) = %d, %v; the list says %d, %v (%v)", die, s, got, ok, want, wantOK, ref[die])
				}
			}
		}
	})
}
