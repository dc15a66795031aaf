package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testdrive"
	"github.com/ftlsim/ftlsim/nand"
	"github.com/ftlsim/ftlsim/sim"
)

// TestQuickReviewEndurance reviews a small drive in quick mode with the
// endurance run: it runs (on the drive's copy with read errors on), is
// saved as it finishes and read back on resume, and the report gets an
// Endurance section after Power with its chart and a table whose figures
// are the run's.
func TestQuickReviewEndurance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the review suite and an endurance run")
	}
	dir := t.TempDir()
	drv := testdrive.TwoDies(t)
	var started, done []string
	ds, err := Run(Options{Drives: []string{drv}, Out: dir, Quick: true, Endurance: true,
		Progress: func(drive, step string, n, total int, simNs int64) {
			if simNs == 0 {
				started = append(started, step)
			}
		},
		Done: func(drive, step string, n, total int) {
			require.Equal(t, len(suite(true))+1, total)
			done = append(done, step)
		}})
	require.NoError(t, err)
	require.Len(t, done, len(suite(true))+1)
	require.Equal(t, string(RunEndurance), started[0], "the endurance run, the longest, starts first")
	res := ds[0].Endurance
	require.NotNil(t, res)
	require.NotEmpty(t, res.Rounds)
	first, last := res.Rounds[0], res.Rounds[len(res.Rounds)-1]
	t.Logf("%d rounds, %.2f TB written, rated %.2f TB, retired: %s", len(res.Rounds), float64(last.HostBytes)/1e12, float64(res.RatedHostBytes)/1e12, res.Retired)
	require.NotEqual(t, "interrupted", res.Retired)
	require.Positive(t, last.RetriedReadShare, "the read-error model was on")
	require.Greater(t, last.LifeUsed, first.LifeUsed)

	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	text := string(md)
	require.Contains(t, text, "--quick --endurance`", "the command that regenerates it")
	power, end := strings.Index(text, "## Power"), strings.Index(text, "## Endurance")
	require.Positive(t, power)
	require.Greater(t, end, power, "the Endurance section after Power")
	section := text[end:]
	require.Contains(t, section, "0.25 of the rated P/E cycles", "the quick procedure's round wear")
	require.Contains(t, section, "(endurance.png)")

	// The table's row for the drive holds the run's figures.
	var row []string
	for _, l := range strings.Split(section, "\n") {
		if strings.HasPrefix(l, "| "+drv+" |") {
			row = strings.Split(strings.Trim(l, "| "), " | ")
		}
	}
	require.NotNil(t, row, "a row for %s in:\n%s", drv, section)
	var waSum float64
	retry := "none"
	for _, r := range res.Rounds {
		waSum += r.WA
		if retry == "none" && r.RetriedReadShare > 0 {
			retry = fmt.Sprintf("%.0f %%", 100*r.LifeUsed)
		}
	}
	require.Equal(t, []string{drv, fmt.Sprint(len(res.Rounds)), fmt.Sprintf("%.1f", waSum/float64(len(res.Rounds))),
		fmt.Sprintf("%.2f", float64(last.HostBytes)/1e12), fmt.Sprintf("%.2f", float64(res.RatedHostBytes)/1e12),
		fmt.Sprintf("%.2f×", float64(last.HostBytes)/float64(res.RatedHostBytes)), retry, fmt.Sprintf("%.0f %%", 100*last.LifeUsed),
		latencyLabel(float64(first.ReadP99Ns)/1e3) + " / " + latencyLabel(float64(last.ReadP99Ns)/1e3), res.Retired}, row)

	// The chart, as PNG and SVG, embedded in the page with the others.
	png, err := os.ReadFile(filepath.Join(dir, "endurance.png"))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")))
	svg, err := os.ReadFile(filepath.Join(dir, "endurance.svg"))
	require.NoError(t, err)
	require.Contains(t, string(svg), "</svg>")
	figs, err := buildCharts(ds, paramsOf(true))
	require.NoError(t, err)
	require.Equal(t, "endurance", figs[len(figs)-1].file)
	require.Equal(t, len(figs), checkLinks(t, dir), "every chart embedded in report.html")

	// The rounds as JSON (the result, whole) and as CSV (a row a round).
	b, err := os.ReadFile(filepath.Join(dir, "data", safe(drv)+"_endurance.json"))
	require.NoError(t, err)
	var doc struct {
		Drive string `json:"drive"`
		sim.EnduranceResult
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Equal(t, drv, doc.Drive)
	require.Equal(t, *res, doc.EnduranceResult)
	b, err = os.ReadFile(filepath.Join(dir, "data", safe(drv)+"_endurance.csv"))
	require.NoError(t, err)
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, len(res.Rounds)+1)
	checkCSVs(t, dir)

	// Resumed: every run read back, the endurance run too; the same report.
	var resumed []string
	again, err := Run(Options{Drives: []string{drv}, Out: dir, Quick: true, Endurance: true, Resume: true,
		Resumed: func(drive, step string) { resumed = append(resumed, step) },
		Done:    func(drive, step string, n, total int) { t.Errorf("%s run again", step) }})
	require.NoError(t, err)
	require.Len(t, resumed, len(suite(true))+1)
	require.Contains(t, resumed, string(RunEndurance))
	require.Equal(t, res, again[0].Endurance)
	md2, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	require.Equal(t, text, string(md2))

	// Without --endurance, a resumed review leaves the saved endurance
	// run aside: no section.
	_, err = Run(Options{Drives: []string{drv}, Out: dir, Quick: true, Resume: true})
	require.NoError(t, err)
	md3, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	require.NotContains(t, string(md3), "## Endurance")
	require.NotContains(t, string(md3), "--endurance")
}

