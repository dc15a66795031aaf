package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/ftlsim/ftlsim/internal/atomicfile"
)

// MainFunc runs one ftlsim command line (without the program name),
// writing its report to stdout and messages to stderr, and returns the
// exit status: cli.Main, given the context that stops it.
type MainFunc func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// Options say how Run runs a study.
type Options struct {
	// Out is the output directory (created when missing).
	Out string
	// Jobs is the number of points run at once (default: the CPU count).
	Jobs int
	// MemoryBytes is the memory the points running at once may plan to
	// use together (0: no limit): a point starts only when its estimate
	// fits beside the running ones', so big drives run fewer at a time.
	MemoryBytes int64
	// Shard and Shards select the points with Index % Shards == Shard
	// (Shards 0 or 1: every point).
	Shard, Shards int
	// Resume continues a study in Out: points whose result is there,
	// with the same hash and version, are not run again. Without it, an
	// Out that holds results is an error.
	Resume bool
	// Version names the ftlsim that runs the points (recorded in each
	// result); results of another version are run again.
	Version string
	// Main runs a command line; required.
	Main MainFunc
	// Memory estimates the memory one command line plans to use, and
	// checks it: a point whose command is bad input fails the study
	// before anything runs. nil: no estimates, no checks.
	Memory func(args []string) (int64, error)
	// Progress receives a line per finished point, or with Bar a
	// progress bar (nil: nothing).
	Progress io.Writer
	// Bar draws a progress bar with the points done and the ETA on
	// Progress (a terminal) instead of a line per point.
	Bar bool
	// KeepStates keeps the drive snapshots of forked groups once their
	// points are done (they are removed otherwise).
	KeepStates bool
}

// Stats counts what Run did.
type Stats struct {
	Points   int // points of the study
	Selected int // points of this shard
	Skipped  int // points with a result already (Resume)
	Ran      int // points run and recorded
	Failed   int // points whose command failed
	Prepared int // drive snapshots prepared for forked groups
}

// ErrInterrupted is returned when the context stopped a study; the
// points finished so far are recorded.
var ErrInterrupted = errors.New("sweep: interrupted (the finished points are recorded; --resume continues)")

// ResultsFile names the results file of shard i of n (n ≤ 1: the whole
// study) in an output directory.
func ResultsFile(i, n int) string {
	if n <= 1 {
		return "results.jsonl"
	}
	return fmt.Sprintf("results-%d-of-%d.jsonl", i, n)
}

// Table files written once the whole study has run (Run without shards,
// or Merge).
const (
	TableCSV   = "table.csv"
	TableJSONL = "table.jsonl"
	StudyFile  = "study.yaml"
)

