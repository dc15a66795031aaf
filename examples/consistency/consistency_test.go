package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConsistencyShowsPlateauCliffAndSteadyState runs the example's quick
// mode and checks what the reviews read from the chart: a fresh plateau,
// a cliff, a steady state well below the plateau, and a clearly higher
// steady state with 25 % spare area.
func TestConsistencyShowsPlateauCliffAndSteadyState(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	outs, err := run(options{drive: "generic-mlc", quick: true, seconds: 2000, out: dir}, &out)
	require.NoError(t, err)
	t.Log("\n" + out.String())
	require.Len(t, outs, 2)
	full, spare := outs[0].summary, outs[1].summary
	require.Positive(t, full.CliffNs, "the fresh plateau ends in a cliff")
	require.Less(t, full.SteadyMedian, full.FreshIOPS/3, "steady state well below the plateau")
	require.Positive(t, full.SteadyMedian)
	require.Greater(t, spare.SteadyMedian, 2*full.SteadyMedian, "25 % spare area: a clearly higher steady state")
	require.Less(t, spare.SteadyWA, full.SteadyWA)
	for _, f := range []string{"consistency-0.csv", "consistency-25.csv", "consistency-log.png", "consistency-steady-log.png", "consistency-steady-linear.png"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		require.Positive(t, st.Size())
	}
}
