package report

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// reportSeries lists every series the report reads, by run. If the report
// reads one not listed, TestMissingSeriesIsAnError fails on the complete
// drive; if the suite stops producing one, TestSuiteProducesEverySeries
// fails.
func reportSeries() map[RunName][]Label {
	var atto, access []Label
	for _, s := range attoSizes() {
		atto = append(atto, attoLabel("write", s), attoLabel("read", s))
	}
	for _, p := range accessPatterns() {
		for _, qd := range accessQDs() {
			access = append(access, accessLabel(p, qd))
		}
	}
	return map[RunName][]Label{
		RunFourCorners: {LabelSeqRead128kQD1, LabelSeqWrite128kQD1, LabelRandRead4kQD3, LabelRandRead4kQD32,
			LabelRandWrite4kQD3, LabelRandWrite4kQD32},
		RunAccessPatterns:    access,
		RunASSSD:             {LabelSeqWrite, LabelSeqRead},
		RunATTO:              atto,
		RunHDTach:            {LabelReadCurve, LabelWriteCurve, LabelAccess512, LabelAccess4k, LabelAccess64k, LabelAccess1m},
		RunSustainedWrite:    {LabelSustained},
		RunSustained80:       {LabelSustained},
		RunSustainedIdle:     {LabelSustained, LabelAfterIdle},
		RunConsistency:       {LabelConsistency},
		RunConsistency25:     {LabelConsistency},
		RunTRIMValidation:    {LabelClean, LabelDirty, LabelAfterTrim},
		RunPower:             {LabelIdle, LabelSeqWrite, LabelRandomWrite},
		RunStorageBenchHeavy: {LabelBench},
		RunStorageBenchLight: {LabelBench},
		RunDestroyer:         {LabelBench},
	}
}

// TestSuiteProducesEverySeries checks, without running anything, that
// the suite's scenarios (full and quick) label a step for every series the
// report reads: a label renamed in package workload fails here.
func TestSuiteProducesEverySeries(t *testing.T) {
	want := reportSeries()
	for _, quick := range []bool{false, true} {
		st := suite(quick)
		require.Len(t, st, len(want))
		for _, s := range st {
			sc, err := workload.ScenarioByName(s.name.scenario())
			require.NoError(t, err)
			steps, err := sc.Steps(s.params)
			require.NoError(t, err)
			var labels []string
			for _, step := range steps {
				labels = append(labels, step.Label)
			}
			require.Contains(t, want, s.name)
			for _, l := range want[s.name] {
				require.Contains(t, labels, string(l), "quick=%v run %s", quick, s.name)
			}
		}
	}
}

// fakeResult is a ten-second result with something in every figure the
// report shows.
func fakeResult() *sim.Result {
	lat := sim.LatencyStats{Min: 50e3, Max: 2e6, Mean: 100e3, N: 10000,
		Percentiles: map[float64]int64{50: 100e3, 99: 1e6},
		Bins:        []sim.LatencyBin{{Ns: 50e3, Count: 2000}, {Ns: 100e3, Count: 7000}, {Ns: 1e6, Count: 900}, {Ns: 2e6, Count: 100}}}
	dir := sim.DirStats{IOs: 10000, Bytes: 4096e4, IOPS: 1000, BWBytes: 4096e3, Latency: lat}
	r := &sim.Result{Name: "fake", EndNs: 10 * sim.Second, RuntimeNs: 10 * sim.Second, Read: dir, Write: dir,
		BusyNs: 10 * sim.Second, AvgServiceNs: 100e3}
	for i := range int64(10) {
		r.Intervals.Append(sim.Interval{StartNs: i * sim.Second, EndNs: (i + 1) * sim.Second,
			IOPS: 1000, MBps: 4, WriteAmplification: 1})
	}
	return r
}

// fakeDrive has every series of reportSeries but those drop returns true
// for.
func fakeDrive(t *testing.T, drop func(RunName, Label) bool) Drive {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	d := Drive{Name: "fake", Config: cfg, Runs: map[RunName][]sim.Measurement{}}
	for run, labels := range reportSeries() {
		d.Runs[run] = []sim.Measurement{}
		for _, l := range labels {
			if !drop(run, l) {
				d.Runs[run] = append(d.Runs[run], sim.Measurement{Label: string(l), Result: fakeResult()})
			}
		}
	}
	return d
}

// TestMissingSeriesIsAnError checks that a series missing from a drive's
// runs fails the report with an error naming it (it used to be drawn as a
// zero bar), for every series the report reads, and that no report.md is
// written then.
func TestMissingSeriesIsAnError(t *testing.T) {
	out := t.TempDir()
	require.NoError(t, write(Options{Out: out}, []Drive{fakeDrive(t, func(RunName, Label) bool { return false })}))
	_, err := os.Stat(filepath.Join(out, "report.md"))
	require.NoError(t, err, "the complete drive gives a report")

	series := reportSeries()
	runs := make([]RunName, 0, len(series))
	for run := range series {
		runs = append(runs, run)
	}
	slices.Sort(runs)
	for _, run := range runs {
		for _, l := range series[run] {
			t.Run(string(run)+"/"+string(l), func(t *testing.T) {
				out := t.TempDir()
				d := fakeDrive(t, func(r RunName, x Label) bool { return r == run && x == l })
				err := write(Options{Out: out}, []Drive{d})
				require.ErrorIs(t, err, ErrMissingSeries)
				require.ErrorContains(t, err, "drive fake, run "+string(run)+" has no step labelled "+string(l))
				_, serr := os.Stat(filepath.Join(out, "report.md"))
				require.ErrorIs(t, serr, os.ErrNotExist)
			})
		}
	}

	d := fakeDrive(t, func(RunName, Label) bool { return false })
	delete(d.Runs, RunPower)
	err = write(Options{Out: t.TempDir()}, []Drive{d})
	require.ErrorIs(t, err, ErrMissingSeries)
	require.ErrorContains(t, err, "drive fake has no run power (it has: access-patterns, as-ssd, atto, consistency, consistency-25, destroyer-2013, four-corners, hdtach, storage-bench-heavy-2011, storage-bench-light-2011, sustained-write, sustained-write-80, sustained-write-idle, trim-validation)")

	_, err = d.Result(RunPower, LabelIdle)
	require.ErrorIs(t, err, ErrMissingSeries)
	r, err := d.Result(RunTRIMValidation, LabelDirty)
	require.NoError(t, err)
	require.Equal(t, "fake", r.Name)
}