// Run runs the points of study s (of one shard) as o says and records
// each one's result. It returns the first error that stopped it; points
// that failed are counted and the first failure is returned after the
// others have run.
func Run(ctx context.Context, s *Sweep, o Options) (Stats, error) {
	var st Stats
	if o.Main == nil {
		return st, fmt.Errorf("%w: Options.Main is required", ErrStudy)
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	if o.Shards > 1 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return st, fmt.Errorf("%w: shard %d/%d: allowed 0..%d", ErrStudy, o.Shard, o.Shards, o.Shards-1)
	}
	points, err := s.Points()
	if err != nil {
		return st, err
	}
	st.Points = len(points)
	var mine []Point
	for _, p := range points {
		if o.Shards <= 1 || p.Index%o.Shards == o.Shard {
			mine = append(mine, p.inShard(o.Shard, o.Shards))
		}
	}
	st.Selected = len(mine)
	if err := checkDir(s, o); err != nil {
		return st, err
	}
	resultsPath := filepath.Join(o.Out, ResultsFile(o.Shard, o.Shards))
	done, err := doneResults(o)
	if err != nil {
		return st, err
	}
	if _, err := os.Stat(resultsPath); err == nil && !o.Resume {
		return st, fmt.Errorf("%w: %s holds results of this study already: give --resume to run only the missing points, or another output directory", ErrStudy, resultsPath)
	}
	var todo []Point
	for _, p := range mine {
		if r, ok := done[p.Index]; ok && r.Hash == p.Hash && r.Version == o.Version {
			if _, err := os.Stat(filepath.Join(o.Out, r.Output)); err == nil {
				st.Skipped++
				continue
			}
		}
		todo = append(todo, p)
	}
	// Check every command before anything runs or is written, and
	// estimate its memory.
	est, prepEst, err := estimate(todo, o)
	if err != nil {
		return st, err
	}
	if err := prepareDir(s, o); err != nil {
		return st, err
	}
	for _, p := range todo {
		if err := writeDrive(o.Out, p); err != nil {
			return st, err
		}
	}
	if err := dropCutLine(resultsPath); err != nil {
		return st, err
	}
	f, err := os.OpenFile(resultsPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return st, err
	}
	defer f.Close()
	r := &runner{s: s, o: o, f: f, groups: map[string]*group{}, start: time.Now(), total: len(todo), skipped: st.Skipped}
	for _, p := range todo {
		if p.Group != "" {
			g := r.groups[p.Group]
			if g == nil {
				g = &group{ready: make(chan struct{}), est: prepEst[p.Group]}
				r.groups[p.Group] = g
			}
			g.left++
		}
	}
	budget := o.MemoryBytes
	if budget <= 0 {
		budget = 1 << 62
	}
	r.mem = semaphore.NewWeighted(budget)
	r.budget = budget
	r.startProgress()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.ctx = ctx
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(o.Jobs, max(len(todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r.runPoint(todo[i], est[i])
			}
		}()
	}
feed:
	for i := range todo {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	r.stopProgress()
	st.Ran, st.Failed, st.Prepared = r.ran, len(r.failures), r.prepared
	switch {
	case r.interrupted || ctx.Err() != nil:
		return st, ErrInterrupted
	case r.writeErr != nil:
		return st, r.writeErr
	case len(r.failures) > 0:
		sort.Slice(r.failures, func(i, j int) bool { return r.failures[i].point < r.failures[j].point })
		f := r.failures[0]
		return st, fmt.Errorf("%d of %d points failed; the first, point %d (%s): %s", len(r.failures), len(todo), f.point, f.label, f.msg)
	}
	if o.Shards <= 1 {
		if _, err := MergeDirs([]string{o.Out}, o.Out); err != nil {
			return st, err
		}
	}
	return st, nil
}

// estimate checks the command of every point to run, and of every
// group's preparation, with Options.Memory, and returns their memory
// estimates. The drive descriptions the commands read are written to a
// temporary directory for it.
func estimate(todo []Point, o Options) ([]int64, map[string]int64, error) {
	est := make([]int64, len(todo))
	prepEst := map[string]int64{}
	if o.Memory == nil {
		return est, prepEst, nil
	}
	tmp, err := os.MkdirTemp("", "ftlsim-sweep-check-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, "drives"), 0o755); err != nil {
		return nil, nil, err
	}
	for i, p := range todo {
		if err := writeDrive(tmp, p); err != nil {
			return nil, nil, err
		}
		if est[i], err = o.Memory(p.Command(tmp)); err != nil {
			return nil, nil, fmt.Errorf("point %d (%s): %w", p.Index, p.Label(), err)
		}
		if _, ok := prepEst[p.Group]; p.Group != "" && !ok {
			if prepEst[p.Group], err = o.Memory(p.PrepareCommand(tmp)); err != nil {
				return nil, nil, fmt.Errorf("point %d (%s), preparing its drive: %w", p.Index, p.Label(), err)
			}
		}
	}
	return est, prepEst, nil
}

// checkDir refuses an output directory that holds another study.
func checkDir(s *Sweep, o Options) error {
	path := filepath.Join(o.Out, StudyFile)
	old, err := os.ReadFile(path)
	if err == nil && !bytes.Equal(old, s.Source) {
		return fmt.Errorf("%w: %s holds another study file (%s differs from this one): give another output directory", ErrStudy, o.Out, path)
	}
	return nil
}

// prepareDir creates the output directory and its study.yaml, refusing a
// directory that holds another study.
func prepareDir(s *Sweep, o Options) error {
	for _, d := range []string{o.Out, filepath.Join(o.Out, "points"), filepath.Join(o.Out, "drives"), filepath.Join(o.Out, "states")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	path := filepath.Join(o.Out, StudyFile)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && !bytes.Equal(old, s.Source):
		return fmt.Errorf("%w: %s holds another study file (%s differs from this one): give another output directory", ErrStudy, o.Out, path)
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	return atomicfile.WriteFile(path, s.Source)
}

// doneResults reads every results file in the output directory, by point.
func doneResults(o Options) (map[int]Result, error) {
	files, _ := filepath.Glob(filepath.Join(o.Out, "results*.jsonl"))
	done := map[int]Result{}
	for _, file := range files {
		rs, err := ReadResults(file)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			done[r.Point] = r
		}
	}
	return done, nil
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

// writeDrive writes a point's drive description into the output
// directory, when the axes changed it.
func writeDrive(dir string, p Point) error {
	if p.DriveFile == "" {
		return nil
	}
	path := filepath.Join(dir, p.DriveFile)
	if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, p.Drive) {
		return nil
	}
	return atomicfile.WriteFile(path, p.Drive)
}

// group is a forked group's preparation: its snapshot is made once, by
// the first of its points to run.
type group struct {
	once  sync.Once
	ready chan struct{}
	err   error
	est   int64
	left  int // points of the group still to run (guarded by runner.mu)
}

type failure struct {
	point      int
	label, msg string
}

type runner struct {
	s      *Sweep
	o      Options
	ctx    context.Context
	f      *os.File
	mem    *semaphore.Weighted
	budget int64
	groups map[string]*group

	mu          sync.Mutex
	ran         int
	prepared    int
	failures    []failure
	interrupted bool
	writeErr    error
	start       time.Time
	total       int
	skipped     int
	bar         *bar
}

// acquire reserves a point's memory estimate (all of the budget at most,
// so that a point bigger than the budget runs alone).
func (r *runner) acquire(n int64) (int64, bool) {
	n = min(max(n, 1), r.budget)
	if err := r.mem.Acquire(r.ctx, n); err != nil {
		return 0, false
	}
	return n, true
}

// exec runs one command line, returning its report and, when it failed,
// the message to show (the command's last line on stderr).
func (r *runner) exec(args []string) ([]byte, int, string) {
	var out, errb bytes.Buffer
	status := r.o.Main(r.ctx, args, &out, &errb)
	msg := ""
	if status != 0 {
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		msg = fmt.Sprintf("exit status %d: %s", status, lines[len(lines)-1])
	}
	return out.Bytes(), status, msg
}

// exitInterrupted is the command's status for a run stopped by a signal.
const exitInterrupted = 130

func (r *runner) fail(p Point, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, failure{p.Index, p.Label(), msg})
	r.report(p, "failed: "+msg)
}

