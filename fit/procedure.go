package fit

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
)

// A Procedure is what a target's figure is measured by: it runs on a
// freshly built drive and returns every figure it measures, by name.
type Procedure interface {
	// Key names the procedure in targets and messages.
	Key() string
	// Run runs the procedure on a drive built from cfg; when ctx is
	// done, the run stops and Run returns ctx's error.
	Run(ctx context.Context, cfg controller.Config) (map[string]float64, error)
}

// jobFile is one of the measurement kit's fio job files, run as fio ran
// it: the file's own text with the variables the report shows.
type jobFile struct {
	key  string // the report's name ("consistency.json")
	file string // the job file's path
	text []byte
	env  map[string]string
}

func (p *jobFile) Key() string { return p.key }

// parse parses the job file with the recovered variables.
func (p *jobFile) parse() (*workload.JobFile, error) {
	return workload.ParseJobFileWith(p.file, bytes.NewReader(p.text), workload.ParseOptions{
		Getenv: func(k string) string { return p.env[k] }, Host: workload.ThisHost(), ReadFile: workload.ReadIncludedFile})
}

// Run runs the job file's groups in order after a secure erase, as
// `ftlsim run` does, and measures each job as its fio report and logs
// give it (figures named by logFigures and jobFigures).
func (p *jobFile) Run(ctx context.Context, cfg controller.Config) (map[string]float64, error) {
	return runWhole(ctx, p, cfg)
}

// runWhole runs a staged procedure on a fresh drive built from cfg.
func runWhole(ctx context.Context, p stagedProcedure, cfg controller.Config) (map[string]float64, error) {
	c, err := controller.New(cfg)
	if err != nil {
		return nil, err
	}
	prep, measure, figs, err := p.plan(c)
	if err != nil {
		return nil, err
	}
	e := sim.New(c)
	defer stopOn(ctx, e)()
	if prep != nil {
		if err := prep(ctx, e); err != nil {
			return nil, err
		}
	}
	if err := measure(ctx, e); err != nil {
		return nil, err
	}
	return figs(), nil
}

// plan splits the job file at its first group with a timed job or a log:
// the groups before it (the fill) prepare the drive.
func (p *jobFile) plan(c *controller.Controller) (prep, measure func(context.Context, *sim.Engine) error, figs func() map[string]float64, err error) {
	jf, err := p.parse()
	if err != nil {
		return nil, nil, nil, err
	}
	for _, j := range jf.Jobs {
		if err := j.Job.Resolve(c.CapacityBytes()); err != nil {
			return nil, nil, nil, fmt.Errorf("%s:%d: [%s]: %w", jf.Name, j.Line, j.Job.Name, err)
		}
	}
	out := map[string]float64{}
	logs := logOptions(p.text, p.env)
	groups := jf.Groups()
	n := 0
	for n < len(groups) && !measured(groups[n], logs) {
		n++
	}
	run := func(gs [][]workload.FileJob) func(context.Context, *sim.Engine) error {
		return func(ctx context.Context, e *sim.Engine) error {
			for _, group := range gs {
				if err := runGroup(ctx, e, group, logs, out); err != nil {
					return err
				}
			}
			return nil
		}
	}
	figs = func() map[string]float64 { return out }
	if n == 0 || n == len(groups) {
		return nil, run(groups), figs, nil
	}
	return run(groups[:n]), run(groups[n:]), figs, nil
}

// measured reports whether a group gives figures: a timed job, or a log.
func measured(group []workload.FileJob, logs map[string]map[string]string) bool {
	for _, j := range group {
		if j.Job.RuntimeNs > 0 || j.Job.TimeBased || j.Options["runtime"] != "" || len(logKinds(logs[j.Section])) > 0 {
			return true
		}
	}
	return false
}

// runGroup runs one group of a job file's jobs on e and adds their
// figures to figs.
func runGroup(ctx context.Context, e *sim.Engine, group []workload.FileJob, logs map[string]map[string]string, figs map[string]float64) error {
	streams := make([]sim.Stream, len(group))
	wins := make([]*logWindows, len(group))
	for i, j := range group {
		so := sim.JobOptions(j.Job)
		if lo := logs[j.Section]; len(logKinds(lo)) > 0 {
			avg, _ := strconv.ParseInt(lo["log_avg_msec"], 10, 64)
			wins[i] = newLogWindows(max(avg, 1), logDir(j.Job))
			so.Hooks.OnComplete = wins[i].complete
		}
		streams[i] = sim.Stream{Source: workload.NewGenerator(j.Job), Options: so}
	}
	rs, err := e.RunGroup(streams)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // cut short: not the drive's figures
	}
	for i, r := range rs {
		fj := fioreport.JobOf(r, group[i].Options)
		job := fioJob{Name: group[i].Section, Options: group[i].Options,
			Read:  fioDir{IOBytes: fj.Read.IOBytes, BWBytes: float64(fj.Read.BWBytes), IOPS: fj.Read.IOPS},
			Write: fioDir{IOBytes: fj.Write.IOBytes, BWBytes: float64(fj.Write.BWBytes), IOPS: fj.Write.IOPS}}
		for k, v := range jobFigures(job, nil) {
			figs[k] = v
		}
		if wins[i] == nil {
			continue
		}
		wins[i].close(r)
		for _, kind := range logKinds(logs[job.Name]) {
			smp := wins[i].samples(kind)
			if len(smp) == 0 {
				continue
			}
			for k, v := range logFigures(job.Name, kind, seriesOf(kind, smp), smp[len(smp)-1].ms*1e6) {
				figs[k] = v
			}
		}
	}
	return nil
}

