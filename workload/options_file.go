package workload

// The options of a job among others and of a job file (fio's "Job
// description" and "Threads, processes and job synchronization"), and
// the fio options a simulated drive does not apply or cannot honour.

import (
	"slices"
	"strings"
)

var jobFileOptions = []Option{
	{Name: "name", Kind: KindText, Field: "Name", WorkloadOnly: true,
		Help: "job name (in a job file, the section header names the job)", set: func(j *Job, v string) error { j.Name = v; return nil }},
	{Name: "exitall", Kind: KindFlag, Values: "0|1", Field: "Coordination.ExitAll",
		Help: "when this job finishes, the others of its group stop", boolField: func(j *Job) *bool { return &j.ExitAll }},
	{Name: "numjobs", Kind: KindInt, Min: 1, Max: 64, JobFile: true, WorkloadOnly: true,
		Help: "run this many clones of the job at once (1..64)"},
	{Name: "group_reporting", Kind: KindBool, Values: "0|1", JobFile: true, WorkloadOnly: true,
		Help: "report the jobs of a reporting group (the clones of a job, or a new_group's) as one"},
	{Name: "new_group", Kind: KindBool, Values: "0|1", JobFile: true,
		Help: "start a new reporting group with this job"},
	{Name: "stonewall", Aliases: []string{"wait_for_previous"}, Kind: KindBool, Values: "0|1", JobFile: true,
		Help: "start a new group: wait for the jobs before to finish, and report apart from them"},
	{Name: "wait_for", Kind: KindText, Values: "a job's section name", JobFile: true,
		Help: "start once the named job (a section before this one) has finished"},
	{Name: "description", Kind: KindText, JobFile: true, WorkloadOnly: true,
		Help: "what the job is for: its report's desc, as fio's"},
	{Name: "filename", Kind: KindText, Values: "/dev/NAME (the drive) or file names, ':'-separated", JobFile: true,
		Help: "a device (/dev/…): the drive itself; else the job's files: each distinct file gets a region of the drive of its own, shared by the jobs that name it"},
	{Name: "directory", Kind: KindText, Values: "a directory, or several ':'-separated", JobFile: true,
		Help: "the job is on files (fio's $jobname.$jobnum.$filenum in it, or its filename=): each file a region of the drive of its own"},
	{Name: "filename_format", Kind: KindText, Values: "a name with $jobname, $jobnum, $filenum", JobFile: true,
		Help: "names the job's files (fio's default $jobname.$jobnum.$filenum): jobs with distinct names get distinct regions of the drive"},
}

// notApplied returns table entries for options a simulated drive has
// no use for, for the reason given.
func notApplied(reason, names string) []Option {
	var out []Option
	for _, n := range strings.Fields(names) {
		o := Option{Name: n, Support: NotApplied, Reason: reason}
		if p, ok := strings.CutSuffix(n, "*"); ok {
			o.Name, o.Prefix = p, true
		}
		out = append(out, o)
	}
	return out
}

// notAppliedOptions are fio options about the host's I/O path, not the
// device, its reporting and logs, and its buffers beyond what they hold:
// a job file may set them, and they are reported as not applied.
var notAppliedOptions = slices.Concat(
	notApplied("the host's I/O path: the simulation submits to the drive directly", `ioengine direct buffered
		thread invalidate cpus_allowed cpumask gtod_reduce clocksource
		iodepth_batch iodepth_batch_submit iodepth_batch_complete iodepth_batch_complete_min
		iodepth_batch_complete_max iodepth_low lockmem nice prio prioclass allow_mounted_write create_on_open
		overwrite fallocate continue_on_error`),
	notApplied("host reporting: ftlsim measures every I/O", `unified_rw_reporting disable_lat disable_clat
		disable_slat disable_bw_measurement slat_percentiles block_error_percentiles`),
	notApplied("a log option ftlsim does not model (its logs hold fio's values, uncompressed, times from the job's start)",
		`log_max_value log_compression log_unix_epoch`),
	notApplied("a buffer option: only what written data holds reaches the drive (buffer_compress_percentage, dedupe_percentage, data)",
		`refill_buffers zero_buffers scramble_buffers`),
	// Engine options: how a host reaches its device (SCSI generic, NVMe
	// passthrough, network, object stores, GPU memory, …).
	notApplied("an I/O engine's option: the simulation has no engine", `cmd_type port hostname clientname
		http_verbose gpu_dev_ids threads libblkio_driver io_submit_mode volume uri protocol program pool nfs_url
		md_per_io_size sqthread_poll hipri fixedbufs registerfiles nonvectored allow_file_create
		cpuload cpuchunks cpumode pi_act pi_chk listen https http_mode verb rocm_io cuda_io libblkio_path
		sqthread_poll_cpu rbdname clustername conf brick arguments mem iomem ttl write_mode cont sg_write_mode
		apptag apptag_mask http_host gpu_dev_id busy_poll pingpong http_* xnvme_* rdma_*`),
	notApplied("the host's scheduling, files and error handling", `log_prio cpus_allowed_policy cmdprio_percentage
		cmdprio_class cmdprio cmdprio_bssplit skip_bad verify_interval verify_backlog latency_target
		latency_window latency_percentile latency_run grace_time numa_cpu_nodes openfiles unlink unlink_each_loop
		donorname inplace verify_dump verify_fatal verify_async verify_state_save verify_state_load verify_offset
		verify_only verify_header_seed create_serialize exit_what error_dump std_redirect nr_files
		numa_mem_policy flow_sleep flow_watermark ignore_error verify_pattern exitall_on_error`),
	// Atomic (torn-write-protected) writes: every write is whole in the
	// simulated drive.
	notApplied("atomic writes: every write is whole in the simulated drive", "atomic"),
)

// refused returns table entries for fio options ftlsim cannot honour.
func refused(reason, names string) []Option {
	var out []Option
	for _, n := range strings.Fields(names) {
		out = append(out, Option{Name: n, Support: Refused, Reason: reason})
	}
	return out
}

// refusedOptions are fio options that would change the I/O a job issues
// in ways ftlsim does not model: setting one is an error saying so.
var refusedOptions = slices.Concat(
	refused("ftlsim replays traces with its replay command (ftlsim replay FILE: fio's iologs, blktrace and others)",
		"read_iolog replay_no_stall replay_redirect replay_align replay_scale replay_time_scale replay_skip merge_blktrace_file"),
	refused("ftlsim writes no iolog (its logs: --write_iops_log, --write_bw_log, --write_lat_log, --write_hist_log)", "write_iolog"),
	refused("fio's option is not modelled by ftlsim", `rw_sequencer bs_is_seq_rand blocksize_unaligned bs_unaligned
		offset_align softrandommap allrandrepeat file_append fsync_on_close write_barrier sync_file_range
		thinktime_blocks_type thinktime_iotime rate_ignore_thinktime trim_percentage trim_verify_zero trim_backlog
		trim_backlog_batch experimental_verify`),
	refused("ftlsim reads sizes as fio's default kb_base=1024 does (4k = 4096 bytes)", "kb_base unit_base"),
)
