package report

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
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
	// instead of running them again. Without it, an Out that holds a
	// review's runs is an error (HasReviewError), before any run.
	Resume bool
	// Resumed, when set, is told each run read back (Resume).
	Resumed func(drive, step string)
	// Reused, when set, is told before any run that Resume found in Out
	// a review of other options (another drive, the endurance runs
	// added or left out, a drive's description changed) of which some
	// runs still apply to this one: how the options differ (one line, in
	// the command's terms) and how many of this review's runs it reads
	// back. A saved review none of whose runs applies is an error
	// (HasReviewError).
	Reused func(differences string, reused, total int)
	// MaxMemory, when positive, is the memory the review may plan to use:
	// a drive whose runs need more is refused before any run (an error
	// wrapping memlimit's ErrTooLarge), and a run starts only when its
	// estimate (memlimit.EstimateRun) fits beside those running, so that
	// fewer run at once than Jobs when that many would need more.
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

// runOne runs one run of the suite on a fresh drive built from cfg,
// telling at the simulated time every simulated second. A label
// repeated over a scenario's phases gives one measurement, its series on
// the scenario's clock (from the first phase's start, idle gaps kept).
//
// A run stopped by ctx returns an error wrapping ErrInterrupted.
func runOne(ctx context.Context, cfg controller.Config, s suiteRun, at func(simNs int64)) (controller.Config, []sim.Measurement, error) {
	steps, err := s.steps()
	if err != nil {
		return cfg, nil, err
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
		r.Intervals = m.Result.Intervals.Shifted(shift)
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
