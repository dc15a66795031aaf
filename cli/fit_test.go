package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// TestFitCommand runs a short fit of examples/fit/quick.yaml: the fitted
// description loads and carries its comments, the table is written, the
// journal is gone; a journal left behind is refused without --resume.
func TestFitCommand(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "fit", "../examples/fit/quick.yaml", "--out="+out, "--evaluations=6", "-j", "2",
		"--default_params=false", "--param=firmware.write_command_ns")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "| target | measured | base drive | fitted | error |")
	assert.Contains(t, stderr, "evaluations")
	y, err := os.ReadFile(filepath.Join(out, "fitted.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(y), "write_command_ns:")
	assert.Regexp(t, `write_command_ns: \d+ # (fitted, was 12000; to four-corners|not determined by the targets)`, string(y))
	_, err = controller.LoadConfig(filepath.Join(out, "fitted.yaml"))
	require.NoError(t, err)
	md, err := os.ReadFile(filepath.Join(out, "fit.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| firmware.write_command_ns | 12000 |")
	assert.NoFileExists(t, filepath.Join(out, "journal.jsonl"))

	require.NoError(t, os.WriteFile(filepath.Join(out, "journal.jsonl"), []byte("{}\n"), 0o644))
	code, _, stderr = runCmd(t, "fit", "../examples/fit/quick.yaml", "--out="+out)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "journal.jsonl: a journal of an earlier fit is present; continue it with --resume")
	code, _, stderr = runCmd(t, "fit", "../examples/fit/quick.yaml", "--out="+out, "--resume")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "journal.jsonl:1: not a fit journal")
}

// TestFitBadInput checks that the command refuses bad input with one
// line and exit status 2, before running anything.
func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("targets:\n  - procedure: consistency\n    figure: f\n    range: [3, 1]\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit"}, "fit takes one TARGETS folder or file (got 0)"},
		{[]string{"fit", bad, "--drive=bp4-240"}, "bad.yaml:2: targets[0]: range = [3 1]"},
		{[]string{"fit", "../examples/fit/quick.yaml", "--param=firmware.gc_restore_to"}, "firmware.gc_restore_to: the drive leaves it at 0"},
		{[]string{"fit", "../examples/fit/quick.yaml", "-j", "0"}, "-j 0: allowed 1..4096"},
		{[]string{"fit", dir}, "no fio JSON report"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, c.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %s", c.args, stderr)
	}
}
