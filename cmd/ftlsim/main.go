// Command ftlsim simulates a NAND flash SSD — the flash array, the flash
// translation layer and the controller firmware — under the workloads
// reviewers and firmware engineers run on real drives.
//
// Run with no arguments for a short demonstration. With options it runs one
// fio-style job on a simulated drive:
//
//	ftlsim --drive=generic-mlc --precondition=fill --rw=randwrite --bs=4k \
//	       --iodepth=32 --runtime=2000 --time_based --output-format=json
//
// Job options use fio's names, syntax and meaning (--name --rw --bs
// --bssplit --iodepth --size --offset --io_size --runtime --ramp_time
// --time_based --number_ios --rwmixread --rwmixwrite --random_distribution
// --randseed --norandommap). Drive options: --drive (a preset name or a
// drive description file), --capacity (user-visible capacity), --op (spare
// area, percent of user capacity), --gc (victim policy). --precondition is
// none, fill, torture[:DURATION] or season. Output: --output-format=normal|json,
// --output=FILE, --write_iops_log, --write_bw_log, --write_lat_log with
// --log_avg_msec, and --write_device_log=FILE for the per-interval series
// as CSV. "ftlsim drives" lists the drive presets and "ftlsim drives NAME"
// prints one as an editable description. "ftlsim replay FILE" replays a
// block trace (package workload/trace lists the formats) open loop at its
// recorded times (--speedup) or closed loop (--iodepth), with --format,
// --devices=merge|partition:N and --beyond=wrap|reject. "ftlsim run JOBFILE"
// runs a fio job file: [global] and job sections, groups in order (the
// jobs of a group at once; stonewall starts a group), numjobs clones;
// host-side options such as ioengine are reported as not applied, and any
// other option ftlsim cannot honour is an error naming its line.
//
// Bad input is reported in one line naming the option, with exit status 2.
// Outputs are written whole or not at all; SIGINT or SIGTERM stops a run,
// writes its results so far (marked interrupted) and exits with 130; a
// run larger than the memory limit (--max_memory, FTLSIM_MAX_MEMORY, or
// half of the machine's available memory) is refused before it starts.
//
// The command is a thin wrapper around package cli, whose Main a program
// calls to run the same command with its own victim policies linked in.
package main

import (
	"os"

	"github.com/ftlsim/ftlsim/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
