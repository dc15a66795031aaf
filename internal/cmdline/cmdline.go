// Package cmdline declares the ftlsim command's own options, those it
// takes besides fio's job options (which workload.OptionTable declares):
// the drive and its preparation, faults, outputs, logs, memory and drive
// snapshots, and the options of the replay, run and scenario commands.
// Each says which commands take it, whether a study may set it and
// whether it changes only what the host does. The cli package parses
// them; the sweep package writes a study's command lines with them.
package cmdline

import "slices"

// Mode is a set of the commands that simulate.
type Mode uint8

// The commands.
const (
	Job      Mode = 1 << iota // ftlsim [options]: one job from the options
	Replay                    // ftlsim replay FILE
	JobFile                   // ftlsim run JOBFILE
	Scenario                  // ftlsim scenario NAME

	All = Job | Replay | JobFile | Scenario
	// Prepared are the commands that prepare a drive of their own, and
	// may save or restore it: all but scenarios, whose steps erase it.
	Prepared = Job | Replay | JobFile
)

// Option is one of the command's own options.
type Option struct {
	Name string
	// Value is the form of the value, for help (SIZE, FILE, …); "" for
	// a switch.
	Value string
	Help  string
	// Flag options may be given bare (--prepare_only).
	Flag bool
	// Modes are the commands that take the option.
	Modes Mode
	// Study are the commands whose points a study's key may set the
	// option on; a sweep sets the others itself (the drive, outputs,
	// snapshots) or has no use for them.
	Study Mode
	// WorkloadOnly options change only what the host does, not the
	// drive nor its preparation.
	WorkloadOnly bool
}

