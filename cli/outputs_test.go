package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// oneErrorLine checks that stderr is one readable line, as every failure
// of the command writes it.
func oneErrorLine(t *testing.T, errOut string) {
	t.Helper()
	require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	require.True(t, strings.HasPrefix(errOut, "ftlsim: "), errOut)
	require.NotContains(t, errOut, "goroutine")
}

// dirNames lists dir: no temporary file may stay behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// A run whose log cannot be written leaves an existing --output file as
// it was: nothing is truncated before the run succeeds.
func TestFailingLogKeepsOutput(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.txt")
	const precious = "results of an earlier run\n"
	require.NoError(t, os.WriteFile(keep, []byte(precious), 0o644))
	job := append([]string{"--rw=randwrite", "--number_ios=2000", "--output=" + keep}, quick...)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		option string
	}{
		// The log's folder does not exist: refused before the run.
		{"log folder missing", []string{"--write_iops_log=/nonexistent/dir/x"}, exitUsage, "write_iops_log"},
		{"hist log folder missing", []string{"--write_hist_log=/nonexistent/dir/x"}, exitUsage, "write_hist_log"},
		{"device log folder missing", []string{"--write_device_log=/nonexistent/dir/x.csv"}, exitUsage, "write_device_log"},
		{"json, log folder missing", []string{"--write_lat_log=/nonexistent/dir/x", "--output-format=json"}, exitUsage, "write_lat_log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, append(append([]string{}, job...), c.args...)...)
			require.Equal(t, c.code, code, errOut)
			require.Empty(t, out)
			oneErrorLine(t, errOut)
			require.Contains(t, errOut, c.option)
			got, err := os.ReadFile(keep)
			require.NoError(t, err)
			require.Equal(t, precious, string(got), "keep.txt untouched")
			require.Equal(t, []string{"keep.txt"}, dirNames(t, dir))
		})
	}
	if runtime.GOOS == "linux" {
		// The log fails as it is written, after the run: still nothing
		// replaced, and a failed run (exit 1).
		t.Run("log write fails after the run", func(t *testing.T) {
			logs := t.TempDir()
			require.NoError(t, os.Symlink("/dev/full", filepath.Join(logs, "x_bw.1.log")))
			code, _, errOut := runCmd(t, append(append([]string{}, job...), "--write_bw_log="+filepath.Join(logs, "x"), "--log_avg_msec=0")...)
			require.Equal(t, exitError, code, errOut)
			oneErrorLine(t, errOut)
			require.Contains(t, errOut, "no space left on device")
			got, _ := os.ReadFile(keep)
			require.Equal(t, precious, string(got))
			require.Equal(t, []string{"keep.txt"}, dirNames(t, dir))
		})
	}
	// A run that succeeds replaces the file whole, with what stdout gets.
	code, _, errOut := runCmd(t, job...)
	require.Equal(t, exitOK, code, errOut)
	got, _ := os.ReadFile(keep)
	require.Contains(t, string(got), "write: IOPS=")
	require.NotContains(t, string(got), precious)
	require.Equal(t, []string{"keep.txt"}, dirNames(t, dir))
}

// A job file's outputs are kept the same way.
func TestFailingLogKeepsOutputJobFile(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.json")
	require.NoError(t, os.WriteFile(keep, []byte("{}\n"), 0o644))
	jf := filepath.Join(dir, "j.fio")
	require.NoError(t, os.WriteFile(jf, []byte("[a]\nrw=randwrite\nnumber_ios=500\n[b]\nstonewall\nrw=randread\nnumber_ios=500\n"), 0o644))
	code, _, errOut := runCmd(t, append([]string{"run", jf, "--output=" + keep, "--output-format=json", "--write_device_log=/nonexistent/d.csv"}, quick...)...)
	require.Equal(t, exitUsage, code, errOut)
	oneErrorLine(t, errOut)
	require.Contains(t, errOut, "write_device_log")
	got, _ := os.ReadFile(keep)
	require.Equal(t, "{}\n", string(got))
	require.Equal(t, []string{"j.fio", "keep.json"}, dirNames(t, dir))
}

// errWriter fails every write, like a closed pipe.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// Write errors on the report are errors (exit 1 with a message), not
// silently dropped: a text report to a full device, and to a stdout that
// fails.
func TestWriteErrorsAreErrors(t *testing.T) {
	job := append([]string{"--rw=randread", "--number_ios=200"}, quick...)
	if runtime.GOOS == "linux" {
		for _, format := range []string{"normal", "json", "terse"} {
			code, out, errOut := runCmd(t, append(append([]string{}, job...), "--output=/dev/full", "--output-format="+format)...)
			require.Equal(t, exitError, code, "%s: %s", format, errOut)
			require.Empty(t, out)
			oneErrorLine(t, errOut)
			require.Contains(t, errOut, "/dev/full", format)
			require.Contains(t, errOut, "no space left on device", format)
		}
	}
	var errOut bytes.Buffer
	code := Main(job, errWriter{}, &errOut)
	require.Equal(t, exitError, code, errOut.String())
	oneErrorLine(t, errOut.String())
	require.Contains(t, errOut.String(), "broken pipe")
	errOut.Reset()
	require.Equal(t, exitError, Main([]string{"drives"}, errWriter{}, &errOut))
	require.Contains(t, errOut.String(), "broken pipe")
}
