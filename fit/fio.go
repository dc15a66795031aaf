package fit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// fioReport is the part of fio's JSON report (--output-format=json) a
// fit reads: fio 3 and ftlsim write the same fields.
type fioReport struct {
	Version string            `json:"fio version"`
	Global  map[string]string `json:"global options"`
	Jobs    []fioJob          `json:"jobs"`
}

type fioJob struct {
	Name    string            `json:"jobname"`
	GroupID int               `json:"groupid"`
	Error   int               `json:"error"`
	Options map[string]string `json:"job options"`
	Read    fioDir            `json:"read"`
	Write   fioDir            `json:"write"`
}

type fioDir struct {
	IOBytes int64   `json:"io_bytes"`
	BWBytes float64 `json:"bw_bytes"`
	IOPS    float64 `json:"iops"`
}

// option is a job's option as fio applied it: the job's own, else the
// global section's.
func (r *fioReport) option(j fioJob, key string) (string, bool) {
	if v, ok := j.Options[key]; ok {
		return v, true
	}
	v, ok := r.Global[key]
	return v, ok
}

// readReport reads one fio JSON report. fio may print notes before the
// JSON document (with --output, only the document is written; on the
// terminal, warnings can precede it): the document starts at the first
// line that is "{".
func readReport(file string) (*fioReport, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	start := bytes.Index(b, []byte("{"))
	if start < 0 {
		return nil, fmt.Errorf("%s: not a fio JSON report (no JSON object); run fio with --output-format=json", file)
	}
	var r fioReport
	dec := json.NewDecoder(bytes.NewReader(b[start:]))
	if err := dec.Decode(&r); err != nil {
		line := 1 + bytes.Count(b[:start], []byte("\n"))
		if se, ok := err.(*json.SyntaxError); ok {
			line += bytes.Count(b[start:start+int(se.Offset)], []byte("\n"))
		}
		return nil, fmt.Errorf("%s:%d: not a fio JSON report: %w", file, line, err)
	}
	if r.Version == "" || len(r.Jobs) == 0 {
		return nil, fmt.Errorf("%s: not a fio JSON report (no \"fio version\" or no jobs)", file)
	}
	return &r, nil
}

// logSample is one line of a fio log: its time and value.
type logSample struct {
	ms    int64
	value float64
}

// readLog reads a fio log of averaged windows (log_avg_msec > 0): lines
// "time_ms, value, ddir, bs, prio" (or with an offset column). It keeps
// the lines of direction ddir and refuses a log whose windows are not
// regular: a gap (a window missing, more than half as long again as the
// log's usual window) is named with its line.
func readLog(file string, ddir int, avgMs int64) ([]logSample, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []logSample
	sc := bufio.NewScanner(f)
	n := 0
	var prev int64
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		cols := strings.Split(line, ",")
		if len(cols) < 5 {
			return nil, fmt.Errorf("%s:%d: %q: not a fio log line (time_ms, value, ddir, bs, prio)", file, n, line)
		}
		ms, err1 := strconv.ParseInt(strings.TrimSpace(cols[0]), 10, 64)
		v, err2 := strconv.ParseFloat(strings.TrimSpace(cols[1]), 64)
		d, err3 := strconv.Atoi(strings.TrimSpace(cols[2]))
		if err1 != nil || err2 != nil || err3 != nil || ms < 0 || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("%s:%d: %q: not a fio log line (time_ms, value, ddir, bs, prio)", file, n, line)
		}
		if d != ddir {
			continue
		}
		if ms < prev {
			return nil, fmt.Errorf("%s:%d: time %d ms is before the line before's %d ms", file, n, ms, prev)
		}
		if avgMs > 0 && ms-prev > avgMs*3/2 {
			return nil, fmt.Errorf("%s:%d: a gap in the log: %d ms after the line before, its windows are %d ms (log_avg_msec); a log with gaps cannot be read as a series", file, n, ms-prev, avgMs)
		}
		prev = ms
		out = append(out, logSample{ms, v})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no line of direction %d (%s)", file, ddir, [...]string{"read", "write", "trim"}[min(ddir, 2)])
	}
	return out, nil
}

// varRef matches an option whose value is one of fio's ${VAR} references
// in a job file line "key=${VAR}".
var varRef = regexp.MustCompile(`^\s*([a-z_0-9]+)\s*=\s*([^$]*)\$\{([A-Za-z_][A-Za-z_0-9]*)\}([^$]*?)\s*$`)

