package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/report"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/sweep"
	"github.com/ftlsim/ftlsim/workload"
	"github.com/ftlsim/ftlsim/workload/trace"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the run failed (I/O error, internal error)
	exitUsage = 2 // bad input: options, drive description, workload
)

// usageError marks errors caused by the user's input.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usage(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// Option changes how Main runs.
type Option func(*settings)

type settings struct {
	policies   *ftl.Registry
	runtimeCap int64           // tests: no job of a job file runs longer (simulated ns); 0: no cap
	ctx        context.Context // WithContext; nil: SIGINT and SIGTERM stop the runs
}

// WithPolicies makes the victim policies registered in reg known to the
// command: --gc=NAME, gc_policy in drive descriptions, scenarios, job
// files and reviews.
func WithPolicies(reg *ftl.Registry) Option { return func(s *settings) { s.policies = reg } }

// withRuntimeCap caps every job of a job file at ns of simulated time
// (tests that run many files).
func withRuntimeCap(ns int64) Option { return func(s *settings) { s.runtimeCap = ns } }

// json reports whether the output is fio's JSON (json or json+).
func (o *options) json() bool { return o.format == "json" || o.format == "json+" }

// fio converts a result to a fio job object, with json+'s latency bins
// when asked for.
func (o *options) fio(r *sim.Result, opts map[string]string) fioreport.Job {
	if o.format == "json+" {
		return fioreport.JobPlusOf(r, opts)
	}
	return fioreport.JobOf(r, opts)
}

// Version names this build: the module's version (or "devel") and, when
// built from a repository, its commit.
func Version() string {
	v, rev := "devel", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " (" + s.Value[:12] + ")"
			}
		}
	}
	return "ftlsim " + v + rev
}

// Main runs the ftlsim command with arguments args (without the program
// name), writing results to stdout and messages to stderr, and returns the
// exit status: 0 on success, 1 when a run fails, 2 for bad input (one
// line on stderr names the option).
func Main(args []string, stdout, stderr io.Writer, opts ...Option) (status int) {
	var set settings
	for _, o := range opts {
		o(&set)
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "ftlsim: internal error: %v (please report it with the command line)\n", r)
			if os.Getenv("FTLSIM_TRACE") != "" {
				stderr.Write(debug.Stack())
			}
			status = exitError
		}
	}()
	// Writes to stdout are checked: a report cut short (a full disk, a
	// closed pipe) is an error, not a silent success.
	sw := &checkedWriter{w: stdout}
	stdout = sw
	var err error
	switch {
	case len(args) == 0:
		err = demo(stdout)
	case args[0] == "drives":
		err = drives(args[1:], stdout)
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
		printHelp(stdout)
	case args[0] == "--version" || args[0] == "version":
		fmt.Fprintln(stdout, Version())
	default:
		// The commands that simulate stop on SIGINT and SIGTERM (or
		// WithContext's context) and write what they have.
		ctx, release := set.watch()
		defer release()
		set.ctx = ctx
		switch args[0] {
		case "replay":
			err = runJob(args[1:], stdout, stderr, true, set)
		case "run":
			err = runFile(args[1:], stdout, stderr, set)
		case "scenario":
			err = scenario(args[1:], stdout, set)
		case "review":
			err = review(args[1:], stdout, stderr, set)
		case "sweep":
			err = sweepCmd(args[1:], stdout, stderr, set)
		case "fit":
			err = fitCmd(args[1:], stdout, stderr, set)
		default:
			err = runJob(args, stdout, stderr, false, set)
		}
	}
	if err == nil && sw.err != nil {
		err = fmt.Errorf("writing the output: %w", sw.err)
	}
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errInterrupted) || errors.Is(err, report.ErrInterrupted) {
		fmt.Fprintf(stderr, "ftlsim: %s\n", oneLine(err))
		return exitInterrupted
	}
	fmt.Fprintf(stderr, "ftlsim: %s\n", oneLine(err))
	var ue usageError
	if errors.As(err, &ue) || isInputError(err) {
		return exitUsage
	}
	return exitError
}

// errVerify is returned, after the results are written, when a job's
// verify phase found data that was not the job's last write.
var errVerify = errors.New("verify failed")

// errReadFailed is returned, after the results are written, when reads
// of a job failed with uncorrectable data (--faults).
var errReadFailed = errors.New("reads failed")

// errZone is returned, after the results are written, when the drive
// refused a job's command with a zone status (which ended the job).
var errZone = errors.New("zone command failed")

// errRateMin is returned, after the results are written, when a job
// missed its minimum rate (fio's rate_min) and stopped.
var errRateMin = errors.New("minimum rate not met")

