package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// quick is a small, fast drive and job for command tests.
var quick = []string{"--drive=generic-mlc-small", "--capacity=4GiB", "--op=25"}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	badDrive := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(badDrive, []byte("name: bad\ncapacity: 16GiB\nnand:\n  geometry:\n    channels: 0\n"), 0o644))
	unknownField := filepath.Join(dir, "unknown.yaml")
	require.NoError(t, os.WriteFile(unknownField, []byte("name: x\nbogus: 1\n"), 0o644))
	cases := []struct {
		args []string
		want string // the line must name this
	}{
		{[]string{"--rw=sideways"}, "rw"},
		{[]string{"--bs=1000"}, "bs"},
		{[]string{"--bs=0"}, "bs"},
		{[]string{"--size=1001"}, "size"},
		{[]string{"--offset=10t"}, "offset"},
		{[]string{"--offset=513"}, "offset"},
		{[]string{"--iodepth=0"}, "iodepth"},
		{[]string{"--iodepth=x"}, "iodepth"},
		{[]string{"--op=-1"}, "op_percent"},
		{[]string{"--op=lots"}, "--op"},
		{[]string{"--gc=lru"}, "gc"},
		{[]string{"--capacity=64TiB"}, "unit_bytes"}, // more units than 32-bit unit numbers hold
		{[]string{"--capacity=12345"}, "capacity"},
		{[]string{"--capacity=-5GB"}, "capacity"},
		{[]string{"--drive=no-such-drive"}, "drive"},
		{[]string{"--drive=" + badDrive}, "geometry.channels"},
		{[]string{"--drive=" + unknownField}, "bogus"},
		{[]string{"--random_distribution=zipf:abc"}, "random_distribution"},
		{[]string{"--random_distribution=zoned:50/10:20/10"}, "random_distribution"},
		{[]string{"--bssplit=4k/60:8k/60"}, "bssplit"},
		{[]string{"--rwmixread=101"}, "rwmixread"},
		{[]string{"--runtime=soon"}, "runtime"},
		{[]string{"--number_ios=0"}, "number_ios"},
		{[]string{"--precondition=bake"}, "precondition"},
		{[]string{"--output-format=xml"}, "output-format"},
		{[]string{"--no-such-option=1"}, "--no-such-option"},
		{[]string{"stray-argument"}, "stray-argument"},
		{[]string{"drives", "a", "b"}, "drives"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, c.args...)
			require.Equal(t, exitUsage, code, "stderr: %s", errOut)
			require.Empty(t, out)
			require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			require.True(t, strings.HasPrefix(errOut, "ftlsim: "))
			require.Contains(t, errOut, c.want)
			require.NotContains(t, errOut, "goroutine")
		})
	}
}