// variables recovers the environment a job file ran with from the report
// fio wrote: each line key=${VAR} of the file takes the value the report
// gives for that key in that section (or in the global options). fio
// writes the options as applied, variables replaced, but leaves out
// options without a value (stonewall, time_based), which is why the job
// file itself is read too.
func variables(jobFile string, text []byte, r *fioReport) (map[string]string, error) {
	env := map[string]string{}
	jobs := map[string]fioJob{}
	for _, j := range r.Jobs {
		jobs[j.Name] = j
	}
	section := ""
	for i, line := range strings.Split(string(text), "\n") {
		line, _, _ = strings.Cut(line, ";")
		line, _, _ = strings.Cut(line, "#")
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			section = t[1 : len(t)-1]
			continue
		}
		m := varRef.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key, prefix, name, suffix := m[1], m[2], m[3], m[4]
		var v string
		var ok bool
		if section == "global" {
			v, ok = r.Global[key]
			for _, j := range r.Jobs {
				if ok {
					break
				}
				v, ok = j.Options[key]
			}
		} else if j, found := jobs[section]; found {
			v, ok = r.option(j, key)
		} else {
			continue // a section the report does not hold (--section)
		}
		if !ok {
			continue // host-side options fio left out; the default applies
		}
		if !strings.HasPrefix(v, prefix) || !strings.HasSuffix(v, suffix) || len(v) < len(prefix)+len(suffix) {
			return nil, fmt.Errorf("%s:%d: %s=%s${%s}%s, but the report has %s=%s", jobFile, i+1, key, prefix, name, suffix, key, v)
		}
		v = v[len(prefix) : len(v)-len(suffix)]
		if old, seen := env[name]; seen && old != v {
			return nil, fmt.Errorf("%s:%d: ${%s} is %q here but %q in an earlier section of the report", jobFile, i+1, name, v, old)
		}
		env[name] = v
	}
	return env, nil
}

// logOptions returns, for each job section of a job file, the log
// options it sets (write_iops_log, write_bw_log, log_avg_msec), its own
// or its [global] section's, with the variables of env. They are read
// from the file rather than the report: ftlsim's report leaves out the
// options it does not apply itself (the logs are its command line's).
func logOptions(text []byte, env map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	global := map[string]string{}
	cur := global
	ref := regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z_0-9]*)\}`)
	for _, line := range strings.Split(string(text), "\n") {
		line, _, _ = strings.Cut(line, ";")
		line, _, _ = strings.Cut(line, "#")
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			name := t[1 : len(t)-1]
			if name == "global" {
				cur = global
				continue
			}
			cur = map[string]string{}
			for k, v := range global {
				cur[k] = v
			}
			out[name] = cur
			continue
		}
		k, v, ok := strings.Cut(t, "=")
		k = strings.TrimSpace(k)
		if !ok || (k != "write_iops_log" && k != "write_bw_log" && k != "log_avg_msec") {
			continue
		}
		cur[k] = ref.ReplaceAllStringFunc(strings.TrimSpace(v), func(r string) string { return env[r[2:len(r)-1]] })
	}
	return out
}

// findJobFile returns the job file a report was made with: NAME.fio for
// NAME.json, beside it or in the folder above (the kit's 25 %-spare
// consistency run is made in a folder of its own), or the file ftlsim's
// report names.
func findJobFile(report string, r *fioReport) (string, error) {
	dir, base := filepath.Dir(report), strings.TrimSuffix(filepath.Base(report), ".json")
	cands := []string{filepath.Join(dir, base+".fio"), filepath.Join(filepath.Dir(dir), base+".fio")}
	if jf := r.Global["jobfile"]; jf != "" {
		cands = append(cands, filepath.Join(dir, filepath.Base(jf)), filepath.Join(filepath.Dir(dir), filepath.Base(jf)))
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s: no job file %s.fio beside it or in the folder above: keep the kit's .fio files with its reports", report, base)
}

// reports lists the JSON reports in dir, sorted, and those of its
// sub-folders one level down (the 25 %-spare run).
func reports(dir string) ([]string, error) {
	var out []string
	for _, pat := range []string{"*.json", "*/*.json"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no fio JSON report (*.json) in the folder", dir)
	}
	return out, nil
}
