package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ftlsim/ftlsim/internal/testdrive"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testtier"
)

// reviewDrive is the drive the test reviews: generic-mlc-small in the
// long tier; by default a description of it cut to two dies, which runs
// the same suite with a quarter of the I/Os to simulate.
func reviewDrive(t *testing.T) string {
	if testtier.IsLong() {
		return "generic-mlc-small"
	}
	return testdrive.TwoDies(t)
}

// TestQuickReview reviews one small drive in quick mode and checks that
// the report folder holds the reviews' sections, the charts (PNG and SVG),
// the data and a self-contained HTML page.
func TestQuickReview(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the review suite")
	}
	dir := t.TempDir()
	drv := reviewDrive(t)
	var steps []string
	ds, err := Run(Options{Drives: []string{drv}, Out: dir, Quick: true,
		Progress: func(drive, step string, done, total int, simNs int64) {
			if simNs == 0 {
				steps = append(steps, step)
			}
		}})
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.Len(t, steps, len(suite(true)))
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	text := string(md)
	order := []string{"## The drives", "## Four corners", "## Access patterns", "## AS-SSD", "## ATTO", "## HD Tach",
		"## Performance consistency", "## TRIM validation", "## Storage Bench", "## Power"}
	last := -1
	for _, h := range order {
		i := strings.Index(text, h)
		require.Greater(t, i, last, "section %s in the reviews' order", h)
		last = i
	}
	figs, err := buildCharts(ds, paramsOf(true))
	require.NoError(t, err)
	for _, f := range figs {
		c := f.file
		png, err := os.ReadFile(filepath.Join(dir, c+".png"))
		require.NoError(t, err, c+".png")
		require.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "%s.png is a PNG", c)
		svg, err := os.ReadFile(filepath.Join(dir, c+".svg"))
		require.NoError(t, err, c+".svg")
		require.Contains(t, string(svg), "<svg", "%s.svg is an SVG", c)
		require.Contains(t, string(svg), "</svg>", "%s.svg is whole", c)
		require.Contains(t, text, "("+c+".png)")
	}
	require.Equal(t, len(figs), checkLinks(t, dir), "every chart embedded in report.html")
	csvs, _ := filepath.Glob(filepath.Join(dir, "data", "*.csv"))
	jsons, _ := filepath.Glob(filepath.Join(dir, "data", "*.json"))
	require.Equal(t, len(seriesCount()), checkCSVs(t, dir), "a CSV a series")
	require.Len(t, jsons, len(suite(true)))
	// The text states the run lengths the suite used.
	sp := paramsOf(true)
	require.Contains(t, text, "for "+seconds(sp.ns(RunConsistency, "time"))+" (the reviews run 2,000 s)")
	require.Contains(t, text, "from "+seconds(sp.ns(RunConsistency, "time")*steadyFromPct/100)+" of "+seconds(sp.ns(RunConsistency, "time")))
	require.Contains(t, text, "for "+seconds(sp.ns(RunTRIMValidation, "torture_time")))
	// The consistency table shows the cliff and the spare-area gain.
	require.Contains(t, text, "+25 % (partitioned)")
	_, err = Run(Options{Drives: []string{"no-such-drive"}, Out: dir, Quick: true})
	require.Error(t, err)

	// Every run was saved as it finished.
	saved, _ := filepath.Glob(filepath.Join(dir, "runs", "*.gob"))
	require.Len(t, saved, len(suite(true)))

	// Into the same folder again, not resumed: refused before any run,
	// saying it holds a finished review.
	_, err = Run(Options{Drives: []string{drv}, Out: dir, Quick: true,
		Progress: func(string, string, int, int, int64) { t.Error("a run started") }})
	var held *HasReviewError
	require.ErrorAs(t, err, &held)
	require.ErrorIs(t, err, ErrHasReview)
	require.Equal(t, "a finished review (--drive="+drv+" --quick)", held.What())
	require.Equal(t, len(suite(true)), held.Runs)
	// Resumed in full mode: no saved run applies, and the review says
	// which options differ instead of running every one again.
	_, err = Run(Options{Drives: []string{drv}, Out: dir, Resume: true,
		Progress: func(string, string, int, int, int64) { t.Error("a run started") }})
	require.ErrorAs(t, err, &held)
	require.Equal(t, "saved with --quick, now without", held.Differences)
	require.ErrorContains(t, err, fmt.Sprintf("none of its %d saved runs applies", len(suite(true))))

	// Runs at once or one at a time, run or read back (--resume): the
	// same report, the same series. The results and every other run's
	// saved results are copied to a new folder, which a review resumes.
	one := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(one, "runs"), 0o755))
	for _, f := range []string{resultsFile, recordFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(one, f), b, 0o644))
	}
	var copied []string
	for i, f := range saved {
		if i%2 == 0 {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(one, "runs", filepath.Base(f)), b, 0o644))
			copied = append(copied, f)
		}
	}
	// A saved run that no longer reads back is run again.
	stale := filepath.Join(one, "runs", filepath.Base(saved[1]))
	require.NoError(t, os.WriteFile(stale, []byte("not a saved run"), 0o644))
	var finished []int
	var resumed []string
	_, err = Run(Options{Drives: []string{drv}, Out: one, Quick: true, Jobs: 1, Resume: true,
		Done: func(drive, step string, done, total int) {
			require.Equal(t, len(suite(true)), total)
			finished = append(finished, done)
		},
		Resumed: func(drive, step string) { resumed = append(resumed, step) }})
	require.NoError(t, err)
	require.Len(t, resumed, len(copied), "every saved run read back")
	require.Len(t, finished, len(suite(true))-len(copied), "told of every run as it finishes")
	require.Equal(t, len(suite(true)), finished[len(finished)-1])
	b, err := os.ReadFile(stale)
	require.NoError(t, err)
	require.NotEqual(t, "not a saved run", string(b), "the stale file replaced")
	again, err := os.ReadFile(filepath.Join(one, "report.md"))
	require.NoError(t, err)
	require.Equal(t, text, string(again))
	for _, f := range append(csvs, jsons...) {
		a, err := os.ReadFile(f)
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(one, "data", filepath.Base(f)))
		require.NoError(t, err)
		require.Equal(t, string(a), string(b), filepath.Base(f))
	}
}

