package cli

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJobFileLogs: a job file's log options apply as fio applies them —
// write_iops_log=NAME writes NAME_iops.N.log for the file's N-th job,
// averaged over that job's log_avg_msec — so the measurement kit's
// consistency.fio writes its log run unchanged; the command line's log
// options give the jobs that set none theirs, and a job's own override
// them (fio's command-line options are defaults before the file's).
func TestJobFileLogs(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "logs.fio")
	require.NoError(t, os.WriteFile(f, []byte("[global]\nrw=randwrite\nbs=4k\nsize=256m\nruntime=3\ntime_based=1\n"+
		"[a]\nwrite_iops_log=fromfile\nlog_avg_msec=1000\n[b]\nstonewall\n"), 0o644))
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	var out, errOut bytes.Buffer
	code := Main([]string{"run", f, "--drive=generic-mlc-small", "--capacity=4GiB", "--write_bw_log=cmd", "--log_avg_msec=500"}, &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	require.NotContains(t, errOut.String(), "write_iops_log", "applied, not listed as not applied")
	lines := func(name string) []string {
		b, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err, name)
		defer b.Close()
		var ls []string
		for s := bufio.NewScanner(b); s.Scan(); {
			ls = append(ls, s.Text())
		}
		return ls
	}
	// Job a: its own iops log, a line a second (its log_avg_msec), and
	// the command line's bw log at its own interval too.
	iops := lines("fromfile_iops.1.log")
	require.Len(t, iops, 3)
	require.True(t, strings.HasPrefix(iops[0], "1000, "), iops[0])
	require.Len(t, lines("cmd_bw.1.log"), 3)
	// Job b: only the command line's, at 500 ms.
	require.Len(t, lines("cmd_bw.2.log"), 6)
	_, err = os.Stat(filepath.Join(dir, "fromfile_iops.2.log"))
	require.True(t, os.IsNotExist(err), "job b asked for no iops log")
}

// A log option given no name names the log after its job, as fio does
// (disk-zone-profile.fio's bare write_bw_log): JOBNAME_bw.N.log.
func TestJobFileLogWithoutName(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "bare.fio")
	require.NoError(t, os.WriteFile(f, []byte("[global]\nrw=randwrite\nbs=4k\nsize=64m\nruntime=2\ntime_based=1\nlog_avg_msec=1000\nwrite_bw_log\n[first]\n[second]\nstonewall\n"), 0o644))
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, Main([]string{"run", f, "--drive=generic-mlc-small", "--capacity=4GiB"}, &out, &errOut), errOut.String())
	for _, name := range []string{"first_bw.1.log", "second_bw.2.log"} {
		_, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err, name)
	}
}