func TestJSONIsDeterministicAndFioShaped(t *testing.T) {
	args := append(append([]string{}, quick...), "--precondition=fill", "--rw=randrw", "--rwmixread=30",
		"--bssplit=4k/70:64k/30", "--iodepth=16", "--runtime=3", "--time_based", "--randseed=7",
		"--random_distribution=zipf:0.9", "--output-format=json")
	code, a, errOut := runCmd(t, args...)
	require.Equal(t, exitOK, code, errOut)
	code, b, _ := runCmd(t, args...)
	require.Equal(t, exitOK, code)
	require.Equal(t, a, b, "same inputs and seed must give byte-identical JSON")

	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(a), &doc))
	require.Contains(t, doc, "fio version")
	jobs := doc["jobs"].([]any)
	require.Len(t, jobs, 1)
	job := jobs[0].(map[string]any)
	for _, dir := range []string{"read", "write", "trim"} {
		d := job[dir].(map[string]any)
		for _, k := range []string{"io_bytes", "bw", "iops", "runtime", "lat_ns", "clat_ns", "total_ios"} {
			require.Contains(t, d, k, dir)
		}
		clat := d["clat_ns"].(map[string]any)
		if d["total_ios"].(float64) > 0 {
			require.Contains(t, clat["percentile"], "99.000000")
		} else {
			require.NotContains(t, clat, "percentile", "fio writes no percentiles for a direction without I/O")
		}
	}
	for _, dir := range []string{"read", "write"} {
		d := job[dir].(map[string]any)
		// runtime is in milliseconds.
		require.InEpsilon(t, d["total_ios"].(float64)*1000/d["runtime"].(float64), d["iops"].(float64), 0.01, dir)
	}
	dev := job["device"].(map[string]any)
	for _, k := range []string{"write_amplification", "host_write_bytes", "nand_write_bytes", "gc_copied_units", "erases", "free_blocks_min"} {
		require.Contains(t, dev, k)
	}
	require.GreaterOrEqual(t, dev["write_amplification"].(float64), 1.0)
	pw := job["power"].(map[string]any)
	for _, k := range []string{"average_w", "peak_w", "idle_w", "energy_j", "joules_per_gb_written"} {
		require.Contains(t, pw, k)
	}
	require.Greater(t, pw["average_w"].(float64), pw["idle_w"].(float64))
	geo := job["geometry"].(map[string]any)
	for _, k := range []string{"channels", "dies", "planes", "blocks", "pages_per_block", "page_bytes",
		"mapping_unit_bytes", "physical_bytes", "user_bytes", "open_blocks", "reserve_blocks"} {
		require.Contains(t, geo, k)
	}
	require.Equal(t, float64(4<<30), geo["user_bytes"])
	// physical = capacity × 1.25, rounded up to whole blocks on every
	// plane of every die.
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	g := cfg.NAND.Geometry
	row := float64(g.Dies()*g.PlanesPerDie) * float64(g.BlockBytes())
	require.GreaterOrEqual(t, geo["physical_bytes"].(float64), 1.25*float64(4<<30))
	require.Less(t, geo["physical_bytes"].(float64), 1.25*float64(4<<30)+row)

	// Another seed gives other results.
	args[len(args)-3] = "--randseed=8"
	_, c, _ := runCmd(t, args...)
	require.NotEqual(t, a, c)
}

func TestLogs(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "run")
	csv := filepath.Join(dir, "device.csv")
	args := append(append([]string{}, quick...), "--rw=randwrite", "--iodepth=4", "--runtime=2500ms", "--time_based",
		"--write_iops_log="+base, "--write_lat_log="+base, "--log_avg_msec=500", "--write_device_log="+csv)
	code, out, errOut := runCmd(t, args...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "write: IOPS=")
	b, err := os.ReadFile(base + "_iops.1.log")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// 2.5 s in 500 ms windows, and maybe one more for requests that were
	// in flight at the runtime limit and completed just after it.
	require.GreaterOrEqual(t, len(lines), 5)
	require.LessOrEqual(t, len(lines), 6)
	require.True(t, strings.HasPrefix(lines[0], "500, "))
	require.True(t, strings.HasSuffix(lines[0], ", 1, 0, 0"), lines[0])
	for _, suf := range []string{"_lat.1.log", "_clat.1.log", "_slat.1.log"} {
		_, err := os.Stat(base + suf)
		require.NoError(t, err)
	}
	c, err := os.ReadFile(csv)
	require.NoError(t, err)
	rows := strings.Split(strings.TrimSpace(string(c)), "\n")
	require.True(t, strings.HasPrefix(rows[0], "time_s,iops,"))
	require.GreaterOrEqual(t, len(rows), 1+3)

	// Per-I/O lines with log_avg_msec=0.
	args = append(append([]string{}, quick...), "--rw=randread", "--number_ios=100", "--write_iops_log="+base)
	code, _, errOut = runCmd(t, args...)
	require.Equal(t, exitOK, code, errOut)
	b, err = os.ReadFile(base + "_iops.1.log")
	require.NoError(t, err)
	lines = strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 100)
	// fio 3's columns: time, value, ddir, bs, prio; with log_offset the
	// offset comes before prio.
	require.Len(t, strings.Split(lines[0], ", "), 5)
	require.True(t, strings.HasSuffix(lines[0], ", 4096, 0"), lines[0])
	code, _, errOut = runCmd(t, append(args, "--log_offset=1", "--size=4k")...)
	require.Equal(t, exitOK, code, errOut)
	b, err = os.ReadFile(base + "_iops.1.log")
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(strings.Split(string(b), "\n")[0], ", 4096, 0, 0"), "offset 0, then prio: %s", b)
}