// The report folder is checked before any run: a path that cannot be a
// folder fails at once with ErrOutput, and a drive that does not exist
// with the drive's error, before anything is written.
func TestRunChecksBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	ran := false
	for _, out := range []string{file, filepath.Join(file, "sub")} {
		_, err := Run(Options{Drives: []string{"generic-mlc-small"}, Out: out, Quick: true,
			Progress: func(string, string, int, int, int64) { ran = true }})
		require.ErrorIs(t, err, ErrOutput, out)
	}
	_, err := Run(Options{Drives: []string{"generic-mlc-small", "no-such-drive"}, Out: filepath.Join(dir, "r"), Quick: true,
		Progress: func(string, string, int, int, int64) { ran = true }})
	require.ErrorIs(t, err, controller.ErrConfig)
	require.False(t, ran, "no run started")
	_, err = os.Stat(filepath.Join(dir, "r"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing written")
}

// A review whose context is done runs nothing more and says so; the runs
// it read back are not lost.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := Run(Options{Drives: []string{"generic-mlc-small"}, Out: dir, Quick: true, Context: ctx})
	require.ErrorIs(t, err, ErrInterrupted)
	require.ErrorContains(t, err, fmt.Sprintf("0 of %d runs finished", len(suite(true))))
	_, err = os.Stat(filepath.Join(dir, "report.md"))
	require.ErrorIs(t, err, os.ErrNotExist, "no report from part of the runs")
	// With the endurance runs, a run more a drive.
	_, err = Run(Options{Drives: []string{"generic-mlc-small"}, Out: dir, Quick: true, Context: ctx, Endurance: true})
	require.ErrorIs(t, err, ErrInterrupted)
	require.ErrorContains(t, err, fmt.Sprintf("0 of %d runs finished", len(suite(true))+1))
}
