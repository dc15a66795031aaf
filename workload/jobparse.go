package workload

// Reading a job file: its lines into sections (readSections), then the
// sections into jobs and groups (buildJobFile).

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxJobFileLine is the longest line a job file may have, in bytes.
const maxJobFileLine = 1 << 20

// setting is one key=value line of a job file, or an option of the
// command line set before the file's (line 0).
type setting struct {
	key, val string
	raw      string // the value as written, before ${VAR} was expanded
	line     int
	file     string // the included file the line is in ("" for the job file itself)
	// unset are the ${VAR}s of the line that the environment does not
	// set (or sets empty): they read as empty, as in fio, and an error
	// on the line names them.
	unset []string
	empty bool // the environment sets them, but empty
}

// section is a [name] section of a job file and its settings.
type section struct {
	name string
	line int
	opts []setting
}

// where names the setting for an error: file:line, or the command line.
func (s setting) where(file string) string {
	if s.line == 0 {
		return "command line --" + s.key
	}
	if s.file != "" {
		file = s.file
	}
	return file + ":" + strconv.Itoa(s.line)
}

// envNote says which of the line's variables were not set, for an error
// on the line ("" when all were).
func envNote(unset []string, empty bool) string {
	if len(unset) == 0 {
		return ""
	}
	vars := make([]string, len(unset))
	for i, v := range unset {
		vars[i] = "${" + v + "}"
	}
	is, what := "is", "the environment variable "+vars[0]
	if len(vars) > 1 {
		is, what = "are", "the environment variables "+strings.Join(vars, ", ")
	}
	if empty {
		return fmt.Sprintf("%s %s empty", what, is)
	}
	return fmt.Sprintf("%s %s not set (fio reads an unset variable as empty)", what, is)
}

// fail is an error of setting s in file: the file and line, the option
// as written and, when the line used variables the environment does not
// set, their names.
func (s setting) fail(file string, err error) error {
	if note := envNote(s.unset, s.empty); note != "" {
		return fmt.Errorf("%s: %w: %s=%s: %s: %w", s.where(file), ErrOption, s.key, s.raw, note, err)
	}
	return fmt.Errorf("%s: %w: %s=%s: %w", s.where(file), ErrOption, s.key, s.val, err)
}

// ParseJobFileWith parses a job file as ParseJobFile does, with the
// environment, machine facts, sections and defaults of po.
func ParseJobFileWith(name string, r io.Reader, po ParseOptions) (*JobFile, error) {
	secs, err := readSections(name, r, po)
	if err != nil {
		return nil, err
	}
	return buildJobFile(name, secs, po)
}

// lookupEnv returns po's environment as a lookup.
func (po ParseOptions) lookupEnv() func(string) (string, bool) {
	switch {
	case po.LookupEnv != nil:
		return po.LookupEnv
	case po.Getenv != nil:
		return func(k string) (string, bool) { v := po.Getenv(k); return v, v != "" }
	}
	return func(string) (string, bool) { return "", false }
}

// maxIncludeDepth is how deeply include directives may nest.
const maxIncludeDepth = 16

// sectionReader reads the lines of a job file, and of the files it
// includes, into sections.
type sectionReader struct {
	po     ParseOptions
	lookup func(string) (string, bool)
	secs   []*section
	cur    *section
	chain  []string // the files being read, outermost first
}

// readSections reads the lines of a job file into its sections.
func readSections(name string, r io.Reader, po ParseOptions) ([]*section, error) {
	sr := &sectionReader{po: po, lookup: po.lookupEnv()}
	if err := sr.read(name, "", r); err != nil {
		return nil, err
	}
	return sr.secs, nil
}

