package measure_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/workload"
)

// kit is the job files, in the order the README runs them.
var kit = []string{"fill", "fourcorners", "qdsweep", "consistency", "sustained", "trim"}

// fixtures holds the output of one short run of every job file by fio.
const fixtures = "testdata/fio-3.33"

// hostSide are the options the job files set for fio that a simulated
// drive has nothing to apply to; ftlsim reports them as not applied.
var hostSide = []string{"filename", "ioengine", "direct", "refill_buffers",
	"write_iops_log", "write_bw_log", "log_avg_msec"}

// dev is the device of the README's examples.
const dev = "/dev/nvme0n1"

var (
	exportLine = regexp.MustCompile(`^export ([A-Z_]+)="\$\{([A-Z_]+):-(.*)\}"`)
	reference  = regexp.MustCompile(`\$\{?([A-Z_]+)\}?`)
)

// defaults reads the variables' defaults from env.sh, with DEV set as the
// README's examples set it.
func defaults(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("env.sh")
	require.NoError(t, err)
	defer f.Close()
	env := map[string]string{"DEV": dev}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := exportLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		require.Equal(t, m[1], m[2], "env.sh: %s", sc.Text())
		env[m[1]] = reference.ReplaceAllStringFunc(m[3], func(r string) string {
			return env[reference.FindStringSubmatch(r)[1]] // a default naming another variable
		})
	}
	require.NoError(t, sc.Err())
	require.Greater(t, len(env), 1, "env.sh sets no variable")
	return env
}

// parse parses job file name (without .fio) with the variables of env.
func parse(t *testing.T, name string, env map[string]string) *workload.JobFile {
	t.Helper()
	file := name + ".fio"
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	jf, err := workload.ParseJobFileWith(file, f, workload.ParseOptions{
		Getenv: func(k string) string { return env[k] }, Host: workload.ThisHost()})
	require.NoError(t, err)
	return jf
}

// TestVariables checks that the job files read only the variables env.sh
// sets (and DEV), and that the README names each of them.
func TestVariables(t *testing.T) {
	env := defaults(t)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for name := range env {
		assert.Contains(t, string(readme), "`"+name+"`", "README.md does not name variable %s", name)
	}
	used := regexp.MustCompile(`\$\{([^}]*)\}`)
	for _, name := range kit {
		text, err := os.ReadFile(name + ".fio")
		require.NoError(t, err)
		for _, m := range used.FindAllStringSubmatch(string(text), -1) {
			_, ok := env[m[1]]
			assert.True(t, ok, "%s.fio reads ${%s}, which env.sh does not set", name, m[1])
		}
	}
}

// TestJobFilesParse parses every job file as ftlsim does: every option is
// one ftlsim honours or a host-side one it reports, every job runs after
// the one before (stonewall), and every job fits a 64 GB drive.
func TestJobFilesParse(t *testing.T) {
	env := defaults(t)
	for _, name := range kit {
		t.Run(name, func(t *testing.T) {
			jf := parse(t, name, env)
			for _, o := range jf.Ignored {
				assert.Contains(t, hostSide, o, "%s.fio: option %s is not applied by ftlsim", name, o)
			}
			for i, j := range jf.Jobs {
				assert.Equal(t, i, j.Group, "[%s] does not wait for the job before it (stonewall)", j.Section)
				assert.Equal(t, i, j.Report, "[%s] is not its own reporting group", j.Section)
				require.NoError(t, j.Job.Resolve(64e9), "[%s]", j.Section)
			}
		})
	}
}

