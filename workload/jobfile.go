package workload

import (
	"bufio"
	"fmt"
	"io"
	"os"
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
	Job     *Job
	Group   int               // 0-based group number
	Options map[string]string // the options that applied, global ones included
	Line    int               // line of the job's section header
}

// hostOnly are fio options about the host's I/O path, not the device;
// a simulation has nothing to apply them to.
var hostOnly = map[string]bool{
	"ioengine": true, "direct": true, "buffered": true, "filename": true, "filename_format": true,
	"directory": true, "thread": true, "group_reporting": true, "invalidate": true, "cpus_allowed": true,
	"cpumask": true, "exitall": true, "gtod_reduce": true, "clocksource": true, "iodepth_batch": true,
	"iodepth_batch_submit": true, "iodepth_batch_complete": true, "iodepth_batch_complete_min": true,
	"iodepth_batch_complete_max": true, "iodepth_low": true, "fsync": true, "fdatasync": true,
	"end_fsync": true, "lockmem": true, "nice": true, "prio": true, "prioclass": true,
	"unified_rw_reporting": true, "percentile_list": true, "disable_lat": true, "disable_clat": true,
	"disable_slat": true, "disable_bw_measurement": true, "allow_mounted_write": true, "create_on_open": true,
	"overwrite": true, "fallocate": true, "description": true, "verify": true,
	"do_verify": true, "refill_buffers": true, "zero_buffers": true, "scramble_buffers": true, "continue_on_error": true,
	"write_iops_log": true, "write_bw_log": true, "write_lat_log": true, "log_avg_msec": true,
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
// lines, and ; or # comments. Errors name the file and line.
func ParseJobFile(name string, r io.Reader) (*JobFile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var secs []*section
	var cur *section
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == ';' || line[0] == '#' {
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
		key, val, _ := strings.Cut(line, "=")
		cur.opts = append(cur.opts, [3]string{strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val), strconv.Itoa(ln)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	jf := &JobFile{Name: name}
	seen := map[string]bool{}
	var global [][3]string
	group := 0
	for _, sec := range secs {
		if strings.EqualFold(sec.name, "global") {
			global = append(global, sec.opts...)
			continue
		}
		numjobs := 1
		stonewall := false
		j := NewJob(sec.name)
		given := map[string]string{}
		for _, kv := range append(append([][3]string{}, global...), sec.opts...) {
			key, val, at := kv[0], kv[1], kv[2]
			switch {
			case key == "stonewall" || key == "wait_for_previous":
				stonewall = val == "" || val == "1" || val == "true"
				continue
			case key == "numjobs":
				n, err := strconv.Atoi(val)
				if err != nil || n < 1 || n > 64 {
					return nil, fmt.Errorf("%s:%s: %w: numjobs=%s: must be an integer in 1..64", name, at, ErrOption, val)
				}
				numjobs = n
				given[key] = val
				continue
			case key == "name":
				continue // the section header names the job
			case hostOnly[key]:
				if !seen[key] {
					seen[key] = true
					jf.Ignored = append(jf.Ignored, key)
				}
				continue
			}
			if _, ok := options[key]; !ok {
				if _, alias := aliases[key]; !alias {
					return nil, fmt.Errorf("%s:%s: %w: option %q is not one ftlsim can honour (it knows %s, and ignores host-side options such as ioengine)",
						name, at, ErrOption, key, strings.Join(Options(), ", "))
				}
			}
			if IsFlag(key) && val == "" {
				val = "1"
			}
			if err := j.Set(key, val); err != nil {
				return nil, fmt.Errorf("%s:%s: %w", name, at, err)
			}
			given[key] = val
		}
		if stonewall && len(jf.Jobs) > 0 {
			group++
		}
		for k := 0; k < numjobs; k++ {
			c := *j
			c.set = j.set
			c.BS = append([]BlockSize(nil), j.BS...)
			c.RandSeed = j.RandSeed + uint64(k) // clones draw different offsets
			if numjobs > 1 {
				c.Name = fmt.Sprintf("%s.%d", j.Name, k)
			}
			jf.Jobs = append(jf.Jobs, FileJob{Job: &c, Group: group, Options: given, Line: sec.line})
		}
	}
	if len(jf.Jobs) == 0 {
		return nil, fmt.Errorf("%s: %w: no job sections", name, ErrOption)
	}
	return jf, nil
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
