package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/internal/cmdline"
)

// TestCommandOptionsTable: the command's own options and what sets them
// are the same list.
func TestCommandOptionsTable(t *testing.T) {
	for _, c := range cmdline.Options() {
		require.NotNil(t, commandSetters[c.Name], c.Name)
	}
	require.Len(t, commandSetters, len(cmdline.Options()))
}

// TestUnknownOptionSuggests: an unknown option is answered in one line
// with the closest option names the command takes, not a list of all.
func TestUnknownOptionSuggests(t *testing.T) {
	for _, c := range []struct {
		m          mode
		args, want string
	}{
		{modeJob, "--iodepht=4", "unknown option --iodepht (did you mean --iodepth?)"},
		{modeJob, "--rwmixred=70", "unknown option --rwmixred (did you mean --rwmixread?)"},
		{modeJob, "--capactiy=8GiB", "unknown option --capactiy (did you mean --capacity?)"},
		{modeJob, "--qqqqqqq=1", "unknown option --qqqqqqq (see ftlsim --help)"},
		{modeReplay, "t.csv --sppedup=2", "unknown option --sppedup (did you mean --speedup?)"},
		{modeJobFile, "j.fio --sectoin=a", "unknown option --sectoin (did you mean --section?)"},
		{modeScenario, "--randsed=3", "unknown option --randsed (did you mean --randseed?)"},
	} {
		_, err := parseArgs(strings.Fields(c.args), c.m, nil)
		require.Error(t, err, c.args)
		require.Equal(t, c.want, err.Error(), c.args)
		var ue usageError
		require.ErrorAs(t, err, &ue, "exit status 2")
	}
	code, _, errOut := runCmd(t, "--iodepht=4", "--drive=generic-mlc-small")
	require.Equal(t, exitUsage, code)
	require.Equal(t, "ftlsim: unknown option --iodepht (did you mean --iodepth?)\n", errOut)
}
