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
						require.Less(t, time.Since(signalled), 2*time.Second, "acted on within 2 s")
						require.Contains(t, []int{0, exitInterrupted}, code)
						require.True(t, c.mayEnd || code == exitInterrupted, "code %d", code)
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
