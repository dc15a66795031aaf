package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// JobFile is a parsed fio job file: jobs in order, each in a group. Jobs
// of one group run at the same time; a job with stonewall (or
// wait_for_previous) starts a new group, which runs after the previous one
// has finished — fio's semantics.
type JobFile struct {
	Name string
	Jobs []FileJob
	// Ignored lists, each once in the order first seen, the options the
	// file sets that ftlsim does not apply: host-side options with no
	// meaning for a simulated drive (ioengine, direct, filename, …), log
	// options (given on the command line instead), and buffer options
	// other than the data-content ones (refill_buffers, zero_buffers, …).
	// They are reported, not dropped silently.
	Ignored []string
}

// FileJob is one job of a job file.
type FileJob struct {
	Job   *Job
	Group int // 0-based group number
	// Report is the job's reporting group (fio's groupid): stonewall and
	// new_group start the next. With GroupReporting, the jobs of a
	// reporting group are reported as one (fio's group_reporting).
	Report         int
	GroupReporting bool
	Options        map[string]string // the options that applied, global ones included
	Line           int               // line of the job's section header
	Section        string            // the section's name (clones of numjobs share it)
}

// hostOnly are fio options about the host's I/O path, not the device;
// a simulation has nothing to apply them to.
var hostOnly = map[string]bool{
	"ioengine": true, "direct": true, "buffered": true, "filename": true, "filename_format": true,
	"directory": true, "thread": true, "invalidate": true, "cpus_allowed": true,
	"cpumask": true, "gtod_reduce": true, "clocksource": true, "iodepth_batch": true,
	"iodepth_batch_submit": true, "iodepth_batch_complete": true, "iodepth_batch_complete_min": true,
	"iodepth_batch_complete_max": true, "iodepth_low": true, "lockmem": true, "nice": true, "prio": true, "prioclass": true,
	"unified_rw_reporting": true, "disable_lat": true, "disable_clat": true,
	"disable_slat": true, "disable_bw_measurement": true, "allow_mounted_write": true, "create_on_open": true,
	"overwrite": true, "fallocate": true, "description": true, "refill_buffers": true, "zero_buffers": true, "scramble_buffers": true, "continue_on_error": true,
	"write_iops_log": true, "write_bw_log": true, "write_lat_log": true, "log_avg_msec": true, "log_offset": true,
	"write_hist_log": true, "log_hist_msec": true, "log_max_value": true, "log_compression": true, "log_unix_epoch": true,
	// Engine options: how a host reaches its device (SCSI generic, NVMe
	// passthrough, network, object stores, GPU memory, …).
	"cmd_type": true, "port": true, "hostname": true, "clientname": true, "http_verbose": true,
	"gpu_dev_ids": true, "threads": true, "libblkio_driver": true, "io_submit_mode": true, "volume": true,
	"uri": true, "protocol": true, "program": true, "pool": true, "nfs_url": true, "md_per_io_size": true,
	"sqthread_poll": true, "hipri": true, "fixedbufs": true, "registerfiles": true, "nonvectored": true,
	"fdp": true, "fdp_pli": true, "allow_file_create": true, "cpuload": true, "cpuchunks": true,
	"cpumode": true, "pi_act": true, "pi_chk": true, "listen": true, "https": true, "http_mode": true,
	"verb": true, "rocm_io": true, "cuda_io": true, "libblkio_path": true, "sqthread_poll_cpu": true,
	"rbdname": true, "clustername": true, "conf": true, "brick": true, "arguments": true, "mem": true,
	"iomem": true, "ttl": true, "write_mode": true, "cont": true, "sg_write_mode": true, "apptag": true,
	"apptag_mask": true, "http_host": true, "gpu_dev_id": true, "busy_poll": true, "pingpong": true,
	// Host scheduling, reporting and error handling.
	"log_prio": true, "cpus_allowed_policy": true, "cmdprio_percentage": true, "cmdprio_class": true,
	"cmdprio": true, "cmdprio_bssplit": true, "skip_bad": true, "block_error_percentiles": true, "verify_interval": true, "verify_backlog": true, "latency_target": true,
	"latency_window": true, "latency_percentile": true, "latency_run": true, "grace_time": true, "numa_cpu_nodes": true,
	"openfiles": true, "unlink": true, "unlink_each_loop": true, "donorname": true, "inplace": true,
	"verify_dump": true, "verify_fatal": true, "verify_async": true, "verify_state_save": true,
	"verify_state_load": true, "verify_offset": true, "verify_only": true, "verify_header_seed": true,
	"create_serialize": true, "exit_what": true, "error_dump": true, "std_redirect": true, "nr_files": true, "numa_mem_policy": true, "flow": true, "flow_id": true,
	"flow_sleep": true, "flow_watermark": true, "ignore_error": true, "slat_percentiles": true, "verify_pattern": true, "exitall_on_error": true,
	// Atomic (torn-write-protected) writes: every write is whole in the
	// simulated drive until power loss is modelled.
	"atomic": true,
}