// A drive whose NAND part has no read-error model is refused with
// --endurance before any run, naming the drive.
func TestEnduranceNeedsAnErrorModel(t *testing.T) {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg.NAND.Reliability = nand.Reliability{}
	b, err := cfg.Marshal()
	require.NoError(t, err)
	drv := filepath.Join(t.TempDir(), "no-model.yaml")
	require.NoError(t, os.WriteFile(drv, b, 0o644))
	out := filepath.Join(t.TempDir(), "r")
	ran := false
	_, err = Run(Options{Drives: []string{drv}, Out: out, Quick: true, Endurance: true,
		Progress: func(string, string, int, int, int64) { ran = true }})
	require.ErrorIs(t, err, controller.ErrConfig)
	require.ErrorContains(t, err, "drive "+drv+": the endurance run models read errors")
	require.False(t, ran)
	_, err = os.Stat(out)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing written")
}

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

// TestEnduranceChartAndTable: several drives share the chart, each in its
// colour with its rated-cycles line named in the legend; one run alone
// (the scenario's chart) has the one rated-cycles entry; a drive that
// retired before its first read pass has a row and no line; a drive
// without an endurance run in a report that has them is an error.
func TestEnduranceChartAndTable(t *testing.T) {
	a, b := fakeEndurance(4), fakeEndurance(6)
	b.RatedHostBytes = 3e12
	f, err := enduranceFigure("endurance", "", "", []string{"a", "b"}, []*sim.EnduranceResult{a, b})
	require.NoError(t, err)
	require.Len(t, f.panels, 3)
	var keys []string
	for _, l := range f.legend {
		keys = append(keys, l.Name)
	}
	require.Equal(t, []string{"a", "b", "a: rated cycles at WA 3.0", "b: rated cycles at WA 3.0"}, keys)

	f, err = enduranceFigure("endurance", "", "one run", []string{""}, []*sim.EnduranceResult{a})
	require.NoError(t, err)
	require.Len(t, f.legend, 1)
	require.Equal(t, "rated cycles at the measured WA", f.legend[0].Name)
	for _, format := range []string{"png", "svg"} {
		img, err := EnduranceChart("one run", a, format)
		require.NoError(t, err)
		require.NotEmpty(t, img)
	}
	_, err = EnduranceChart("none", &sim.EnduranceResult{}, "svg")
	require.Error(t, err)

	none := &sim.EnduranceResult{Retired: "read-only: grown bad blocks used up the spare area"}
	drives := []Drive{{Name: "a", Endurance: a}, {Name: "early", Endurance: none}}
	figs, err := enduranceChart(drives, nil)
	require.NoError(t, err)
	require.Len(t, figs, 1)
	_, err = figs[0].png()
	require.NoError(t, err)
	tab, err := enduranceTable(drives)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "4", "3.0", "4.00", "2.00", "2.00×", "100 %", "200 %", "850 µs / 1 ms", a.Retired}, tab[1])
	require.Equal(t, []string{"early", "0", "–", "–", "–", "–", "–", "–", "–", none.Retired}, tab[2])

	_, err = enduranceTable([]Drive{{Name: "a", Endurance: a}, {Name: "missing"}})
	require.ErrorIs(t, err, ErrMissingSeries)
	require.ErrorContains(t, err, "drive missing has no endurance run")
}
