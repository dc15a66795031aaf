package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

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
