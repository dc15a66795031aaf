package workload

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/internal/units"
)

// TestSeasonSteps: the season scenario is the SSD Anthology's procedure
// (methodology.md): a secure erase, the 128 KiB sequential fill at QD 1,
// then the image restore over every LBA once more — writes of image_bs
// in LBA order (a sector-by-sector copy), or with image_random of them at
// random extents not yet written (the random map) — and nothing trimmed,
// nothing written beyond the user LBAs. --precondition=season runs the
// same jobs after the secure erase every preparation starts with.
func TestSeasonSteps(t *testing.T) {
	sc, err := ScenarioByName("season")
	require.NoError(t, err)
	for _, tc := range []struct {
		params map[string]string
		bs     int64
		qd     int
		random int
	}{
		{nil, 64 << 10, 4, 0},
		{map[string]string{"image_bs": "1m", "image_qd": "1", "image_random": "100"}, 1 << 20, 1, 100},
	} {
		steps, err := sc.Steps(tc.params)
		require.NoError(t, err)
		require.Len(t, steps, 3)
		require.Equal(t, SecureErase, steps[0].Kind)
		fill, restore := steps[1].Job, steps[2].Job
		require.Equal(t, SeqWrite, fill.Pattern)
		require.Equal(t, []BlockSize{{128 << 10, 100}}, fill.BS)
		require.Equal(t, 1, fill.QueueDepth())
		const capacity = 80e9 / 4096 * 4096
		for _, j := range []*Job{fill, restore} {
			require.NoError(t, j.Resolve(capacity))
			require.Zero(t, j.Offset)
			require.Equal(t, int64(capacity), j.Size, "the whole user area")
		}
		require.Equal(t, RandWrite, restore.Pattern)
		require.False(t, restore.NoRandomMap, "each extent once")
		require.Equal(t, tc.random, restore.PercentageRandom)
		require.Equal(t, []BlockSize{{tc.bs, 100}}, restore.BS)
		require.Equal(t, tc.qd, restore.QueueDepth())
		require.Equal(t, "restore", steps[2].Label)
		for _, st := range steps[1:] {
			require.True(t, st.Job.ClampToDrive)
			require.Zero(t, st.Job.RuntimeNs, "a pass over the drive, not a time")
		}
	}
	for _, bad := range []map[string]string{{"image_bs": "100"}, {"image_bs": "1x"}, {"image_qd": "0"}, {"image_qd": "x"}, {"image_random": "101"}, {"image_random": "x"}} {
		_, err := sc.Steps(bad)
		require.ErrorIs(t, err, ErrOption, "%v", bad)
	}
	p, err := ParsePrecondition("season")
	require.NoError(t, err)
	require.Equal(t, Precondition{Kind: PreconditionSeason}, p)
	jobs, err := p.Jobs()
	require.NoError(t, err)
	steps, err := sc.Steps(nil)
	require.NoError(t, err)
	require.Len(t, jobs, 2)
	for i, j := range jobs {
		want := steps[i+1].Job
		require.Equal(t, want.Pattern, j.Pattern)
		require.Equal(t, want.BS, j.BS)
		require.Equal(t, want.QueueDepth(), j.QueueDepth())
		require.Equal(t, want.NoRandomMap, j.NoRandomMap)
	}
	_, err = ParsePrecondition("season:10m")
	require.ErrorContains(t, err, "only torture takes a duration")
}

// TestGeoMeanAndScore: the suite's score is the geometric mean of its
// eight MB/s figures, each over its busy time; hand-computed cases.
func TestGeoMeanAndScore(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{4, 9}, 6},
		{[]float64{1, 10, 100}, 10},
		{[]float64{2, 2, 2, 2, 2, 2, 2, 2}, 2},
		{[]float64{1, 2, 4, 8, 16, 32, 64, 128}, math.Pow(2, 3.5)},
	} {
		got, err := GeoMean(c.xs)
		require.NoError(t, err)
		require.InDelta(t, c.want, got, 1e-9*c.want)
	}
	for _, bad := range [][]float64{nil, {1, 0}, {1, -2}, {math.Inf(1)}, {math.NaN()}} {
		_, err := GeoMean(bad)
		require.Error(t, err, "%v", bad)
	}
	// Eight traces each moving 100 MB: fresh in 1 s of busy time each
	// (100 MB/s), seasoned trace i in (i+1)/4 s: 400/(i+1) MB/s.
	steps := map[string]TraceTotals{}
	for i, tr := range DesktopTraces() {
		steps[DesktopLabel("fresh", tr.Name)] = TraceTotals{Bytes: 100e6, BusyNs: 1e9}
		steps[DesktopLabel("season", tr.Name)] = TraceTotals{Bytes: 100e6, BusyNs: int64(i+1) * 25e7}
	}
	steps[DesktopLabel("season", DesktopRandomWrite)] = TraceTotals{Bytes: 30e6, BusyNs: 1e9}
	figs, err := ScoreDesktop(steps)
	require.NoError(t, err)
	require.Len(t, figs, 2)
	require.Equal(t, "fresh", figs[0].State)
	require.InDelta(t, 100, figs[0].Score, 1e-9)
	require.Zero(t, figs[0].RandomWrite)
	// 400 / (8!)^(1/8) = 400 / 3.764...
	want := 400 / math.Pow(40320, 1.0/8)
	require.InDelta(t, want, figs[1].Score, 1e-9)
	require.InDelta(t, 30, figs[1].RandomWrite, 1e-9)
	for i := range figs[1].TraceMBps {
		require.InDelta(t, 400/float64(i+1), figs[1].TraceMBps[i], 1e-9)
	}
	// The score's ratio is the geometric mean of the traces' ratios: a
	// constant scaling the score cancels in it.
	ratios := make([]float64, 8)
	for i := range ratios {
		ratios[i] = figs[1].TraceMBps[i] / figs[0].TraceMBps[i]
	}
	r, _ := GeoMean(ratios)
	require.InDelta(t, figs[1].Score/figs[0].Score, r, 1e-12)
	// A state missing a trace has no score.
	delete(steps, DesktopLabel("season", "gaming"))
	figs, err = ScoreDesktop(steps)
	require.NoError(t, err)
	require.Zero(t, figs[1].Score)
}

