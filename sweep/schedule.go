package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/ftlsim/ftlsim/internal/atomicfile"
)

// A Scheduler runs the tasks of a study — a sweep's points, a review's
// runs — and keeps what they compute. It is the one run organiser of
// ftlsim: the sweep command and the review both use it.
//
//   - At most Jobs tasks run at once, and no more at a time than
//     MemoryBytes allows, each task weighing its own estimate (a task
//     bigger than the whole budget runs alone).
//   - Each finished task's files are written whole into Dir as soon as it
//     finishes, and a line (a Result) is appended to the results file;
//     a stopped study has lost only the tasks under way.
//   - A task whose inputs hash (Task.Hash) matches a saved result of the
//     same Version, whose output is still there and reads back
//     (Task.Resume), is not run again: that is resume, for every study.
//   - A failed task stops the study from starting others (FailFast: the
//     review) or is counted while the rest run (a sweep).
//   - The context stops it: no task starts after, the tasks under way get
//     the context, and Run returns ErrInterrupted.
//
// Plan reads what the directory holds and sorts the tasks into saved and
// to run, before anything runs; its Run runs them.
type Scheduler struct {
	// Dir is the study's directory: task outputs are relative to it.
	Dir string
	// Results is the results file the finished tasks are recorded in,
	// relative to Dir. Every results*.jsonl file beside it (other shards')
	// is read for saved results too.
	Results string
	// Study and Version are written into every Result; a saved result of
	// another Version does not stand for a task.
	Study, Version string
	// Jobs is how many tasks run at once (0: the CPU count).
	Jobs int
	// MemoryBytes is the memory the tasks running at once may plan to
	// use together (0: no limit).
	MemoryBytes int64
	// Resume allows saved results: without it a Results file that holds
	// results already is an error wrapping ErrHasResults, before anything
	// runs.
	Resume bool
	// FailFast stops starting tasks at the first failure (the tasks under
	// way finish and are recorded); otherwise every task runs.
	FailFast bool
	// ByHash finds a task's saved result by its hash alone, whatever its
	// point: a study whose points are renumbered when its options change
	// (a review given another drive) keeps the runs that did not change.
	// Otherwise the point and the hash must both match.
	ByHash bool
	// ReleaseMemory returns the heap to the system after each task (each
	// builds a drive of its own), before its memory is given to others.
	ReleaseMemory bool
	// OnEvent, when set, is told each task as it starts, as it tells its
	// simulated time, and as it finishes, fails or is read back; calls
	// are serialised.
	OnEvent func(Event)
}

// Task is one run of a study for a Scheduler.
type Task struct {
	// Point numbers the task in its study; Coords name it (the results
	// line, messages); Seed is its random seed, as recorded.
	Point  int
	Coords Coords
	Seed   uint64
	// Hash identifies the task's inputs (see Hash): a saved result with
	// the same stands for it.
	Hash string
	// Memory is the estimate of what the task holds while it runs, in
	// bytes (memlimit.EstimateRun).
	Memory int64
	// Prepare, when set, is work the task shares with others and needs
	// done before it starts (a forked group's drive snapshot).
	Prepare *Prepare
	// Run runs the task; tick, when the task calls it, tells the
	// simulated time it has reached. Its Outcome's files are written and
	// its result recorded by the scheduler. An error wrapping
	// ErrInterrupted, or any error once ctx is done, is an interruption,
	// not a failure.
	Run func(ctx context.Context, tick func(simNs int64)) (Outcome, error)
	// Resume, when set, reads back a saved result r that stands for the
	// task; an error makes the task run again (a file that no longer
	// reads is replaced).
	Resume func(r Result) error
}

// Label is the task's coordinates as name=value pairs.
func (t *Task) Label() string { return t.Coords.Label() }

// Outcome is what a finished task leaves: its files and the figures its
// result records.
type Outcome struct {
	// Files are written into the study's directory, each whole (paths
	// relative to it, slash-separated).
	Files map[string][]byte
	// Output is the file (one of Files) that holds the task's full
	// result: Result.Output, and what resume looks for.
	Output string
	// Metrics are the summary figures (Result.Metrics).
	Metrics map[string]float64
}

