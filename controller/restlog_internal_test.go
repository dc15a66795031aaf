package controller

import (
	"testing"

	"github.com/ftlsim/ftlsim/ftl"
	"pgregory.net/rapid"
)

// restModel is the rest log's definition, kept whole: a host program is
// at rest when it has ended and so has the first program of its die at
// or after it that completes its group's word line; an erase after
// program n waits for the latest rest of programs 1..n (since the
// reset, before which all are at rest at the reset's time).
type restModel struct {
	die   []int
	done  []int64
	rests []bool
	reset int64
}

// restOf returns program k's rest time (index into the model), false
// while its word line is open.
func (m *restModel) restOf(k int) (int64, bool) {
	for j := k; j < len(m.die); j++ {
		if m.die[j] == m.die[k] && m.rests[j] {
			return m.done[j], true
		}
	}
	return 0, false
}

// after is restLog.after by definition: program n counts from the
// first program since the reset (n 0: none since it).
func (m *restModel) after(n int) (int64, bool) {
	t := m.reset
	for k := range n {
		r, ok := m.restOf(k)
		if !ok {
			return 0, false
		}
		t = max(t, r)
	}
	return t, true
}

// TestRestLogMatchesDefinition drives the rest log with random host
// programs on a few dies (random ends, word lines completed at random)
// from a random program number, and checks every erase's start against
// the definition — including the programs that rest out of order across
// dies and a ring that must grow. An erase after a program older than the
// ring holds may start later than the definition says (at the rest of
// the ring's oldest), never earlier.
func TestRestLogMatchesDefinition(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dies := rapid.IntRange(1, 6).Draw(rt, "dies")
		start := rapid.Uint64Range(1, 1<<32).Draw(rt, "first program")
		reset := rapid.Int64Range(0, 1000).Draw(rt, "reset")
		r := newRestLog(dies, 0)
		r.t = r.t[:4] // a small ring, to make it grow
		r.mask = 3
		r.reset(reset)
		m := &restModel{reset: reset}
		steps := rapid.IntRange(1, 200).Draw(rt, "steps")
		for range steps {
			if len(m.die) == 0 || rapid.IntRange(0, 2).Draw(rt, "op") > 0 {
				d := rapid.IntRange(0, dies-1).Draw(rt, "die")
				done := rapid.Int64Range(reset, reset+10000).Draw(rt, "done")
				rests := rapid.Bool().Draw(rt, "rests")
				n := start + uint64(len(m.die))
				tag := ftl.ProgTag(n << 1)
				if rests {
					tag |= 1
				}
				r.program(&ftl.Op{Die: int32(d), Prog: tag}, done)
				m.die, m.done, m.rests = append(m.die, d), append(m.done, done), append(m.rests, rests)
				continue
			}
			k := rapid.IntRange(0, len(m.die)).Draw(rt, "erase after")
			n := start - 1 + uint64(k) // k 0: a program before the reset
			got, ok := r.after(ftl.ProgTag(n<<1 | 1))
			want, wok := m.after(k)
			// Exact for the programs the ring holds; for older ones, the
			// time of the ring's oldest, which is no earlier.
			exact := r.full(uint32(n)&(1<<31-1)) >= r.lo
			if ok != wok || (ok && (got < want || exact && got != want)) {
				rt.Fatalf("erase after program %d of %d (ring %d): got %d, %v; want %d, %v", k, len(m.die), len(r.t), got, ok, want, wok)
			}
		}
		if got, ok := r.after(0); !ok || got != 0 {
			rt.Fatalf("an erase that waits for nothing: got %d, %v", got, ok)
		}
	})
}
