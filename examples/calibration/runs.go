package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/workload"
)

// kind is one of the reviews' procedures.
type kind int

const (
	consistency   kind = iota // the drive's own spare area
	consistency25             // 25 % of the LBAs left unwritten
	trimValidation
	hdTach  // after a torture
	desktop // the desktop suite and the 4 KiB random writes, fresh and seasoned
)

func (k kind) String() string {
	return [...]string{"consistency", "consistency, 25 % spare", "TRIM validation", "HD Tach after torture", "desktop suite, fresh and seasoned"}[k]
}

// line is a product line: its drives, and the one the reviews measured
// (empty: none of its figures is in calibration.md, so all are
// predictions).
type line struct {
	name       string
	drives     []string
	calibrated string
}

var lines = []line{
	{"bp4", []string{"bp4-60", "bp4-120", "bp4-240", "bp4-480", "bp4-960"}, "bp4-240"},
	{"bp4-msata", []string{"bp4-msata-30", "bp4-msata-60", "bp4-msata-120", "bp4-msata-240"}, "bp4-msata-240"},
	{"bp3", []string{"bp3-64", "bp3-128", "bp3-256"}, "bp3-256"},
	{"mushkin-atlas", []string{"atlas-30", "atlas-60", "atlas-120", "atlas-240", "atlas-480"}, "atlas-240"},
	{"intel-525", []string{"intel-525-240"}, "intel-525-240"},
	{"m4", []string{"m4-64", "m4-128", "m4-256", "m4-512"}, ""},
	{"c300", []string{"c300-64", "c300-128", "c300-256"}, ""},
	{"intel-510", []string{"intel-510-120", "intel-510-250"}, ""},
	{"x25m-g1", []string{"x25m-g1-80"}, ""},
	{"x25m-g2", []string{"x25m-g2-80", "x25m-g2-160"}, ""},
}

// spec is one run: a procedure on a drive — as the preset has it, or
// unfitted: with the values fitted on its line at their defaults, what
// the model predicts before fitting (fittedParams).
type spec struct {
	drive    string
	kind     kind
	unfitted bool
}

// planRuns lists the runs: consistency on every drive, with 25 % spare
// on the calibrated Phison drives; TRIM validation on the SandForce
// drives and one drive of each other line; HD Tach after torture on the
// BP4 drives up to 480 GB (the 960 GB drive's full-span write would take
// as long as all the others). only, when set, keeps the runs of those
// drives.
func planRuns(quick bool, only map[string]bool) []spec {
	var p []spec
	add := func(drive string, k kind) {
		if only == nil || only[drive] {
			p = append(p, spec{drive, k, false})
		}
	}
	addUnfitted := func(drive string, k kind) {
		if only == nil || only[drive] {
			p = append(p, spec{drive, k, true})
		}
	}
	for _, l := range lines {
		for _, d := range l.drives {
			add(d, consistency)
		}
	}
	for _, d := range []string{"bp4-240", "bp4-msata-240", "bp3-256"} {
		add(d, consistency25)
	}
	for _, d := range []string{"atlas-30", "atlas-60", "atlas-120", "atlas-240", "atlas-480", "intel-525-240", "bp4-240", "m4-256", "c300-256", "intel-510-250"} {
		add(d, trimValidation)
	}
	hd := []string{"bp4-60", "bp4-120", "bp4-240", "bp4-480", "bp4-msata-240"}
	if quick {
		hd = []string{"bp4-240", "bp4-msata-240"}
	}
	for _, d := range hd {
		add(d, hdTach)
	}
	for _, d := range []string{"x25m-g1-80", "x25m-g2-80", "x25m-g2-160"} {
		add(d, desktop)
		addUnfitted(d, desktop)
	}
	// The fitted targets again, unfitted: what the model predicts before
	// fitting (the ledger's column).
	for _, s := range []spec{{"bp4-240", consistency, true}, {"bp4-240", hdTach, true}, {"bp3-256", consistency, true}, {"atlas-240", trimValidation, true}, {"atlas-480", consistency, true}, {"intel-525-240", trimValidation, true}} {
		addUnfitted(s.drive, s.kind)
	}
	return p
}

