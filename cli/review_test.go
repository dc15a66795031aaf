package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testdrive"
	"github.com/ftlsim/ftlsim/nand"
)

// twoDieDrive writes generic-mlc-small cut to two dies, a drive whose
// quick review is short.
func twoDieDrive(t *testing.T) string {
	t.Helper()
	return testdrive.TwoDies(t)
}

// review checks every drive and its folder before running anything:
// exit 2 at once, naming the option, and nothing written.
func TestReviewChecksFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	out := filepath.Join(dir, "out")
	noModel := filepath.Join(dir, "no-model.yaml")
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg.NAND.Reliability = nand.Reliability{}
	b, err := cfg.Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(noModel, b, 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--drive=generic-mlc-small,no-such-drive", "--out=" + out}, "no-such-drive"},
		{[]string{"--drive=generic-mlc-small," + dir, "--out=" + out}, "--drive=" + dir + ": is a folder"},
		{[]string{"--drive=generic-mlc-small", "--out=" + file}, "--out=" + file},
		{[]string{"--drive=generic-mlc-small", "--out=" + filepath.Join(file, "sub")}, "--out="},
		{[]string{"--drive=generic-mlc-small," + noModel, "--endurance", "--out=" + out}, "--endurance: drive " + noModel + " has no read-error model"},
	} {
		start := time.Now()
		code, _, errOut := runCmd(t, append([]string{"review", "--quick"}, c.args...)...)
		require.Equal(t, exitUsage, code, errOut)
		oneErrorLine(t, errOut)
		require.Contains(t, errOut, c.want)
		require.Less(t, time.Since(start), 10*time.Second, "refused before running")
		_, err := os.Stat(out)
		require.ErrorIs(t, err, os.ErrNotExist, "nothing written")
	}
}

// An interrupted review keeps the runs it finished, says how to go on,
// and exits 130; --resume reads them back.
func TestReviewInterruptedAndResumed(t *testing.T) {
	drv := twoDieDrive(t)
	out := filepath.Join(t.TempDir(), "review")
	args := []string{"review", "--quick", "--jobs=1", "--drive=" + drv, "--out=" + out}
	code, _, errOut := runUntil(t, 3*time.Second, args...)
	require.Equal(t, exitInterrupted, code, errOut)
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	last := lines[len(lines)-1] // after a line a finished run
	require.True(t, strings.HasPrefix(last, "ftlsim: review interrupted: "), last)
	require.Contains(t, last, "--resume")
	m := regexp.MustCompile(`(\d+) of (\d+) runs finished`).FindStringSubmatch(last)
	require.NotNil(t, m, last)
	saved, _ := filepath.Glob(filepath.Join(out, "runs", "*.gob"))
	require.Equal(t, m[1], strconv.Itoa(len(saved)), "every finished run written")
	_, err := os.Stat(filepath.Join(out, "report.md"))
	require.ErrorIs(t, err, os.ErrNotExist)

	// Resumed (and stopped at once): the saved runs are read back, none
	// is lost.
	code, _, errOut = runUntil(t, 0, append(args, "--resume")...)
	require.Equal(t, exitInterrupted, code, errOut)
	require.Contains(t, errOut, m[1]+" of "+m[2]+" runs finished")
}

// --endurance is off unless given.
func TestParseReviewEndurance(t *testing.T) {
	a, err := parseReview([]string{"--drive=m4-64", "--quick"})
	require.NoError(t, err)
	require.False(t, a.endurance)
	a, err = parseReview([]string{"--drive=m4-64", "--quick", "--endurance"})
	require.NoError(t, err)
	require.True(t, a.endurance)
	require.True(t, a.quick)
	_, err = parseReview([]string{"--drive=m4-64", "--endurace"})
	require.ErrorContains(t, err, "--endurance)")
}

// A review into a folder that holds a finished review is refused with
// one line (exit 2) unless --resume is given, as a sweep into a
// directory with results is; --resume with options none of whose runs
// the folder holds names the options that differ and refuses, rather
// than running every run again; --resume with options that leave some
// saved runs valid reads those back and says how many.
func TestReviewFolderInUse(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a quick review")
	}
	drv := twoDieDrive(t)
	out := filepath.Join(t.TempDir(), "review")
	args := []string{"review", "--quick", "--drive=" + drv, "--out=" + out}
	code, _, errOut := runCmd(t, args...)
	require.Equal(t, exitOK, code, errOut)
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)

	// Again, not resumed: refused at once, nothing run again.
	start := time.Now()
	code, _, errOut = runUntil(t, 30*time.Second, args...)
	require.Equal(t, exitUsage, code, errOut)
	oneErrorLine(t, errOut)
	require.Contains(t, errOut, "--out="+out+" holds a finished review (--drive="+drv+" --quick)")
	require.Contains(t, errOut, "pass --resume to read its runs back, or another --out")
	require.Less(t, time.Since(start), 10*time.Second, "refused before running")

	// Resumed without --quick: none of the saved runs applies.
	start = time.Now()
	code, _, errOut = runUntil(t, 30*time.Second, "review", "--resume", "--drive="+drv, "--out="+out)
	require.Equal(t, exitUsage, code, errOut)
	oneErrorLine(t, errOut)
	require.Contains(t, errOut, "--resume: "+out+" holds a review of other options (saved with --quick, now without)")
	require.Contains(t, errOut, "none of its 15 saved runs applies")
	require.Less(t, time.Since(start), 10*time.Second, "refused before running")

	// Resumed with a second drive (stopped at once): the first drive's
	// runs are read back, and the review says so.
	cfg, err := controller.LoadConfig(drv)
	require.NoError(t, err)
	cfg.Name = "another"
	b, err := cfg.Marshal()
	require.NoError(t, err)
	other := filepath.Join(t.TempDir(), "another.yaml")
	require.NoError(t, os.WriteFile(other, b, 0o644))
	code, _, errOut = runUntil(t, 0, "review", "--quick", "--resume", "--drive="+drv+","+other, "--out="+out)
	require.Equal(t, exitInterrupted, code, errOut)
	require.Contains(t, errOut, "ftlsim: review: --resume: the review saved in "+out+" had other options (saved --drive="+drv+", now --drive="+drv+","+other+
		"): 15 of this review's 30 runs still apply and are read back\n")
	require.Contains(t, errOut, "15 of 30 runs finished")
	again, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	require.Equal(t, string(report), string(again), "the finished report left as it was")
}