// TestDesktopSuiteSteps: compare=season runs the eight traces on the
// fresh drive and on a seasoned one, each on its dummy file after it is
// written, and the 4 KiB random writes (8 GB, QD 3) on the drive
// prepared again in each state; every trace within its footprint, at its
// cited read share.
func TestDesktopSuiteSteps(t *testing.T) {
	sc, err := ScenarioByName("desktop-suite")
	require.NoError(t, err)
	steps, err := sc.Steps(map[string]string{"compare": "season"})
	require.NoError(t, err)
	var labels []string
	erases, restores := 0, 0
	for _, st := range steps {
		switch {
		case st.Kind == SecureErase:
			erases++
		case st.Kind == RunJob && st.Job.Name == "image-restore":
			restores++
		}
		if st.Label != "" {
			labels = append(labels, st.Label)
		}
	}
	require.Equal(t, 4, erases, "fresh, fresh again, seasoned, seasoned again")
	require.Equal(t, 2, restores)
	var want []string
	for _, state := range []string{"fresh", "season"} {
		for _, tr := range DesktopTraces() {
			want = append(want, DesktopLabel(state, tr.Name))
		}
		want = append(want, DesktopLabel(state, DesktopRandomWrite))
	}
	require.Equal(t, want, labels)
	at := int64(0)
	for _, st := range steps {
		if st.Kind != RunJob || !strings.HasPrefix(st.Label, "fresh/") || strings.HasSuffix(st.Label, DesktopRandomWrite) {
			continue
		}
		tr := DesktopTraces()[indexOf(st.Label)]
		require.NoError(t, st.Job.Resolve(80e9/4096*4096))
		require.Equal(t, at, st.Job.Offset, st.Label)
		require.Equal(t, tr.footprintBytes(), st.Job.Size, st.Label)
		require.Equal(t, tr.RWMixRead(), st.Job.RWMixRead, st.Label)
		require.InDelta(t, tr.ReadPct, float64(st.Job.RWMixRead), 0.51, st.Label)
		require.True(t, st.Job.NoRandomMap)
		at += tr.footprintBytes()
	}
	rw := steps[len(steps)-1].Job
	require.NoError(t, rw.Resolve(80e9/4096*4096))
	require.Equal(t, RandWrite, rw.Pattern)
	require.Equal(t, 3, rw.QueueDepth())
	require.Equal(t, int64(8<<30), rw.Size)
	require.Equal(t, int64(180e9), rw.RuntimeNs)
	// One state, no random writes.
	steps, err = sc.Steps(map[string]string{"state": "season", "random_write": "0"})
	require.NoError(t, err)
	n := 0
	for _, st := range steps {
		if st.Label != "" {
			require.True(t, strings.HasPrefix(st.Label, "season/"))
			n++
		}
	}
	require.Equal(t, 8, n)
	for _, bad := range []map[string]string{{"compare": "x"}, {"state": "used"}, {"random_write": "2"}, {"rw_time": "0"}, {"trace_idle": "-1s"}, {"image_bs": "7"}} {
		_, err := sc.Steps(bad)
		require.ErrorIs(t, err, ErrOption, "%v", bad)
	}
}

// indexOf is the suite's index of the trace a label names.
func indexOf(label string) int {
	_, name, _ := strings.Cut(label, "/")
	for i, tr := range DesktopTraces() {
		if tr.Name == name {
			return i
		}
	}
	return -1
}

// TestDesktopTracesAreDocumented: every trace says what it does and what
// is assumed, and the suite's read share by bytes is near the ≈87 %
// AnandTech gives for the whole suite.
func TestDesktopTracesAreDocumented(t *testing.T) {
	var read, all float64
	for _, tr := range DesktopTraces() {
		require.NotEmpty(t, tr.What, tr.Name)
		require.NotEmpty(t, tr.Assumed, tr.Name)
		require.True(t, strings.HasPrefix(tr.Title, "HDD"), tr.Name)
		v, err := units.ParseSize(tr.Volume, false)
		require.NoError(t, err)
		read += float64(v) * tr.ReadPct / 100
		all += float64(v)
	}
	require.Len(t, DesktopTraces(), 8)
	require.InDelta(t, 0.87, read/all, 0.03)
}
