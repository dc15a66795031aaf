package cli

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/internal/testtier"
	"github.com/ftlsim/ftlsim/workload"
)

// TestScenarioUnknownAndHelp: a mistyped scenario is called an unknown
// scenario, with the closest names; ftlsim scenario NAME --help and
// ftlsim scenario --help give each parameter with its default and
// meaning.
func TestScenarioUnknownAndHelp(t *testing.T) {
	code, out, errOut := runCmd(t, "scenario", "consistencyy")
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Equal(t, "ftlsim: unknown scenario consistencyy (did you mean consistency?)\n", errOut)

	code, _, errOut = runCmd(t, "scenario", "torture", "--tiem=1m")
	require.Equal(t, exitUsage, code)
	require.Equal(t, "ftlsim: unknown option --tiem (did you mean --time?)\n", errOut)

	for _, sc := range workload.Scenarios() {
		for _, help := range []string{"--help", "-h"} {
			code, out, errOut := runCmd(t, "scenario", sc.Name, "--capacity=8GiB", help)
			require.Equal(t, exitOK, code, errOut)
			require.Contains(t, out, "usage: ftlsim scenario "+sc.Name)
			checkScenarioHelp(t, out, sc)
		}
	}
	code, out, errOut = runCmd(t, "scenario", "--help")
	require.Equal(t, exitOK, code, errOut)
	for _, sc := range workload.Scenarios() {
		require.Contains(t, out, "\n"+sc.Name+":\n")
		checkScenarioHelp(t, out, sc)
	}
	code, out, _ = runCmd(t, "scenario")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "ftlsim scenario NAME --help")
}

// checkScenarioHelp checks that help text out gives each parameter of
// sc with its default, and its meaning, in lines of at most 100
// characters.
func checkScenarioHelp(t *testing.T, out string, sc workload.Scenario) {
	t.Helper()
	flat := strings.Join(strings.Fields(out), " ")
	require.Contains(t, flat, strings.Join(strings.Fields(sc.Description), " "), sc.Name)
	for _, p := range sc.Params {
		require.Contains(t, flat, "--"+p.Name+"="+p.Default+" "+strings.Join(strings.Fields(p.Help), " "), "%s --%s", sc.Name, p.Name)
	}
	for _, l := range strings.Split(out, "\n") {
		require.LessOrEqual(t, len([]rune(l)), 100, "%s: %q", sc.Name, l)
	}
}

// TestDesktopSuiteCompare: one command measures the desktop suite on the
// fresh drive and on a seasoned one and prints each trace in both states,
// the suite's score (the geometric mean of the eight, recomputed here
// from the printed figures) and the change, and the 4 KiB random writes
// in both states.
func TestDesktopSuiteCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("seasons a drive twice")
	}
	// The default tier leaves out the random writes, which season the
	// drive a second time.
	args := []string{"scenario", "desktop-suite", "--drive=generic-mlc-small", "--capacity=12GiB", "--compare=season", "--rw_time=5s",
		"--random_write=" + testtier.Pick("0", "1")}
	code, out, errOut := runCmd(t, args...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "trace                        fresh  seasoned  change")
	var fresh, seasoned []float64
	for _, tr := range workload.DesktopTraces() {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, tr.Title+" ") {
				line = l
			}
		}
		require.NotEmpty(t, line, tr.Title)
		f := strings.Fields(strings.TrimPrefix(line, tr.Title))
		require.Len(t, f, 4, line)
		a, b := parseFloat(t, f[0]), parseFloat(t, f[1])
		fresh, seasoned = append(fresh, a), append(seasoned, b)
		// The change is the unrounded figures' (a printed figure is
		// rounded to 0.1 MB/s, which moves the change by up to that much).
		require.InDelta(t, 100*(b/a-1), parseFloat(t, f[2]), 0.1+100*0.05*(1/a+1/b), line)
	}
	gf, _ := workload.GeoMean(fresh)
	gs, _ := workload.GeoMean(seasoned)
	score := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "score (geometric mean)") {
			score = l
		}
	}
	f := strings.Fields(strings.TrimPrefix(score, "score (geometric mean)"))
	require.Len(t, f, 4, score)
	require.InEpsilon(t, gf, parseFloat(t, f[0]), 0.002)
	require.InEpsilon(t, gs, parseFloat(t, f[1]), 0.002)
	if testtier.IsLong() {
		require.Contains(t, out, "4 KiB random writes, 8 GB span, QD 3: fresh ")
		require.Contains(t, out, " seasoned ")
	}
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, s)
	return x
}

// TestScenarioListFitsTheTerminal: `ftlsim scenario` lists each scenario
// in lines of at most 100 columns (its descriptions ran to 400 before).
func TestScenarioListFitsTheTerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, Main([]string{"scenario"}, &out, &errOut), errOut.String())
	for _, l := range strings.Split(out.String(), "\n") {
		require.LessOrEqual(t, utf8.RuneCountInString(l), 100, l)
	}
	require.Contains(t, out.String(), "consistency  --time=2000s --spare=0\n")
}
