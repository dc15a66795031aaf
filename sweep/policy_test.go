package sweep_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/cli"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/sweep"
)

// countedGreedy is a user's victim policy: greedy (the candidate with
// the fewest valid units), counting its calls in a counter the test
// shares with every drive (so not part of a drive snapshot's state).
type countedGreedy struct {
	calls *atomic.Int64 `snapshot:"-"`
}

func (p countedGreedy) Name() string { return "counted-greedy" }

func (p countedGreedy) Victim(v ftl.View, die int) int {
	p.calls.Add(1)
	first, n := v.Groups(die)
	best, valid := -1, 0
	for g := first; g < first+n; g++ {
		if v.Candidate(g) && (best < 0 || v.Valid(g) < valid) {
			best, valid = g, v.Valid(g)
		}
	}
	return best
}

// A victim policy registered in Go runs in a sweep's points — in their
// checks, in the forked group's fill and in the points themselves — when
// the registry is given in sweep.Options.Policies; without it the study
// is refused before anything runs, naming the policy.
func TestRegisteredPolicyRunsInASweep(t *testing.T) {
	var calls atomic.Int64
	reg := ftl.NewRegistry()
	require.NoError(t, reg.Register("counted-greedy", func(string) (ftl.VictimPolicy, error) { return countedGreedy{&calls}, nil }))
	study, err := sweep.Parse("policy.yaml", []byte(`
drive: generic-mlc-small
options: {capacity: 2GiB, op: 28, gc: counted-greedy, precondition: fill, rw: randwrite, bs: 4k, runtime: 2, time_based: 1, norandommap: 1}
axes:
  iodepth: [1, 8]
seed: 1
`))
	require.NoError(t, err)
	o := sweep.Options{Jobs: 2, Version: "test", Main: cli.Command, Memory: cli.CommandMemory}

	o.Out = t.TempDir()
	_, err = sweep.Run(context.Background(), study, o)
	require.ErrorContains(t, err, `"counted-greedy"`, "unknown without the registry")
	require.Zero(t, calls.Load())

	o.Out, o.Policies = t.TempDir(), reg
	st, err := sweep.Run(context.Background(), study, o)
	require.NoError(t, err)
	require.Equal(t, 2, st.Ran)
	require.Equal(t, 1, st.Prepared, "the points forked from one fill")
	require.Positive(t, calls.Load(), "the registered policy chose the victims")
	table, err := sweep.LoadTable(o.Out)
	require.NoError(t, err)
	require.Len(t, table.Results, 2)
	for _, r := range table.Results {
		require.Greater(t, r.Metrics["wa"], 1.0, "collection ran at point %d", r.Point)
	}
}
