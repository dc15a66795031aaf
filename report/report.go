package report

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/memlimit"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// Options choose a review's drives, length and output.
type Options struct {
	// Drives are preset names or drive description files.
	Drives []string
	// Out is the report folder (created).
	Out string
	// Quick shrinks each drive to QuickCapacity (keeping its geometry's
	// dies) and the runs to seconds, keeping each chart's shape.
	Quick bool
	// Progress, when set, is told each step as it starts and, during it,
	// the simulated time the drive has run so far (every simulated second).
	Progress func(drive, step string, done, total int, simNs int64)
	// Policies is where the drives' gc_policy names are looked up (nil:
	// the built-in policies only).
	Policies *ftl.Registry
	// Done, when set, is told each run as it finishes (done of total,
	// counting it).
	Done func(drive, step string, done, total int)
	// Jobs is how many runs of the suite run at once (0: one per CPU, at
	// most 4, since each holds a whole simulated drive in memory: about
	// 2.5 MiB per GiB of flash).
	Jobs int
	// Resume reads back the runs a review into Out has already written
	// (runs/, for the same drive description, run, parameters and mode)
	// instead of running them again.
	Resume bool
	// Resumed, when set, is told each run read back (Resume).
	Resumed func(drive, step string)
	// MaxMemory, when positive, is the memory the review may plan to use:
	// a drive whose runs need more is refused before any run (an error
	// wrapping memlimit's ErrTooLarge), and fewer runs run at once than
	// Jobs when that many would need more.
	MaxMemory int64
	// Context, when set, stops the review when it is done: the runs under
	// way stop at their next event and are dropped, no other starts, and
	// Run returns an error wrapping ErrInterrupted. The runs finished
	// until then are written.
	Context context.Context
	// Endurance adds, for each drive, the accelerated endurance procedure
	// (workload.NewEndurance, quick with Quick) on its own copy of the
	// drive with the read-error model on (Firmware.ReadErrors), and an
	// Endurance section to the report. It runs, is saved and is resumed
	// as the suite's runs are (runs/DRIVE_endurance.gob); a drive whose
	// NAND part has no error model is refused before any run.
	Endurance bool
}

// Drive is one drive's review results.
type Drive struct {
	Name   string
	Config controller.Config
	Runs   map[RunName][]sim.Measurement // by run of the suite
	// Endurance is the drive's endurance run (Options.Endurance), else
	// nil.
	Endurance *sim.EnduranceResult
}

// RunName names a run of the review suite: a scenario with the suite's
// parameters. It keys Drive.Runs.
type RunName string

// The suite's runs.
const (
	RunFourCorners       RunName = "four-corners"
	RunAccessPatterns    RunName = "access-patterns" // TechReport's Iometer patterns at QD 1-32
	RunASSSD             RunName = "as-ssd"
	RunATTO              RunName = "atto"
	RunHDTach            RunName = "hdtach"
	RunSustainedWrite    RunName = "sustained-write"
	RunSustained80       RunName = "sustained-write-80"   // sustained write of the last 20 % of a drive filled to 80 %
	RunSustainedIdle     RunName = "sustained-write-idle" // sustained write of half the span, an idle, and a burst
	RunConsistency       RunName = "consistency"
	RunConsistency25     RunName = "consistency-25" // consistency with 25 % spare area by partitioning
	RunTRIMValidation    RunName = "trim-validation"
	RunPower             RunName = "power"
	RunStorageBenchHeavy RunName = "storage-bench-heavy-2011"
	RunStorageBenchLight RunName = "storage-bench-light-2011"
	RunDestroyer         RunName = "destroyer-2013" // AnandTech's The Destroyer
)

// RunEndurance names the endurance run (Options.Endurance) in the report
// folder's file names. It is not a run of the suite: its result is
// Drive.Endurance, not in Drive.Runs.
const RunEndurance RunName = "endurance"

// scenario returns the name of the workload scenario run r runs.
func (r RunName) scenario() string {
	switch r {
	case RunConsistency25:
		return "consistency"
	case RunSustained80, RunSustainedIdle:
		return "sustained-write"
	}
	return string(r)
}

