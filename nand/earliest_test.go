package nand

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// scanEarliest is EarliestDie by reading every die: the first die from
// `from` on, in turn, whose queued work ends first.
func scanEarliest(tl *Timeline, from int) int {
	n := len(tl.dieFree)
	best := from
	for k := 1; k < n; k++ {
		if d := (from + k) % n; tl.DieFree(d) < tl.DieFree(best) {
			best = d
		}
	}
	return best
}

// TestEarliestDie books reads, programs, erases and suspending reads on
// timelines of 1 to 40 dies (a power of two or not) and checks after
// each that EarliestDie, from every die, agrees with reading them all.
func TestEarliestDie(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := testConfig()
		g := &cfg.Geometry
		g.Channels = rapid.IntRange(1, 4).Draw(t, "channels")
		g.DiesPerTarget = rapid.IntRange(1, 10).Draw(t, "dies")
		tl := NewTimeline(cfg)
		dies := g.Dies()
		at := int64(0)
		for range rapid.IntRange(1, 60).Draw(t, "ops") {
			die := rapid.IntRange(0, dies-1).Draw(t, "die")
			at += rapid.Int64Range(0, 3_000_000).Draw(t, "gap")
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0:
				tl.ReadPage(die, 0, 1, 4096, at)
			case 1:
				tl.Program(die, rapid.IntRange(0, 7).Draw(t, "page"), 2, at)
			case 2:
				tl.Erase(die, 2, at)
			case 3:
				tl.ReadSuspending(die, 1, 4096, at, 20_000)
			case 4:
				tl.Reset()
				at = 0
			}
			from := rapid.IntRange(0, dies-1).Draw(t, "from")
			if got, want := tl.EarliestDie(from), scanEarliest(tl, from); got != want {
				t.Fatalf("EarliestDie(%d) = %d, reading every die finds %d (%v)", from, got, want, tl.dieFree)
			}
		}
	})
}

// TestEarliestDieTies: dies that tie are taken in turn from the one asked.
func TestEarliestDieTies(t *testing.T) {
	cfg := testConfig()
	cfg.Geometry.DiesPerTarget = 3 // 6 dies
	tl := NewTimeline(cfg)
	for d, want := range []int{0, 1, 2, 3, 4, 5} {
		require.Equal(t, want, tl.EarliestDie(d), "all idle, from die %d", d)
	}
	tl.Program(0, 0, 2, 0)
	tl.Program(4, 0, 2, 0)
	require.Equal(t, 1, tl.EarliestDie(0))
	require.Equal(t, 5, tl.EarliestDie(4))
	require.Equal(t, 5, tl.EarliestDie(5))
}
