package report

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"image"
	_ "image/png" // decodes the embedded charts
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
)

// checkLinks walks report.html and report.md in dir: every image and
// link must resolve. In the HTML, images are data: URIs that decode to
// the image their type names (the page is self-contained) and links are
// relative paths of files in dir; in the Markdown, images and links are
// relative paths of files in dir. It returns the number of images in
// the HTML.
func checkLinks(t *testing.T, dir string) int { return checkLinksBut(t, dir, nil) }

// checkLinksBut is checkLinks with links for which uncommitted says true
// allowed to name files that are not there (a committed example's
// ignored outputs).
func checkLinksBut(t *testing.T, dir string, uncommitted func(ref string) bool) int {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	attr := regexp.MustCompile(`(?i)\s(src|href)\s*=\s*"([^"]*)"`)
	require.NotContains(t, strings.ToLower(string(page)), "src='", "attributes are double-quoted")
	require.NotContains(t, strings.ToLower(string(page)), "href='", "attributes are double-quoted")
	images := 0
	for _, m := range attr.FindAllStringSubmatch(string(page), -1) {
		kind, ref := strings.ToLower(m[1]), m[2]
		require.NotEmpty(t, ref, "empty %s", kind)
		if kind == "src" {
			images++
			mediaType, data, ok := strings.Cut(strings.TrimPrefix(ref, "data:"), ";base64,")
			require.True(t, strings.HasPrefix(ref, "data:") && ok, "image %.60s… is not embedded as a base64 data: URI", ref)
			raw, err := base64.StdEncoding.DecodeString(data)
			require.NoError(t, err, "image data decodes")
			cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
			require.NoError(t, err, "embedded image decodes")
			require.Equal(t, "image/"+format, mediaType, "the data URI names the image's type")
			require.Positive(t, cfg.Width)
			require.Positive(t, cfg.Height)
			continue
		}
		checkRelative(t, dir, ref, uncommitted)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(string(md), -1) {
		checkRelative(t, dir, m[1], uncommitted)
	}
	return images
}

// checkRelative checks that ref is a relative link to a file in dir (or,
// when uncommitted says so, to where such a file goes).
func checkRelative(t *testing.T, dir, ref string, uncommitted func(string) bool) {
	t.Helper()
	u, err := url.Parse(ref)
	require.NoError(t, err, ref)
	require.Empty(t, u.Scheme, "link %s leaves the report folder", ref)
	require.Empty(t, u.Host, "link %s leaves the report folder", ref)
	require.False(t, strings.HasPrefix(u.Path, "/"), "link %s is absolute", ref)
	require.False(t, strings.Contains(u.Path, ".."), "link %s leaves the report folder", ref)
	if uncommitted != nil && uncommitted(u.Path) {
		return
	}
	st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(u.Path)))
	require.NoError(t, err, "link %s resolves", ref)
	require.False(t, st.IsDir(), "link %s is a file", ref)
}

// checkCSVs checks every CSV in dir/data: a header, then rows whose
// times strictly increase (so no two rows repeat), every row whole.
func checkCSVs(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "data", "*.csv"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		require.NoError(t, err, f)
		require.Greater(t, len(rows), 1, "%s has rows", f)
		seen := map[string]bool{}
		last := math.Inf(-1)
		for i, r := range rows[1:] {
			line := strings.Join(r, ",")
			require.False(t, seen[line], "%s: row %d repeats an earlier one: %s", filepath.Base(f), i+2, line)
			seen[line] = true
			at, err := strconv.ParseFloat(r[0], 64)
			require.NoError(t, err)
			require.Greater(t, at, last, "%s: row %d: time %s does not follow the row before", filepath.Base(f), i+2, r[0])
			last = at
		}
	}
	return len(files)
}

// TestReportFolderResolves writes the report of a drive with every series
// (fake results, no simulation) and walks it: embedded images, links,
// CSVs and the charts' files.
func TestReportFolderResolves(t *testing.T) {
	out := t.TempDir()
	d := fakeDrive(t, func(RunName, Label) bool { return false })
	d.Endurance = fakeEndurance(4)
	require.NoError(t, write(Options{Out: out, Quick: true}, []Drive{d, {Name: "fake-2", Config: d.Config, Runs: d.Runs, Endurance: fakeEndurance(6)}}))
	figs, err := buildCharts([]Drive{d}, paramsOf(true))
	require.NoError(t, err)
	require.Equal(t, len(figs), checkLinks(t, out), "every chart embedded once")
	for _, f := range figs {
		for _, ext := range []string{".png", ".svg"} {
			_, err := os.Stat(filepath.Join(out, f.file+ext))
			require.NoError(t, err)
		}
	}
	require.Equal(t, 2*len(seriesCount())+2, checkCSVs(t, out), "a CSV a series a drive, and each drive's endurance rounds")
	// Nothing but the report's files, and no temporary files left.
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	for _, e := range entries {
		require.False(t, strings.HasPrefix(e.Name(), "."), "temporary file %s left", e.Name())
	}
}