// TestProcedures checks the jobs against the reviews' procedures (the
// methodology of the project's reference notes, whose values the table
// below copies): the pattern, transfer size, queue depth, length and span of each, with the
// defaults of env.sh on a drive of capacity bytes.
func TestProcedures(t *testing.T) {
	const capacity = 256e9
	const span8g = 8 << 30
	type want struct {
		rw      workload.Pattern
		bs      int64
		qd      int
		seconds int64 // 0: once over its span
		span    int64 // bytes from LBA 0
	}
	seqW := func(qd int, s int64) want { return want{workload.SeqWrite, 128 << 10, qd, s, capacity} }
	randW := func(qd int, s int64) want { return want{workload.RandWrite, 4 << 10, qd, s, span8g} }
	randR := func(qd int, s int64) want { return want{workload.RandRead, 4 << 10, qd, s, span8g} }
	fill := seqW(1, 0)
	procedures := map[string][]want{
		"fill": {fill},
		"fourcorners": {seqW(1, 60), randW(3, 180), randW(32, 180), fill,
			{workload.SeqRead, 128 << 10, 1, 60, capacity}, randR(3, 180), randR(32, 180)},
		"qdsweep":     {{workload.SeqWrite, 128 << 10, 1, 0, span8g}},
		"consistency": {fill, {workload.RandWrite, 4 << 10, 32, 2000, capacity}},
		"sustained":   {seqW(32, 0)},
		"trim": {seqW(1, 60), fill, {workload.RandWrite, 4 << 10, 32, 1800, capacity}, seqW(1, 60),
			{workload.SeqTrim, 64 << 20, 1, 0, capacity}, {workload.SeqRead, 4 << 10, 1, 0, 4 << 10}, seqW(1, 60)},
	}
	for _, qd := range []int{1, 2, 4, 8, 16, 32} {
		procedures["qdsweep"] = append(procedures["qdsweep"], randR(qd, 60))
	}
	for _, qd := range []int{1, 2, 4, 8, 16, 32} {
		procedures["qdsweep"] = append(procedures["qdsweep"], randW(qd, 60))
	}
	env := defaults(t)
	for _, name := range kit {
		t.Run(name, func(t *testing.T) {
			jf := parse(t, name, env)
			require.Len(t, jf.Jobs, len(procedures[name]))
			for i, w := range procedures[name] {
				j := jf.Jobs[i].Job
				require.NoError(t, j.Resolve(capacity))
				got := want{j.Pattern, j.BS[0].Bytes, j.IODepth, j.RuntimeNs / 1e9, j.Size}
				if j.NumberIOs > 0 { // a job of a few I/Os: its span is what they cover
					got.span = j.NumberIOs * got.bs
				}
				assert.Equal(t, w, got, "[%s]", j.Name)
				assert.Equal(t, w.seconds > 0, j.TimeBased, "[%s] time_based", j.Name)
				if w.rw.Random() && w.rw != workload.RandRead {
					assert.True(t, j.NoRandomMap, "[%s]: random writes as Iometer issues them (norandommap)", j.Name)
				}
			}
			if name == "trim" {
				idle := jf.Jobs[5].Job
				assert.Equal(t, int64(30e9), idle.ThinkNs, "[%s]: the idle after the TRIM", idle.Name)
			}
		})
	}
}

// fioReport is the part of fio's JSON report the fixtures are checked on.
type fioReport struct {
	Version string `json:"fio version"`
	Jobs    []struct {
		Name    string            `json:"jobname"`
		Error   int               `json:"error"`
		Options map[string]string `json:"job options"`
		Read    fioDirection      `json:"read"`
		Write   fioDirection      `json:"write"`
		Trim    fioDirection      `json:"trim"`
	} `json:"jobs"`
	Global map[string]string `json:"global options"`
}

type fioDirection struct {
	Bytes     int64   `json:"io_bytes"`
	IOs       int64   `json:"total_ios"`
	RuntimeMs int64   `json:"runtime"`
	IOPS      float64 `json:"iops"`
}

// logs returns the logs job file name asks fio for, by the job's index
// among the file's jobs (from 1, as fio numbers its logs): the file names
// fio gives them.
func logs(t *testing.T, name string) map[int][]string {
	t.Helper()
	text, err := os.ReadFile(name + ".fio")
	require.NoError(t, err)
	out := map[int][]string{}
	job := 0
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") && !strings.HasPrefix(line, "[global]") {
			job++
		}
		for _, kind := range []string{"iops", "bw"} {
			if prefix, ok := strings.CutPrefix(line, "write_"+kind+"_log="); ok {
				require.NotZero(t, job, "%s.fio: a log for every job ([global])", name)
				out[job] = append(out[job], fmt.Sprintf("%s_%s.%d.log", prefix, kind, job))
			}
		}
	}
	return out
}