// Label names a measured step of a run (its workload.Step.Label, which
// the sim.Measurement carries). With a RunName it names one series of the
// report.
type Label string

// The labels the report reads, by run (ATTO's are built by attoLabel,
// the access patterns' by accessLabel).
const (
	// RunFourCorners
	LabelSeqRead128kQD1  Label = "128k-seq-read-qd1"
	LabelSeqWrite128kQD1 Label = "128k-seq-write-qd1"
	LabelRandRead4kQD3   Label = "4k-rand-read-qd3"
	LabelRandRead4kQD32  Label = "4k-rand-read-qd32"
	LabelRandWrite4kQD3  Label = "4k-rand-write-qd3"
	LabelRandWrite4kQD32 Label = "4k-rand-write-qd32"
	// RunHDTach
	LabelReadCurve  Label = "read-curve"
	LabelWriteCurve Label = "write-curve"
	LabelAccess512  Label = "access-512"
	LabelAccess4k   Label = "access-4k"
	LabelAccess64k  Label = "access-64k"
	LabelAccess1m   Label = "access-1m"
	// RunSustainedWrite, RunSustained80 and RunSustainedIdle (which has
	// LabelAfterIdle too)
	LabelSustained Label = "sustained"
	LabelAfterIdle Label = "after-idle"
	// RunConsistency and RunConsistency25
	LabelConsistency Label = "consistency"
	// RunTRIMValidation
	LabelClean     Label = "clean"
	LabelDirty     Label = "dirty"
	LabelAfterTrim Label = "after-trim"
	// RunPower (and RunASSSD: LabelSeqWrite, LabelSeqRead)
	LabelIdle        Label = "idle"
	LabelSeqWrite    Label = "seq-write"
	LabelSeqRead     Label = "seq-read"
	LabelRandomWrite Label = "random-write"
	// RunStorageBenchHeavy, RunStorageBenchLight and RunDestroyer (their
	// phases combined)
	LabelBench Label = "bench"
)

// attoSizes are ATTO's transfer sizes, in the scenario's syntax: 512
// bytes doubling to 8 MiB.
func attoSizes() []string {
	return []string{"512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m", "8m"}
}

// attoLabel is the label of ATTO's run in direction dir ("read" or
// "write") at transfer size size (one of attoSizes).
func attoLabel(dir, size string) Label { return Label(dir + "-" + size) }

// accessPatterns are TechReport's Iometer access patterns, as the
// access-patterns scenario names them.
func accessPatterns() []string {
	return []string{"file-server", "web-server", "workstation", "database"}
}

// accessQDs are the outstanding I/Os the access-patterns scenario runs
// each pattern at.
func accessQDs() []int { return []int{1, 2, 4, 8, 16, 32} }

// accessLabel is the label of access pattern pattern (one of
// accessPatterns) at qd outstanding I/Os (one of accessQDs).
func accessLabel(pattern string, qd int) Label { return Label(fmt.Sprintf("%s-qd%d", pattern, qd)) }

// ErrMissingSeries is wrapped by the error a review returns when a run's
// results lack a series the report shows, rather than drawing it as zero.
var ErrMissingSeries = errors.New("report: missing series")

// Result returns the measurement labelled label in run run; a missing run
// or label is an error wrapping ErrMissingSeries that names what exists.
func (d Drive) Result(run RunName, label Label) (*sim.Result, error) {
	ms, ok := d.Runs[run]
	if !ok {
		var have []string
		for r := range d.Runs {
			have = append(have, string(r))
		}
		sort.Strings(have)
		return nil, fmt.Errorf("%w: drive %s has no run %s (it has: %s)", ErrMissingSeries, d.Name, run, strings.Join(have, ", "))
	}
	var have []string
	for _, m := range ms {
		if m.Label == string(label) {
			if m.Result == nil {
				return nil, fmt.Errorf("%w: drive %s, run %s, step %s has no result", ErrMissingSeries, d.Name, run, label)
			}
			return m.Result, nil
		}
		have = append(have, m.Label)
	}
	return nil, fmt.Errorf("%w: drive %s, run %s has no step labelled %s (it has: %s)", ErrMissingSeries, d.Name, run, label, strings.Join(have, ", "))
}