// Prepare is work several tasks share and need done first: it runs once,
// before the first of them starts (holding Memory of the budget), while
// the others wait.
type Prepare struct {
	// Memory is the estimate of what Run holds.
	Memory int64
	// Run does the work; its error fails each task that needs it.
	Run func(ctx context.Context) error
	// Release, when set, is called once the last task that needs the
	// work has run, unless the study was stopped.
	Release func()
}

// EventKind says what an Event tells.
type EventKind int

// The events.
const (
	TaskStarted  EventKind = iota // the task starts
	TaskTick                      // the task tells its simulated time
	TaskFinished                  // the task finished and is recorded
	TaskFailed                    // the task failed (Event.Err)
	TaskResumed                   // a saved result stands for the task (Plan)
)

// Event is what the scheduler tells Scheduler.OnEvent: a task, what
// happened, and the study's counts when it did.
type Event struct {
	Kind EventKind
	Task *Task
	// N is the task's place among those started (read back ones first),
	// from 0; SimNs the simulated time it told (TaskTick); Err its
	// failure (TaskFailed).
	N     int
	SimNs int64
	Err   error
	// The study's counts: its tasks, those read back, run and recorded,
	// and failed.
	Total, Resumed, Ran, Failed int
}

// Tally counts what a plan's Run did.
type Tally struct {
	Tasks, Resumed, Ran, Failed int
}

// ErrHasResults is wrapped by Plan's error when the results file holds
// results and Scheduler.Resume is not set.
var ErrHasResults = errors.New("the directory holds results already")

// Failure is a task that failed, and why.
type Failure struct {
	Task *Task
	Err  error
}

// FailedError is Run's error when tasks failed: each, in the order they
// failed.
type FailedError struct {
	Failures []Failure
	// ToRun is the number of tasks the plan had to run.
	ToRun int
}

// First is the failure of the lowest point.
func (e *FailedError) First() Failure {
	f := e.Failures[0]
	for _, g := range e.Failures[1:] {
		if g.Task.Point < f.Task.Point {
			f = g
		}
	}
	return f
}

func (e *FailedError) Error() string {
	f := e.First()
	return fmt.Sprintf("%d of %d points failed; the first, point %d (%s): %s", len(e.Failures), e.ToRun, f.Task.Point, f.Task.Label(), f.Err)
}

// Unwrap returns the failures' errors.
func (e *FailedError) Unwrap() []error {
	var errs []error
	for _, f := range e.Failures {
		errs = append(errs, f.Err)
	}
	return errs
}

// Hash returns the identity of a task's inputs: the hex SHA-256 of parts,
// each length-prefixed, cut to 16 digits (as points' hashes are).
func Hash(parts ...[]byte) string { return hashOf(parts...)[:16] }

// Plan is a study's tasks sorted by what the directory holds: read back
// (Saved) or to run (Todo), in the tasks' order.
type Plan struct {
	s     *Scheduler
	Tasks []*Task
	Saved []*Task
	Todo  []*Task
	// Found is the number of tasks the directory holds results of, any
	// task's (by point, or with ByHash by hash).
	Found int
}

// Plan reads the results the directory holds and sorts tasks into those
// a saved result stands for — read back with their Resume, told as
// TaskResumed — and those to run. Without Scheduler.Resume, a results
// file that holds results is an error wrapping ErrHasResults.
func (s *Scheduler) Plan(tasks []*Task) (*Plan, error) {
	done, err := readSaved(filepath.Dir(filepath.Join(s.Dir, s.Results)))
	if err != nil {
		return nil, err
	}
	if !s.Resume {
		if mine, err := ReadResults(filepath.Join(s.Dir, s.Results)); err == nil && len(mine) > 0 {
			return nil, fmt.Errorf("%w: %s", ErrHasResults, filepath.Join(s.Dir, s.Results))
		}
	}
	p := &Plan{s: s, Tasks: tasks}
	byPoint, byHash := map[int]Result{}, map[string]Result{}
	for _, r := range done {
		byPoint[r.Point] = r
		byHash[r.Hash] = r
	}
	p.Found = len(byPoint)
	if s.ByHash {
		p.Found = len(byHash)
	}
	for _, t := range tasks {
		r, ok := byPoint[t.Point]
		if s.ByHash {
			r, ok = byHash[t.Hash]
		}
		if ok && r.Hash == t.Hash && r.Version == s.Version && p.readBack(t, r) {
			p.Saved = append(p.Saved, t)
			s.tell(Event{Kind: TaskResumed, Task: t, Total: len(tasks), Resumed: len(p.Saved)})
			continue
		}
		p.Todo = append(p.Todo, t)
	}
	return p, nil
}

