package cli

// The command line: options of the job, drive and output commands.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/workload"
	"github.com/ftlsim/ftlsim/workload/trace"
)

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
	seedGiven    bool // scenario: --randseed was given
	trackData    bool // a job verifies: the drive keeps each unit's data token
	histLog      string
	logHistMsec  int64
	deviceLog    string
	intervalMsec int64
	maxMemory    string // --max_memory; "": FTLSIM_MAX_MEMORY or the machine's (memoryLimit)
	// preconditionGiven: --precondition was on the command line (a
	// --load_state run checks it against the file's).
	preconditionGiven bool
	// Drive snapshots (snapshot.go): the prepared drive's state saved to
	// saveState, or restored from loadState instead of preparing it;
	// prepareOnly saves it and runs no job.
	saveState, loadState string
	prepareOnly          bool

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
	faults         faults // --faults
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
		// The jobs come from the scenario; --randseed seeds the drive and
		// is mixed into each of the scenario's jobs' seeds.
		fs.Func("randseed", "seed of the drive and of the scenario's jobs (default: the scenario's own seeds)", func(v string) error {
			o.given["randseed"] = v
			o.seedGiven = true
			return keep(o.job.Set("randseed", v))
		})
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
	fs.Func("faults", faultsHelp, func(v string) error {
		f, err := parseFaults(v)
		if err != nil {
			return keep(err)
		}
		o.faults = f
		return nil
	})
	fs.Func("precondition", "none, fill or torture[:DURATION]", func(v string) error {
		p, err := workload.ParsePrecondition(v)
		if err != nil {
			return keep(err)
		}
		o.precondition, o.preconditionGiven = p, true
		return nil
	})
	if m != modeScenario {
		str(&o.saveState, "save_state", "save the prepared drive's state (after the secure erase and precondition) to this file", nil)
		str(&o.loadState, "load_state", "start from the drive state in this file (written by --save_state) instead of preparing the drive", nil)
		fs.BoolFunc("prepare_only", "with --save_state: prepare the drive, save its state and run no job", func(v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return keep(usage("--prepare_only=%s: allowed true or false", v))
			}
			o.prepareOnly = b
			return nil
		})
	}
	str(&o.format, "output-format", "normal, json, json+ (json with each direction's latency distribution, fio's clat_ns bins) or terse (fio's terse version 3)", func(v string) error {
		if v != "normal" && v != "json" && v != "json+" && v != "terse" {
			return errors.New("allowed normal, json, json+, terse")
		}
		return nil
	})
	str(&o.output, "output", "write the report to this file", nil)
	str(&o.maxMemory, "max_memory", "memory a run may use (default: half of the available memory, or FTLSIM_MAX_MEMORY)", func(v string) error {
		if b, err := units.ParseSize(v, true); err != nil || b <= 0 {
			return fmt.Errorf("%w: allowed a positive size such as 8GiB or 16GB", units.ErrSyntax)
		}
		return nil
	})
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
	if err := checkStateOptions(o); err != nil {
		return nil, err
	}
	if !o.job.IsSet("name") {
		o.job.Name = o.job.Pattern.String()
	}
	return o, nil
}