// IsHostOnly reports whether fio option name is about the host's I/O
// path (engines, CPUs, reporting, error handling), with nothing in a
// simulated drive to apply it to.
func IsHostOnly(name string) bool {
	name = strings.ToLower(name)
	return hostOnly[name] || strings.HasPrefix(name, "http_") || strings.HasPrefix(name, "xnvme_") || strings.HasPrefix(name, "rdma_")
}

// ParseJobFileName reads a job file from disk.
func ParseJobFileName(file string) (*JobFile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseJobFile(file, f)
}

type section struct {
	name string
	line int
	opts [][3]string // key, value, line
}

// ParseJobFile parses fio's INI job format: a [global] section (which
// applies to the jobs after it), job sections, key=value or bare-key
// lines, and ; or # comments (as in fio, a line ends at its first ; or #).
// ${VAR} in a line is replaced by the environment variable VAR (empty when
// unset), and fio's keywords $pagesize, $mb_memory and $ncpus by this
// machine's values, as fio does (see ParseOptions). Errors name the file
// and line.
func ParseJobFile(name string, r io.Reader) (*JobFile, error) {
	return ParseJobFileWith(name, r, ParseOptions{Getenv: os.Getenv, Host: ThisHost()})
}

// ParseJobFileEnv is ParseJobFile with the environment given: getenv
// returns the value of a variable ("" when unset).
func ParseJobFileEnv(name string, r io.Reader, getenv func(string) string) (*JobFile, error) {
	return ParseJobFileWith(name, r, ParseOptions{Getenv: getenv, Host: ThisHost()})
}

// ParseOptions are what a job file is read with besides its text.
type ParseOptions struct {
	// Getenv returns the value of environment variable ("" when unset)
	// for ${VAR}; nil: no variables are set.
	Getenv func(string) string
	// Host gives the values of fio's keywords $pagesize, $mb_memory and
	// $ncpus (a zero value makes using one an error).
	Host HostFacts
	// Sections, when not empty, runs only the job sections of these names
	// (fio's --section); [global] sections always apply.
	Sections []string
	// Defaults are options set before the file's first line, as fio's
	// command-line job options are: the file's own options override
	// them. Host-side ones are reported as not applied, like the file's.
	Defaults [][2]string
}

// maxJobFileLine is the longest line a job file may have, in bytes.
const maxJobFileLine = 1 << 20