// readBack reports whether saved result r stands for t: its output is
// there and, with t.Resume, reads back.
func (p *Plan) readBack(t *Task, r Result) bool {
	if _, err := os.Stat(filepath.Join(p.s.Dir, filepath.FromSlash(r.Output))); err != nil {
		return false
	}
	return t.Resume == nil || t.Resume(r) == nil
}

func (s *Scheduler) tell(e Event) {
	if s.OnEvent != nil {
		s.OnEvent(e)
	}
}

// readSaved reads every results file in dir (results*.jsonl), by order
// of file and line: a later line for a point replaces an earlier.
func readSaved(dir string) ([]Result, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "results*.jsonl"))
	sort.Strings(files)
	var all []Result
	for _, file := range files {
		rs, err := ReadResults(file)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	return all, nil
}

// schedule is one Plan.Run under way.
type schedule struct {
	p    *Plan
	ctx  context.Context // the caller's: the tasks get it
	stop context.Context // done when no task may start
	halt context.CancelFunc
	mem  *semaphore.Weighted
	cap  int64
	f    *os.File

	mu          sync.Mutex
	started     int
	ran         int
	failures    []Failure
	interrupted bool
	writeErr    error
	preps       map[*Prepare]*prepared
}

// prepared is a Prepare's state in a schedule.
type prepared struct {
	once  sync.Once
	ready chan struct{}
	err   error
	left  int // tasks still to run that need it (guarded by schedule.mu)
}

