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
	"strings"
	"sync/atomic"
	"time"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/atomicfile"
)

// MainFunc runs one ftlsim command line (without the program name) with
// the victim policies of policies known to it (nil: the built-in ones),
// writing its report to stdout and messages to stderr, and returns the
// exit status: cli.Command, which is cli.Main given the context that
// stops it and cli.WithPolicies(policies).
type MainFunc func(ctx context.Context, args []string, policies *ftl.Registry, stdout, stderr io.Writer) int

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
	// Main runs a command line; required (cli.Command).
	Main MainFunc
	// Memory estimates the memory one command line plans to use, and
	// checks it: a point whose command is bad input fails the study
	// before anything runs (cli.CommandMemory). nil: no estimates, no
	// checks.
	Memory func(args []string, policies *ftl.Registry) (int64, error)
	// Policies is where the points' victim policies (--gc, gc_policy)
	// are looked up, passed to Main and Memory: a policy a program
	// registered runs in its sweeps as in its reviews (nil: the built-in
	// policies only).
	Policies *ftl.Registry
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

// Run runs the points of study s (of one shard) as o says, on a
// Scheduler, and records each one's result. It returns the first error
// that stopped it; points that failed are counted and, after the others
// have run, returned as a *FailedError.
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
	sp := &sweepPoints{o: o, byTask: map[*Task]Point{}, groups: map[string]*Prepare{}}
	sched := &Scheduler{Dir: o.Out, Results: ResultsFile(o.Shard, o.Shards), Study: s.StudyHash(), Version: o.Version,
		Jobs: o.Jobs, MemoryBytes: o.MemoryBytes, Resume: o.Resume}
	plan, err := sched.Plan(sp.tasks(mine))
	if errors.Is(err, ErrHasResults) {
		return st, fmt.Errorf("%w: %s holds results of this study already: give --resume to run only the missing points, or another output directory",
			ErrStudy, filepath.Join(o.Out, sched.Results))
	}
	if err != nil {
		return st, err
	}
	st.Skipped = len(plan.Saved)
	var todo []Point
	for _, t := range plan.Todo {
		todo = append(todo, sp.byTask[t])
	}
	// Check every command before anything runs or is written, and
	// estimate its memory.
	est, prepEst, err := estimate(todo, o)
	if err != nil {
		return st, err
	}
	for i, t := range plan.Todo {
		t.Memory = est[i]
		if t.Prepare != nil {
			t.Prepare.Memory = prepEst[todo[i].Group]
		}
	}
	if err := prepareDir(s, o); err != nil {
		return st, err
	}
	for _, p := range todo {
		if err := writeDrive(o.Out, p); err != nil {
			return st, err
		}
	}
	pr := &progress{s: s, o: o, start: time.Now(), total: len(todo), skipped: st.Skipped}
	sched.OnEvent = pr.event
	pr.begin()
	rs, err := plan.Run(ctx)
	pr.end()
	st.Ran, st.Failed, st.Prepared = rs.Ran, rs.Failed, int(sp.prepared.Load())
	if err != nil {
		return st, err
	}
	if o.Shards <= 1 {
		if _, err := MergeDirs([]string{o.Out}, o.Out); err != nil {
			return st, err
		}
	}
	return st, nil
}

// sweepPoints makes a study's points into a Scheduler's tasks: each runs
// its command line through Options.Main, and the points of a forked
// group share the preparation of its drive snapshot.
type sweepPoints struct {
	o        Options
	byTask   map[*Task]Point
	groups   map[string]*Prepare
	prepared atomic.Int64
}

// tasks returns a task a point.
func (sp *sweepPoints) tasks(points []Point) []*Task {
	var tasks []*Task
	for _, p := range points {
		t := &Task{Point: p.Index, Coords: Coords(p.Coords), Seed: p.Seed, Hash: p.Hash, Run: sp.run(p)}
		if p.Group != "" {
			t.Prepare = sp.group(p)
		}
		sp.byTask[t] = p
		tasks = append(tasks, t)
	}
	return tasks
}

// run runs point p: its command, and its report's summary.
func (sp *sweepPoints) run(p Point) func(context.Context, func(int64)) (Outcome, error) {
	return func(ctx context.Context, _ func(int64)) (Outcome, error) {
		out, status, msg := sp.exec(ctx, p.Command(sp.o.Out))
		switch {
		case status == exitInterrupted:
			return Outcome{}, ErrInterrupted
		case status != 0:
			return Outcome{}, errors.New(msg)
		}
		metrics, err := Summarize(out)
		if err != nil {
			return Outcome{}, err
		}
		rel := fmt.Sprintf("points/%06d.json", p.Index)
		return Outcome{Files: map[string][]byte{rel: out}, Output: rel, Metrics: metrics}, nil
	}
}

// group returns the preparation of p's group: its drive snapshot, made
// once (unless an earlier, interrupted run made it) and removed after
// the group's last point unless Options.KeepStates.
func (sp *sweepPoints) group(p Point) *Prepare {
	if g := sp.groups[p.Group]; g != nil {
		return g
	}
	state := filepath.Join(sp.o.Out, p.StateFile)
	g := &Prepare{Run: func(ctx context.Context) error {
		if _, err := os.Stat(state); err == nil {
			return nil // made by an earlier, interrupted run
		}
		_, status, msg := sp.exec(ctx, p.PrepareCommand(sp.o.Out))
		if status != 0 {
			return errors.New("preparing the drive snapshot: " + msg)
		}
		sp.prepared.Add(1)
		return nil
	}}
	if !sp.o.KeepStates {
		g.Release = func() { os.Remove(state) }
	}
	sp.groups[p.Group] = g
	return g
}

// exec runs one command line, returning its report and, when it failed,
// the message to show (the command's last line on stderr).
func (sp *sweepPoints) exec(ctx context.Context, args []string) ([]byte, int, string) {
	var out, errb bytes.Buffer
	status := sp.o.Main(ctx, args, sp.o.Policies, &out, &errb)
	msg := ""
	if status != 0 {
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		msg = fmt.Sprintf("exit status %d: %s", status, lines[len(lines)-1])
	}
	return out.Bytes(), status, msg
}

// exitInterrupted is the command's status for a run stopped by a signal.
const exitInterrupted = 130

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
		if est[i], err = o.Memory(p.Command(tmp), o.Policies); err != nil {
			return nil, nil, fmt.Errorf("point %d (%s): %w", p.Index, p.Label(), err)
		}
		if _, ok := prepEst[p.Group]; p.Group != "" && !ok {
			if prepEst[p.Group], err = o.Memory(p.PrepareCommand(tmp), o.Policies); err != nil {
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
