package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/memlimit"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim/fioreport"
)

// A drive larger than the memory limit is refused with one line naming
// the option and the limit, exit 2, before anything is allocated.
func TestMemoryRefusal(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want []string
	}{
		{[]string{"--capacity=1TB", "--max_memory=1GiB"}, "", []string{"--capacity=1TB: not enough memory", "allowed 1 GiB (set by --max_memory)"}},
		{[]string{"--capacity=1TB"}, "1GiB", []string{"--capacity=1TB: not enough memory", "set by " + memlimit.EnvVar}},
		{[]string{"--drive=generic-mlc", "--max_memory=100MB"}, "", []string{"--drive=generic-mlc: not enough memory"}},
		// The statistics count too: 64 jobs' series of a million intervals.
		{[]string{"--numjobs=64", "--runtime=1000", "--device_log_msec=1", "--max_memory=4GB"}, "", []string{"--device_log_msec=1: not enough memory", "64 job(s)"}},
		{[]string{"--max_memory=0"}, "", []string{"--max_memory=0"}},
		{[]string{"review", "--drive=generic-mlc", "--max_memory=100MB"}, "", []string{"--drive=generic-mlc", "not enough memory"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Setenv(memlimit.EnvVar, c.env)
			args := append([]string{"--rw=randwrite"}, c.args...)
			if c.args[0] == "review" {
				args = append(c.args, "--out="+filepath.Join(t.TempDir(), "r"))
			}
			code, out, errOut := runCmd(t, args...)
			require.Equal(t, exitUsage, code, errOut)
			require.Empty(t, out)
			oneErrorLine(t, errOut)
			for _, w := range c.want {
				require.Contains(t, errOut, w)
			}
		})
	}
}

// --capacity=8TB on a machine with less than twice the memory it takes
// is refused by the machine's own limit (half its MemAvailable), never
// "fatal error: out of memory". A machine with that much memory skips
// this (it would build the drive).
func TestMachineMemoryRefusal(t *testing.T) {
	info, err := memlimit.ReadMeminfo()
	if err != nil {
		t.Skip("no /proc/meminfo")
	}
	avail, err := memlimit.MemAvailable(info)
	require.NoError(t, err)
	cfg, err := controller.Preset("generic-mlc")
	require.NoError(t, err)
	r, err := cfg.Resized(8e12, cfg.OPPercent).Resolve()
	require.NoError(t, err)
	need := memlimit.Drive(r, false)
	if float64(avail)/2 > float64(need)/1.25 {
		t.Skipf("this machine has %d bytes available: half of it is not clearly less than the %d an 8 TB drive takes", avail, need)
	}
	t.Setenv(memlimit.EnvVar, "")
	code, out, errOut := runCmd(t, "--capacity=8TB", "--rw=randwrite", "--runtime=1")
	require.Equal(t, exitUsage, code, errOut)
	require.Empty(t, out)
	oneErrorLine(t, errOut)
	require.Contains(t, errOut, "--capacity=8TB: not enough memory")
	require.Contains(t, errOut, "this machine has available")
}

// A series longer than the JSON holds goes to the device log only, with a
// note in the JSON and on stderr.
func TestLongSeriesInTheLogOnly(t *testing.T) {
	// 40 s in intervals of a millisecond: 40,000 and the run's last
	// sliver, the I/Os in flight when it stopped.
	csvFile := filepath.Join(t.TempDir(), "dev.csv")
	args := append([]string{"--rw=randread", "--runtime=40", "--time_based", "--device_log_msec=1", "--output-format=json"}, quick...)
	code, out, errOut := runCmd(t, args...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "note: job randread: the series has")
	series := fioDoc(t, out)["jobs"].([]any)[0].(map[string]any)["series"].(map[string]any)
	n := int(series["intervals"].(float64))
	require.Greater(t, n, fioreport.MaxSeries)
	require.Contains(t, series["note"], "--write_device_log")
	require.Nil(t, series["iops"], "no column")

	code, _, errOut = runCmd(t, append(args, "--write_device_log="+csvFile)...)
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, errOut, "note:", "the device log holds the series")
	f, err := os.Open(csvFile)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	// A header, then a row an interval, but for runs of like intervals,
	// written as their first and last rows: up to the series' end.
	require.LessOrEqual(t, len(rows), n+1)
	require.Greater(t, len(rows), 2)
	last, err := strconv.ParseFloat(rows[len(rows)-1][0], 64)
	require.NoError(t, err)
	require.InDelta(t, float64(n)/1000, last, 0.002, "the last row ends the series")
}

