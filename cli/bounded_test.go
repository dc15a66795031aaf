package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSIGINTDuringIdleTime: a real SIGINT during runs whose simulated time
// is mostly idle — think times of 1e12 ns, a trace's idle gaps — acts
// within 2 s of wall time, and the outputs under way leave no temporary
// file behind. (The test takes SIGINT itself, as TestRealSIGINT does.)
func TestSIGINTDuringIdleTime(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to oneself on Windows")
	}
	dir := t.TempDir()
	var log strings.Builder
	log.WriteString("fio version 3 iolog\n0 f add\n0 f open\n")
	for i := range 2000 { // 2000 writes a million seconds apart
		fmt.Fprintf(&log, "%d f write %d 4096\n", int64(i)*1e12, i*4096)
	}
	gaps := filepath.Join(dir, "gaps.iolog")
	require.NoError(t, os.WriteFile(gaps, []byte(log.String()), 0o644))
	out := func(name string) []string {
		return []string{"--output=" + filepath.Join(dir, name+".json"), "--output-format=json", "--write_lat_log=" + filepath.Join(dir, name), "--write_bw_log=" + filepath.Join(dir, name)}
	}
	cases := []struct {
		name   string
		args   []string
		mayEnd bool // the run may finish before the signal
	}{
		{"think time 1e12 ns, three I/Os", append([]string{"--rw=randwrite", "--number_ios=3", "--thinktime=1000000000"}, quick...), true},
		{"think time 100 s for 70 years", append([]string{"--rw=randwrite", "--thinktime=100000000", "--runtime=2000000000", "--time_based", "--device_log_msec=1000000000"}, quick...), false},
		{"trace gaps of 1e6 s", append([]string{"replay", gaps}, quick...), true},
	}
	self, err := os.FindProcess(os.Getpid())
	require.NoError(t, err)
	caught := make(chan os.Signal, 64)
	signal.Notify(caught, os.Interrupt)
	defer signal.Stop(caught)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if args[0] == "replay" {
				args = append(args[:2:2], append(out(fmt.Sprint("r", i)), args[2:]...)...)
			} else {
				args = append(out(fmt.Sprint("r", i)), args...)
			}
			done := make(chan int, 1)
			var e bytes.Buffer
			go func() {
				var o bytes.Buffer
				done <- Main(args, &o, &e)
			}()
			time.Sleep(300 * time.Millisecond)
			var signalled time.Time
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
		wait:
			for {
				select {
				case code := <-done:
					if signalled.IsZero() {
						require.True(t, c.mayEnd, "the run ended before the signal: %s", e.String())
						require.Equal(t, 0, code)
					} else {
						// A run that ended anyway (the signal came as
						// it wrote its outputs) is not timed: writing
						// waits on the disk.
						require.Contains(t, []int{0, exitInterrupted}, code)
						require.True(t, c.mayEnd || code == exitInterrupted, "code %d", code)
						if code == exitInterrupted {
							require.Less(t, time.Since(signalled), 2*time.Second, "acted on within 2 s")
						}
					}
					break wait
				case <-tick.C:
					if signalled.IsZero() {
						signalled = time.Now()
					}
					require.NoError(t, self.Signal(os.Interrupt))
				case <-time.After(30 * time.Second):
					t.Fatal("the command did not stop on SIGINT")
				}
			}
			tmp, err := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
			require.NoError(t, err)
			require.Empty(t, tmp, "no temporary file left")
		})
	}
}

// TestIssue23InputsExit2: inputs once accepted silently, or ended with
// exit 1 naming no file, exit 2 with one line saying what was wrong.
func TestIssue23InputsExit2(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	empty := file("empty.txt", "")
	spcBig := file("big.csv", "0,36028797018963968,4096,w,0.0\n")
	v2nan := file("nan.iolog", "fio version 2 iolog\nf add\nf write 0 4096\nf wait nan\nf write 0 4096\n")
	think := file("think.fio", "[a]\nrw=randwrite\nthinktime=9223372036854775807\nnumber_ios=3\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--group_reporting=bogus", "--number_ios=3"}, "--group_reporting=bogus: must be 0 or 1"},
		{[]string{"--buffer_pattern=0x", "--number_ios=3"}, "buffer_pattern=0x"},
		{[]string{"--bssplit=4k/50:8k/NaN", "--number_ios=3"}, `percentage "NaN"`},
		{[]string{"--thinktime=9223372036854775", "--number_ios=3"}, "thinktime=9223372036854775"},
		{[]string{"replay", empty, "--format=spc"}, empty + ": no request in the trace"},
		{[]string{"replay", spcBig, "--format=spc", "--beyond=reject"}, spcBig + `:1: LBA "36028797018963968"`},
		{[]string{"replay", v2nan}, v2nan + `:4: wait "nan"`},
		{[]string{"run", think}, think + ":3"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := c.args
			if args[0] == "replay" || args[0] == "run" {
				args = append(args[:2:2], append(quick, args[2:]...)...)
			} else {
				args = append(append([]string{}, quick...), args...)
			}
			code, out, errOut := runCmd(t, args...)
			require.Equal(t, exitUsage, code, errOut)
			require.Empty(t, out)
			oneErrorLine(t, errOut)
			require.Contains(t, errOut, c.want)
		})
	}
}

// TestRateNotReachedSaysSo: --rate above what the drive does runs for its
// runtime at the drive's speed, and the text says the rate was not
// reached.
func TestRateNotReachedSaysSo(t *testing.T) {
	code, out, errOut := runCmd(t, append([]string{"--rw=randwrite", "--bs=4k", "--iodepth=4", "--runtime=1", "--time_based", "--rate=10G"}, quick...)...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "rate 10 GiB/s not reached: the drive did")
	require.Contains(t, out, "msec)")
	require.Regexp(t, `/10\d\dmsec\)`, out, "the runtime is honoured")
}

// TestDescribeDiffNamesFields: a snapshot's description and the run's are
// compared field by field: a field added (as --faults adds one) is named,
// not every line after it paired with the wrong one.
func TestDescribeDiffNamesFields(t *testing.T) {
	saved := "name: d\nnand:\n  geometry:\n    channels: 4\n    planes_per_die: 2\nfirmware:\n  gc_policy: greedy\n"
	now := "name: d\nnand:\n  reliability:\n    rber_scale: 100\n  geometry:\n    channels: 8\n    planes_per_die: 2\nfirmware:\n  gc_policy: greedy\n"
	require.Equal(t, "nand.geometry.channels: 4, here 8; nand.reliability: not set, here ; nand.reliability.rber_scale: not set, here 100", describeDiff(saved, now))
	require.Equal(t, "7 lines, here 8", describeDiff(saved, saved+"\n"), "only blank lines differ")
}