// read reads the lines of file name (shown as shown, "" for the job
// file itself) from r.
func (sr *sectionReader) read(name, shown string, r io.Reader) error {
	sr.chain = append(sr.chain, name)
	defer func() { sr.chain = sr.chain[:len(sr.chain)-1] }()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxJobFileLine)
	ln := 0
	for sc.Scan() {
		ln++
		if err := sr.line(name, shown, ln, sc.Text()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: %w: line too long, allowed at most %d bytes (1 MiB) a line", name, ln+1, ErrOption, maxJobFileLine)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// line reads line ln of file name.
func (sr *sectionReader) line(name, shown string, ln int, text string) error {
	if i := strings.IndexAny(text, ";#"); i >= 0 {
		text = text[:i]
	}
	expanded, unset, empty := expandEnv(text, sr.lookup)
	line := strings.TrimSpace(expanded)
	if line == "" {
		return nil
	}
	s := setting{line: ln, file: shown, unset: unset, empty: empty}
	if line[0] == '[' {
		end := strings.IndexByte(line, ']')
		if end < 2 {
			err := fmt.Errorf("%s:%d: %w: malformed section header %q", name, ln, ErrOption, line)
			if note := envNote(unset, empty); note != "" {
				err = fmt.Errorf("%w (%s)", err, note)
			}
			return err
		}
		sr.cur = &section{name: strings.TrimSpace(line[1:end]), line: ln}
		sr.secs = append(sr.secs, sr.cur)
		return nil
	}
	if inc, ok := strings.CutPrefix(line, "include"); ok && inc != "" && (inc[0] == ' ' || inc[0] == '\t') {
		return sr.include(name, ln, strings.TrimSpace(inc))
	}
	if sr.cur == nil {
		return fmt.Errorf("%s:%d: %w: option %q before any [section]", name, ln, ErrOption, line)
	}
	key, raw, _ := strings.Cut(line, "=")
	s.key, raw = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(raw)
	_, s.raw, _ = strings.Cut(strings.TrimSpace(text), "=")
	s.raw, s.val = strings.TrimSpace(s.raw), raw
	val, err := expandValue(raw, sr.po.Host)
	if err != nil {
		return s.fail(name, err)
	}
	s.val = val
	sr.cur.opts = append(sr.cur.opts, s)
	return nil
}

// include reads the file an include directive at line ln of file name
// names, as fio does: its lines go where the directive is (they may set
// options of the section the directive is in, or start sections), and a
// relative path is taken from the directory of the file that includes
// it.
func (sr *sectionReader) include(name string, ln int, file string) error {
	if sr.po.ReadFile == nil {
		return fmt.Errorf("%s:%d: %w: include %s: included files are not read here (ParseOptions.ReadFile is not set)", name, ln, ErrOption, file)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(name), file)
	}
	if slices.Contains(sr.chain, file) {
		return fmt.Errorf("%s:%d: %w: include %s: the file includes itself (%s)", name, ln, ErrOption, file, strings.Join(append(sr.chain, file), " → "))
	}
	if len(sr.chain) > maxIncludeDepth {
		return fmt.Errorf("%s:%d: %w: include %s: includes nested more than %d deep", name, ln, ErrOption, file, maxIncludeDepth)
	}
	b, err := sr.po.ReadFile(file)
	if err != nil {
		return fmt.Errorf("%s:%d: %w: include: %w", name, ln, ErrOption, err)
	}
	return sr.read(file, file, bytes.NewReader(b))
}

// fileJob is a job section's job with the job file's own options.
type fileJob struct {
	job                          *Job
	numjobs                      int
	stonewall, newGroup, grouped bool
	waitFor                      setting // wait_for, when given
	given                        map[string]string
}

// buildJobFile makes the jobs of the sections, in their groups.
func buildJobFile(name string, secs []*section, po ParseOptions) (*JobFile, error) {
	jf := &JobFile{Name: name}
	seen := map[string]bool{}
	var global []setting
	for _, kv := range po.Defaults {
		global = append(global, setting{key: strings.ToLower(kv[0]), val: kv[1], raw: kv[1]})
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
		fj, err := sectionJob(name, sec, slices.Concat(global, sec.opts), jf, seen)
		if err != nil {
			return nil, err
		}
		if fj.stonewall && len(jf.Jobs) > 0 {
			group++
		}
		if fj.waitFor.key != "" {
			if group, err = waitFor(name, sec, fj.waitFor, jf, group); err != nil {
				return nil, err
			}
		}
		if (fj.stonewall || fj.newGroup) && len(jf.Jobs) > 0 {
			report++
		}
		for k := 0; k < fj.numjobs; k++ {
			jf.Jobs = append(jf.Jobs, FileJob{Job: fj.job.Cloned(k, fj.numjobs), Group: group, Report: report, GroupReporting: fj.grouped,
				Options: fj.given, Line: sec.line, Section: sec.name})
		}
	}
	if err := checkSections(name, secs, po.Sections, ran); err != nil {
		return nil, err
	}
	if len(jf.Jobs) == 0 {
		return nil, fmt.Errorf("%s: %w: no job sections", name, ErrOption)
	}
	return jf, nil
}

// sectionJob makes the job of section sec from its settings (the global
// ones first); options not applied are added to jf.Ignored once each.
func sectionJob(file string, sec *section, settings []setting, jf *JobFile, seen map[string]bool) (fileJob, error) {
	fj := fileJob{job: NewJob(sec.name), numjobs: 1, given: map[string]string{}}
	for _, s := range settings {
		o, known := LookupOption(s.key)
		switch {
		case !known:
			err := unknownOption(s.key)
			if note := envNote(s.unset, s.empty); note != "" {
				return fj, fmt.Errorf("%s: %w (%s)", s.where(file), err, note)
			}
			return fj, fmt.Errorf("%s: %w", s.where(file), err)
		case o.Support == NotApplied:
			if o.Name == "ioengine" {
				fj.job.setEngine(s.val)
			}
			if !seen[s.key] {
				seen[s.key] = true
				jf.Ignored = append(jf.Ignored, s.key)
			}
			continue
		case o.JobFile:
			if err := fj.setFileOption(o.Name, s); err != nil {
				return fj, s.fail(file, err)
			}
			continue
		case o.Name == "name":
			continue // the section header names the job
		}
		val := s.val
		if o.Kind == KindFlag && val == "" {
			val = "1"
		}
		if err := fj.job.set1(&o, val); err != nil {
			s.key, s.val = o.Name, val
			return fj, s.fail(file, err)
		}
		fj.given[s.key] = val
	}
	return fj, nil
}

// setFileOption applies one of the job file's own options.
func (fj *fileJob) setFileOption(name string, s setting) error {
	switch name {
	case "stonewall":
		fj.stonewall = s.val == "" || s.val == "1" || s.val == "true"
		return nil
	case "wait_for":
		fj.waitFor = s
		return nil
	case "filename":
		fj.job.FileSet.Names = nil
		for _, n := range strings.Split(s.val, ":") {
			if n = strings.TrimSpace(n); n != "" {
				fj.job.FileSet.Names = append(fj.job.FileSet.Names, n)
			}
		}
		if len(fj.job.FileSet.Names) == 0 {
			return nil // empty (an unset ${VAR}): as if not given
		}
		if n := len(fj.job.FileSet.Names); n > 1 && !fj.job.FileSet.filesSet {
			fj.job.Files = n // fio: as many files as names
		}
	case "directory":
		fj.job.FileSet.Directory, fj.job.FileSet.dirSet = s.val, true
	case "filename_format":
		fj.job.FileSet.Format = s.val
	case "numjobs":
		n, err := strconv.Atoi(s.val)
		if err != nil || n < 1 || n > 64 {
			return errors.New("must be an integer in 1..64")
		}
		fj.numjobs = n
	case "new_group", "group_reporting":
		on := true
		if err := setBool(&on, s.val); err != nil {
			return err
		}
		if name == "new_group" {
			fj.newGroup = on
		} else {
			fj.grouped = on
		}
	}
	fj.given[s.key] = s.val
	return nil
}

// waitFor is fio's wait_for: start once the named job has finished. Here
// the job starts a group after the named job's group, as stonewall does.
func waitFor(file string, sec *section, s setting, jf *JobFile, group int) (int, error) {
	found := false
	for _, o := range jf.Jobs {
		if o.Section != s.val {
			continue
		}
		found = true
		if o.Group == group {
			return group + 1, nil
		}
	}
	if !found {
		return 0, s.fail(file, fmt.Errorf("no job of that name before [%s]", sec.name))
	}
	return group, nil
}

// checkSections checks that every section --section names is in the file.
func checkSections(file string, secs []*section, want []string, ran map[string]bool) error {
	for _, w := range want {
		if ran[w] {
			continue
		}
		var have []string
		for _, sec := range secs {
			if !strings.EqualFold(sec.name, "global") {
				have = append(have, sec.name)
			}
		}
		return fmt.Errorf("%s: %w: --section=%s: no job section of that name (the file has %s)", file, ErrOption, w, strings.Join(have, ", "))
	}
	return nil
}

// expandEnv replaces each ${VAR} in s with its value in the environment,
// as fio does (an unset variable becomes empty; a $ not followed by {…}
// stays). It returns the variables that were unset or empty; empty is
// true when lookup found them all set, but empty.
func expandEnv(s string, lookup func(string) (string, bool)) (out string, unset []string, empty bool) {
	if !strings.Contains(s, "${") {
		return s, nil, false
	}
	var b strings.Builder
	empty = true
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
		name := s[i+2 : i+2+j]
		v, ok := lookup(name)
		if v == "" && !slices.Contains(unset, name) {
			unset = append(unset, name)
			empty = empty && ok
		}
		b.WriteString(v)
		s = s[i+3+j:]
	}
	b.WriteString(s)
	return b.String(), unset, empty && len(unset) > 0
}

// maxIncludedFile is the largest file an include directive reads.
const maxIncludedFile = 64 << 20

// ReadIncludedFile reads a file an include directive names, for
// ParseOptions.ReadFile: a regular file of at most 64 MiB (a device or a
// pipe named by a hostile job file is refused, not read without end).
func ReadIncludedFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	if st.Size() > maxIncludedFile {
		return nil, fmt.Errorf("%s: %d bytes, allowed at most %d (64 MiB)", name, st.Size(), maxIncludedFile)
	}
	return io.ReadAll(io.LimitReader(f, maxIncludedFile+1))
}
