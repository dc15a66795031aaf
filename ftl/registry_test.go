package ftl

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

type fixed struct{ n int }

func (fixed) Name() string                 { return "fixed" }
func (p fixed) Victim(v View, die int) int { return Greedy{}.Victim(v, die) }

func TestRegistry(t *testing.T) {
	var nilReg *Registry
	p, err := nilReg.Parse("fifo")
	require.NoError(t, err)
	require.Equal(t, FIFO{}, p)
	_, err = nilReg.Parse("mine")
	require.ErrorIs(t, err, ErrConfig)

	r := NewRegistry()
	require.NoError(t, r.Register("mine", func(arg string) (VictimPolicy, error) {
		if arg == "bad" {
			return nil, errors.New("no")
		}
		return fixed{n: len(arg)}, nil
	}))
	p, err = r.Parse("mine:abc")
	require.NoError(t, err)
	require.Equal(t, fixed{n: 3}, p)
	_, err = r.Parse("mine:bad")
	require.ErrorContains(t, err, `"mine:bad"`)
	_, err = r.Parse("nope")
	require.ErrorContains(t, err, "mine", "the error lists the registered names")
	require.Contains(t, r.Names(), "mine")
	require.Contains(t, r.Names(), "greedy")
	for _, bad := range []string{"", "Greedy!", "greedy", "d-choices", "mine"} {
		require.ErrorIs(t, r.Register(bad, func(string) (VictimPolicy, error) { return Greedy{}, nil }), ErrConfig, bad)
	}
	require.ErrorIs(t, r.Register("other", nil), ErrConfig)
}

// countingPolicy draws a random victim among the candidates that would
// free space and counts how often it is asked and how often it had
// nothing to offer.
type countingPolicy struct{ asked, none *int }

func (countingPolicy) Name() string { return "counting" }
func (p countingPolicy) Victim(v View, die int) int {
	*p.asked++
	first, n := v.Groups(die)
	var worth []int
	for g := first; g < first+n; g++ {
		if v.Candidate(g) && v.Valid(g) < v.Capacity() {
			worth = append(worth, g)
		}
	}
	if len(worth) == 0 {
		*p.none++
		return -1
	}
	return worth[v.Rand().IntN(len(worth))]
}

// TestPolicyAskedOncePerVictim: paced, blocking and background
// collection ask the policy once for each victim they clean. The policy
// here only answers groups worth cleaning, so every answer but "none"
// starts a victim: answers and victims must match one for one (asking
// again inside the start, as the FTL once did on the paced path, made
// about two answers per victim and let a random policy's unchecked second
// draw pick another group).
func TestPolicyAskedOncePerVictim(t *testing.T) {
	g := geometry(2, 2, 32, 8)
	asked, none := 0, 0
	f := newFTL(t, g, false, Config{UserUnits: g.Units() * 3 / 4, GCPaceWater: 3, Victim: countingPolicy{&asked, &none}, Seed: 5})
	for i := range int64(5 * g.Units()) {
		require.NoError(t, f.Write((i*7919)%f.UserUnits(), 0))
	}
	for d := range g.Dies() {
		for {
			did, err := f.CollectBackground(d)
			require.NoError(t, err)
			if !did {
				break
			}
		}
	}
	c := f.Counters()
	t.Logf("%d victims (%d greedy fallbacks), policy asked %d times, %d with nothing to offer", c.GCRuns, c.GCFallbacks, asked, none)
	require.Positive(t, c.GCRuns)
	require.Equal(t, c.GCRuns-c.GCFallbacks, int64(asked-none))
}
