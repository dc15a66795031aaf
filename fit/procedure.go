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
	// need are the figures the targets read from it ("LABEL: figure"),
	// when known: the run then ends with the last step they read, and
	// stops that step once they are determined (runsTo).
	need []string
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
	r, err := p.stages()
	if err != nil {
		return nil, nil, nil, err
	}
	measure = r.tail
	if r.head != nil {
		measure = func(ctx context.Context, e *sim.Engine) error {
			if err := r.head(ctx, e); err != nil {
				return err
			}
			return r.tail(ctx, e)
		}
	}
	return r.prep, measure, func() map[string]float64 { return r.out }, nil
}

// scenarioRun is a scenario's run on one drive in stages: prep, the
// leading preparation (nil when there is none); head, the steps from
// there to the first that sends a TRIM, when a job runs before it (nil
// otherwise: see firstTrim and prepCache.late); tail, the rest. Each adds the
// figures of its measured steps to out.
type scenarioRun struct {
	prep, head, tail func(context.Context, *sim.Engine) error
	out              map[string]float64
}

// stages splits the scenario's run (see scenarioRun and plan).
func (p *scenario) stages() (*scenarioRun, error) {
	steps, err := p.steps()
	if err != nil {
		return nil, err
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
	if jobs == 0 || n == len(steps) {
		n = 0 // nothing worth keeping: no step writes, or no step measures
	}
	r := &scenarioRun{out: map[string]float64{}}
	end, cut := p.runsTo(steps)
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
				stepFigures(ms, r.out)
			}
			return nil
		}
	}
	// from returns the measurement of the steps from i to end, the last
	// cut short when cut says.
	from := func(i int) func(context.Context, *sim.Engine) error {
		if cut == nil {
			return run(steps[i:end], true)
		}
		before := run(steps[i:end-1], true)
		return func(ctx context.Context, e *sim.Engine) error {
			if err := before(ctx, e); err != nil {
				return err
			}
			ms, err := e.RunStepsHooks(steps[end-1:end], sim.Hooks{OnInterval: cut.observe(e)})
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err // cut short by the context: not the drive's figures
			}
			part := map[string]float64{}
			stepFigures(ms, part)
			for _, f := range cut.figures {
				r.out[f] = part[f] // the step's others are those of a run cut short
			}
			return nil
		}
	}
	if n > 0 {
		r.prep = run(steps[:n], false)
	}
	if k := firstTrim(steps, n, end); k > 0 {
		r.head, r.tail = run(steps[n:k], true), from(k)
	} else {
		r.tail = from(n)
	}
	return r, nil
}

// firstTrim returns the first of steps[from:end] that sends a TRIM, when
// a job runs before it and no label is measured on both sides (the
// figures of a repeated label are combined); 0 otherwise.
func firstTrim(steps []workload.Step, from, end int) int {
	k := 0
	for i := from; i < end && k == 0; i++ {
		for _, j := range steps[i].Jobs() {
			if j.Pattern == workload.SeqTrim || j.Pattern == workload.RandTrim || j.Pattern == workload.TrimWrite {
				k = i
			}
		}
	}
	if k == 0 {
		return 0
	}
	before, work := map[string]bool{}, false
	for _, s := range steps[from:k] {
		work = work || s.Kind == workload.RunJob
		if s.Label != "" {
			before[s.Label] = true
		}
	}
	for _, s := range steps[k:end] {
		if before[s.Label] {
			return 0
		}
	}
	if !work {
		return 0 // nothing run before it but what the leading preparation runs
	}
	return k
}

// steps returns the scenario's steps with its parameters.
func (p *scenario) steps() ([]workload.Step, error) {
	sc, err := workload.ScenarioByName(p.name)
	if err != nil {
		return nil, err
	}
	return sc.Steps(p.over)
}

// runsTo returns how many of the scenario's steps a fit runs, and how the
// last of them may be cut short (nil: run whole). With the figures the
// targets need known, the steps after the last one they read are not run
// (no step's figures depend on a later step), and when every figure they
// read from that step is one of HD Tach's write curve's — read from its
// start — the step stops once they are determined: the curve's intervals
// up to then are those of the whole step. With a figure of a label that
// is no step's (a target the check will refuse), every step runs.
func (p *scenario) runsTo(steps []workload.Step) (int, *curveCut) {
	if len(p.need) == 0 {
		return len(steps), nil
	}
	at := map[string]int{} // a label's last step
	count := map[string]int{}
	for i, s := range steps {
		if s.Kind == workload.RunJob && s.Label != "" {
			at[s.Label] = i
			count[s.Label]++
		}
	}
	end := 0
	byLabel := map[string][]string{}
	for _, f := range p.need {
		label, fig, ok := strings.Cut(f, ": ")
		i, known := at[label]
		if !ok || !known {
			return len(steps), nil
		}
		end = max(end, i+1)
		byLabel[label] = append(byLabel[label], fig)
	}
	label := steps[end-1].Label
	if count[label] != 1 {
		return end, nil
	}
	c := &curveCut{}
	for _, fig := range byLabel[label] {
		switch fig {
		case "first 10 GB MB/s":
			c.first10 = true
		case "GB before 300 MB/s":
			c.to300 = true
		default:
			return end, nil
		}
		c.figures = append(c.figures, label+": "+fig)
	}
	return end, c
}

// curveCut stops a write curve's step once the HD Tach figures read from
// it are determined (hdTach): the mean over the first 10 GB once the
// intervals have passed 10 GB, the GB before 300 MB/s once a second above
// 300 MB/s has ended.
type curveCut struct {
	first10, to300 bool
	figures        []string
}

// observe returns the step's interval hook: it follows the curve as
// hdTach reads it and stops e when the figures are determined.
func (c *curveCut) observe(e *sim.Engine) func(sim.Interval) {
	var gb float64
	fast := false
	return func(iv sim.Interval) {
		gb += float64(iv.WriteBytes) / 1e9
		fast = fast || iv.MBps > 300
		if (!c.first10 || gb > 10) && (!c.to300 || fast) {
			e.Stop()
		}
	}
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
