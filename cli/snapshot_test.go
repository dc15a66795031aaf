package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/internal/testtier"
)

// without returns args less those that start with prefix.
func without(args []string, prefix string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, prefix) {
			out = append(out, a)
		}
	}
	return out
}

// runSaveLoad runs args three ways — as they are, with --save_state, and
// with --load_state of the saved file and no --precondition — and
// returns the three outputs and the saved file.
func runSaveLoad(t *testing.T, args []string) (plain, saved, loaded, file string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "drive.state")
	code, plain, errOut := runCmd(t, args...)
	require.Equal(t, exitOK, code, errOut)
	code, saved, errOut = runCmd(t, append(args, "--save_state="+file)...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "saved the prepared drive to "+file)
	code, loaded, errOut = runCmd(t, append(without(args, "--precondition="), "--load_state="+file)...)
	require.Equal(t, exitOK, code, errOut)
	return plain, saved, loaded, file
}

// A run from a saved state gives byte for byte the JSON of the run that
// saved it, and of a run that never saved, on drives with each mechanism
// that keeps state of its own.
func TestStateRunsIdentical(t *testing.T) {
	job := []string{"--rw=randrw", "--rwmixread=50", "--bs=4k", "--iodepth=32", "--runtime=2", "--time_based", "--output-format=json"}
	jobFile := filepath.Join(t.TempDir(), "two-groups.fio")
	require.NoError(t, os.WriteFile(jobFile, []byte("[global]\nbs=4k\nruntime=1\ntime_based\n[writes]\nrw=randwrite\niodepth=32\n[reads]\nstonewall\nrw=randread\niodepth=4\n"), 0o644))
	small := []string{"--drive=generic-mlc-small", "--capacity=4GiB", "--op=25", "--precondition=torture:3s", "--output-format=json"}
	cases := []struct {
		name string
		args []string
	}{
		{"generic, fill", append([]string{"--drive=generic-mlc-small", "--capacity=4GiB", "--op=25", "--precondition=fill"}, job...)},
		{"phison bp4 (paced GC), torture", append([]string{"--drive=bp4-240", "--capacity=16GB", "--precondition=torture:10s"}, job...)},
		{"sandforce atlas (compression, RAISE, mapping cache)", append([]string{"--drive=atlas-240", "--capacity=16GB", "--precondition=torture:5s", "--buffer_compress_percentage=50"}, job...)},
		{"read errors, worn and aged", append([]string{"--drive=m4-256", "--capacity=16GB", "--precondition=fill", "--faults=wear=1,age=1y,rber_scale=10"}, job...)},
		{"verify (data kept)", append([]string{"--drive=generic-mlc-small", "--capacity=4GiB", "--op=25", "--precondition=torture:5s"},
			"--rw=randwrite", "--bs=4k", "--iodepth=16", "--number_ios=20000", "--verify=crc32c", "--output-format=json")},
		{"power loss", append([]string{"--drive=generic-mlc-small", "--capacity=4GiB", "--op=25", "--precondition=fill", "--power_loss=1s"}, job...)},
		{"numjobs (a job file's path)", append([]string{"--drive=generic-mlc-small", "--capacity=4GiB", "--op=25", "--precondition=torture:5s", "--numjobs=2"}, job...)},
		{"a job file of two groups", append([]string{"run", jobFile}, small...)},
		{"a trace replayed", append([]string{"replay", "../workload/trace/testdata/fio-3.33-randwrite-1000iops.iolog"}, small...)},
		{"seasoned (--precondition=season)", append([]string{"--drive=generic-mlc-small", "--capacity=2GiB", "--op=25", "--precondition=season"}, job...)},
		{"partition (--size)", append([]string{"--drive=generic-mlc-small", "--capacity=4GiB", "--op=25", "--precondition=fill", "--size=75%"}, job...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plain, saved, loaded, _ := runSaveLoad(t, c.args)
			require.True(t, strings.HasPrefix(plain, "{"), plain)
			require.Equal(t, plain, saved)
			require.Equal(t, plain, loaded)
			require.NotContains(t, plain, "state")
			if strings.Contains(c.name, "read errors") {
				require.NotContains(t, plain, `"read_retries": 0,`) // the model is at work
			}
		})
	}
}