// Run runs the plan's tasks to run, in order, as the Scheduler says, and
// returns what it did: ErrInterrupted when ctx stopped it, the error of
// recording a result (which stops it), or a *FailedError when tasks
// failed.
func (p *Plan) Run(ctx context.Context) (Tally, error) {
	st := Tally{Tasks: len(p.Tasks), Resumed: len(p.Saved)}
	results := filepath.Join(p.s.Dir, filepath.FromSlash(p.s.Results))
	if err := os.MkdirAll(filepath.Dir(results), 0o755); err != nil {
		return st, err
	}
	if err := dropCutLine(results); err != nil {
		return st, err
	}
	f, err := os.OpenFile(results, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return st, err
	}
	defer f.Close()
	budget := p.s.MemoryBytes
	if budget <= 0 {
		budget = 1 << 62
	}
	stop, halt := context.WithCancel(ctx)
	defer halt()
	r := &schedule{p: p, ctx: ctx, stop: stop, halt: halt, mem: semaphore.NewWeighted(budget), cap: budget, f: f,
		started: len(p.Saved), preps: map[*Prepare]*prepared{}}
	for _, t := range p.Todo {
		if t.Prepare != nil {
			g := r.preps[t.Prepare]
			if g == nil {
				g = &prepared{ready: make(chan struct{})}
				r.preps[t.Prepare] = g
			}
			g.left++
		}
	}
	jobs := p.s.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	work := make(chan *Task)
	var wg sync.WaitGroup
	for range min(jobs, max(len(p.Todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				r.run(t)
			}
		}()
	}
feed:
	for _, t := range p.Todo {
		select {
		case work <- t:
		case <-stop.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	st.Ran, st.Failed = r.ran, len(r.failures)
	switch {
	case r.interrupted || (ctx.Err() != nil && r.ran+len(r.failures) < len(p.Todo)):
		return st, ErrInterrupted
	case r.writeErr != nil:
		return st, r.writeErr
	case len(r.failures) > 0:
		return st, &FailedError{Failures: r.failures, ToRun: len(p.Todo)}
	}
	return st, nil
}

// event is an Event with the schedule's counts (r.mu held).
func (r *schedule) event(kind EventKind, t *Task, n int) Event {
	return Event{Kind: kind, Task: t, N: n, Total: len(r.p.Tasks), Resumed: len(r.p.Saved), Ran: r.ran, Failed: len(r.failures)}
}

// acquire reserves n bytes of the budget (all of it at most, so that a
// task bigger than the budget runs alone).
func (r *schedule) acquire(n int64) (int64, bool) {
	n = min(max(n, 1), r.cap)
	if err := r.mem.Acquire(r.stop, n); err != nil {
		return 0, false
	}
	return n, true
}

// run runs one task, once its shared work is done and its memory
// reserved, and records it.
func (r *schedule) run(t *Task) {
	if r.stop.Err() != nil {
		return
	}
	if t.Prepare != nil {
		if !r.prepare(t) {
			return
		}
		defer r.prepareDone(t)
	}
	n, ok := r.acquire(t.Memory)
	if !ok {
		return
	}
	defer r.mem.Release(n)
	if r.p.s.ReleaseMemory {
		// Each task builds a drive of its own: give its memory back
		// before the next gets its share of the budget.
		defer debug.FreeOSMemory()
	}
	r.mu.Lock()
	if r.stop.Err() != nil {
		r.mu.Unlock()
		return
	}
	seq := r.started
	r.started++
	r.p.s.tell(r.event(TaskStarted, t, seq))
	r.mu.Unlock()
	tick := func(simNs int64) {
		r.mu.Lock()
		e := r.event(TaskTick, t, seq)
		e.SimNs = simNs
		r.p.s.tell(e)
		r.mu.Unlock()
	}
	out, err := t.Run(r.ctx, tick)
	switch {
	case err != nil && (errors.Is(err, ErrInterrupted) || r.ctx.Err() != nil):
		r.mu.Lock()
		r.interrupted = true
		r.mu.Unlock()
		r.halt()
		return
	case err != nil:
		r.fail(t, seq, err)
		return
	}
	if err := atomicfile.WriteTree(r.p.s.Dir, out.Files); err != nil {
		r.stopWith(err)
		return
	}
	res := Result{Point: t.Point, Coords: t.Coords, Seed: t.Seed, Hash: t.Hash, Study: r.p.s.Study,
		Version: r.p.s.Version, Metrics: out.Metrics, Output: out.Output}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := appendResult(r.f, res); err != nil {
		r.writeErr = err
		r.halt()
		return
	}
	r.ran++
	r.p.s.tell(r.event(TaskFinished, t, seq))
}

// fail records a failed task: with FailFast, no other starts.
func (r *schedule) fail(t *Task, seq int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, Failure{Task: t, Err: err})
	e := r.event(TaskFailed, t, seq)
	e.Err = err
	r.p.s.tell(e)
	if r.p.s.FailFast {
		r.halt()
	}
}

// stopWith records the first error writing a result and stops the study.
func (r *schedule) stopWith(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writeErr == nil {
		r.writeErr = err
	}
	r.halt()
}

// prepare does t's shared work, once; the other tasks that need it wait
// for it. It reports whether the work is done.
func (r *schedule) prepare(t *Task) bool {
	g := r.preps[t.Prepare]
	g.once.Do(func() {
		defer close(g.ready)
		n, ok := r.acquire(t.Prepare.Memory)
		if !ok {
			g.err = context.Cause(r.stop)
			return
		}
		defer r.mem.Release(n)
		g.err = t.Prepare.Run(r.ctx)
	})
	select {
	case <-g.ready:
	case <-r.stop.Done():
		return false
	}
	if g.err != nil {
		if r.stop.Err() == nil {
			r.fail(t, -1, g.err)
		}
		return false
	}
	return true
}

// prepareDone releases t's shared work once the last task that needs it
// has run.
func (r *schedule) prepareDone(t *Task) {
	r.mu.Lock()
	g := r.preps[t.Prepare]
	g.left--
	last := g.left == 0
	r.mu.Unlock()
	if last && t.Prepare.Release != nil && r.ctx.Err() == nil {
		t.Prepare.Release()
	}
}

// dropCutLine removes a last line cut short (a run killed while writing
// it) from a results file, so that the next result starts a line.
func dropCutLine(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || len(b) == 0 || b[len(b)-1] == '\n' {
		return nil
	}
	if err != nil {
		return err
	}
	return os.Truncate(path, int64(bytes.LastIndexByte(b, '\n')+1))
}
