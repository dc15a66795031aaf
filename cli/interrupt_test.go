package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// long is a job that would run for a day of simulated time.
var long = append([]string{"--rw=randwrite", "--iodepth=8", "--runtime=86400", "--time_based"}, quick...)

// runUntil runs the command with a context cancelled after d (at once
// for 0), as SIGINT would stop it.
func runUntil(t *testing.T, d time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if d == 0 {
		cancel()
	} else {
		timer := time.AfterFunc(d, cancel)
		defer timer.Stop()
	}
	var o, e bytes.Buffer
	code = Main(args, &o, &e, WithContext(ctx))
	return code, o.String(), e.String()
}

// fioDoc decodes fio JSON.
func fioDoc(t *testing.T, s string) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &doc), s)
	return doc
}

// Interrupted, a job writes its results so far, marked "interrupted":
// true at the top of the JSON as fio prints them on Ctrl-C, and exits
// 130.
func TestInterruptedJobWritesResults(t *testing.T) {
	code, out, errOut := runUntil(t, 300*time.Millisecond, append([]string{"--output-format=json"}, long...)...)
	require.Equal(t, exitInterrupted, code, errOut)
	oneErrorLine(t, errOut)
	require.Contains(t, errOut, "interrupted")
	doc := fioDoc(t, out)
	require.Equal(t, true, doc["interrupted"])
	job := doc["jobs"].([]any)[0].(map[string]any)
	w := job["write"].(map[string]any)
	require.Positive(t, w["total_ios"].(float64), "the I/Os done until then")
	require.Less(t, job["job_runtime"].(float64), 86400e3, "stopped before the runtime asked for")

	// The text report says so.
	code, out, errOut = runUntil(t, 200*time.Millisecond, long...)
	require.Equal(t, exitInterrupted, code, errOut)
	require.Contains(t, out, "interrupted: stopped after")
	require.Contains(t, out, "write: IOPS=")

	// Stopped before it starts (during the precondition, or at once):
	// the results are empty but written, and marked.
	code, out, errOut = runUntil(t, 0, append([]string{"--output-format=json", "--precondition=fill"}, long...)...)
	require.Equal(t, exitInterrupted, code, errOut)
	doc = fioDoc(t, out)
	require.Equal(t, true, doc["interrupted"])
	require.Zero(t, doc["jobs"].([]any)[0].(map[string]any)["write"].(map[string]any)["total_ios"])
}

// Stopped during its fill, the text report says the precondition was
// interrupted, not how long a finished fill took.
func TestInterruptedPreconditionSaysSo(t *testing.T) {
	code, out, errOut := runUntil(t, 0, append([]string{"--precondition=fill"}, long...)...)
	require.Equal(t, exitInterrupted, code, errOut)
	require.Contains(t, out, "precondition: sequential fill (stopped after")
	require.Contains(t, out, "interrupted before it finished")
	code, out, errOut = runUntil(t, 0, append([]string{"--precondition=torture:10s"}, long...)...)
	require.Equal(t, exitInterrupted, code, errOut)
	require.Contains(t, out, "interrupted before it finished")
}

// An interrupted run's --output and logs are written whole.
func TestInterruptedRunCommitsOutputs(t *testing.T) {
	dir := t.TempDir()
	outFile, logs := filepath.Join(dir, "out.json"), filepath.Join(dir, "x")
	code, _, errOut := runUntil(t, 200*time.Millisecond, append([]string{"--output-format=json", "--output=" + outFile,
		"--write_iops_log=" + logs, "--log_avg_msec=1000", "--write_device_log=" + logs + ".csv"}, long...)...)
	require.Equal(t, exitInterrupted, code, errOut)
	b, err := os.ReadFile(outFile)
	require.NoError(t, err)
	require.Equal(t, true, fioDoc(t, string(b))["interrupted"])
	for _, f := range []string{"x_iops.1.log", "x.csv"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		require.Positive(t, st.Size(), f)
	}
	require.Len(t, dirNames(t, dir), 3, "no temporary file left")
}

// A job file stops in the group under way; later groups neither run nor
// appear.
func TestInterruptedJobFile(t *testing.T) {
	jf := filepath.Join(t.TempDir(), "j.fio")
	require.NoError(t, os.WriteFile(jf, []byte("[global]\niodepth=8\n[a]\nrw=randwrite\nruntime=86400\ntime_based\n[b]\nstonewall\nrw=randread\nnumber_ios=100\n"), 0o644))
	code, out, errOut := runUntil(t, 200*time.Millisecond, append([]string{"run", jf, "--output-format=json"}, quick...)...)
	require.Equal(t, exitInterrupted, code, errOut)
	doc := fioDoc(t, out)
	require.Equal(t, true, doc["interrupted"])
	jobs := doc["jobs"].([]any)
	require.Len(t, jobs, 1)
	require.Equal(t, "a", jobs[0].(map[string]any)["jobname"])
}

// A scenario stops in the step under way.
func TestInterruptedScenario(t *testing.T) {
	code, out, errOut := runUntil(t, 300*time.Millisecond, append([]string{"scenario", "consistency", "--time=86400s", "--output-format=json"}, quick...)...)
	require.Equal(t, exitInterrupted, code, errOut)
	require.Equal(t, true, fioDoc(t, out)["interrupted"])
	code, out, _ = runUntil(t, 300*time.Millisecond, append([]string{"scenario", "consistency", "--time=86400s"}, quick...)...)
	require.Equal(t, exitInterrupted, code)
	require.Contains(t, out, "interrupted:")
}

// A real SIGINT to this process stops the command's run the same way.
// The test first takes SIGINT itself (signal.Notify), so that a signal
// arriving before Main watches for it cannot end the test binary; it then
// signals until Main returns. No test of this package runs in parallel,
// so no other run is stopped.
func TestRealSIGINT(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to oneself on Windows")
	}
	self, err := os.FindProcess(os.Getpid())
	require.NoError(t, err)
	caught := make(chan os.Signal, 16)
	signal.Notify(caught, os.Interrupt)
	defer signal.Stop(caught)
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		var o, e bytes.Buffer
		code := Main(append([]string{"--output-format=json"}, long...), &o, &e)
		done <- result{code, o.String(), e.String()}
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case r := <-done:
			require.Equal(t, exitInterrupted, r.code, r.err)
			require.Equal(t, true, fioDoc(t, r.out)["interrupted"])
			require.True(t, strings.HasPrefix(r.err, "ftlsim: interrupted"), r.err)
			return
		case <-tick.C:
			require.NoError(t, self.Signal(os.Interrupt))
		case <-deadline:
			t.Fatal("the command did not stop on SIGINT")
		}
	}
}