func (r *runner) runPoint(p Point, est int64) {
	if r.ctx.Err() != nil {
		return
	}
	if p.Group != "" {
		if !r.prepare(p) {
			return
		}
		defer r.groupDone(p)
	}
	n, ok := r.acquire(est)
	if !ok {
		return
	}
	defer r.mem.Release(n)
	out, status, msg := r.exec(p.Command(r.o.Out))
	switch {
	case status == exitInterrupted:
		r.mu.Lock()
		r.interrupted = true
		r.mu.Unlock()
		return
	case status != 0:
		r.fail(p, msg)
		return
	}
	metrics, err := Summarize(out)
	if err != nil {
		r.fail(p, err.Error())
		return
	}
	rel := fmt.Sprintf("points/%06d.json", p.Index)
	if err := atomicfile.WriteFile(filepath.Join(r.o.Out, rel), out); err != nil {
		r.stopWith(err)
		return
	}
	res := Result{Point: p.Index, Coords: p.Coords, Seed: p.Seed, Hash: p.Hash, Study: r.s.StudyHash(),
		Version: r.o.Version, Metrics: metrics, Output: rel}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := appendResult(r.f, res); err != nil {
		r.writeErr = err
		return
	}
	r.ran++
	r.report(p, "")
}

func (r *runner) stopWith(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writeErr == nil {
		r.writeErr = err
	}
}

// prepare makes the snapshot of p's group, once; the other points of the
// group wait for it. It reports whether the snapshot is there.
func (r *runner) prepare(p Point) bool {
	g := r.groups[p.Group]
	g.once.Do(func() {
		defer close(g.ready)
		if _, err := os.Stat(filepath.Join(r.o.Out, p.StateFile)); err == nil {
			return // made by an earlier, interrupted run
		}
		n, ok := r.acquire(g.est)
		if !ok {
			g.err = context.Cause(r.ctx)
			return
		}
		defer r.mem.Release(n)
		_, status, msg := r.exec(p.PrepareCommand(r.o.Out))
		if status != 0 {
			g.err = errors.New("preparing the drive snapshot: " + msg)
			return
		}
		r.mu.Lock()
		r.prepared++
		r.mu.Unlock()
	})
	select {
	case <-g.ready:
	case <-r.ctx.Done():
		return false
	}
	if g.err != nil {
		if r.ctx.Err() == nil {
			r.fail(p, g.err.Error())
		}
		return false
	}
	return true
}

// groupDone removes a group's snapshot once its last point has run.
func (r *runner) groupDone(p Point) {
	r.mu.Lock()
	g := r.groups[p.Group]
	g.left--
	last := g.left == 0
	r.mu.Unlock()
	if last && !r.o.KeepStates && r.ctx.Err() == nil {
		os.Remove(filepath.Join(r.o.Out, p.StateFile))
	}
}

// inShard gives the snapshot of a forked point's group a name of shard
// i's own: shards sharing an output directory each prepare, use and
// remove their own.
func (p Point) inShard(i, n int) Point {
	if p.Group == "" || n <= 1 {
		return p
	}
	old := p.StateFile
	p.StateFile = strings.TrimSuffix(old, ".state") + fmt.Sprintf("-%d-of-%d.state", i, n)
	p.Args, p.Prepare = slices.Clone(p.Args), slices.Clone(p.Prepare)
	for _, l := range [][]string{p.Args, p.Prepare} {
		for j, a := range l {
			if k, v, ok := strings.Cut(a, "="); ok && v == old {
				l[j] = k + "=" + p.StateFile
			}
		}
	}
	return p
}
