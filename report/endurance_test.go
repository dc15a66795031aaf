package report

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
)

// fakeEndurance is an endurance run of n rounds at WA 3 whose reads
// start needing retries in round 2 and whose last round finds an
// uncorrectable read.
func fakeEndurance(n int) *sim.EnduranceResult {
	res := &sim.EnduranceResult{Retired: "reads the drive could neither correct nor rebuild", RatedCycles: 3000, RatedHostBytes: 2e12}
	for i := 1; i <= n; i++ {
		r := sim.EnduranceRound{Round: i, LifeUsed: 0.5 * float64(i), HostBytes: int64(i) * 1e12, SimulatedHostBytes: int64(i) * 1e10, WA: 3,
			ReadIOPS: 5000, ReadP99Ns: 800e3 + int64(i)*50e3, ReadMeanNs: 200e3}
		if i >= 2 {
			r.RetriedReadShare, r.RetriesPerRead = 0.1*float64(i-1), 0.2*float64(i-1)
		}
		if i == n {
			r.UncorrectableReads, r.FailedReads = 3, 3
		}
		res.Rounds = append(res.Rounds, r)
	}
	return res
}

// TestEnduranceChart: several drives share the chart, each in its colour
// with its rated-cycles line named in the legend; one run alone (the
// scenario's chart) has the one rated-cycles entry.
func TestEnduranceChart(t *testing.T) {
	a, b := fakeEndurance(4), fakeEndurance(6)
	b.RatedHostBytes = 3e12
	f, err := enduranceFigure("endurance", "", "", []string{"a", "b"}, []*sim.EnduranceResult{a, b})
	require.NoError(t, err)
	require.Len(t, f.panels, 3)
	var keys []string
	for _, l := range f.legend {
		keys = append(keys, l.name)
	}
	require.Equal(t, []string{"a", "b", "a: rated cycles at WA 3.0", "b: rated cycles at WA 3.0"}, keys)

	f, err = enduranceFigure("endurance", "", "one run", []string{""}, []*sim.EnduranceResult{a})
	require.NoError(t, err)
	require.Len(t, f.legend, 1)
	require.Equal(t, "rated cycles at the measured WA", f.legend[0].name)
	for _, format := range []string{"png", "svg"} {
		img, err := EnduranceChart("one run", a, format)
		require.NoError(t, err)
		require.NotEmpty(t, img)
	}
	_, err = EnduranceChart("none", &sim.EnduranceResult{}, "svg")
	require.Error(t, err)
}