func TestDrives(t *testing.T) {
	code, out, _ := runCmd(t, "drives")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "generic-mlc-small")
	require.Regexp(t, `(?m)^NAME +CAPACITY +SPARE +DIES +CH +CELL +PAGE`, out)
	require.Regexp(t, `(?m)^m4-256 +256GB .* mlc +8 KiB `, out, "the cell type of each drive")
	code, out, _ = runCmd(t, "drives", "generic-mlc")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "gc_policy: greedy")
	// What drives prints can be passed back with --drive.
	f := filepath.Join(t.TempDir(), "mine.yaml")
	require.NoError(t, os.WriteFile(f, []byte(strings.Replace(out, "capacity: 256GiB", "capacity: 32GiB", 1)), 0o644))
	code, out, errOut := runCmd(t, "--drive="+f, "--op=25", "--rw=write", "--bs=128k", "--size=64m")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "32 GiB user")
}

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demonstration")
	}
	code, out, errOut := runCmd(t)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "cliff")
	require.Contains(t, out, "IOPS")
}

func TestHelp(t *testing.T) {
	code, out, _ := runCmd(t, "--help")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "--random_distribution")
}

// FuzzParseArgs feeds the option parser arbitrary command lines: it must
// return options or an error, never panic, and what it accepts must
// resolve or fail cleanly against a drive.
func FuzzParseArgs(f *testing.F) {
	f.Add("--rw=randwrite --bs=4k --iodepth=32")
	f.Add("--bssplit=4k/10:64k/90 --size=75% --offset=1g --random_distribution=zipf:0.9")
	f.Add("--precondition=torture:10m --output-format=json --op=25 --capacity=240GB")
	f.Add("--time_based --runtime=2000 --norandommap --log_avg_msec=1000")
	f.Fuzz(func(t *testing.T, line string) {
		o, err := parseArgs(strings.Fields(line), modeJob, nil)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error for %q: %v", line, err)
			}
			return
		}
		_ = o.job.Resolve(16 << 30)
	})
}

// TestParseArgsModes checks what each command mode takes: job options
// (all of them, iodepth and name only, or none) and positional arguments.
func TestParseArgsModes(t *testing.T) {
	cases := []struct {
		m    mode
		args string
		want string // "" for success, else part of the error
	}{
		{modeJob, "--rw=randwrite --precondition=fill", ""},
		{modeJob, "trace.csv", "unexpected argument"},
		{modeReplay, "trace.csv --iodepth=4 --name=t --speedup=2", ""},
		{modeReplay, "trace.csv --rw=randwrite", "unknown option --rw"},
		{modeReplay, "", "replay takes one trace file (got 0)"},
		{modeJobFile, "jobs.fio --precondition=torture:1m", ""},
		{modeJobFile, "jobs.fio --iodepth=4 --section=a --ioengine=libaio", ""},
		{modeJobFile, "jobs.fio --speedup=2", "unknown option --speedup"},
		{modeJobFile, "a.fio b.fio", "run takes one job file (got 2)"},
		{modeScenario, "--drive=generic-mlc-small", ""},
		{modeScenario, "extra", "scenario parameters are --name=value"},
		{modeScenario, "--speedup=2", "unknown option --speedup"},
	}
	for _, c := range cases {
		o, err := parseArgs(strings.Fields(c.args), c.m, nil)
		if c.want != "" {
			require.ErrorContains(t, err, c.want, "%v %s", c.m, c.args)
			continue
		}
		require.NoError(t, err, "%v %s", c.m, c.args)
		require.Equal(t, c.m == modeReplay, o.replay)
		if c.m == modeReplay || c.m == modeJobFile {
			require.Equal(t, strings.Fields(c.args)[0], o.traceFile)
		}
	}
	require.Panics(t, func() { _, _ = parseArgs(nil, mode(9), nil) })
	require.Equal(t, "mode(9)", mode(9).String())
}