// seriesCount lists every (run, label) the report reads.
func seriesCount() []string {
	var out []string
	for run, labels := range reportSeries() {
		for _, l := range labels {
			out = append(out, string(run)+"/"+string(l))
		}
	}
	return out
}

// TestTidyFoldsTheTail checks that a series' short last interval (the
// I/Os in flight when the job stopped) joins the one before it, with the
// rates over the joined length, and that phases on one clock keep their
// own intervals.
func TestTidyFoldsTheTail(t *testing.T) {
	s := sim.Second
	series := []sim.Interval{
		{StartNs: 0, EndNs: s, IOPS: 1000, WriteIOs: 1000, WriteBytes: 4096e3, Bytes: 4096e3, MBps: 4.096, WriteAmplification: 2, PowerW: 2},
		{StartNs: s, EndNs: 2 * s, IOPS: 1000, WriteIOs: 1000, WriteBytes: 4096e3, Bytes: 4096e3, MBps: 4.096, WriteAmplification: 2, PowerW: 2},
		// 1 ms more: 32 I/Os in flight completed.
		{StartNs: 2 * s, EndNs: 2*s + 1e6, IOPS: 32000, WriteIOs: 32, WriteBytes: 32 * 4096, Bytes: 32 * 4096, MBps: 131, WriteAmplification: 4, PowerW: 3},
		// The next phase, after an idle gap.
		{StartNs: 3 * s, EndNs: 4 * s, IOPS: 500, WriteIOs: 500, WriteBytes: 2048e3, Bytes: 2048e3, MBps: 2.048, WriteAmplification: 1, PowerW: 1},
		{StartNs: 4 * s, EndNs: 4*s + 2e6, IOPS: 500, WriteIOs: 1, WriteBytes: 4096, Bytes: 4096, MBps: 2, WriteAmplification: 1, PowerW: 1},
	}
	got := tidy(series)
	require.Len(t, got, 3)
	require.Equal(t, 2*s+1e6, got[1].EndNs)
	require.InDelta(t, 1032/1.001, got[1].IOPS, 1e-6, "I/Os over the joined length")
	require.Equal(t, int64(1032), got[1].WriteIOs)
	require.InDelta(t, (2*4096e3+4*32*4096)/(4096e3+32*4096), got[1].WriteAmplification, 1e-9, "weighted by host bytes")
	require.InDelta(t, (2*1+3*0.001)/1.001, got[1].PowerW, 1e-9, "weighted by time")
	require.Equal(t, 4*s+2e6, got[2].EndNs)
	require.Len(t, series, 5, "input untouched")
	require.Equal(t, 2*s+1e6, series[2].EndNs)
}

// TestOnScenarioClock checks that a label repeated over a scenario's
// phases gives one series on the scenario's clock: the later phases'
// intervals shifted by their start after the first's.
func TestOnScenarioClock(t *testing.T) {
	s := sim.Second
	phase := func(start int64) *sim.Result {
		return &sim.Result{StartNs: start, EndNs: start + 2*s, RuntimeNs: 2 * s,
			Intervals: sim.SeriesOf([]sim.Interval{{StartNs: 0, EndNs: s, IOPS: 1}, {StartNs: s, EndNs: 2 * s, IOPS: 1}})}
	}
	ms := []sim.Measurement{{Label: "bench", Result: phase(100 * s)}, {Label: "other", Result: phase(102 * s)}, {Label: "bench", Result: phase(103 * s)}}
	onScenarioClock(ms)
	got := sim.CombineRepeated(ms)
	require.Len(t, got, 2)
	var ends []int64
	for _, iv := range got[0].Result.Intervals.All() {
		ends = append(ends, iv.EndNs/s)
	}
	require.Equal(t, []int64{1, 2, 4, 5}, ends)
	require.Equal(t, int64(2*s), got[1].Result.Intervals.At(1).EndNs, "a label run once is left alone")
}

// TestCommittedExampleResolves walks the committed example reports: their
// embedded images decode and their links resolve, except those to the
// outputs their .gitignore keeps out of git (the SVG charts, data/,
// runs/), whose CSVs are checked when a regenerated folder has them.
func TestCommittedExampleResolves(t *testing.T) {
	ignored := func(ref string) bool {
		return strings.HasSuffix(ref, ".svg") || strings.HasPrefix(ref, "data/") || strings.HasPrefix(ref, "runs/")
	}
	for _, name := range []string{"review-quick", "review-today"} {
		dir := filepath.Join("..", "examples", name)
		require.Positive(t, checkLinksBut(t, dir, ignored), name)
		if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
			require.Positive(t, checkCSVs(t, dir), name)
		}
	}
}
