package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// Tests of scenarios, product lines and the output formats through the command.

// TestScenarioLogs: a scenario writes its device log, a file a measured
// step, and refuses fio's per-I/O logs rather than dropping them.
func TestScenarioLogs(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCmd(t, append([]string{"scenario", "trim-validation", "--torture_time=5s", "--measure_time=2s", "--write_device_log=" + filepath.Join(dir, "dev.csv")}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	for _, step := range []string{"clean", "dirty", "after-trim"} {
		b, err := os.ReadFile(filepath.Join(dir, "dev_"+step+".csv"))
		require.NoError(t, err, step)
		require.GreaterOrEqual(t, strings.Count(string(b), "\n"), 3, step)
	}
	for _, opt := range []string{"write_iops_log", "write_bw_log", "write_lat_log"} {
		code, _, errOut = runCmd(t, append([]string{"scenario", "torture", "--time=5s", "--" + opt + "=" + filepath.Join(dir, "x")}, quick...)...)
		require.Equal(t, exitUsage, code)
		require.Contains(t, errOut, "--"+opt)
		require.Equal(t, 1, strings.Count(errOut, "\n"))
	}
}

// TestJSONPlus: --output-format=json+ is the JSON with fio's latency
// bins, which count every completion.
func TestJSONPlus(t *testing.T) {
	code, out, errOut := runCmd(t, append([]string{"--rw=randread", "--runtime=1", "--output-format=json+"}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	var doc struct {
		Jobs []struct {
			Read struct {
				TotalIOs int64 `json:"total_ios"`
				ClatNs   struct {
					Bins map[string]int64 `json:"bins"`
				} `json:"clat_ns"`
			} `json:"read"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	var n int64
	for _, c := range doc.Jobs[0].Read.ClatNs.Bins {
		n += c
	}
	require.Positive(t, n)
	require.Equal(t, doc.Jobs[0].Read.TotalIOs, n)
}

func TestVersion(t *testing.T) {
	code, out, _ := runCmd(t, "--version")
	require.Equal(t, exitOK, code)
	require.True(t, strings.HasPrefix(out, "ftlsim "), out)
	require.Equal(t, Version()+"\n", out)
}

func TestScenarioCommand(t *testing.T) {
	code, out, _ := runCmd(t, "scenario")
	require.Equal(t, exitOK, code)
	for _, n := range []string{"consistency", "trim-validation", "atto", "hdtach", "four-corners"} {
		require.Contains(t, out, n)
	}
	code, out, errOut := runCmd(t, append([]string{"scenario", "trim-validation", "--torture_time=60s", "--measure_time=5s"}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	for _, s := range []string{"clean", "dirty", "after-trim"} {
		require.Contains(t, out, s)
	}
	// HD Tach after a torture: the write curve's shape, a tenth of the
	// span at a time, recovering as the drive cleans up.
	code, out, errOut = runCmd(t, append([]string{"scenario", "hdtach", "--torture=1", "--torture_time=60s"}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	m := regexp.MustCompile(`write-curve: MB/s over each tenth of the \S+ GB written:((?: [0-9]+){10});`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	var tenths []float64
	for _, f := range strings.Fields(m[1]) {
		v, err := strconv.ParseFloat(f, 64)
		require.NoError(t, err)
		tenths = append(tenths, v)
	}
	require.Greater(t, tenths[9], tenths[0], "recovers across the span")
	code, out, errOut = runCmd(t, append([]string{"scenario", "atto", "--length=4m", "--output-format=json"}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc["jobs"].([]any), 30)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"scenario", "bake"}, `unknown scenario bake (scenarios: access-patterns, `},
		{[]string{"scenario", "torture", "--time=soon"}, "time=soon"},
		{[]string{"scenario", "torture", "--tiem=1m"}, "--tiem"},
		{[]string{"scenario", "torture", "extra"}, "extra"},
		{[]string{"scenario", "spare-area", "--spare=95"}, "spare=95"},
	} {
		code, _, errOut := runCmd(t, c.args...)
		require.Equal(t, exitUsage, code, "%v: %s", c.args, errOut)
		require.Contains(t, errOut, c.want)
	}
}

// TestResizeProductLine: --op and --capacity resize a product-line preset
// (physical = capacity × (1 + OP)), keeping its dies.
func TestResizeProductLine(t *testing.T) {
	m4, err := controller.Preset("m4-256")
	require.NoError(t, err)
	code, out, errOut := runCmd(t, "--drive=m4-256", "--op=25", "--rw=write", "--size=64m")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "(25.0")
	require.Contains(t, out, fmt.Sprintf("%d dies", m4.NAND.Geometry.Dies()))
	bp4, err := controller.Preset("bp4-240")
	require.NoError(t, err)
	code, out, errOut = runCmd(t, "--drive=bp4-240", "--capacity=120GB", "--rw=write", "--size=64m")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, fmt.Sprintf("%.2f GiB user", 120e9/(1<<30)))
	// The line's own spare area is kept: the preset's flash over its
	// capacity.
	spare := 100 * (float64(bp4.NAND.Geometry.Bytes())/float64(bp4.Capacity) - 1)
	require.Contains(t, out, fmt.Sprintf("(%.1f", spare), "the line's own spare area is kept")
	require.Contains(t, out, fmt.Sprintf("%d dies", bp4.NAND.Geometry.Dies()))
}

// TestDrivesRoundTripProductLine: what "drives NAME" prints for a product
// line (sizing: spare, its spare area stated) builds the same drive.
func TestDrivesRoundTripProductLine(t *testing.T) {
	code, yaml, _ := runCmd(t, "drives", "m4-256")
	require.Equal(t, exitOK, code)
	require.Contains(t, yaml, "sizing: spare")
	f := filepath.Join(t.TempDir(), "m4.yaml")
	require.NoError(t, os.WriteFile(f, []byte(yaml), 0o644))
	firstLine := func(args ...string) string {
		code, out, errOut := runCmd(t, append(args, "--rw=write", "--size=16m")...)
		require.Equal(t, exitOK, code, errOut)
		return strings.SplitN(out, "\n", 2)[0]
	}
	require.Equal(t, firstLine("--drive=m4-256"), firstLine("--drive="+f))
}

// TestResizeNeedsStatedSizes: --capacity and --op size the flash from the
// drive's capacity and spare area; a description that derives the one
// not given is an error naming the option to add. A description with a
// full geometry but no sizing (flash by default) names blocks_per_plane.
func TestResizeNeedsStatedSizes(t *testing.T) {
	dir := t.TempDir()
	_, yaml, _ := runCmd(t, "drives", "m4-256")
	var noOP []string
	for _, l := range strings.Split(yaml, "\n") {
		if !strings.HasPrefix(l, "op_percent:") {
			noOP = append(noOP, l)
		}
	}
	spare := filepath.Join(dir, "spare.yaml")
	require.NoError(t, os.WriteFile(spare, []byte(strings.Join(noOP, "\n")), 0o644))
	derived := filepath.Join(dir, "capacity.yaml")
	require.NoError(t, os.WriteFile(derived, []byte(strings.Replace(strings.Replace(yaml,
		"sizing: spare", "sizing: capacity", 1), "capacity: 256GB", "capacity: 0", 1)), 0o644))
	legacy := filepath.Join(dir, "legacy.yaml")
	require.NoError(t, os.WriteFile(legacy, []byte(strings.Replace(yaml, "sizing: spare\n", "", 1)), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--drive=" + spare, "--capacity=120GB"}, "--op"},
		{[]string{"--drive=" + derived, "--op=10"}, "--capacity"},
		{[]string{"--drive=" + legacy}, "blocks_per_plane"},
	} {
		code, _, errOut := runCmd(t, append(c.args, "--rw=write", "--size=16m")...)
		require.Equal(t, exitUsage, code, "%v: %s", c.args, errOut)
		require.Contains(t, errOut, c.want)
	}
	for _, args := range [][]string{
		{"--drive=" + spare, "--capacity=120GB", "--op=20"},
		{"--drive=" + derived, "--op=10", "--capacity=120GB"},
		{"--drive=" + derived},
	} {
		code, _, errOut := runCmd(t, append(args, "--rw=write", "--size=16m")...)
		require.Equal(t, exitOK, code, "%v: %s", args, errOut)
	}
}

// TestAveragedLogsMatchTheJSON: averaged logs end with the run (the I/Os
// in flight when it stopped join the last window rather than making a
// short one), so their mean is the JSON's IOPS, as fio's fiologparser
// computes it.
func TestAveragedLogsMatchTheJSON(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "lg")
	code, out, errOut := runCmd(t, append([]string{"--rw=randread", "--iodepth=8", "--runtime=5", "--write_iops_log=" + prefix, "--log_avg_msec=1000", "--output-format=json"}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	var doc struct {
		Jobs []struct {
			Read struct {
				IOPS float64 `json:"iops"`
			} `json:"read"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	b, err := os.ReadFile(prefix + "_iops.1.log")
	require.NoError(t, err)
	var sum float64
	var n, last int64
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ts, v int64
		_, err := fmt.Sscanf(line, "%d, %d,", &ts, &v)
		require.NoError(t, err, line)
		sum += float64(v)
		n++
		last = ts
	}
	require.Equal(t, int64(5), n, "a window a second, none after the run")
	require.Equal(t, int64(5000), last)
	require.InEpsilon(t, doc.Jobs[0].Read.IOPS, sum/float64(n), 0.001)
}

// TestTerseOutput: --output-format=terse writes fio's terse version 3: one
// line of 130 fields a job, whose figures are the JSON's.
func TestTerseOutput(t *testing.T) {
	args := append([]string{"--rw=randrw", "--iodepth=4", "--number_ios=2000", "--randseed=3"}, quick...)
	code, out, errOut := runCmd(t, append(args, "--output-format=terse")...)
	require.Equal(t, exitOK, code, errOut)
	f := strings.Split(strings.TrimSpace(out), ";")
	require.Len(t, f, 130)
	require.Equal(t, "3", f[0])
	code, js, errOut := runCmd(t, append(args, "--output-format=json")...)
	require.Equal(t, exitOK, code, errOut)
	var doc struct {
		Jobs []struct {
			Name string `json:"jobname"`
			Read struct {
				IOKBytes int64 `json:"io_kbytes"`
			} `json:"read"`
			Write struct {
				IOKBytes int64 `json:"io_kbytes"`
			} `json:"write"`
		} `json:"jobs"`
		DiskUtil []struct {
			Name     string `json:"name"`
			WriteIOs int64  `json:"write_ios"`
		} `json:"disk_util"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	require.Equal(t, doc.Jobs[0].Name, f[2])
	require.Equal(t, strconv.FormatInt(doc.Jobs[0].Read.IOKBytes, 10), f[5])
	require.Equal(t, strconv.FormatInt(doc.Jobs[0].Write.IOKBytes, 10), f[46])
	require.Equal(t, doc.DiskUtil[0].Name, f[121])
	require.Equal(t, strconv.FormatInt(doc.DiskUtil[0].WriteIOs, 10), f[123])
}

// TestGroupReporting: numjobs clones on the command line run at once, a
// report each; with group_reporting one report sums them: I/Os add, the
// runtime is the clones' and the latency distribution is theirs together.
// In a job file, new_group starts a reporting group without waiting.
func TestGroupReporting(t *testing.T) {
	args := append([]string{"--rw=randwrite", "--iodepth=4", "--runtime=1", "--time_based", "--numjobs=3", "--output-format=json"}, quick...)
	type doc struct {
		Jobs []struct {
			Name    string `json:"jobname"`
			GroupID int    `json:"groupid"`
			Write   struct {
				TotalIOs int64   `json:"total_ios"`
				Runtime  int64   `json:"runtime"`
				IOPS     float64 `json:"iops"`
			} `json:"write"`
		} `json:"jobs"`
	}
	run := func(args ...string) doc {
		t.Helper()
		code, out, errOut := runCmd(t, args...)
		require.Equal(t, exitOK, code, errOut)
		var d doc
		require.NoError(t, json.Unmarshal([]byte(out), &d))
		return d
	}
	each := run(args...)
	require.Len(t, each.Jobs, 3)
	merged := run(append(args, "--group_reporting")...)
	require.Len(t, merged.Jobs, 1)
	var ios int64
	var iops float64
	for _, j := range each.Jobs {
		ios += j.Write.TotalIOs
		iops += j.Write.IOPS
		require.Equal(t, j.Write.Runtime, merged.Jobs[0].Write.Runtime)
	}
	require.Equal(t, ios, merged.Jobs[0].Write.TotalIOs)
	require.InDelta(t, iops, merged.Jobs[0].Write.IOPS, iops/1000)

	dir := t.TempDir()
	f := filepath.Join(dir, "g.fio")
	require.NoError(t, os.WriteFile(f, []byte("[global]\nrw=randread\nruntime=1\ntime_based\ngroup_reporting\n[a]\nnumjobs=2\n[b]\nnew_group\n[c]\n"), 0o644))
	d := run(append([]string{"run", f, "--output-format=json"}, quick...)...)
	require.Len(t, d.Jobs, 2, "a (two clones) reported as one; b and c as another")
	require.Equal(t, []int{0, 1}, []int{d.Jobs[0].GroupID, d.Jobs[1].GroupID})
	require.Equal(t, "a", d.Jobs[0].Name)
}

// TestPowerLossScenario: the power-loss scenario cuts the power part way
// through its random writes and reads every block back: the units that do
// not hold their last write are exactly those the cut lost, and the JSON
// carries the cut's account.
func TestPowerLossScenario(t *testing.T) {
	code, out, errOut := runCmd(t, append([]string{"scenario", "power-loss", "--cut=1s", "--output-format=json"}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	var doc struct {
		Jobs []struct {
			PowerLoss []struct {
				LostVolatileBytes   int64 `json:"lost_volatile_bytes"`
				LostProgrammedBytes int64 `json:"lost_programmed_bytes"`
				MountNs             int64 `json:"mount_ns"`
			} `json:"power_loss"`
			Verify struct {
				Mismatches int64 `json:"mismatches"`
			} `json:"verify"`
			Geometry struct {
				UnitBytes int64 `json:"mapping_unit_bytes"`
			} `json:"geometry"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Jobs, 1)
	j := doc.Jobs[0]
	require.Len(t, j.PowerLoss, 1)
	pl := j.PowerLoss[0]
	require.Positive(t, pl.LostVolatileBytes)
	require.Positive(t, pl.MountNs)
	require.Equal(t, (pl.LostVolatileBytes+pl.LostProgrammedBytes)/j.Geometry.UnitBytes, j.Verify.Mismatches)
}