// TestFixtures checks fio's own output of each job file: the report has a
// job for each of the file's jobs, by name, without error, with I/O in the
// directions of its pattern; every option fio reports is one ftlsim
// honours or reports as host-side; and each log the file asks for is there
// with a line a second in fio's format.
func TestFixtures(t *testing.T) {
	env := defaults(t)
	for _, name := range kit {
		t.Run(name, func(t *testing.T) {
			jf := parse(t, name, env)
			b, err := os.ReadFile(filepath.Join(fixtures, name+".json"))
			require.NoError(t, err)
			var r fioReport
			require.NoError(t, json.Unmarshal(b, &r))
			assert.True(t, strings.HasPrefix(r.Version, "fio-3."), "fio version %q", r.Version)
			require.Len(t, r.Jobs, len(jf.Jobs))
			known := func(o string) bool {
				return workload.OptionHelp(o) != "" || workload.IsHostOnly(o) || slices.Contains([]string{"stonewall", "group_reporting"}, o)
			}
			for o := range r.Global {
				assert.True(t, known(o), "global option %s", o)
			}
			for i, fj := range r.Jobs {
				j := jf.Jobs[i].Job
				assert.Equal(t, jf.Jobs[i].Section, fj.Name)
				assert.Zero(t, fj.Error, "[%s]", fj.Name)
				for o := range fj.Options {
					assert.True(t, known(o), "[%s] option %s", fj.Name, o)
				}
				reads, writes, trims := j.Pattern == workload.SeqRead || j.Pattern == workload.RandRead,
					j.Pattern == workload.SeqWrite || j.Pattern == workload.RandWrite, j.Pattern == workload.SeqTrim
				for _, d := range []struct {
					dir  string
					want bool
					got  fioDirection
				}{{"read", reads, fj.Read}, {"write", writes, fj.Write}, {"trim", trims, fj.Trim}} {
					assert.Equal(t, d.want, d.got.Bytes > 0, "[%s] %s io_bytes %d", fj.Name, d.dir, d.got.Bytes)
					assert.Equal(t, d.got.IOs*j.BS[0].Bytes, d.got.Bytes, "[%s] %s: total_ios x bs", fj.Name, d.dir)
				}
			}
			for n, files := range logs(t, name) {
				fj := r.Jobs[n-1]
				for _, file := range files {
					checkLog(t, filepath.Join(fixtures, file), fj.Write.RuntimeMs)
				}
			}
		})
	}
}

// checkLog checks a fio log averaged over each second (log_avg_msec=1000)
// of a write job that ran runtimeMs: lines "time_ms, value, ddir, bs,
// prio" with increasing times about a second apart, ddir 1 and bs 0.
func checkLog(t *testing.T, file string, runtimeMs int64) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	// fio writes a line for each whole second, and may leave out the last.
	assert.InDelta(t, float64(runtimeMs)/1000, float64(len(lines)), 1.5, "%s: a line a second of %d ms", file, runtimeMs)
	last := int64(0)
	for i, line := range lines {
		var f []int64
		for _, s := range strings.Split(line, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			require.NoError(t, err, "%s:%d: %q", file, i+1, line)
			f = append(f, v)
		}
		require.Len(t, f, 5, "%s:%d: %q", file, i+1, line)
		assert.InDelta(t, 1000, f[0]-last, 50, "%s:%d: time", file, i+1)
		assert.Positive(t, f[1], "%s:%d: value", file, i+1)
		assert.Equal(t, []int64{1, 0}, f[2:4], "%s:%d: ddir, bs", file, i+1)
		last = f[0]
	}
}
