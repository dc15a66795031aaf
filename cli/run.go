package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
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
	runtimeCap int64 // tests: no job of a job file runs longer (simulated ns); 0: no cap
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
func (o *options) fio(r *sim.Result, opts map[string]string) sim.FioJob {
	if o.format == "json+" {
		return r.FioPlus(opts)
	}
	return r.Fio(opts)
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
	reg := set.policies
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "ftlsim: internal error: %v (please report it with the command line)\n", r)
			if os.Getenv("FTLSIM_TRACE") != "" {
				stderr.Write(debug.Stack())
			}
			status = exitError
		}
	}()
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
	case args[0] == "replay":
		err = runJob(args[1:], stdout, stderr, true, set)
	case args[0] == "run":
		err = runFile(args[1:], stdout, stderr, set)
	case args[0] == "scenario":
		err = scenario(args[1:], stdout, reg)
	case args[0] == "review":
		err = review(args[1:], stdout, stderr, reg)
	default:
		err = runJob(args, stdout, stderr, false, set)
	}
	if err == nil {
		return exitOK
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
	}
	return nil
}

func isInputError(err error) bool {
	for _, e := range []error{controller.ErrConfig, controller.ErrRequest, workload.ErrOption, ftl.ErrConfig, units.ErrSyntax} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// options is the parsed command line of a job run.
type options struct {
	job          *workload.Job
	given        map[string]string // job options as given, for fio's "job options"
	drive        string
	capacity     string
	op           string
	gc           string
	precondition workload.Precondition
	format       string
	output       string
	iopsLog      string
	bwLog        string
	latLog       string
	logAvgMsec   int64
	logOffset    bool // log_offset: per-I/O log lines carry the offset
	trackData    bool // a job verifies: the drive keeps each unit's data token
	histLog      string
	logHistMsec  int64
	deviceLog    string
	intervalMsec int64

	policies *ftl.Registry // where --gc and drive descriptions find policies

	// replay
	replay    bool
	traceFile string
	// run JOBFILE: --section choices, and job options given on the
	// command line, set before the file's own (as fio reads them).
	sections     []string
	fileDefaults [][2]string
	// numjobs and group_reporting on the command line of a single job
	numjobs        int
	groupReporting bool
	traceFormat    trace.Format
	speedup        float64
	devices        string
	beyond         string
}

// mode is the command whose line parseArgs parses; it decides which job
// options the line takes and which positional arguments.
type mode uint8

// Command modes.
const (
	modeJob      mode = iota // ftlsim [options]: the options describe one job
	modeReplay               // ftlsim replay FILE [options]: one trace file; job options iodepth and name
	modeJobFile              // ftlsim run JOBFILE [options]: one job file; no job options
	modeScenario             // ftlsim scenario NAME [options]: NAME is already taken; no positional argument, no job options
)

// String returns the command's name.
func (m mode) String() string {
	switch m {
	case modeJob:
		return "job"
	case modeReplay:
		return "replay"
	case modeJobFile:
		return "run"
	case modeScenario:
		return "scenario"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// hostOnlyArg reports whether command-line argument a is a host-side fio
// option (--ioengine=io_uring, --sqthread_poll, --xnvme_async=…), and
// splits it.
func hostOnlyArg(a string) (key, val string, ok bool) {
	kv, ok := strings.CutPrefix(a, "--")
	if !ok {
		if kv, ok = strings.CutPrefix(a, "-"); !ok {
			return "", "", false
		}
	}
	key, val, _ = strings.Cut(kv, "=")
	if !workload.IsHostOnly(key) {
		return "", "", false
	}
	return key, val, true
}

// parseArgs parses the command line of mode m.
func parseArgs(args []string, m mode, reg *ftl.Registry) (*options, error) {
	replay := m == modeReplay
	o := &options{policies: reg, job: workload.NewJob("ftlsim"), given: map[string]string{}, drive: "generic-mlc",
		format: "normal", precondition: workload.Precondition{Kind: workload.PreconditionNone}, intervalMsec: 1000, logAvgMsec: 0, logHistMsec: 1000,
		replay: replay, speedup: 1, devices: "merge", beyond: "wrap"}
	fs := flag.NewFlagSet("ftlsim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var firstErr error
	keep := func(err error) error {
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return err
	}
	var jobOptions []string
	switch m {
	case modeJob:
		jobOptions = workload.Options()
		fs.Func("numjobs", "run this many clones of the job at once (1..64)", func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 64 {
				return keep(usage("--numjobs=%s: must be an integer in 1..64", v))
			}
			o.numjobs = n
			return nil
		})
		fs.BoolFunc("group_reporting", "report the clones as one job", func(v string) error {
			o.groupReporting = v != "false" && v != "0"
			return nil
		})
	case modeReplay:
		jobOptions = []string{"iodepth", "name"}
	case modeJobFile:
		// The jobs come from the file; job options on the command line
		// are set before the file's own, as fio's are, and host-side
		// ones (--ioengine, --filename, engine options) are taken and
		// reported as not applied.
		for _, name := range append(workload.Options(), "numjobs", "group_reporting", "new_group") {
			name := name
			add := func(v string) error {
				o.fileDefaults = append(o.fileDefaults, [2]string{name, v})
				return nil
			}
			if workload.IsFlag(name) {
				fs.BoolFunc(name, workload.OptionHelp(name), func(v string) error {
					if v == "true" {
						v = "1"
					}
					return add(v)
				})
			} else {
				fs.Func(name, workload.OptionHelp(name), add)
			}
		}
		fs.Func("section", "run only this job section of the file (may repeat)", func(v string) error {
			o.sections = append(o.sections, v)
			return nil
		})
	case modeScenario:
		// the jobs come from the scenario
	default:
		panic(fmt.Sprintf("cli: parseArgs with unknown %v", m))
	}
	for _, name := range jobOptions {
		name := name
		set := func(v string) error {
			o.given[name] = v
			return keep(o.job.Set(name, v))
		}
		if workload.IsFlag(name) {
			fs.BoolFunc(name, workload.OptionHelp(name), func(v string) error {
				if v == "true" {
					v = "1"
				}
				return set(v)
			})
		} else {
			fs.Func(name, workload.OptionHelp(name), set)
		}
	}
	str := func(dst *string, name, help string, check func(string) error) {
		fs.Func(name, help, func(v string) error {
			if check != nil {
				if err := check(v); err != nil {
					return keep(usage("--%s=%s: %w", name, v, err))
				}
			}
			*dst = v
			return nil
		})
	}
	msec := func(dst *int64, name, help string, lo int64) {
		fs.Func(name, help, func(v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < lo || n > 1e9 {
				return keep(usage("--%s=%s: must be an integer from %d to 1000000000", name, v, lo))
			}
			*dst = n
			return nil
		})
	}
	str(&o.drive, "drive", "drive preset name or description file", nil)
	str(&o.capacity, "capacity", "user-visible capacity (e.g. 240GB, 256GiB)", func(v string) error {
		_, err := units.ParseSize(v, true)
		return err
	})
	str(&o.op, "op", "spare area in percent of user capacity", nil)
	str(&o.gc, "gc", "GC victim policy: "+strings.Join(reg.Names(), ", "), func(v string) error {
		_, err := reg.Parse(v)
		return err
	})
	fs.Func("precondition", "none, fill or torture[:DURATION]", func(v string) error {
		p, err := workload.ParsePrecondition(v)
		if err != nil {
			return keep(err)
		}
		o.precondition = p
		return nil
	})
	str(&o.format, "output-format", "normal, json, json+ (json with each direction's latency distribution, fio's clat_ns bins) or terse (fio's terse version 3)", func(v string) error {
		if v != "normal" && v != "json" && v != "json+" && v != "terse" {
			return errors.New("allowed normal, json, json+, terse")
		}
		return nil
	})
	str(&o.output, "output", "write the report to this file", nil)
	str(&o.iopsLog, "write_iops_log", "write NAME_iops.1.log", nil)
	str(&o.bwLog, "write_bw_log", "write NAME_bw.1.log", nil)
	str(&o.latLog, "write_lat_log", "write NAME_lat.1.log, NAME_clat.1.log, NAME_slat.1.log", nil)
	fs.Func("log_offset", "1: log lines carry each I/O's offset (fio's log_offset)", func(v string) error {
		switch v {
		case "0", "1":
			o.logOffset = v == "1"
			return nil
		}
		return keep(usage("--log_offset=%s: allowed 0 or 1", v))
	})
	msec(&o.logAvgMsec, "log_avg_msec", "average log entries over this many ms (0: one per I/O)", 0)
	str(&o.histLog, "write_hist_log", "write NAME_clat_hist.1.log: completion-latency histograms (fio's 1,856 bins) every log_hist_msec", nil)
	msec(&o.logHistMsec, "log_hist_msec", "interval of the histogram log, in ms (default 1000)", 1)
	str(&o.deviceLog, "write_device_log", "write the per-interval series as CSV", nil)
	msec(&o.intervalMsec, "device_log_msec", "interval of the series, in ms (default 1000)", 1)
	if replay {
		fs.Func("format", "trace format (default: detected)", func(v string) error {
			f, err := trace.ParseFormat(v)
			if err != nil {
				return keep(usage("--format=%s: %w", v, err))
			}
			o.traceFormat = f
			return nil
		})
		fs.Func("speedup", "replay the recorded times this many times faster", func(v string) error {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x <= 0 || x > 1e9 || math.IsNaN(x) {
				return keep(usage("--speedup=%s: must be a number above 0", v))
			}
			o.speedup = x
			return nil
		})
		str(&o.devices, "devices", "merge, or partition:N", nil)
		str(&o.beyond, "beyond", "wrap or reject requests past the drive", nil)
	}
	if m == modeJobFile {
		var rest []string
		for _, a := range args {
			if k, v, ok := hostOnlyArg(a); ok && fs.Lookup(k) == nil {
				o.fileDefaults = append(o.fileDefaults, [2]string{k, v})
				continue
			}
			rest = append(rest, a)
		}
		args = rest
	}
	// Positional arguments may stand among the options.
	var positional []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if firstErr != nil {
				return nil, firstErr
			}
			msg := err.Error()
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				return nil, usage("unknown option --%s (see ftlsim --help)", strings.TrimLeft(name, "-"))
			}
			return nil, usage("%s", msg)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch m {
	case modeReplay:
		if len(positional) != 1 {
			return nil, usage("replay takes one trace file (got %d)", len(positional))
		}
		o.traceFile = positional[0]
		if !o.job.IsSet("iodepth") {
			o.job.IODepth = 0 // open loop at the recorded times
		}
	case modeScenario:
		if len(positional) > 0 {
			return nil, usage("unexpected argument %q (scenario parameters are --name=value)", positional[0])
		}
	case modeJobFile:
		if len(positional) != 1 {
			return nil, usage("run takes one job file (got %d)", len(positional))
		}
		o.traceFile = positional[0]
	case modeJob:
		if len(positional) > 0 {
			return nil, usage("unexpected argument %q: options are --name=value; job files run with: ftlsim run FILE", positional[0])
		}
	}
	if !o.job.IsSet("name") {
		o.job.Name = o.job.Pattern.String()
	}
	return o, nil
}

// openOutput returns where the report goes: --output's file, or stdout.
func openOutput(o *options, stdout io.Writer) (io.Writer, func(), error) {
	if o.output == "" {
		return stdout, func() {}, nil
	}
	f, err := os.Create(o.output)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// prepare secure-erases drive c, runs the precondition and returns the
// engine and the simulated time the preparation took.
func prepare(c *controller.Controller, p workload.Precondition) (*sim.Engine, int64, error) {
	e := sim.New(c)
	e.SecureErase()
	start := e.Now()
	if err := e.Precondition(p); err != nil {
		return nil, 0, err
	}
	return e, e.Now() - start, nil
}

// buildDrive resolves the drive options into a controller.
func buildDrive(o *options) (*controller.Controller, error) {
	cfg, err := controller.Lookup(o.drive)
	if err != nil {
		return nil, err
	}
	if o.capacity != "" || o.op != "" {
		// Size the flash from capacity × (1 + OP): the drive's own capacity
		// and spare area (a product line states the spare its raw flash
		// leaves) unless the options change them; its dies are kept.
		capacity, op := cfg.Capacity, cfg.OPPercent
		if o.capacity != "" {
			b, _ := units.ParseSize(o.capacity, true)
			if b <= 0 {
				return nil, usage("--capacity=%s: must be positive", o.capacity)
			}
			capacity = controller.Size(b)
		}
		if o.op != "" {
			v, err := strconv.ParseFloat(strings.TrimSuffix(o.op, "%"), 64)
			if err != nil {
				return nil, usage("--op=%s: must be a number (percent of user capacity), allowed 0..400", o.op)
			}
			op = v
		}
		switch {
		case capacity == 0:
			return nil, usage("--op=%s: drive %s states no capacity (sizing: %s derives it from the geometry); give --capacity too",
				o.op, o.drive, controller.SizeCapacity)
		case o.op == "" && cfg.Sizing == controller.SizeSpare && op == 0:
			return nil, usage("--capacity=%s: drive %s states no op_percent (sizing: %s derives it from the geometry); give --op too",
				o.capacity, o.drive, controller.SizeSpare)
		}
		cfg = cfg.Resized(capacity, op)
	}
	if o.gc != "" {
		cfg.Firmware.GCPolicy = o.gc
	}
	cfg.Policies = o.policies
	cfg.Seed = o.job.RandSeed
	cfg.NAND.TrackData = o.trackData
	return controller.New(cfg)
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
	o.trackData = o.job.Verify
	c, err := buildDrive(o)
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
		if err := o.job.Resolve(c.CapacityBytes()); err != nil {
			return err
		}
		for _, n := range o.job.Notes {
			fmt.Fprintf(stderr, "ftlsim: note: %s\n", n)
		}
		src = workload.NewGenerator(o.job)
	}
	out, closeOut, err := openOutput(o, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	logs, err := openLogs(o)
	if err != nil {
		return err
	}
	// Preparation covers the job's range: spare area by partitioning
	// (--size=75%) fills only the partition, as the reviews do.
	o.precondition.Offset, o.precondition.Size = o.given["offset"], o.given["size"]
	wall := time.Now()
	e, preNs, err := prepare(c, o.precondition)
	if err != nil {
		return err
	}
	hooks := sim.Hooks{}
	if logs.active() {
		hooks.OnComplete = logs.complete
	}
	so := sim.JobOptions(o.job)
	so.IntervalNs, so.Hooks, so.TimeScale = o.intervalMsec*1e6, hooks, o.speedup
	res, err := e.Run(src, so)
	if err != nil {
		var pe *trace.ParseError
		if errors.As(err, &pe) || (tsrc != nil && errors.Is(err, tsrc.Err())) {
			return usageError{err}
		}
		return err
	}
	if err := logs.close(res); err != nil {
		return err
	}
	if o.deviceLog != "" {
		if err := writeDeviceLog(o.deviceLog, res); err != nil {
			return err
		}
	}
	if o.format == "terse" {
		if err := sim.WriteFioTerse(out, o.drive, o.fio(res, o.given)); err != nil {
			return err
		}
		return verifyError(res)
	}
	if o.json() {
		global := map[string]string{"drive": o.drive, "precondition": o.precondition.Kind.String()}
		if o.precondition.Kind == workload.PreconditionTorture {
			global["precondition"] = fmt.Sprintf("torture:%ds", o.precondition.TortureNs/1e9)
		}
		if err := sim.WriteFioJSON(out, global, o.fio(res, o.given)); err != nil {
			return err
		}
		return verifyError(res)
	}
	writeText(out, o, c, res, preNs, time.Since(wall), tsrc)
	return verifyError(res)
}