func TestReplay(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.ascii")
	var b strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "%d %d %d 8 %d\n", i*200000, i%3, (i*7919)%100000*8, i%2)
	}
	require.NoError(t, os.WriteFile(tr, []byte(b.String()), 0o644))
	code, out, errOut := runCmd(t, append([]string{"replay", tr, "--speedup=2", "--output-format=json"}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	job := doc["jobs"].([]any)[0].(map[string]any)
	require.Equal(t, "t.ascii", job["jobname"])
	reads := job["read"].(map[string]any)["total_ios"].(float64)
	writes := job["write"].(map[string]any)["total_ios"].(float64)
	require.Equal(t, 500.0, reads+writes)
	require.Equal(t, 250.0, reads)
	require.Equal(t, "disksim", job["job options"].(map[string]any)["format"])

	code, out, errOut = runCmd(t, append([]string{"replay", "--iodepth=4", tr}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "closed loop at queue depth 4")
	require.Contains(t, out, "average data rate")

	bad := filepath.Join(dir, "bad.ascii")
	require.NoError(t, os.WriteFile(bad, []byte("0 0 8 8 0\n5 0 eight 8 0\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", bad}, "bad.ascii:2: lba"},
		{[]string{"replay", tr, "--format=pcap"}, "--format=pcap"},
		{[]string{"replay"}, "one trace file"},
		{[]string{"replay", tr, tr}, "one trace file"},
		{[]string{"replay", filepath.Join(dir, "missing")}, "missing"},
		{[]string{"replay", tr, "--devices=spread"}, "devices=spread"},
		{[]string{"replay", tr, "--beyond=reject", "--capacity=4GiB", "--op=25", "--drive=generic-mlc-small"}, ""},
		{[]string{"replay", tr, "--speedup=0"}, "--speedup"},
		{[]string{"replay", tr, "--rw=read"}, "--rw"},
	} {
		code, _, errOut := runCmd(t, append(append([]string{}, c.args...), "--drive=generic-mlc-small", "--capacity=4GiB", "--op=25")...)
		if c.want == "" {
			require.Equal(t, exitOK, code, errOut) // every request fits: nothing to reject
			continue
		}
		require.Equal(t, exitUsage, code, "%v: %s", c.args, errOut)
		require.Contains(t, errOut, c.want)
		require.Equal(t, 1, strings.Count(errOut, "\n"))
	}
}

// sameShape reports where got lacks a key of want or holds another JSON
// type. Numbers count as one type (fio writes 0 for floats too).
func sameShape(path string, want, got any) []string {
	var diffs []string
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path + ": not an object"}
		}
		if strings.HasSuffix(path, "job options") || strings.HasSuffix(path, "percentile") {
			return nil // keys vary by job
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok && k == "percentile" && g["N"] == 0.0 {
				continue // fio writes percentiles only for latencies with samples
			}
			if !ok {
				diffs = append(diffs, path+"."+k+": missing")
				continue
			}
			diffs = append(diffs, sameShape(path+"."+k, wv, gv)...)
		}
	case float64:
		if _, ok := got.(float64); !ok {
			diffs = append(diffs, path+": not a number")
		}
	case string:
		if _, ok := got.(string); !ok {
			diffs = append(diffs, path+": not a string")
		}
	}
	return diffs
}