// The text output of a loaded run states the preparation of the run
// that saved it; only the wall time differs.
func TestStateTextOutput(t *testing.T) {
	args := append(append([]string{}, quick...), "--precondition=torture:3s", "--rw=randwrite", "--runtime=1", "--time_based")
	plain, _, loaded, _ := runSaveLoad(t, args)
	trim := func(s string) string { return s[:strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n")] }
	require.Contains(t, plain, "precondition: fill, then 3s of 4 KiB random writes")
	require.Equal(t, trim(plain), trim(loaded))
}

// --prepare_only saves the prepared drive and runs no job; a run with
// another --randseed from it is accepted (the seed seeds the workload).
func TestPrepareOnly(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s")
	code, out, errOut := runCmd(t, append(append([]string{}, quick...), "--precondition=fill", "--save_state="+file, "--prepare_only")...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "precondition: sequential fill")
	require.Contains(t, out, "state saved to "+file)
	require.FileExists(t, file)
	code, out, errOut = runCmd(t, append(append([]string{}, quick...), "--load_state="+file, "--rw=randwrite", "--number_ios=1000", "--randseed=99", "--output-format=json")...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, `"precondition": "fill"`)
}

// A snapshot that is damaged, or was made from another drive or
// preparation, is refused with exit status 2 and one line naming the
// file and what is wrong.
func TestStateRefused(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	args := append(append([]string{}, quick...), "--precondition=torture:2s")
	code, _, errOut := runCmd(t, append(args, "--save_state="+good, "--prepare_only")...)
	require.Equal(t, exitOK, code, errOut)
	b, err := os.ReadFile(good)
	require.NoError(t, err)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	flipped := bytes.Clone(b)
	flipped[len(b)/2] ^= 0x10
	version := bytes.Clone(b)
	version[8] = 99
	job := []string{"--rw=randread", "--number_ios=100"}
	cases := []struct {
		name string
		file string
		args []string // instead of quick's
		want string
	}{
		{"a byte changed in the payload", write("flipped", flipped), nil, "checksum mismatch"},
		{"truncated", write("cut", b[:len(b)-100]), nil, "truncated"},
		{"a few bytes", write("short", b[:5]), nil, "truncated"},
		{"empty", write("empty", nil), nil, "truncated"},
		{"not a snapshot", write("magic", append([]byte("#!/bin/sh\n"), b[10:]...)), nil, "not an ftlsim snapshot"},
		{"another version", write("version", version), nil, "unknown snapshot format version 99"},
		{"no such file", filepath.Join(dir, "none"), nil, "no such file"},
		{"a folder", dir, nil, "is a folder"},
		{"other spare area", good, []string{"--drive=generic-mlc-small", "--capacity=4GiB", "--op=7"}, "the drive description differs"},
		{"other drive", good, []string{"--drive=generic-mlc", "--capacity=16GiB", "--op=25"}, "the drive description differs"},
		{"other GC policy", good, append(append([]string{}, quick...), "--gc=fifo"), "the drive description differs"},
		{"verify (data kept)", good, append(append([]string{}, quick...), "--verify=crc32c", "--rw=write"), "the drive description differs"},
		{"other precondition", good, append(append([]string{}, quick...), "--precondition=fill"), "prepared with --precondition=torture:2s, this run asks --precondition=fill"},
		{"other torture", good, append(append([]string{}, quick...), "--precondition=torture:3s"), "--precondition="},
		{"other range", good, append(append([]string{}, quick...), "--size=50%"), "the preparation differs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := c.args
			if a == nil {
				a = quick
			}
			code, out, errOut := runCmd(t, append(append(append([]string{}, a...), job...), "--load_state="+c.file)...)
			require.Equal(t, exitUsage, code, "stderr: %s", errOut)
			require.Empty(t, out)
			require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			require.Contains(t, errOut, "--load_state="+c.file+": ")
			require.Contains(t, errOut, c.want)
		})
	}
}

// A preparation stopped by SIGINT saves nothing: a file of a drive half
// prepared would start runs from the wrong state.
func TestStateNotSavedWhenStopped(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code := Main(append(append([]string{}, quick...), "--precondition=fill", "--save_state="+file, "--prepare_only"), &out, &errOut, WithContext(ctx))
	require.Equal(t, exitInterrupted, code, errOut.String())
	require.Contains(t, errOut.String(), "--save_state="+file+" was not written")
	require.NoFileExists(t, file)
}

func TestStateOptionsRefused(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--prepare_only"}, "--prepare_only: needs --save_state"},
		{[]string{"--prepare_only=maybe", "--save_state=" + filepath.Join(dir, "x")}, "--prepare_only=maybe"},
		{[]string{"--save_state=" + filepath.Join(dir, "a"), "--load_state=" + filepath.Join(dir, "b")}, "give one"},
		{[]string{"--save_state=" + filepath.Join(dir, "no", "such", "dir")}, "--save_state="},
		{[]string{"scenario", "fill", "--save_state=x"}, "unknown option --save_state"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, append(c.args, quick...)...)
			require.Equal(t, exitUsage, code, "stderr: %s", errOut)
			require.Empty(t, out)
			require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			require.Contains(t, errOut, c.want)
		})
	}
}

