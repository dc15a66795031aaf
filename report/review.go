package report

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/memlimit"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sweep"
	"github.com/ftlsim/ftlsim/workload"
)

// A review is a built-in study: its points are the suite's runs of each
// drive (and each drive's endurance run), with coordinates drive and
// run, and it runs on the sweep package's Scheduler — the run organiser
// sweeps use — with its jobs limit, memory budget, save-as-you-go and
// resume. Each run's hash is that of its inputs (the drive's description
// as reviewed, the run, its parameters and the mode), and a saved run is
// found by its hash alone (Scheduler.ByHash), so that a review resumed
// with another drive added, or without the endurance runs, keeps the
// runs that did not change.

// resultsFile is the review's results file in the report folder: a line
// a finished run (sweep.Result), which resume reads.
const resultsFile = "runs/results.jsonl"

// review is one Run under way: the drives, their runs as a study's
// tasks, and what the tasks have computed so far.
type review struct {
	o      Options
	suite  []suiteRun
	cfgs   []controller.Config // the drives as reviewed (the runs' input)
	ecfgs  []controller.Config // the endurance runs' drives (read errors on)
	inputs [][]byte            // cfgs as YAML, for the runs' hashes
	looked [][]byte            // the descriptions as looked up (before quick mode sized them), as YAML
	// resolved and eresolved are cfgs and ecfgs resolved.
	resolved, eresolved []controller.Resolved
	tasks               []*sweep.Task

	mu     sync.Mutex // guards drives while the tasks run
	drives []Drive
}