// options are the command's own options. A study's list of the options
// it may set follows this order.
var options = []Option{
	{Name: "drive", Value: "PRESET|FILE", Modes: All, Help: "drive preset name or description file (default generic-mlc; see ftlsim drives)"},
	{Name: "capacity", Value: "SIZE", Modes: All, Study: Job | Scenario, Help: "user-visible capacity (e.g. 240GB, 256GiB)"},
	{Name: "op", Value: "PERCENT", Modes: All, Study: Job | Scenario, Help: "spare area in percent of user capacity"},
	{Name: "gc", Value: "POLICY", Modes: All, Study: Job | Scenario, Help: "GC victim policy: greedy, fifo, cost-benefit, random, d-choices:D, or a registered one"},
	{Name: "faults", Value: "KEY=V,...", Modes: All, Study: Job | Scenario, Help: faultsHelp},
	{Name: "precondition", Value: "none|fill|torture[:TIME]|season", Modes: All, Study: Job, Help: "run before the job (after a secure erase)"},
	{Name: "save_state", Value: "FILE", Modes: Prepared, Help: "save the prepared drive's state (after the secure erase and precondition) to this file"},
	{Name: "load_state", Value: "FILE", Modes: Prepared, Help: "start from the drive state in this file (written by --save_state) instead of preparing the drive"},
	{Name: "prepare_only", Flag: true, Modes: Prepared, Help: "with --save_state: prepare the drive, save its state and run no job"},
	{Name: "output-format", Value: "normal|json|json+|terse", Modes: All, Help: "normal, json, json+ (json with each direction's latency distribution, fio's clat_ns bins) or terse (fio's terse version 3)"},
	{Name: "output", Value: "FILE", Modes: All, Help: "write the report to this file"},
	{Name: "max_memory", Value: "SIZE", Modes: All, Help: "memory a run may use (default: half of the available memory, or FTLSIM_MAX_MEMORY)"},
	{Name: "compact_map", Value: "0|1", Modes: All, Help: "1: the simulated flash keeps no OOB tags, as drives above 4 TiB of flash do by themselves (less memory, more CPU time, the same results)"},
	{Name: "write_iops_log", Value: "NAME", Modes: All, Help: "write NAME_iops.1.log"},
	{Name: "write_bw_log", Value: "NAME", Modes: All, Help: "write NAME_bw.1.log"},
	{Name: "write_lat_log", Value: "NAME", Modes: All, Help: "write NAME_lat.1.log, NAME_clat.1.log, NAME_slat.1.log"},
	{Name: "log_offset", Value: "0|1", Modes: All, Help: "1: log lines carry each I/O's offset (fio's log_offset)"},
	{Name: "log_avg_msec", Value: "MS", Modes: All, Help: "average log entries over this many ms (0: one per I/O)"},
	{Name: "write_hist_log", Value: "NAME", Modes: All, Help: "write NAME_clat_hist.1.log: completion-latency histograms (fio's 1,856 bins) every log_hist_msec"},
	{Name: "log_hist_msec", Value: "MS", Modes: All, Help: "interval of the histogram log, in ms (default 1000)"},
	{Name: "write_device_log", Value: "FILE.csv", Modes: All, Help: "write the per-interval series as CSV"},
	{Name: "device_log_msec", Value: "MS", Modes: All, Study: Job, WorkloadOnly: true, Help: "interval of the series, in ms (default 1000)"},
	{Name: "lba_format", Value: "DATA[+META]", Modes: Job | JobFile, Help: "the namespace's LBA format, as NVMe's Format NVM sets it: 512 or 4096 data bytes a block and, with +META (8, 16, 64 or 128), metadata interleaved with each block's data (extended LBAs: the job's offsets and block sizes count it, as fio's on such a namespace); a job file whose block sizes are all extended blocks of 4096 bytes (bs=4160) is given that format"},
	{Name: "numjobs", Value: "N", Modes: Job, Study: Job, WorkloadOnly: true, Help: "run this many clones of the job at once (1..64)"},
	{Name: "group_reporting", Flag: true, Modes: Job, Study: Job, WorkloadOnly: true, Help: "report the clones as one job"},
	{Name: "format", Value: "msr|spc|disksim|heimdall|blkparse|iolog", Modes: Replay, Help: "trace format (default: detected)"},
	{Name: "speedup", Value: "X", Modes: Replay, Help: "replay the recorded times this many times faster"},
	{Name: "devices", Value: "merge|partition:N", Modes: Replay, Help: "merge, or partition:N"},
	{Name: "beyond", Value: "wrap|reject", Modes: Replay, Help: "wrap or reject requests past the drive"},
	{Name: "section", Value: "NAME", Modes: JobFile, Help: "run only this job section of the file (may repeat)"},
	{Name: "randseed", Value: "N", Modes: Scenario, Study: Scenario, Help: "seed of the drive and of the scenario's jobs (default: the scenario's own seeds)"},
}

// Options returns the command's own options.
func Options() []Option { return slices.Clone(options) }

// Lookup returns the option called name.
func Lookup(name string) (Option, bool) {
	for _, o := range options {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

// StudyOptions returns the names of the options a study may set on the
// points of command m, in the table's order.
func StudyOptions(m Mode) []string {
	var n []string
	for _, o := range options {
		if o.Study&m != 0 {
			n = append(n, o.Name)
		}
	}
	return n
}

// IsWorkloadOnly reports whether option name changes only what the host
// does.
func IsWorkloadOnly(name string) bool {
	o, ok := Lookup(name)
	return ok && o.WorkloadOnly
}

// faultsHelp is --faults' help: its keys and their ranges.
const faultsHelp = `inject faults: comma-separated KEY=VALUE, any turning on the NAND part's read-error model:
on (just the model), wear=SHARE (0..10 of the rated P/E cycles used before the run, or a percentage: 95%),
age=TIME (0..100y of retention added to the data before each measured job: 12h, 180d, 2y),
rber_scale=X (0.001..1000, multiplies every raw bit-error rate), grown_bad_permille=N (0..999),
program_fail_permille=N (0..999),
bad_block_permille=N (0..100), read_reclaim=N (0..1000000000 reads since erase; 0: off),
ecc_bits=N (1..1000 bits corrected per codeword)`
