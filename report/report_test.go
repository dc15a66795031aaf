package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuickReview reviews one small drive in quick mode and checks that
// the report folder holds the reviews' sections, the charts (PNG and SVG),
// the data and a self-contained HTML page.
func TestQuickReview(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the review suite")
	}
	dir := t.TempDir()
	var steps []string
	ds, err := Run(Options{Drives: []string{"generic-mlc-small"}, Out: dir, Quick: true,
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
	order := []string{"## The drives", "## Four corners", "## ATTO", "## HD Tach", "## Performance consistency", "## TRIM validation", "## Power", "## Storage Bench"}
	last := -1
	for _, h := range order {
		i := strings.Index(text, h)
		require.Greater(t, i, last, "section %s in the reviews' order", h)
		last = i
	}
	for _, c := range []string{"four-corners-seq", "four-corners-random", "atto", "hdtach", "consistency-log", "consistency-steady-log", "consistency-steady-linear", "latency-cdf"} {
		for _, ext := range []string{".png", ".svg"} {
			st, err := os.Stat(filepath.Join(dir, c+ext))
			require.NoError(t, err, c+ext)
			require.Positive(t, st.Size())
		}
		require.Contains(t, text, "("+c+".png)")
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	require.Equal(t, 8, strings.Count(string(page), "data:image/png;base64,"), "every chart embedded")
	csvs, _ := filepath.Glob(filepath.Join(dir, "data", "*.csv"))
	jsons, _ := filepath.Glob(filepath.Join(dir, "data", "*.json"))
	require.Greater(t, len(csvs), 40)
	require.Len(t, jsons, len(suite(true)))
	// The consistency table shows the cliff and the spare-area gain.
	require.Contains(t, text, "+25 % (partitioned)")
	_, err = Run(Options{Drives: []string{"no-such-drive"}, Out: dir, Quick: true})
	require.Error(t, err)
}