// logDir is the direction a job's log lines are read in: 0 for reads, 1
// for writes (fio's ddir).
func logDir(j *workload.Job) int {
	if j.Pattern == workload.SeqRead || j.Pattern == workload.RandRead {
		return 0
	}
	return 1
}

// jobFigures returns a timed job's figures: MB/s for a sequential
// pattern, IOPS for a random one, in the direction it moves data.
func jobFigures(j fioJob, r *fioReport) map[string]float64 {
	out := map[string]float64{}
	opt := func(k string) string {
		if r != nil {
			v, _ := r.option(j, k)
			return v
		}
		return j.Options[k]
	}
	if _, ok := j.Options["runtime"]; !ok && (r == nil || r.Global["runtime"] == "") {
		return out
	}
	rw := opt("rw")
	if rw == "" {
		rw = opt("readwrite")
	}
	random := strings.HasPrefix(rw, "rand")
	add := func(dir string, d fioDir) {
		if d.IOBytes == 0 && !strings.Contains(rw, dir) {
			return
		}
		if random {
			out[fmt.Sprintf("[%s] %s IOPS", j.Name, dir)] = d.IOPS
		} else {
			out[fmt.Sprintf("[%s] %s MB/s", j.Name, dir)] = d.BWBytes / 1e6
		}
	}
	if strings.Contains(rw, "read") || rw == "rw" || rw == "randrw" {
		add("read", j.Read)
	}
	if strings.Contains(rw, "write") || rw == "rw" || rw == "randrw" {
		add("write", j.Write)
	}
	return out
}

// logKinds returns the logs a job section writes that a fit reads
// (opts: its log options, logOptions): "iops" for write_iops_log, "bw"
// for write_bw_log.
func logKinds(opts map[string]string) []string {
	var out []string
	for _, x := range [][2]string{{"write_iops_log", "iops"}, {"write_bw_log", "bw"}} {
		if opts[x[0]] != "" {
			out = append(out, x[1])
		}
	}
	return out
}

// logFigures reads the figures of a per-second series: for an IOPS log,
// the consistency run's steady state (from 70 % of the run, as the
// reviews read 1,400 s of 2,000: median, 10th and 90th percentiles); for
// a bandwidth log, the sustained write's mean rate, its fresh (burst)
// rate, and, when the rate drops, the rate after and the GB written
// before the drop.
func logFigures(job, kind string, series []sim.Interval, runNs int64) map[string]float64 {
	out := map[string]float64{}
	name := func(f string) string { return fmt.Sprintf("[%s] %s log: %s", job, kind, f) }
	switch kind {
	case "iops":
		s := analysis.SummarizeConsistency(series, runNs*7/10)
		out[name("steady median")] = s.SteadyMedian
		out[name("steady p10")] = s.SteadyP10
		out[name("steady p90")] = s.SteadyP90
	case "bw":
		s := analysis.SummarizeSustained(series)
		out[name("mean MB/s")] = s.AverageMBps
		out[name("burst MB/s")] = s.BurstMBps
		if s.Dropped {
			out[name("after drop MB/s")] = s.AfterMBps
			out[name("GB before drop")] = float64(s.FastBytes) / 1e9
		}
	}
	return out
}

// seriesOf turns a fio log's samples into the series the summaries read:
// one interval per line, from the line before's time to its own.
func seriesOf(kind string, samples []logSample) []sim.Interval {
	out := make([]sim.Interval, len(samples))
	var prev int64
	for i, s := range samples {
		iv := sim.Interval{StartNs: prev * 1e6, EndNs: s.ms * 1e6}
		secs := float64(iv.EndNs-iv.StartNs) / 1e9
		switch kind {
		case "iops":
			iv.IOPS = s.value
			iv.WriteIOs = int64(s.value*secs + 0.5)
		case "bw":
			iv.WriteBytes = int64(s.value*1024*secs + 0.5)
			iv.MBps = s.value * 1024 / 1e6
		}
		out[i], prev = iv, s.ms
	}
	return out
}