// verifyError returns an error wrapping errRateMin or errVerify for the
// first result that missed its minimum rate or failed verification, or
// nil.
func verifyError(rs ...*sim.Result) error {
	for _, r := range rs {
		if r.RateMinFailed != "" {
			return fmt.Errorf("%w: job %s: %s", errRateMin, r.Name, r.RateMinFailed)
		}
		if v := r.Verify; v.Mismatches > 0 {
			return fmt.Errorf("%w: job %s: %d units do not hold the job's last write (the first at offset %d)", errVerify, r.Name, v.Mismatches, v.FirstMismatch)
		}
		if r.ZoneError != "" {
			return fmt.Errorf("%w: job %s: %s", errZone, r.Name, r.ZoneError)
		}
		if r.IOErrors > 0 {
			return fmt.Errorf("%w: job %s: %d reads failed: data neither ECC, read retry nor parity could recover (EIO)", errReadFailed, r.Name, r.IOErrors)
		}
	}
	return nil
}

func isInputError(err error) bool {
	for _, e := range []error{controller.ErrConfig, controller.ErrRequest, workload.ErrOption, ftl.ErrConfig, units.ErrSyntax, sweep.ErrStudy} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// prepare secure-erases the drive of engine e, runs the precondition and
// returns the simulated time the preparation took.
func prepare(e *sim.Engine, p workload.Precondition) (int64, error) {
	e.SecureErase()
	start := e.Now()
	if err := e.Precondition(p); err != nil {
		return 0, err
	}
	return e.Now() - start, nil
}

// buildDrive resolves the drive options into a controller, once the
// drive and the statistics of jobs (series intervals of intervalNs) are
// known to fit the memory limit (checkMemory).
func buildDrive(o *options, jobs []*workload.Job, intervalNs int64) (*controller.Controller, error) {
	cfg, r, err := resolveDrive(o)
	if err != nil {
		return nil, err
	}
	stats, intervals := statsMemory(o, jobs, intervalNs)
	if err := checkMemory(o, r, stats, len(jobs), intervals); err != nil {
		return nil, err
	}
	c, err := controller.New(cfg)
	if err != nil {
		return nil, err
	}
	return c, o.faults.built(c)
}

// resolveDrive resolves the drive options (--drive, --capacity, --op,
// --gc, --faults, the job's seed) into a description and its sizes.
func resolveDrive(o *options) (controller.Config, controller.Resolved, error) {
	var r controller.Resolved
	cfg, err := lookupDrive("--drive", o.drive)
	if err != nil {
		return cfg, r, err
	}
	if o.capacity != "" || o.op != "" {
		// Size the flash from capacity × (1 + OP): the drive's own capacity
		// and spare area (a product line states the spare its raw flash
		// leaves) unless the options change them; its dies are kept.
		capacity, op := cfg.Capacity, cfg.OPPercent
		if o.capacity != "" {
			b, _ := units.ParseSize(o.capacity, true)
			if b <= 0 {
				return cfg, r, usage("--capacity=%s: must be positive", o.capacity)
			}
			capacity = controller.Size(b)
		}
		if o.op != "" {
			v, err := units.ParseFloat(strings.TrimSuffix(o.op, "%"))
			if err != nil {
				return cfg, r, usage("--op=%s: must be a number (percent of user capacity), allowed 0..400", o.op)
			}
			op = v
		}
		switch {
		case capacity == 0:
			return cfg, r, usage("--op=%s: drive %s states no %s (%s: %s derives it from the geometry); give --capacity too",
				o.op, o.drive, cfg.FieldPath(&cfg.Capacity), cfg.FieldPath(&cfg.Sizing), controller.SizeCapacity)
		case o.op == "" && cfg.Sizing == controller.SizeSpare && op == 0:
			return cfg, r, usage("--capacity=%s: drive %s states no %s (%s: %s derives it from the geometry); give --op too",
				o.capacity, o.drive, cfg.FieldPath(&cfg.OPPercent), cfg.FieldPath(&cfg.Sizing), controller.SizeSpare)
		}
		cfg = cfg.Resized(capacity, op)
	}
	if o.gc != "" {
		cfg.Firmware.GCPolicy = o.gc
	}
	cfg.Policies = o.policies
	cfg.Seed = o.job.RandSeed
	cfg.NAND.TrackData = o.trackData
	if o.compactMap {
		cfg.NAND.DropTags = true // kept anyway where a drive tracks data (controller.Config.DeviceConfig)
	}
	if err := o.faults.apply(&cfg); err != nil {
		return cfg, r, err
	}
	r, err = cfg.Resolve()
	return cfg, r, err
}

func runJob(args []string, stdout, stderr io.Writer, replay bool, set settings) error {
	m := modeJob
	if replay {
		m = modeReplay
	}
	o, err := parseArgs(args, m, set.policies)
	if err != nil {
		return err
	}
	if o.numjobs > 1 || o.groupReporting {
		// fio's numjobs: clones of the job at once, each its own job.
		jf := &workload.JobFile{Name: "command line"}
		for k := range max(o.numjobs, 1) {
			jf.Jobs = append(jf.Jobs, workload.FileJob{Job: o.job.Cloned(k, o.numjobs), GroupReporting: o.groupReporting,
				Options: o.given, Section: o.job.Name})
		}
		return runJobFile(o, jf, stdout, stderr, set)
	}
	o.trackData = o.job.Verify || len(o.job.PowerLossNs) > 0
	c, err := buildDrive(o, []*workload.Job{o.job}, o.intervalMsec*1e6)
	if err != nil {
		return err
	}
	var src workload.Source
	var tsrc *trace.Source
	if replay {
		r, err := trace.Open(o.traceFile, o.traceFormat)
		if err != nil {
			return usageError{err}
		}
		defer r.Close()
		tsrc, err = trace.NewSource(r, trace.MapOptions{Capacity: c.CapacityBytes(), Devices: o.devices, Beyond: o.beyond})
		if err != nil {
			return usageError{err}
		}
		src = tsrc
		if !o.job.IsSet("name") {
			o.job.Name = filepath.Base(o.traceFile)
		}
		o.given["trace"] = o.traceFile
		o.given["format"] = string(r.Format())
	} else {
		o.job.LBA = o.lbaFormat
		if err := o.job.Resolve(c.CapacityBytes()); err != nil {
			return err
		}
		if err := o.job.ReadPlacementScheme(workload.ReadIncludedFile); err != nil {
			return err
		}
		if err := o.job.CheckPlacement(c.PlacementIDs()); err != nil {
			return err
		}
		for _, n := range o.job.Notes {
			fmt.Fprintf(stderr, "ftlsim: note: %s\n", n)
		}
		src = workload.NewGenerator(o.job)
	}
	// Preparation covers the job's range: spare area by partitioning
	// (--size=75%) fills only the partition, as the reviews do.
	o.precondition.Offset, o.precondition.Size = o.given["offset"], o.given["size"]
	if o.prepareOnly {
		return prepareOnly(o, c, stdout, stderr, set)
	}
	outs, err := newOutputs(o, stdout)
	if err != nil {
		return err
	}
	defer outs.abort()
	logs, err := openLogsN(o, o.job.Logs, o.job.Name, 1, outs)
	if err != nil {
		return err
	}
	if o.deviceLog != "" {
		if err := check("write_device_log="+o.deviceLog, o.deviceLog); err != nil {
			return err
		}
	}
	wall := time.Now()
	e := sim.New(c)
	defer stopOn(set.ctx, e)()
	prep, err := prepareDrive(e, o, stderr)
	if err != nil {
		return err
	}
	c = e.Controller() // restored in place by --load_state; the same drive
	if err := o.faults.bake(e); err != nil {
		return err
	}
	hooks := sim.Hooks{}
	if logs.active() {
		hooks.OnComplete = logs.complete
	}
	so := sim.JobOptions(o.job)
	so.IntervalNs, so.Hooks, so.TimeScale = o.intervalMsec*1e6, hooks, o.speedup
	if limit, err := memoryLimit(o.maxMemory); err == nil {
		// The series may take a quarter of the limit (twice over: the
		// result's and its copy), whatever the estimate planned.
		so.MaxStoredIntervals = int(max(1024, limit.Bytes/4/2/sim.SeriesRunBytes))
	}
	res, err := e.Run(src, so)
	if errors.Is(err, sim.ErrTooLarge) {
		return usage("%v, past its share of the memory limit; a longer --device_log_msec (now %d) needs less", err, o.intervalMsec)
	}
	if err != nil {
		var pe *trace.ParseError
		if errors.As(err, &pe) || (tsrc != nil && errors.Is(err, tsrc.Err())) {
			return usageError{err}
		}
		if tsrc != nil && errors.Is(err, sim.ErrNoProgress) {
			return usageError{fmt.Errorf("%s: no request in the trace (read as %s; %d records, %d empty skipped)",
				o.traceFile, o.given["format"], tsrc.Summary().Records, tsrc.Summary().Skipped)}
		}
		return err
	}
	if err := logs.close(res); err != nil {
		return err
	}
	if o.deviceLog != "" {
		if err := writeDeviceLog(outs, o.deviceLog, res); err != nil {
			return err
		}
	}
	out := outs.report
	noteOmittedSeries(o, stderr, res)
	switch {
	case o.format == "terse":
		err = fioreport.WriteTerse(out, o.drive, o.fio(res, o.given))
	case o.json():
		global := map[string]string{"drive": o.drive, "precondition": o.precondition.Kind.String()}
		if o.precondition.Kind == workload.PreconditionTorture {
			global["precondition"] = fmt.Sprintf("torture:%ds", o.precondition.TortureNs/1e9)
		}
		err = writeReport(out, global, o.fio(res, o.given))
	default:
		writeText(out, o, c, res, prep, time.Since(wall), tsrc)
	}
	if err != nil {
		return err
	}
	if err := outs.commit(); err != nil {
		return err
	}
	return interrupted(verifyError(res), res)
}