// Run runs the suite on every drive and writes the report folder. The
// runs are independent (each scenario starts from a fresh drive), so up
// to Options.Jobs of them run at once, no more than Options.MaxMemory
// allows. Every drive is looked up and the folder checked (ErrOutput,
// ErrHasReview) before any run starts; each run is written to the folder
// as soon as it finishes (see ErrInterrupted and Options.Resume), and the
// report itself once all have.
func Run(o Options) ([]Drive, error) {
	if len(o.Drives) == 0 {
		return nil, fmt.Errorf("report: no drives")
	}
	if o.Jobs < 0 {
		return nil, fmt.Errorf("report: jobs = %d, allowed 0 (automatic) or more", o.Jobs)
	}
	rv, err := newReview(o)
	if err != nil {
		return nil, err
	}
	if err := checkOut(o.Out); err != nil {
		return nil, fmt.Errorf("report: %s: %w", o.Out, err)
	}
	jobs := o.Jobs
	if jobs == 0 {
		jobs = min(runtime.GOMAXPROCS(0), 4)
	}
	sched := &sweep.Scheduler{Dir: o.Out, Results: resultsFile, Study: "review", Jobs: jobs, MemoryBytes: o.MaxMemory,
		Resume: o.Resume, FailFast: true, ByHash: true, ReleaseMemory: true, OnEvent: rv.event}
	plan, err := sched.Plan(rv.tasks)
	if errors.Is(err, sweep.ErrHasResults) {
		return nil, rv.inUse()
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := rv.checkResume(plan); err != nil {
		return nil, err
	}
	if err := rv.record().save(o.Out); err != nil {
		return nil, err
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := plan.Run(ctx)
	var failed *sweep.FailedError
	switch {
	case errors.Is(err, sweep.ErrInterrupted):
		return nil, fmt.Errorf("%w: %d of %d runs finished and written to %s", ErrInterrupted, st.Resumed+st.Ran, st.Tasks,
			filepath.Join(o.Out, "runs"))
	case errors.As(err, &failed):
		f := failed.Failures[0] // the one that stopped the review
		return nil, fmt.Errorf("%s %s: %w", driveOf(f.Task), runOf(f.Task), f.Err)
	case err != nil:
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := write(o, rv.drives); err != nil {
		return nil, err
	}
	return rv.drives, nil
}

// newReview looks up and sizes every drive, makes its runs into tasks
// and checks that each fits the memory limit, before anything runs.
func newReview(o Options) (*review, error) {
	rv := &review{o: o, suite: suite(o.Quick)}
	for _, name := range o.Drives {
		if err := rv.addDrive(name); err != nil {
			return nil, err
		}
	}
	if err := rv.makeTasks(); err != nil {
		return nil, err
	}
	need := map[string]int64{}
	for _, t := range rv.tasks {
		need[driveOf(t)] = max(need[driveOf(t)], t.Memory)
	}
	for _, name := range o.Drives {
		if o.MaxMemory > 0 && need[name] > o.MaxMemory {
			return nil, fmt.Errorf("report: drive %s: %w: a run of the suite takes about %s to simulate; allowed %s", name,
				memlimit.ErrTooLarge, units.FormatBytes(need[name]), units.FormatBytes(o.MaxMemory))
		}
	}
	return rv, nil
}

// addDrive looks up the drive called name (a preset or a description
// file), sizes it for quick mode, and resolves it and its endurance
// run's copy.
func (rv *review) addDrive(name string) error {
	o := rv.o
	cfg, err := controller.Lookup(name)
	if err != nil {
		return fmt.Errorf("report: drive %s: %w", name, err)
	}
	src, err := cfg.Marshal()
	if err != nil {
		return fmt.Errorf("report: drive %s: %w", name, err)
	}
	if o.Quick {
		// Keep the drive's spare area and dies; shrink its blocks.
		if cfg.Sizing == controller.SizeSpare && cfg.OPPercent == 0 {
			return fmt.Errorf("%w: %s: quick mode keeps the drive's %s, which it does not state (%s: %s derives it)",
				controller.ErrConfig, name, cfg.FieldPath(&cfg.OPPercent), cfg.FieldPath(&cfg.Sizing), controller.SizeSpare)
		}
		cfg = cfg.Resized(controller.Size(QuickCapacity(cfg)), cfg.OPPercent)
	}
	cfg.Policies = o.Policies
	r, err := cfg.Resolve()
	if err != nil {
		return fmt.Errorf("report: drive %s: %w", name, err)
	}
	in, err := cfg.Marshal()
	if err != nil {
		return fmt.Errorf("report: drive %s: %w", name, err)
	}
	ecfg, er := cfg, r
	if o.Endurance {
		ecfg.Firmware.ReadErrors = true
		if er, err = ecfg.Resolve(); err != nil {
			return fmt.Errorf("report: drive %s: the endurance run models read errors: %w", name, err)
		}
	}
	rv.cfgs, rv.ecfgs, rv.inputs, rv.looked = append(rv.cfgs, cfg), append(rv.ecfgs, ecfg), append(rv.inputs, in), append(rv.looked, src)
	rv.resolved, rv.eresolved = append(rv.resolved, r), append(rv.eresolved, er)
	rv.drives = append(rv.drives, Drive{Name: name, Runs: map[RunName][]sim.Measurement{}})
	return nil
}

// makeTasks makes the review's runs into tasks: the endurance runs
// first — the longest, so that the others fill the other jobs beside
// them rather than one job running on alone at the end — then each
// drive's suite in the reviews' order.
func (rv *review) makeTasks() error {
	if rv.o.Endurance {
		spec, err := workload.NewEndurance(rv.o.Quick)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		for i := range rv.drives {
			rv.tasks = append(rv.tasks, rv.enduranceTask(i, spec))
		}
	}
	for i := range rv.drives {
		for _, s := range rv.suite {
			jobs, err := s.jobs()
			if err != nil {
				return err
			}
			rv.tasks = append(rv.tasks, rv.suiteTask(i, s, jobs))
		}
	}
	for p, t := range rv.tasks {
		t.Point = p
	}
	return nil
}

// coords are a run's coordinates in the review's study.
func coords(drive string, run RunName) sweep.Coords {
	return sweep.Coords{{Axis: "drive", Value: drive}, {Axis: "run", Value: string(run)}}
}

// driveOf and runOf read a task's coordinates.
func driveOf(t *sweep.Task) string { v, _ := t.Coords.Get("drive"); return v }

func runOf(t *sweep.Task) RunName { v, _ := t.Coords.Get("run"); return RunName(v) }

// suiteTask is run s of drive i, which runs jobs.
func (rv *review) suiteTask(i int, s suiteRun, jobs []*workload.Job) *sweep.Task {
	name := rv.o.Drives[i]
	return &sweep.Task{
		Coords: coords(name, s.name),
		Hash:   runHash(rv.inputs[i], s.name, s.params, rv.o.Quick),
		Memory: memlimit.EstimateRun(rv.resolved[i], memlimit.Work{Jobs: jobs}).Bytes(),
		Run: func(ctx context.Context, tick func(int64)) (sweep.Outcome, error) {
			built, ms, err := runOne(ctx, rv.cfgs[i], s, tick)
			if err != nil {
				return sweep.Outcome{}, err
			}
			out, err := savedRunOutcome(name, s, rv.o.Quick, rv.inputs[i], built, ms)
			if err != nil {
				return out, err
			}
			rv.keep(i, func(d *Drive) { d.Config, d.Runs[s.name] = built, ms })
			return out, nil
		},
		Resume: func(res sweep.Result) error {
			built, ms, err := loadRun(rv.o, res)
			if err != nil {
				return err
			}
			rv.keep(i, func(d *Drive) { d.Config, d.Runs[s.name] = built, ms })
			return nil
		},
	}
}

// enduranceTask is drive i's endurance run, of procedure spec.
func (rv *review) enduranceTask(i int, spec workload.Endurance) *sweep.Task {
	name := rv.o.Drives[i]
	return &sweep.Task{
		Coords: coords(name, RunEndurance),
		Hash:   runHash(rv.inputs[i], RunEndurance, enduranceParams(rv.o.Quick), rv.o.Quick),
		// A round's statistics are summed up and dropped before the next.
		Memory: memlimit.EstimateRun(rv.eresolved[i], memlimit.Work{Jobs: enduranceJobs(spec), OneAtATime: true}).Bytes(),
		Run: func(ctx context.Context, tick func(int64)) (sweep.Outcome, error) {
			res, err := runEndurance(ctx, rv.ecfgs[i], rv.o.Quick, tick)
			if err != nil {
				return sweep.Outcome{}, err
			}
			out, err := savedEnduranceOutcome(name, rv.o.Quick, rv.inputs[i], res)
			if err != nil {
				return out, err
			}
			rv.keep(i, func(d *Drive) { d.Endurance = res })
			return out, nil
		},
		Resume: func(r sweep.Result) error {
			res, err := loadEndurance(rv.o, r)
			if err != nil {
				return err
			}
			rv.keep(i, func(d *Drive) { d.Endurance = res })
			return nil
		},
	}
}

// keep records what a run of drive i computed.
func (rv *review) keep(i int, f func(d *Drive)) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	f(&rv.drives[i])
}

// event tells Options.Progress, Done and Resumed what the scheduler
// does.
func (rv *review) event(e sweep.Event) {
	o := rv.o
	drive, step := driveOf(e.Task), string(runOf(e.Task))
	switch {
	case e.Kind == sweep.TaskStarted && o.Progress != nil:
		o.Progress(drive, step, e.N, e.Total, 0)
	case e.Kind == sweep.TaskTick && o.Progress != nil:
		o.Progress(drive, step, e.N, e.Total, e.SimNs)
	case e.Kind == sweep.TaskFinished && o.Done != nil:
		o.Done(drive, step, e.Resumed+e.Ran, e.Total)
	case e.Kind == sweep.TaskResumed && o.Resumed != nil:
		o.Resumed(drive, step)
	}
}

// jobs are the jobs run s runs: its scenario's steps'.
func (s suiteRun) jobs() ([]*workload.Job, error) {
	steps, err := s.steps()
	if err != nil {
		return nil, err
	}
	var jobs []*workload.Job
	for _, st := range steps {
		jobs = append(jobs, st.Jobs()...)
	}
	return jobs, nil
}

// steps are run s's scenario's steps with its parameters.
func (s suiteRun) steps() ([]workload.Step, error) {
	sc, err := workload.ScenarioByName(s.name.scenario())
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	steps, err := sc.Steps(s.params)
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", s.name, err)
	}
	return steps, nil
}

// enduranceJobs are the jobs of the endurance procedure spec.
func enduranceJobs(spec workload.Endurance) []*workload.Job {
	return []*workload.Job{spec.Fill, spec.Precondition, spec.Write, spec.Read}
}

// runHash identifies a run's inputs: the drive's description as
// reviewed, the run, its parameters and the mode.
func runHash(input []byte, run RunName, params map[string]string, quick bool) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ps []string
	for _, k := range keys {
		ps = append(ps, k+"="+params[k])
	}
	return sweep.Hash([]byte("ftlsim-review-run"), []byte(fmt.Sprint(savedRunVersion)), input, []byte(run),
		[]byte(strings.Join(ps, "\x00")), []byte(fmt.Sprint(quick)))
}