// figures is what one run measured.
type figures struct {
	Drive string `json:"drive"`
	Kind  string `json:"procedure"`
	// Consistency: the summary the reviews read, and IOPS each second.
	Consistency *analysis.ConsistencySummary `json:"consistency,omitempty"`
	IOPS        []float64                    `json:"iops,omitempty"`
	// TRIM validation, MB/s.
	Clean     float64 `json:"clean_mbps,omitempty"`
	Dirty     float64 `json:"dirty_mbps,omitempty"`
	AfterTrim float64 `json:"after_trim_mbps,omitempty"`
	// HD Tach after torture: the write curve (GB written, MB/s each
	// second), the mean over the first 10 GB, and where it first exceeds
	// 300 MB/s (-1: never).
	CurveGB   []float64 `json:"curve_gb,omitempty"`
	CurveMBps []float64 `json:"curve_mbps,omitempty"`
	First10GB float64   `json:"first_10gb_mbps,omitempty"`
	GBTo300   float64   `json:"gb_to_300mbps,omitempty"`
	// Desktop suite: each trace's MB/s, the scores and the 4 KiB random
	// writes, fresh and seasoned.
	Desktop    []workload.DesktopFigures `json:"desktop,omitempty"`
	UserGB     float64                   `json:"user_gb"`
	Quick      bool                      `json:"quick,omitempty"`    // measured on a shrunk drive with short runs
	Unfitted   bool                      `json:"unfitted,omitempty"` // the line's fitted values at their defaults
	WallSecond float64                   `json:"-"`
}

// load reads the figures write saved, and whether they were measured in
// quick mode.
func load(file string) (results, bool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	var all []*figures
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, false, fmt.Errorf("%s: %w", file, err)
	}
	res, quick := results{}, false
	for _, f := range all {
		k := -1
		for i := consistency; i <= desktop; i++ {
			if i.String() == f.Kind {
				k = int(i)
			}
		}
		if k < 0 {
			return nil, false, fmt.Errorf("%s: %s: unknown procedure %q", file, f.Drive, f.Kind)
		}
		res[spec{f.Drive, kind(k), f.Unfitted}] = f
		quick = quick || f.Quick
	}
	return res, quick, nil
}

// results holds every run's figures.
type results map[spec]*figures

// get returns a run's figures (nil when it was not run).
func (r results) get(drive string, k kind) *figures { return r[spec{drive, k, false}] }

// unfitted returns the unfitted runs' figures as the results of the
// presets, so that a target's figure reads the prediction before fitting.
func (r results) unfitted() results {
	out := results{}
	for s, f := range r {
		if s.unfitted {
			out[spec{s.drive, s.kind, false}] = f
		}
	}
	return out
}

// execute runs the plan on o.jobs workers, reporting each run as it ends.
func execute(plan []spec, o options, w io.Writer) (results, error) {
	res := results{}
	var mu sync.Mutex
	var firstErr error
	work := make(chan spec)
	var wg sync.WaitGroup
	for range o.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				start := time.Now()
				f, err := measure(s, o.quick)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("%s on %s: %w", s.kind, s.drive, err)
				}
				if err == nil {
					f.WallSecond = time.Since(start).Seconds()
					res[s] = f
					un := ""
					if s.unfitted {
						un = " (unfitted)"
					}
					fmt.Fprintf(w, "%-14s %-24s %6.1f s\n", s.drive, s.kind.String()+un, f.WallSecond)
				}
				mu.Unlock()
			}
		}()
	}
	// The longest runs first, so that the workers finish together.
	order := append([]spec(nil), plan...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].kind > order[j].kind })
	for _, s := range order {
		work <- s
	}
	close(work)
	wg.Wait()
	return res, firstErr
}

// drive builds the named preset, shrunk in quick mode to 1 GiB per die
// (at least 12 GiB: the desktop suite's dummy files take 11) with its
// spare area; unfitted, with its line's fitted values at their defaults.
func drive(name string, quick, unfitted bool) (*controller.Controller, error) {
	cfg, err := controller.Preset(name)
	if err != nil {
		return nil, err
	}
	if unfitted {
		if err := unfit(&cfg, lineOfDrive(name)); err != nil {
			return nil, err
		}
	}
	if quick {
		r, err := cfg.Resolve()
		if err != nil {
			return nil, err
		}
		dies := int64(r.Config.NAND.Geometry.Dies())
		cfg = r.Config.Resized(controller.Size(max(12, dies)<<30), r.SparePercent)
		cfg.Firmware.TrimBacklog = controller.Size(float64(cfg.Firmware.TrimBacklog)*float64(cfg.Capacity)/float64(r.Config.Capacity)) / 4096 * 4096
	}
	return controller.New(cfg)
}