// A limit given is the limit, up to the machine's memory: no bound of
// its own in the drive's description refuses a drive first (there was
// one at 16 GiB of state, which --max_memory=40GiB could not raise). The
// limit given refuses a drive too big for it, naming itself; a limit
// above the drive's need lets it be checked and sized; and a limit above
// the machine's memory is capped there, and the refusal says so.
func TestGivenMemoryLimitIsHonoured(t *testing.T) {
	t.Setenv(memlimit.EnvVar, "")
	code, out, errOut := runCmd(t, "--drive=m4-256", "--capacity=8TiB", "--max_memory=8GiB", "--rw=randwrite", "--runtime=1")
	require.Equal(t, exitUsage, code, errOut)
	require.Empty(t, out)
	oneErrorLine(t, errOut)
	// (2.3 G units of flash: the compact reverse map, controller.CompactMapUnits.)
	require.Contains(t, errOut, "--capacity=8TiB: not enough memory: the drive, 8.59 TiB of flash, takes about 10 GiB")
	require.Contains(t, errOut, "allowed 8 GiB (set by --max_memory)")

	// The sweep's check of a point: the drive sized, not built.
	need, err := CommandMemory([]string{"--drive=m4-256", "--capacity=8TiB", "--max_memory=40GiB", "--rw=randwrite", "--runtime=1"}, nil)
	require.NoError(t, err)
	require.Greater(t, need, int64(9<<30))

	info, err := memlimit.ReadMeminfo()
	if err != nil {
		t.Skip("no /proc/meminfo")
	}
	total, err := memlimit.MemTotal(info)
	require.NoError(t, err)
	const capacity = "14TiB" // about 17.5 GiB of state (compact reverse map), within nand.MaxUnits
	big, err := CommandMemory([]string{"--drive=m4-256", "--capacity=" + capacity, "--rw=randwrite", "--runtime=1"}, nil)
	require.NoError(t, err)
	if float64(total) > float64(big)/1.1 {
		t.Skipf("this machine has %d bytes of memory, not clearly less than the %d a %s drive takes", total, big, capacity)
	}
	code, _, errOut = runCmd(t, "--drive=m4-256", "--capacity="+capacity, "--max_memory=1PiB", "--rw=randwrite", "--runtime=1")
	require.Equal(t, exitUsage, code, errOut)
	oneErrorLine(t, errOut)
	require.Contains(t, errOut, "--capacity="+capacity+": not enough memory")
	require.Contains(t, errOut, "(--max_memory=1PiB is more than this machine's "+units.FormatBytes(total)+" of memory: capped there)")
}

// --compact_map=1 keeps no OOB tags on the simulated flash: the same run
// reports the same device figures, and a drive that does not fit a memory
// limit with its tags runs within it without them.
func TestCompactMap(t *testing.T) {
	t.Setenv(memlimit.EnvVar, "")
	run := func(extra ...string) string {
		args := append([]string{"--drive=generic-mlc-small", "--precondition=fill", "--rw=randwrite", "--bs=4k",
			"--iodepth=32", "--number_ios=300000", "--output-format=json"}, extra...)
		code, out, errOut := runCmd(t, args...)
		require.Equal(t, 0, code, errOut)
		i := strings.Index(out, `"device"`)
		require.Positive(t, i, out)
		return out[i:]
	}
	require.Equal(t, run(), run("--compact_map=1"), "the device's figures, with and without the tags")

	size := func(drop bool) int64 {
		cfg, err := controller.Preset("generic-mlc")
		require.NoError(t, err)
		cfg.NAND.DropTags = drop
		r, err := cfg.Resized(64<<30, cfg.OPPercent).Resolve()
		require.NoError(t, err)
		return memlimit.Drive(r, false)
	}
	full, compact := size(false), size(true)
	require.Less(t, float64(compact), 0.6*float64(full), "the tags are about half of a 4 KiB-unit drive's state")
	args := []string{"--capacity=64GiB", "--rw=randwrite", "--number_ios=1000", "--max_memory=" + strconv.FormatInt((full+compact)/2, 10)}
	code, _, errOut := runCmd(t, args...)
	require.Equal(t, exitUsage, code, errOut)
	require.Contains(t, errOut, "not enough memory")
	code, _, errOut = runCmd(t, append(args, "--compact_map=1")...)
	require.Equal(t, 0, code, errOut)

	code, _, errOut = runCmd(t, "--compact_map=2")
	require.Equal(t, exitUsage, code)
	oneErrorLine(t, errOut)
	require.Contains(t, errOut, "--compact_map=2: allowed 0 or 1")
}
