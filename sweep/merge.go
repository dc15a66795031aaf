package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ftlsim/ftlsim/internal/atomicfile"
)

// Merged says what MergeDirs found.
type Merged struct {
	Table   *Table
	Study   *Sweep
	Points  int   // points of the study
	Missing []int // points with no result in any directory
}

// MergeDirs combines the results in the output directories dirs (shards
// of one study, or one whole run) into one table, sorted by point, and
// writes it to out as table.csv and table.jsonl, with the study file and
// the points' reports (copied into out/points when out is not where they
// are). It refuses directories of different study files and results of
// different ftlsim versions. Points without a result are listed in
// Missing; the table holds the others.
func MergeDirs(dirs []string, out string) (*Merged, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: merge: no directories given", ErrStudy)
	}
	var study []byte
	var studyDir string
	var all []Result
	var versions []string
	from := map[int]string{} // point → the directory holding its report
	at := map[int]int{}      // point → its result's index in all
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, StudyFile))
		if err != nil {
			return nil, fmt.Errorf("%w: merge: %s is not a sweep's output directory (no %s): %w", ErrStudy, d, StudyFile, err)
		}
		if study == nil {
			study, studyDir = b, d
		} else if !bytes.Equal(study, b) {
			return nil, fmt.Errorf("%w: merge: %s and %s hold different study files; merge the shards of one study", ErrStudy, studyDir, d)
		}
		files, _ := filepath.Glob(filepath.Join(d, "results*.jsonl"))
		sort.Strings(files)
		for _, f := range files {
			rs, err := ReadResults(f)
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				// A point run again (--resume with another version)
				// has a later line: it replaces the earlier.
				if i, ok := at[r.Point]; ok && from[r.Point] == d {
					all[i] = r
					continue
				}
				at[r.Point] = len(all)
				all = append(all, r)
				from[r.Point] = d
			}
		}
	}
	for _, r := range all {
		if !slices.Contains(versions, r.Version) {
			versions = append(versions, r.Version)
		}
	}
	if len(versions) > 1 {
		return nil, fmt.Errorf("%w: merge: results of different ftlsim versions (%s); run every shard with one version (--resume reruns a directory's points with the version at hand)",
			ErrStudy, strings.Join(versions, ", "))
	}
	s, err := Parse(filepath.Join(studyDir, StudyFile), study)
	if err != nil {
		return nil, err
	}
	for _, r := range all {
		if r.Study != s.StudyHash() {
			return nil, fmt.Errorf("%w: merge: point %d's result is of another study (%s, not %s)", ErrStudy, r.Point, r.Study, s.StudyHash())
		}
	}
	t, err := NewTable(s.AxisNames(), all)
	if err != nil {
		return nil, err
	}
	m := &Merged{Table: t, Study: s, Points: s.NumPoints()}
	have := map[int]bool{}
	for _, r := range t.Results {
		have[r.Point] = true
	}
	for i := 0; i < m.Points; i++ {
		if !have[i] {
			m.Missing = append(m.Missing, i)
		}
	}
	if err := os.MkdirAll(filepath.Join(out, "points"), 0o755); err != nil {
		return nil, err
	}
	for _, r := range t.Results {
		src, dst := filepath.Join(from[r.Point], r.Output), filepath.Join(out, r.Output)
		if sameFile(src, dst) {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, fmt.Errorf("%w: merge: point %d's report: %w", ErrStudy, r.Point, err)
		}
		if err := atomicfile.WriteFile(dst, b); err != nil {
			return nil, err
		}
	}
	if !sameFile(filepath.Join(studyDir, StudyFile), filepath.Join(out, StudyFile)) {
		if old, err := os.ReadFile(filepath.Join(out, StudyFile)); err == nil && !bytes.Equal(old, study) {
			return nil, fmt.Errorf("%w: merge: %s holds another study's output; give another --out", ErrStudy, out)
		}
		if err := atomicfile.WriteFile(filepath.Join(out, StudyFile), study); err != nil {
			return nil, err
		}
	}
	var set atomicfile.Set
	csv, err := set.Create(filepath.Join(out, TableCSV))
	if err != nil {
		return nil, err
	}
	jl, err := set.Create(filepath.Join(out, TableJSONL))
	if err != nil {
		set.Abort()
		return nil, err
	}
	if err := errors.Join(t.WriteCSV(csv), t.WriteJSONLines(jl)); err != nil {
		set.Abort()
		return nil, err
	}
	return m, set.Commit()
}

// sameFile reports whether a and b are the same file (both existing).
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// LoadTable reads the table of an output directory: its table.jsonl
// when the study has been run whole or merged there, else the results
// of whatever shards ran in it.
func LoadTable(dir string) (*Table, error) {
	b, err := os.ReadFile(filepath.Join(dir, StudyFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a sweep's output directory (no %s): %w", ErrStudy, dir, StudyFile, err)
	}
	s, err := Parse(filepath.Join(dir, StudyFile), b)
	if err != nil {
		return nil, err
	}
	files := []string{filepath.Join(dir, TableJSONL)}
	if _, err := os.Stat(files[0]); err != nil {
		files, _ = filepath.Glob(filepath.Join(dir, "results*.jsonl"))
	}
	var all []Result
	for _, f := range files {
		rs, err := ReadResults(f)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%w: %s holds no results yet", ErrStudy, dir)
	}
	return NewTable(s.AxisNames(), all)
}