// The long tier's claim: bp4-240 at full size, filled and tortured for
// 30 minutes as the reviews do, saved, loaded and run gives the JSON of
// the unbroken run — the run that saved the state, which runs its job as
// usual after saving. (How long loading takes against preparing is
// logged, not asserted: speed is measured by benchmarks, not timed
// tests.)
func TestStateBP4FullSize(t *testing.T) {
	testtier.Long(t)
	args := []string{"--drive=bp4-240", "--precondition=torture:30m", "--rw=randwrite", "--bs=4k", "--iodepth=32",
		"--runtime=60", "--time_based", "--norandommap", "--output-format=json"}
	file := filepath.Join(t.TempDir(), "bp4.state")
	start := time.Now()
	code, plain, errOut := runCmd(t, append(args, "--save_state="+file)...)
	require.Equal(t, exitOK, code, errOut)
	prepare := time.Since(start)
	start = time.Now()
	code, loaded, errOut := runCmd(t, append(without(args, "--precondition="), "--load_state="+file)...)
	require.Equal(t, exitOK, code, errOut)
	t.Logf("fill, torture, save and run %v; load and run %v", prepare, time.Since(start))
	require.Contains(t, loaded, `"precondition": "torture:1800s"`)
	require.Equal(t, plain, loaded)
}

// A state loads into a drive whose firmware costs differ, with a note
// naming them, and runs at the new costs; a value that shapes the state
// is still refused.
func TestStateOtherCosts(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s")
	code, _, errOut := runCmd(t, append(append([]string{}, quick...), "--precondition=fill", "--save_state="+file, "--prepare_only")...)
	require.Equal(t, exitOK, code, errOut)
	code, desc, errOut := runCmd(t, "drives", "generic-mlc-small")
	require.Equal(t, exitOK, code, errOut)
	edit := func(name, from, to string) string {
		require.Contains(t, desc, from)
		p := filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(p, []byte(strings.Replace(desc, from, to, 1)), 0o644))
		return p
	}
	job := []string{"--capacity=4GiB", "--op=25", "--rw=randwrite", "--bs=4k", "--iodepth=32", "--number_ios=20000", "--output-format=json"}
	costly := edit("costly", "\nfirmware:\n  command_ns: 7000", "\nfirmware:\n  command_ns: 7000\n  write_command_ns: 200000")
	code, slow, errOut := runCmd(t, append([]string{"--drive=" + costly, "--load_state=" + file}, job...)...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "prepared with other costs (firmware.write_command_ns not set, here 200000)")
	code, fast, errOut := runCmd(t, append([]string{"--drive=generic-mlc-small", "--load_state=" + file}, job...)...)
	require.Equal(t, exitOK, code, errOut)
	require.NotEqual(t, fast, slow, "the costs loaded are the run's")

	shaped := edit("shaped", "\n  gc_low_water: 2", "\n  gc_low_water: 3")
	code, out, errOut := runCmd(t, append([]string{"--drive=" + shaped, "--load_state=" + file}, job...)...)
	require.Equal(t, exitUsage, code, errOut)
	require.Empty(t, out)
	require.Contains(t, errOut, "firmware.gc_low_water: 2, here 3")
	require.Contains(t, errOut, "only the firmware's and controller's costs and rates may differ")
}