// measure runs one procedure through the scenario the command runs.
func measure(s spec, quick bool) (*figures, error) {
	c, err := drive(s.drive, quick, s.unfitted)
	if err != nil {
		return nil, err
	}
	name, over := "", map[string]string{}
	torture := "60m"
	if quick {
		torture = "2m"
	}
	switch s.kind {
	case consistency, consistency25:
		name = "consistency"
		if quick {
			over["time"] = "300s"
		}
		if s.kind == consistency25 {
			over["spare"] = "25"
		}
	case trimValidation:
		name, over["torture_time"] = "trim-validation", torture
		if s.drive == "intel-525-240" && !quick {
			over["torture_time"] = "30m" // as AnandTech tortured the 525 (calibration.md)
		}
	case hdTach:
		name, over["torture"], over["torture_time"] = "hdtach", "1", torture
	case desktop:
		name, over["compare"] = "desktop-suite", "season"
		if quick {
			over["rw_time"] = "20s"
		}
	}
	sc, err := workload.ScenarioByName(name)
	if err != nil {
		return nil, err
	}
	steps, err := sc.Steps(over)
	if err != nil {
		return nil, err
	}
	ms, err := sim.New(c).RunSteps(steps)
	if err != nil {
		return nil, err
	}
	ms = sim.CombineRepeated(ms)
	f := &figures{Drive: s.drive, Kind: s.kind.String(), UserGB: float64(c.CapacityBytes()) / 1e9, Quick: quick, Unfitted: s.unfitted}
	by := map[string]*sim.Result{}
	for _, m := range ms {
		by[m.Label] = m.Result
	}
	need := func(label string) (*sim.Result, error) {
		if r := by[label]; r != nil {
			return r, nil
		}
		return nil, fmt.Errorf("scenario %s measured no %q step", name, label)
	}
	switch s.kind {
	case consistency, consistency25:
		r, err := need("consistency")
		if err != nil {
			return nil, err
		}
		// The reviews read the steady state from 1,400 s of 2,000.
		sum := analysis.SummarizeConsistency(r.Intervals.Slice(), (r.EndNs-r.StartNs)*7/10)
		f.Consistency = &sum
		ivs := r.Intervals.Slice()
		for _, iv := range ivs {
			if iv.EndNs-iv.StartNs == ivs[0].EndNs-ivs[0].StartNs { // not the last, partial one
				f.IOPS = append(f.IOPS, iv.IOPS)
			}
		}
	case trimValidation:
		for _, x := range []struct {
			label string
			dst   *float64
		}{{"clean", &f.Clean}, {"dirty", &f.Dirty}, {"after-trim", &f.AfterTrim}} {
			r, err := need(x.label)
			if err != nil {
				return nil, err
			}
			*x.dst = r.Write.BWBytes / 1e6
		}
	case hdTach:
		r, err := need("write-curve")
		if err != nil {
			return nil, err
		}
		hdCurve(f, r.Intervals.Slice())
	case desktop:
		steps := map[string]workload.TraceTotals{}
		for l, r := range by {
			steps[l] = workload.TraceTotals{Bytes: r.Read.Bytes + r.Write.Bytes, BusyNs: r.BusyNs}
		}
		if f.Desktop, err = workload.ScoreDesktop(steps); err != nil {
			return nil, err
		}
		if len(f.Desktop) != 2 || f.Desktop[0].Score == 0 || f.Desktop[1].Score == 0 {
			return nil, fmt.Errorf("scenario %s measured no complete fresh and seasoned suite", name)
		}
	}
	return f, nil
}

// hdCurve reads HD Tach's write curve: MB/s each interval against the GB
// written by its end.
func hdCurve(f *figures, series []sim.Interval) {
	var gb, sum10 float64
	n10 := 0
	f.GBTo300 = -1
	for _, iv := range series {
		gb += float64(iv.WriteBytes) / 1e9
		f.CurveGB = append(f.CurveGB, gb)
		f.CurveMBps = append(f.CurveMBps, iv.MBps)
		if gb <= 10 {
			sum10 += iv.MBps
			n10++
		}
		if iv.MBps > 300 && f.GBTo300 < 0 {
			f.GBTo300 = gb
		}
	}
	if n10 > 0 {
		f.First10GB = sum10 / float64(n10)
	}
}