// stopOn stops e's runs when ctx is done; the returned function releases
// the watch.
func stopOn(ctx context.Context, e *sim.Engine) func() bool {
	if ctx.Err() != nil {
		e.Stop()
	}
	return context.AfterFunc(ctx, e.Stop)
}

// scenario is one of ftlsim's review scenarios with its parameters.
type scenario struct {
	name string
	over map[string]string
}

func (p *scenario) Key() string {
	keys := make([]string, 0, len(p.over))
	for k := range p.over {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := p.name
	for _, k := range keys {
		s += fmt.Sprintf(" %s=%s", k, p.over[k])
	}
	return s
}

// Run runs the scenario and measures each of its measured steps: MB/s
// and IOPS in the directions it moves data, and, for a step with a
// per-second series, the consistency figures (the steady state from
// 70 % of the step: median, 10th and 90th percentiles, peak, median of
// the seconds with I/O, longest stall) and HD Tach's (mean MB/s over the
// first 10 GB, GB written before a second above 300 MB/s).
func (p *scenario) Run(ctx context.Context, cfg controller.Config) (map[string]float64, error) {
	return runWhole(ctx, p, cfg)
}

// plan splits the scenario's steps after its leading secure erases and
// unmeasured jobs of a fixed amount of I/O (the fill, not a torture of a
// given length): those prepare the drive.
func (p *scenario) plan(*controller.Controller) (prep, measure func(context.Context, *sim.Engine) error, figs func() map[string]float64, err error) {
	sc, err := workload.ScenarioByName(p.name)
	if err != nil {
		return nil, nil, nil, err
	}
	steps, err := sc.Steps(p.over)
	if err != nil {
		return nil, nil, nil, err
	}
	n, jobs := 0, 0
	for ; n < len(steps); n++ {
		s := steps[n]
		if s.Kind == workload.RunJob && s.Label == "" && s.Job.RuntimeNs == 0 && !s.Job.TimeBased {
			jobs++
		} else if s.Kind != workload.SecureErase {
			break
		}
	}
	out := map[string]float64{}
	run := func(steps []workload.Step, keep bool) func(context.Context, *sim.Engine) error {
		return func(ctx context.Context, e *sim.Engine) error {
			ms, err := e.RunSteps(steps)
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err // cut short: not the drive's figures
			}
			if keep {
				stepFigures(ms, out)
			}
			return nil
		}
	}
	figs = func() map[string]float64 { return out }
	if jobs == 0 || n == len(steps) {
		return nil, run(steps, true), figs, nil
	}
	return run(steps[:n], false), run(steps[n:], true), figs, nil
}

// stepFigures adds the figures of a scenario's measured steps to out.
func stepFigures(ms []sim.Measurement, out map[string]float64) {
	for _, m := range sim.CombineRepeated(ms) {
		r, l := m.Result, m.Label
		out[l+": write MB/s"] = r.Write.BWBytes / 1e6
		out[l+": write IOPS"] = r.Write.IOPS
		out[l+": read MB/s"] = r.Read.BWBytes / 1e6
		out[l+": read IOPS"] = r.Read.IOPS
		if r.Intervals.Len() == 0 {
			continue
		}
		ivs := r.Intervals.Slice()
		s := analysis.SummarizeConsistency(ivs, (r.EndNs-r.StartNs)*7/10)
		out[l+": steady median"] = s.SteadyMedian
		out[l+": steady p10"] = s.SteadyP10
		out[l+": steady p90"] = s.SteadyP90
		out[l+": steady peak"] = s.SteadyMax
		out[l+": steady active median"] = s.SteadyActiveMedian
		out[l+": longest stall s"] = float64(s.LongestStall)
		first10, to300 := hdTach(ivs)
		out[l+": first 10 GB MB/s"] = first10
		out[l+": GB before 300 MB/s"] = to300
	}
}

// hdTach reads HD Tach's write curve: the mean MB/s of the seconds in the
// first 10 GB written, and the GB written by the first second above
// 300 MB/s (-1: never).
func hdTach(series []sim.Interval) (float64, float64) {
	var gb, sum float64
	n, to300 := 0, -1.0
	for _, iv := range series {
		gb += float64(iv.WriteBytes) / 1e9
		if gb <= 10 {
			sum += iv.MBps
			n++
		}
		if iv.MBps > 300 && to300 < 0 {
			to300 = gb
		}
	}
	if n == 0 {
		return 0, to300
	}
	return sum / float64(n), to300
}