// ParseJobFileWith parses a job file as ParseJobFile does, with the
// environment, machine facts, sections and defaults of po.
func ParseJobFileWith(name string, r io.Reader, po ParseOptions) (*JobFile, error) {
	getenv := po.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxJobFileLine)
	var secs []*section
	var cur *section
	ln := 0
	for sc.Scan() {
		ln++
		line := sc.Text()
		if i := strings.IndexAny(line, ";#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(expandEnv(line, getenv))
		if line == "" {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 2 {
				return nil, fmt.Errorf("%s:%d: %w: malformed section header %q", name, ln, ErrOption, line)
			}
			cur = &section{name: strings.TrimSpace(line[1:end]), line: ln}
			secs = append(secs, cur)
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%s:%d: %w: option %q before any [section]", name, ln, ErrOption, line)
		}
		key, raw, _ := strings.Cut(line, "=")
		key, raw = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(raw)
		val, err := expandValue(raw, po.Host)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w: %s=%s: %w", name, ln, ErrOption, key, raw, err)
		}
		cur.opts = append(cur.opts, [3]string{key, val, strconv.Itoa(ln)})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: %w: line too long, allowed at most %d bytes (1 MiB) a line", name, ln+1, ErrOption, maxJobFileLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	jf := &JobFile{Name: name}
	seen := map[string]bool{}
	var global [][3]string
	for _, kv := range po.Defaults {
		global = append(global, [3]string{strings.ToLower(kv[0]), kv[1], ""})
	}
	group, report := 0, 0
	ran := map[string]bool{}
	for _, sec := range secs {
		if strings.EqualFold(sec.name, "global") {
			global = append(global, sec.opts...)
			continue
		}
		if len(po.Sections) > 0 && !slices.Contains(po.Sections, sec.name) {
			continue
		}
		ran[sec.name] = true
		numjobs := 1
		stonewall, newGroup, grouped := false, false, false
		waitFor, waitLine := "", ""
		j := NewJob(sec.name)
		given := map[string]string{}
		for _, kv := range append(append([][3]string{}, global...), sec.opts...) {
			key, val, at := kv[0], kv[1], name+":"+kv[2]
			if kv[2] == "" {
				at = "command line --" + key
			}
			switch {
			case key == "stonewall" || key == "wait_for_previous":
				stonewall = val == "" || val == "1" || val == "true"
				continue
			case key == "new_group" || key == "group_reporting":
				on := true
				if err := setBool(&on, val); err != nil {
					return nil, fmt.Errorf("%s: %w: %s=%s: %w", at, ErrOption, key, val, err)
				}
				if key == "new_group" {
					newGroup = on
				} else {
					grouped = on
				}
				given[key] = val
				continue
			case key == "wait_for":
				waitFor, waitLine = val, at
				continue
			case key == "numjobs":
				n, err := strconv.Atoi(val)
				if err != nil || n < 1 || n > 64 {
					return nil, fmt.Errorf("%s: %w: numjobs=%s: must be an integer in 1..64", at, ErrOption, val)
				}
				numjobs = n
				given[key] = val
				continue
			case key == "name":
				continue // the section header names the job
			case IsHostOnly(key):
				if !seen[key] {
					seen[key] = true
					jf.Ignored = append(jf.Ignored, key)
				}
				continue
			}
			if _, ok := options[key]; !ok {
				if _, alias := aliases[key]; !alias {
					return nil, fmt.Errorf("%s: %w: option %q is not one ftlsim can honour (it knows %s, and ignores host-side options such as ioengine)",
						at, ErrOption, key, strings.Join(Options(), ", "))
				}
			}
			if IsFlag(key) && val == "" {
				val = "1"
			}
			if err := j.Set(key, val); err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
			given[key] = val
		}
		if stonewall && len(jf.Jobs) > 0 {
			group++
		}
		if waitFor != "" {
			// fio's wait_for: start once the named job has finished. Here
			// the job starts a group after the named job's group, as
			// stonewall does.
			found := false
			for _, o := range jf.Jobs {
				if o.Section == waitFor {
					found = true
					if o.Group == group {
						group++
						break
					}
				}
			}
			if !found {
				return nil, fmt.Errorf("%s:%s: %w: wait_for=%s: no job of that name before [%s]", name, waitLine, ErrOption, waitFor, sec.name)
			}
		}
		if (stonewall || newGroup) && len(jf.Jobs) > 0 {
			report++
		}
		for k := 0; k < numjobs; k++ {
			jf.Jobs = append(jf.Jobs, FileJob{Job: j.Cloned(k, numjobs), Group: group, Report: report, GroupReporting: grouped,
				Options: given, Line: sec.line, Section: sec.name})
		}
	}
	for _, want := range po.Sections {
		if !ran[want] {
			var have []string
			for _, sec := range secs {
				if !strings.EqualFold(sec.name, "global") {
					have = append(have, sec.name)
				}
			}
			return nil, fmt.Errorf("%s: %w: --section=%s: no job section of that name (the file has %s)", name, ErrOption, want, strings.Join(have, ", "))
		}
	}
	if len(jf.Jobs) == 0 {
		return nil, fmt.Errorf("%s: %w: no job sections", name, ErrOption)
	}
	return jf, nil
}

// expandEnv replaces each ${VAR} in s with getenv(VAR), as fio does (an
// unset variable becomes empty; a $ not followed by {…} stays).
func expandEnv(s string, getenv func(string) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j <= 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(getenv(s[i+2 : i+2+j]))
		s = s[i+3+j:]
	}
	b.WriteString(s)
	return b.String()
}

// Cloned returns clone k of n of job j, as numjobs makes them: its own
// name (j's, with .k when n > 1), random seed and Clone number.
func (j *Job) Cloned(k, n int) *Job {
	c := *j
	c.BS = append([]BlockSize(nil), j.BS...)
	c.RandSeed = j.RandSeed + uint64(k) // clones draw different offsets
	if n > 1 {
		c.Name = fmt.Sprintf("%s.%d", j.Name, k)
	}
	c.Clone = k
	return &c
}

// Groups returns the jobs split into their groups, in order.
func (jf *JobFile) Groups() [][]FileJob {
	var out [][]FileJob
	for _, j := range jf.Jobs {
		if j.Group == len(out) {
			out = append(out, nil)
		}
		out[j.Group] = append(out[j.Group], j)
	}
	return out
}
