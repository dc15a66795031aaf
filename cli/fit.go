package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/fit"
	"github.com/ftlsim/ftlsim/internal/atomicfile"
)

const fitUsage = "ftlsim fit TARGETS --drive=NAME|FILE [--param=FIELD[=LO..HI]]... [--default_params=false] [--out=DIR] [-j N] [--evaluations=N] [--seed=N] [--leave_one_out] [--resume] [--prepare_each]; TARGETS: a folder of the measurement kit's fio reports and logs, or a YAML file of figures"

// paramList is a repeatable --param.
type paramList []string

func (p *paramList) String() string     { return strings.Join(*p, ",") }
func (p *paramList) Set(s string) error { *p = append(*p, s); return nil }

// fitCmd fits a drive's parameters to measured figures (package fit):
//
//	ftlsim fit DIR|FILE.yaml --drive=NAME [options]
//
// It writes DIR/fitted.yaml (the fitted description, each fitted value
// commented with its targets) and DIR/fit.md (the parameters and the
// targets: measured, before, fitted, error, leave-one-out), together or
// not at all; every evaluation is journalled in DIR/journal.jsonl until
// the fit ends, so that an interrupted fit continues with --resume.
func fitCmd(args []string, stdout, stderr io.Writer, set settings) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	drive := fs.String("drive", "", "the base drive: a preset or a description file (default: the targets file's drive)")
	out := fs.String("out", "fit", "folder for fitted.yaml, fit.md and the journal")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "drives run at once")
	evals := fs.Int("evaluations", 0, "most evaluations of each search (default 30 per parameter it moves, at least 60)")
	seed := fs.Uint64("seed", 1, "seed of the search")
	loo := fs.Bool("leave_one_out", false, "refit without each target and report its prediction error")
	resume := fs.Bool("resume", false, "continue an interrupted fit from DIR/journal.jsonl")
	prepareEach := fs.Bool("prepare_each", false, "prepare every evaluation's drive afresh (default: prepare once per distinct preparation and fork it)")
	defaults := fs.Bool("default_params", true, "fit the firmware's costs the drive sets besides the --param fields (false: only those)")
	var params paramList
	fs.Var(&params, "param", "a field to fit, FIELD or FIELD=LO..HI (repeatable; default: the firmware's costs the drive sets)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usage("fit: %v (%s)", err, fitUsage)
	}
	if len(pos) != 1 {
		return usage("fit takes one TARGETS folder or file (got %d): %s", len(pos), fitUsage)
	}
	if *jobs < 1 || *jobs > 4096 {
		return usage("fit: -j %d: allowed 1..4096", *jobs)
	}
	if *evals < 0 {
		return usage("fit: --evaluations=%d: allowed 0 (the default) or more", *evals)
	}
	ts, err := loadTargets(pos[0])
	if err != nil {
		return usageError{err}
	}
	name := *drive
	if name == "" && ts.Drive != "" {
		name = ts.Drive // a preset, or a file named from the targets file's folder
		if _, err := controller.Preset(name); err != nil && !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(pos[0]), name)
		}
	}
	if name == "" {
		return usage("fit: --drive: missing, and %s names no drive: give the base drive (a preset or a file)", pos[0])
	}
	base, err := controller.Lookup(name)
	if err != nil {
		return err
	}
	if base, err = ts.Start(base); err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	var named []fit.Param
	for i, s := range append(append([]string(nil), ts.Params...), params...) {
		p, err := fit.ParseParam(base, s)
		if err != nil && i < len(ts.Params) {
			return usage("%s: params[%d]: %v", pos[0], i, err)
		}
		if err != nil {
			return usage("--param=%s: %v", s, err)
		}
		named = append(named, p)
	}
	ps := fit.Params(base, named)
	if !*defaults || ts.OnlyParams {
		ps = named
	}
	if len(ps) == 0 {
		return usage("fit: no parameters: name them with --param=FIELD=LO..HI")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	journal := filepath.Join(*out, "journal.jsonl")
	fmt.Fprintf(stderr, "ftlsim fit: %d targets, %d parameters (%s), %d at once\n", len(ts.List), len(ps), paramPaths(ps), *jobs)
	var mu sync.Mutex
	last := time.Time{}
	res, err := fit.Fit(set.ctx, fit.Options{Base: base, Params: ps, Targets: ts, Seed: *seed, MaxEvaluations: *evals,
		Jobs: *jobs, LeaveOneOut: *loo, Journal: journal, Resume: *resume, PrepareEach: *prepareEach,
		Progress: func(p fit.Progress) {
			mu.Lock()
			defer mu.Unlock()
			if time.Since(last) > time.Second {
				last = time.Now()
				fmt.Fprintf(stderr, "\r%s: %d evaluations (%d run), best RMS error %.2f %%   ", p.Stage, p.Evaluations, p.Runs, 100*p.Best)
			}
		}})
	fmt.Fprintln(stderr)
	if err == nil && !*prepareEach {
		fmt.Fprintf(stderr, "ftlsim fit: %d evaluations (%d run); drives prepared: %d, forked for %d procedure runs\n", res.Evaluations, res.Runs, res.Preparations, res.Forked)
	}
	if err != nil {
		if errors.Is(err, fit.ErrJournalExists) {
			return usageError{err}
		}
		if set.ctx.Err() != nil {
			return fmt.Errorf("%w: the evaluations so far are in %s; continue with --resume", errInterrupted, journal)
		}
		return err
	}
	y, err := res.DriveYAML(base, pos[0])
	if err != nil {
		return err
	}
	var table strings.Builder
	fmt.Fprintf(&table, "# Fit of %s to %s\n\n", name, pos[0])
	if err := res.WriteTable(&table); err != nil {
		return err
	}
	var files atomicfile.Set
	for _, f := range []struct {
		name string
		b    []byte
	}{{"fitted.yaml", y}, {"fit.md", []byte(table.String())}} {
		w, err := files.Create(filepath.Join(*out, f.name))
		if err != nil {
			files.Abort()
			return err
		}
		w.Write(f.b)
	}
	if err := files.Commit(); err != nil {
		return err
	}
	os.Remove(journal) // the fit is whole: nothing to resume
	fmt.Fprint(stdout, table.String())
	if len(res.Unidentifiable) > 0 {
		fmt.Fprintf(stdout, "\nnot determined by these targets (a flat objective: other values fit as well): %s\n", strings.Join(res.Unidentifiable, ", "))
	}
	fmt.Fprintf(stdout, "\nwrote %s and %s\n", filepath.Join(*out, "fitted.yaml"), filepath.Join(*out, "fit.md"))
	return nil
}

// loadTargets reads a folder of fio outputs or a YAML file of figures.
func loadTargets(path string) (*fit.Targets, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return fit.LoadFio(path)
	}
	return fit.LoadFigures(path)
}

func paramPaths(ps []fit.Param) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Path)
	}
	return strings.Join(s, ", ")
}
