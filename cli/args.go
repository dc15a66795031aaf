package cli

// The command line: options of the job, drive and output commands.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/cmdline"
	"github.com/ftlsim/ftlsim/workload"
	"github.com/ftlsim/ftlsim/workload/trace"
)

// options is the parsed command line of a job run.
type options struct {
	job        *workload.Job
	given      map[string]string // job options as given, for fio's "job options"
	named      map[string]bool   // every option given on the command line, by name
	drive      string
	driveGiven bool // --drive was given (a zoned job file without it runs on the default zoned preset)
	capacity   string
	// lbaFormat is the namespace's LBA format (--lba_format, or the one a
	// job file's block sizes name).
	lbaFormat      workload.LBAFormat
	lbaFormatGiven bool
	op             string
	gc             string
	precondition   workload.Precondition
	format         string
	output         string
	iopsLog        string
	bwLog          string
	latLog         string
	logAvgMsec     int64
	logOffset      bool // log_offset: per-I/O log lines carry the offset
	seedGiven      bool // scenario: --randseed was given
	trackData      bool // a job verifies: the drive keeps each unit's data token
	histLog        string
	logHistMsec    int64
	deviceLog      string
	intervalMsec   int64
	maxMemory      string // --max_memory; "": FTLSIM_MAX_MEMORY or the machine's (memoryLimit)
	compactMap     bool   // --compact_map=1: the flash keeps no OOB tags (nand.Config.DropTags), whatever its size
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

// cmdMode is the command's bit in cmdline's sets of commands.
func (m mode) cmdMode() cmdline.Mode {
	switch m {
	case modeJob:
		return cmdline.Job
	case modeReplay:
		return cmdline.Replay
	case modeJobFile:
		return cmdline.JobFile
	case modeScenario:
		return cmdline.Scenario
	}
	panic(fmt.Sprintf("cli: parseArgs with unknown %v", m))
}

// replayJobOptions are the job options a replay takes: the rest of the
// job is the trace.
var replayJobOptions = []string{"iodepth", "name"}

// errHelp is returned for --help among a command's options.
var errHelp = usage("--help: ftlsim --help lists the commands and their options (ftlsim scenario NAME --help: a scenario's parameters)")

// parseArgs parses the command line of mode m.
func parseArgs(args []string, m mode, reg *ftl.Registry) (*options, error) {
	return parseArgsWith(args, m, reg, nil)
}

// parseArgsWith parses the command line of mode m; also are names the
// command takes besides its options (a scenario's parameters), offered
// when an unknown option is close to one.
func parseArgsWith(args []string, m mode, reg *ftl.Registry, also []string) (*options, error) {
	cm := m.cmdMode()
	o := &options{policies: reg, job: workload.NewJob("ftlsim"), given: map[string]string{}, named: map[string]bool{}, drive: "generic-mlc",
		format: "normal", precondition: workload.Precondition{Kind: workload.PreconditionNone}, intervalMsec: 1000, logAvgMsec: 0, logHistMsec: 1000,
		replay: m == modeReplay, speedup: 1, devices: "merge", beyond: "wrap"}
	p := &argParser{o: o, fs: flag.NewFlagSet("ftlsim", flag.ContinueOnError)}
	p.fs.SetOutput(io.Discard)
	p.addJobOptions(m)
	for _, c := range cmdline.Options() {
		if c.Modes&cm != 0 {
			p.add(c.Name, c.Help, c.Flag, commandSetters[c.Name])
		}
	}
	if m == modeJobFile {
		args = p.takeHostOnly(args)
	}
	positional, err := p.parse(args, also)
	if err != nil {
		return nil, err
	}
	if err := o.takePositional(m, positional); err != nil {
		return nil, err
	}
	if err := checkStateOptions(o); err != nil {
		return nil, err
	}
	if !o.job.IsSet("name") {
		o.job.Name = o.job.Pattern.String()
	}
	return o, nil
}

// argParser registers a command's options on a flag set and keeps the
// first error a setter returned (the flag package's own text for it is
// not used).
type argParser struct {
	o        *options
	fs       *flag.FlagSet
	firstErr error
}

// setter sets an option, named name, to v in o; its error is the one
// the user reads.
type setter func(o *options, name, v string) error

// add registers option name; a flag may be given bare, and then reads
// "1" (a switch given as --flag=true too).
func (p *argParser) add(name, help string, isFlag bool, set setter) {
	f := func(v string) error {
		p.o.named[name] = true
		if err := set(p.o, name, v); err != nil {
			if p.firstErr == nil {
				p.firstErr = err
			}
			return err
		}
		return nil
	}
	if isFlag {
		p.fs.BoolFunc(name, help, f)
		return
	}
	p.fs.Func(name, help, f)
}

// addJobOptions registers the job options mode m takes: all of them for
// one job, iodepth and name for a replay, and for a job file all of them
// and the file's own (numjobs, …), as defaults set before the file's.
// A job option the command has an option of its own for (the logs:
// --write_iops_log is the command's for every job, write_iops_log= a job
// file's for one) is the command's on its command line.
func (p *argParser) addJobOptions(m mode) {
	own := func(name string) bool {
		c, ok := cmdline.Lookup(name)
		return ok && c.Modes&m.cmdMode() != 0
	}
	switch m {
	case modeJob:
		for _, name := range workload.Options() {
			if own(name) {
				continue
			}
			p.add(name, workload.OptionHelp(name), workload.IsFlag(name), setJobOption)
		}
	case modeReplay:
		for _, name := range replayJobOptions {
			p.add(name, workload.OptionHelp(name), workload.IsFlag(name), setJobOption)
		}
	case modeJobFile:
		for _, opt := range workload.OptionTable() {
			if opt.Support != workload.Honoured {
				continue
			}
			for _, name := range opt.Names() {
				if own(name) {
					continue
				}
				p.add(name, workload.OptionHelp(name), opt.Kind == workload.KindFlag, addFileDefault)
			}
		}
	}
}

// setJobOption sets a job option of the command's job.
func setJobOption(o *options, name, v string) error {
	if v == "true" && workload.IsFlag(name) {
		v = "1"
	}
	o.given[name] = v
	return o.job.Set(name, v)
}

// addFileDefault keeps a job option of ftlsim run's command line, set
// before the job file's own.
func addFileDefault(o *options, name, v string) error {
	if v == "true" && workload.IsFlag(name) {
		v = "1"
	}
	o.fileDefaults = append(o.fileDefaults, [2]string{name, v})
	return nil
}

// takeHostOnly takes the host-side fio options (--ioengine=…, engine
// options) out of a job file's command line: they are reported as not
// applied, like the file's.
func (p *argParser) takeHostOnly(args []string) []string {
	var rest []string
	for _, a := range args {
		if k, v, ok := hostOnlyArg(a); ok && p.fs.Lookup(k) == nil {
			p.o.fileDefaults = append(p.o.fileDefaults, [2]string{k, v})
			continue
		}
		rest = append(rest, a)
	}
	return rest
}

// parse parses args and returns the positional arguments, which may
// stand among the options. An unknown option is answered with the
// closest known ones (the flags and also).
func (p *argParser) parse(args, also []string) ([]string, error) {
	var positional []string
	for rest := args; ; {
		if err := p.fs.Parse(rest); err != nil {
			if p.firstErr != nil {
				return nil, p.firstErr
			}
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			msg := err.Error()
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				return nil, usageError{p.unknown(strings.TrimLeft(name, "-"), also)}
			}
			return nil, usage("%s", msg)
		}
		if p.fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, p.fs.Arg(0))
		rest = p.fs.Args()[1:]
	}
}

// unknown is the error for option name, which the command does not take.
func (p *argParser) unknown(name string, also []string) error {
	known := slices.Clone(also)
	p.fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	return workload.Unknown("option", name, known, "--", "see ftlsim --help")
}

// takePositional checks the positional arguments of mode m: a replay's
// trace file, a job file, or none.
func (o *options) takePositional(m mode, positional []string) error {
	switch m {
	case modeReplay:
		if len(positional) != 1 {
			return usage("replay takes one trace file (got %d)", len(positional))
		}
		o.traceFile = positional[0]
		if !o.job.IsSet("iodepth") {
			o.job.IODepth = 0 // open loop at the recorded times
		}
	case modeScenario:
		if len(positional) > 0 {
			return usage("unexpected argument %q (scenario parameters are --name=value)", positional[0])
		}
	case modeJobFile:
		if len(positional) != 1 {
			return usage("run takes one job file (got %d)", len(positional))
		}
		o.traceFile = positional[0]
	case modeJob:
		if len(positional) > 0 {
			return usage("unexpected argument %q: options are --name=value; job files run with: ftlsim run FILE", positional[0])
		}
	}
	return nil
}