// results returns Result for each of labels in run run, stopping at the
// first missing one.
func (d Drive) results(run RunName, labels ...Label) ([]*sim.Result, error) {
	out := make([]*sim.Result, len(labels))
	for i, l := range labels {
		r, err := d.Result(run, l)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// QuickCapacity is the user capacity of drive c in quick mode: 1 GiB per
// die, at least 8 GiB, and at least 64 plane groups per die (the large
// blocks of 3D TLC and QLC) — more with a static SLC cache, which scales
// with the capacity and takes its share of the spare area, so that what
// the spare area leaves beside it still holds ten groups a die for
// collection's thresholds and open groups.
func QuickCapacity(c controller.Config) int64 {
	g := c.NAND.Geometry
	groups := 64.0
	if s := c.Firmware.SLCCache.Static; s > 0 && c.Capacity > 0 {
		op := c.OPPercent / 100
		static := float64(s) * float64(c.NAND.Timing.WordLinePages()) / float64(c.Capacity) // of the user capacity, in native cells
		if room := (op - static) / (1 + op); room > 0 {
			groups = max(groups, math.Ceil(10/room))
		}
	}
	perDie := max(int64(1)<<30, int64(groups)*int64(g.PlanesPerDie)*g.BlockBytes())
	return max(8<<30, int64(g.Dies())*perDie)
}

// Run runs the suite on every drive and writes the report folder. The
// runs are independent (each scenario starts from a fresh drive), so up
// to Options.Jobs of them run at once. Every drive is looked up and the
// folder checked (ErrOutput) before any run starts; each run is written
// to the folder as soon as it finishes (see ErrInterrupted and
// Options.Resume), and the report itself once all have.
func Run(o Options) ([]Drive, error) {
	if len(o.Drives) == 0 {
		return nil, fmt.Errorf("report: no drives")
	}
	if o.Jobs < 0 {
		return nil, fmt.Errorf("report: jobs = %d, allowed 0 (automatic) or more", o.Jobs)
	}
	jobs := o.Jobs
	if jobs == 0 {
		jobs = min(runtime.GOMAXPROCS(0), 4)
	}
	drives := make([]Drive, len(o.Drives))
	cfgs := make([]controller.Config, len(o.Drives))
	ecfgs := make([]controller.Config, len(o.Drives)) // the endurance runs' drives
	for i, name := range o.Drives {
		cfg, err := controller.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("report: drive %s: %w", name, err)
		}
		if o.Quick {
			// Keep the drive's spare area and dies; shrink its blocks.
			if cfg.Sizing == controller.SizeSpare && cfg.OPPercent == 0 {
				return nil, fmt.Errorf("%w: %s: quick mode keeps the drive's op_percent, which it does not state (sizing: %s derives it)",
					controller.ErrConfig, name, controller.SizeSpare)
			}
			cfg = cfg.Resized(controller.Size(QuickCapacity(cfg)), cfg.OPPercent)
		}
		cfg.Policies = o.Policies
		r, err := cfg.Resolve()
		if err != nil {
			return nil, fmt.Errorf("report: drive %s: %w", name, err)
		}
		var er controller.Resolved
		if o.Endurance {
			ecfgs[i] = cfg
			ecfgs[i].Firmware.ReadErrors = true
			if er, err = ecfgs[i].Resolve(); err != nil {
				return nil, fmt.Errorf("report: drive %s: the endurance run models read errors: %w", name, err)
			}
		}
		if o.MaxMemory > 0 {
			need, err := runMemory(r, o.Quick)
			if err != nil {
				return nil, err
			}
			if o.Endurance {
				e, err := enduranceMemory(er, o.Quick)
				if err != nil {
					return nil, err
				}
				need = max(need, e)
			}
			if need > o.MaxMemory {
				return nil, fmt.Errorf("report: drive %s: %w: a run of the suite takes about %s to simulate; allowed %s", name,
					memlimit.ErrTooLarge, units.FormatBytes(need), units.FormatBytes(o.MaxMemory))
			}
			jobs = max(1, min(jobs, int(o.MaxMemory/need))) // each run holds its own drive
		}
		cfgs[i] = cfg
		drives[i] = Drive{Name: name, Runs: map[RunName][]sim.Measurement{}}
	}
	if err := checkOut(o.Out); err != nil {
		return nil, fmt.Errorf("report: %s: %w", o.Out, err)
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	st := suite(o.Quick)
	// A task is a run of the suite (run indexes st) or a drive's
	// endurance run (run is enduranceTask). The endurance runs, the
	// longest, go first, so that the others fill the other jobs beside
	// them rather than one job running on alone at the end.
	const enduranceTask = -1
	type task struct{ drive, run int }
	var tasks []task
	finished := 0
	if o.Endurance {
		for i := range drives {
			if o.Resume {
				if res, ok := loadEndurance(o, cfgs[i], o.Drives[i]); ok {
					drives[i].Endurance = res
					finished++
					if o.Resumed != nil {
						o.Resumed(o.Drives[i], string(RunEndurance))
					}
					continue
				}
			}
			tasks = append(tasks, task{i, enduranceTask})
		}
	}
	for i := range drives {
		for j, s := range st {
			if o.Resume {
				if cfg, ms, ok := loadRun(o, cfgs[i], s, o.Drives[i]); ok {
					drives[i].Config = cfg
					drives[i].Runs[s.name] = ms
					finished++
					if o.Resumed != nil {
						o.Resumed(o.Drives[i], string(s.name))
					}
					continue
				}
			}
			tasks = append(tasks, task{i, j})
		}
	}
	total := len(drives) * len(st)
	if o.Endurance {
		total += len(drives)
	}
	var (
		mu       sync.Mutex // guards drives, started, finished, firstErr and Progress
		started  = finished
		firstErr error
		wg       sync.WaitGroup
	)
	progress := func(drive, step string, done, total int, simNs int64) {
		if o.Progress != nil {
			o.Progress(drive, step, done, total, simNs)
		}
	}
	work := make(chan task)
	for range min(jobs, len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				name, step := o.Drives[t.drive], RunEndurance
				if t.run != enduranceTask {
					step = st[t.run].name
				}
				mu.Lock()
				skip := firstErr != nil || ctx.Err() != nil
				n := started
				started++
				if !skip {
					progress(name, string(step), n, total, 0)
				}
				mu.Unlock()
				if skip {
					continue
				}
				at := func(simNs int64) {
					mu.Lock()
					progress(name, string(step), n, total, simNs)
					mu.Unlock()
				}
				// keep records the finished run (under mu).
				var keep func(d *Drive)
				var err error
				if t.run == enduranceTask {
					var res *sim.EnduranceResult
					res, err = runEndurance(ctx, ecfgs[t.drive], o.Quick, at)
					if err == nil {
						err = saveEndurance(o, cfgs[t.drive], name, res)
					}
					keep = func(d *Drive) { d.Endurance = res }
				} else {
					s := st[t.run]
					var cfg controller.Config
					var ms []sim.Measurement
					cfg, ms, err = runOne(ctx, cfgs[t.drive], s, at)
					if err == nil {
						err = saveRun(o, cfgs[t.drive], s, name, cfg, ms)
					}
					keep = func(d *Drive) {
						d.Config = cfg
						d.Runs[s.name] = ms
					}
				}
				mu.Lock()
				if err != nil && firstErr == nil && !errors.Is(err, ErrInterrupted) {
					firstErr = fmt.Errorf("%s %s: %w", name, step, err)
				}
				if err == nil {
					keep(&drives[t.drive])
					finished++
					if o.Done != nil {
						o.Done(name, string(step), finished, total)
					}
				}
				mu.Unlock()
				// Each scenario builds a fresh drive; give its memory back
				// before the next (a 256 GiB drive holds 0.6 GB).
				debug.FreeOSMemory()
			}
		}()
	}
	for _, t := range tasks {
		work <- t
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if ctx.Err() != nil && finished < total {
		return nil, fmt.Errorf("%w: %d of %d runs finished and written to %s", ErrInterrupted, finished, total,
			filepath.Join(o.Out, "runs"))
	}
	if err := write(o, drives); err != nil {
		return nil, err
	}
	return drives, nil
}

// runMemory estimates the most memory a run of the suite holds on the
// drive r: the drive, and the statistics of the longest run's jobs (their
// latency histograms and one-second series).
func runMemory(r controller.Resolved, quick bool) (int64, error) {
	var most int64
	for _, s := range suite(quick) {
		sc, err := workload.ScenarioByName(s.name.scenario())
		if err != nil {
			return 0, fmt.Errorf("report: %w", err)
		}
		steps, err := sc.Steps(s.params)
		if err != nil {
			return 0, fmt.Errorf("report: %s: %w", s.name, err)
		}
		var stats int64
		for _, st := range steps {
			if st.Kind == workload.RunJob {
				stats += sim.StreamMemoryBytes((st.Job.RuntimeNs+st.Job.RampNs)/sim.Second + 1)
			}
		}
		most = max(most, stats)
	}
	return memlimit.Drive(r, r.Config.NAND.TrackData) + most, nil
}

// runOne runs one run of the suite on a fresh drive built from cfg,
// telling at the simulated time every simulated second. A label
// repeated over a scenario's phases gives one measurement, its series on
// the scenario's clock (from the first phase's start, idle gaps kept).
//
// A run stopped by ctx returns an error wrapping ErrInterrupted.
func runOne(ctx context.Context, cfg controller.Config, s suiteRun, at func(simNs int64)) (controller.Config, []sim.Measurement, error) {
	sc, err := workload.ScenarioByName(s.name.scenario())
	if err != nil {
		return cfg, nil, fmt.Errorf("report: %w", err)
	}
	steps, err := sc.Steps(s.params)
	if err != nil {
		return cfg, nil, fmt.Errorf("report: %s: %w", s.name, err)
	}
	c, err := controller.New(cfg)
	if err != nil {
		return cfg, nil, fmt.Errorf("report: %w", err)
	}
	eng := sim.New(c)
	if ctx.Err() != nil {
		eng.Stop()
	}
	defer context.AfterFunc(ctx, eng.Stop)()
	ms, err := eng.RunStepsHooks(steps, sim.Hooks{OnInterval: func(sim.Interval) { at(eng.Now()) }})
	if err != nil {
		return cfg, nil, err
	}
	if eng.Stopped() {
		return cfg, nil, ErrInterrupted
	}
	onScenarioClock(ms)
	return c.Config(), sim.CombineRepeated(ms), nil
}

// onScenarioClock shifts the series of each repeated label's later
// phases by their start after the first phase's, so that the combined
// series runs on one clock instead of restarting at every phase.
func onScenarioClock(ms []sim.Measurement) {
	first := map[string]int64{}
	for i, m := range ms {
		if m.Result == nil {
			continue
		}
		t0, seen := first[m.Label]
		if !seen {
			first[m.Label] = m.Result.StartNs
			continue
		}
		shift := m.Result.StartNs - t0
		r := *m.Result
		r.Intervals = make([]sim.Interval, len(m.Result.Intervals))
		for k, iv := range m.Result.Intervals {
			iv.StartNs += shift
			iv.EndNs += shift
			r.Intervals[k] = iv
		}
		ms[i].Result = &r
	}
}

func mbps(r *sim.Result) float64 { return (r.Read.BWBytes + r.Write.BWBytes) / 1e6 }

func iops(r *sim.Result) float64 { return r.Read.IOPS + r.Write.IOPS }

// describe is one line about a drive.
func describe(d Drive) string {
	g := d.Config.NAND.Geometry
	return fmt.Sprintf("%s: %s user, %s flash (%.1f %% spare), %d dies on %d channels, %s GC",
		d.Name, units.FormatBytes(int64(d.Config.Capacity)), units.FormatBytes(g.Bytes()), d.Config.OPPercent, g.Dies(), g.Channels, d.Config.Firmware.GCPolicy)
}