// TestFourCornersJobFile runs the four-corners job file and checks that
// its JSON has fio's shape (as tools that read fio's JSON expect it) and
// the four results a review reads.
func TestFourCornersJobFile(t *testing.T) {
	job := filepath.Join("..", "examples", "jobs", "fourcorners.fio")
	var o, e bytes.Buffer
	code := Main([]string{"run", job, "--precondition=fill", "--output-format=json", "--drive=generic-mlc-small"}, &o, &e)
	require.Equal(t, exitOK, code, e.String())
	require.Contains(t, e.String(), "not applied")
	require.Contains(t, e.String(), "ioengine, direct\n", "filename=/dev/sdX is applied: the jobs run on the drive")
	var doc map[string]any
	require.NoError(t, json.Unmarshal(o.Bytes(), &doc))
	ref, err := os.ReadFile(filepath.Join("testdata", "fio-job-reference.json"))
	require.NoError(t, err)
	var refJob map[string]any
	require.NoError(t, json.Unmarshal(ref, &refJob))
	jobs := doc["jobs"].([]any)
	require.Len(t, jobs, 4)
	for i, j := range jobs {
		job := j.(map[string]any)
		require.Empty(t, sameShape(job["jobname"].(string), refJob, job))
		require.Equal(t, float64(i), job["groupid"], "stonewall puts each job in its own group")
	}
	get := func(i int, dir, key string) float64 {
		return jobs[i].(map[string]any)[dir].(map[string]any)[key].(float64)
	}
	rr, rw := get(0, "read", "iops"), get(1, "write", "iops")
	sr, sw := get(2, "read", "bw")*1024/1e6, get(3, "write", "bw")*1024/1e6
	wa := jobs[1].(map[string]any)["device"].(map[string]any)["write_amplification"].(float64)
	t.Logf("four corners: 4K random read %.0f IOPS, 4K random write %.0f IOPS (WA %.2f), 128K read %.0f MB/s, 128K write %.0f MB/s", rr, rw, wa, sr, sw)
	// What the drive's dies, firmware and link allow: random reads at QD 32
	// keep most dies reading (tR and a 4 KiB transfer each) but no more
	// than the firmware's one command at a time; random writes after the
	// fill program WA units of flash each, at the dies' program rate less
	// what GC's reads and erases take; sequential transfers stay within
	// the link.
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	g, tm := cfg.NAND.Geometry, cfg.NAND.Timing
	dies := float64(g.Dies())
	readRate := min(dies*1e9/float64(tm.CommandNs+tm.ReadNs+tm.TransferNs(g.UnitBytes)), 1e9/float64(cfg.Firmware.CommandNs))
	require.LessOrEqual(t, rr, readRate)
	require.Greater(t, rr, readRate/2)
	pageNs := float64(tm.ProgLSBNs+tm.ProgMSBNs)/2 + float64(tm.TransferNs(g.PlanesPerDie*(g.PageBytes+g.SpareBytes)))
	programUnits := dies * float64(g.PlanesPerDie*g.PageBytes/g.UnitBytes) / pageNs * 1e9
	require.LessOrEqual(t, rw*wa, programUnits*1.01)
	require.Greater(t, rw*wa, 0.7*programUnits)
	link := float64(cfg.Host.LinkMBps)
	require.LessOrEqual(t, sr, link)
	require.LessOrEqual(t, sw, min(link, programUnits*float64(g.UnitBytes)/1e6)*1.01)
	require.Greater(t, sr, 100.0)
	require.Greater(t, sw, 50.0)
	require.Zero(t, get(0, "write", "total_ios"))
	require.Zero(t, get(2, "write", "total_ios"))
	// Timed jobs run their 30 s.
	require.InDelta(t, 30000, get(0, "read", "runtime"), 50)
	require.Equal(t, 32.0, jobs[0].(map[string]any)["latency_depth"])
}

func TestRunJobFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.fio")
	require.NoError(t, os.WriteFile(bad, []byte("[a]\nrw=read\nbs=3k\n"), 0o644))
	unknown := filepath.Join(dir, "unknown.fio")
	require.NoError(t, os.WriteFile(unknown, []byte("[a]\niodepht=4\n"), 0o644))
	past := filepath.Join(dir, "past.fio")
	require.NoError(t, os.WriteFile(past, []byte("[a]\nrw=read\noffset=100g\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", unknown}, `unknown.fio:2: unknown option iodepht (did you mean iodepth?)`},
		{[]string{"run", past}, "past.fio:1: [a]: invalid job option: offset"},
		{[]string{"run"}, "one job file"},
		{[]string{"run", filepath.Join(dir, "none.fio")}, "none.fio"},
		{[]string{"run", bad, "--rw=up"}, "command line --rw: invalid job option: rw=up"},
	} {
		code, _, errOut := runCmd(t, append(append([]string{}, c.args...), quick...)...)
		require.Equal(t, exitUsage, code, "%v: %s", c.args, errOut)
		require.Contains(t, errOut, c.want)
		require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	}
}
