package report

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/atomicfile"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sweep"
	"github.com/ftlsim/ftlsim/workload"
)

// A review keeps what it computed: each run of the suite, as soon as it
// finishes, is written to the report folder — its data (data/, the CSV
// and fio JSON a full report holds), its results in full
// (runs/DRIVE_RUN.gob) and a line in runs/results.jsonl with the hash of
// its inputs — so that a review stopped part way (a signal, a failed
// run, a crash) has lost only the runs under way, and one started again
// with Options.Resume reads the finished runs back instead of running
// them again. runs/review.yaml records the options of the review that
// last ran in the folder, so that a resumed one with others can say how
// they differ.

// ErrOutput is wrapped by the error a review returns when its report
// folder cannot be made or written; it is found before any run starts.
var ErrOutput = errors.New("report folder not writable")

// ErrInterrupted is wrapped by the error a review returns when
// Options.Context was done before every run finished. The runs finished
// until then are written (Options.Resume continues from them).
var ErrInterrupted = errors.New("review interrupted")

// savedRunVersion changes when savedRun or what it holds does, or what a
// run's hash covers; a file of another version is not read back (the
// run is done again).
const savedRunVersion = 2

// savedRun is one run of the suite as written to runs/DRIVE_RUN.gob:
// what it was run with and the hash of it (the results line's), so that
// a resumed review uses it only for the same run of the same drive, and
// its results. Results are encoded with encoding/gob, which keeps every
// float bit for bit (NaN included) and maps with float keys (the
// percentiles), as JSON cannot.
type savedRun struct {
	Version int
	Hash    string // the run's inputs (runHash)
	Drive   string
	Run     RunName
	Quick   bool
	Params  map[string]string // the suite's parameters of the run
	// Input is the drive's description as reviewed (YAML): a description
	// changed since makes the run stale.
	Input []byte
	// Built is the drive as the run built it (YAML), Drive.Config.
	Built        []byte
	Measurements []sim.Measurement
}

// runPath is the path of a run's saved results in the report folder.
func runPath(drive string, run RunName) string {
	return fmt.Sprintf("runs/%s_%s.gob", safe(drive), run)
}

// checkOut makes the report folder and its data/ and runs/ folders and
// checks that a file can be written in each, before any run: a review
// that could not write its results should fail at once, not after hours.
func checkOut(dir string) error {
	if dir == "" {
		return fmt.Errorf("%w: no folder given", ErrOutput)
	}
	for _, d := range []string{dir, filepath.Join(dir, "data"), filepath.Join(dir, "runs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("%w: %w", ErrOutput, err)
		}
		f, err := atomicfile.Create(filepath.Join(d, "probe"))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrOutput, err)
		}
		f.Abort()
	}
	return nil
}

// savedRunOutcome is a finished run's files for the report folder: its
// data files and its saved results.
func savedRunOutcome(drive string, s suiteRun, quick bool, input []byte, built controller.Config, ms []sim.Measurement) (sweep.Outcome, error) {
	out, err := built.Marshal()
	if err != nil {
		return sweep.Outcome{}, err
	}
	var b bytes.Buffer
	sr := savedRun{Version: savedRunVersion, Hash: runHash(input, s.name, s.params, quick), Drive: drive, Run: s.name, Quick: quick,
		Params: s.params, Input: input, Built: out, Measurements: ms}
	if err := gob.NewEncoder(&b).Encode(sr); err != nil {
		return sweep.Outcome{}, fmt.Errorf("report: saving %s %s: %w", drive, s.name, err)
	}
	files := fileSet{runPath(drive, s.name): b.Bytes()}
	if err := addData(files, []Drive{{Name: drive, Runs: map[RunName][]sim.Measurement{s.name: ms}}}); err != nil {
		return sweep.Outcome{}, err
	}
	return sweep.Outcome{Files: files, Output: runPath(drive, s.name)}, nil
}

// readSaved reads and decodes the file a results line names.
func readSaved(o Options, res sweep.Result, v any) error {
	b, err := os.ReadFile(filepath.Join(o.Out, filepath.FromSlash(res.Output)))
	if err != nil {
		return err
	}
	return gob.NewDecoder(bytes.NewReader(b)).Decode(v)
}

// errStale is a saved run that does not stand for the run asked for.
var errStale = errors.New("report: saved run of other inputs")

// loadRun reads back the run the results line res names, saved by
// savedRunOutcome: an error when it is unreadable or of another version
// or hash (the run is then done again and its file replaced).
func loadRun(o Options, res sweep.Result) (controller.Config, []sim.Measurement, error) {
	var sr savedRun
	if err := readSaved(o, res, &sr); err != nil {
		return controller.Config{}, nil, err
	}
	if sr.Version != savedRunVersion || sr.Hash != res.Hash {
		return controller.Config{}, nil, errStale
	}
	built, err := controller.ParseConfig(res.Output, sr.Built)
	if err != nil {
		return built, nil, err
	}
	built.Policies = o.Policies
	return built, sr.Measurements, nil
}

// savedEnduranceVersion changes when savedEndurance or what it holds
// does; a file of another version is not read back (the run is done
// again).
const savedEnduranceVersion = 2

// savedEndurance is a drive's endurance run (Options.Endurance) as
// written to runs/DRIVE_endurance.gob: what it was run with and its
// hash, so that a resumed review uses it only for the same drive and
// procedure, and its result.
type savedEndurance struct {
	Version int
	Hash    string
	Drive   string
	Quick   bool
	// Params are the procedure's parameters (enduranceParams).
	Params map[string]string
	// Input is the drive's description as reviewed (YAML), before the
	// run turned its read-error model on.
	Input  []byte
	Result *sim.EnduranceResult
}

// enduranceParams are the endurance procedure's parameters, quick or
// not: a saved run with others is stale.
func enduranceParams(quick bool) map[string]string {
	spec, err := workload.NewEndurance(quick)
	if err != nil {
		panic("report: " + err.Error())
	}
	return map[string]string{
		"round_wear": fmt.Sprint(spec.RoundWear), "settle_ns": fmt.Sprint(spec.SettleNs),
		"retention_ns": fmt.Sprint(spec.RetentionNs), "max_life": fmt.Sprint(spec.MaxLife),
		"read_runtime_ns": fmt.Sprint(spec.Read.RuntimeNs),
	}
}

// savedEnduranceOutcome is a finished endurance run's files for the
// report folder: its data files and its saved result.
func savedEnduranceOutcome(drive string, quick bool, input []byte, res *sim.EnduranceResult) (sweep.Outcome, error) {
	params := enduranceParams(quick)
	var b bytes.Buffer
	se := savedEndurance{Version: savedEnduranceVersion, Hash: runHash(input, RunEndurance, params, quick), Drive: drive, Quick: quick,
		Params: params, Input: input, Result: res}
	if err := gob.NewEncoder(&b).Encode(se); err != nil {
		return sweep.Outcome{}, fmt.Errorf("report: saving %s %s: %w", drive, RunEndurance, err)
	}
	files := fileSet{runPath(drive, RunEndurance): b.Bytes()}
	if err := addEnduranceData(files, drive, res); err != nil {
		return sweep.Outcome{}, err
	}
	return sweep.Outcome{Files: files, Output: runPath(drive, RunEndurance)}, nil
}

// loadEndurance reads back the endurance run the results line res names,
// saved by savedEnduranceOutcome.
func loadEndurance(o Options, res sweep.Result) (*sim.EnduranceResult, error) {
	var se savedEndurance
	if err := readSaved(o, res, &se); err != nil {
		return nil, err
	}
	if se.Version != savedEnduranceVersion || se.Hash != res.Hash || se.Result == nil {
		return nil, errStale
	}
	return se.Result, nil
}

// recordFile is where a review records its options in the report
// folder.
const recordFile = "runs/review.yaml"

// record is a review's options as runs/review.yaml keeps them.
type record struct {
	Drives    []string `yaml:"drives"`
	Quick     bool     `yaml:"quick"`
	Endurance bool     `yaml:"endurance"`
	// Inputs are the hashes of the drives' descriptions (as looked up,
	// before quick mode sizes them), by drive.
	Inputs map[string]string `yaml:"inputs"`
}

// record is the review's options.
func (rv *review) record() record {
	r := record{Drives: rv.o.Drives, Quick: rv.o.Quick, Endurance: rv.o.Endurance, Inputs: map[string]string{}}
	for i, d := range rv.o.Drives {
		r.Inputs[d] = sweep.Hash(rv.looked[i])
	}
	return r
}

// save writes the record into the report folder dir.
func (r record) save(dir string) error {
	b, err := yaml.Marshal(r)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, filepath.FromSlash(recordFile)), b); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// loadRecord reads the record of the review that last ran in dir.
func loadRecord(dir string) (record, error) {
	var r record
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(recordFile)))
	if err != nil {
		return r, err
	}
	return r, yaml.Unmarshal(b, &r)
}

// command is the review's options as the command's.
func (r record) command() string {
	s := "--drive=" + strings.Join(r.Drives, ",")
	if r.Quick {
		s += " --quick"
	}
	if r.Endurance {
		s += " --endurance"
	}
	return s
}

// differences says how the options of review now differ from saved's,
// one line ("" when they do not), in the command's terms.
func (saved record) differences(now record) string {
	var d []string
	flag := func(name string, was, is bool) {
		if was == is {
			return
		}
		if was {
			d = append(d, fmt.Sprintf("saved with --%s, now without", name))
		} else {
			d = append(d, fmt.Sprintf("saved without --%s, now with", name))
		}
	}
	if !slices.Equal(saved.Drives, now.Drives) {
		d = append(d, fmt.Sprintf("saved --drive=%s, now --drive=%s", strings.Join(saved.Drives, ","), strings.Join(now.Drives, ",")))
	}
	flag("quick", saved.Quick, now.Quick)
	flag("endurance", saved.Endurance, now.Endurance)
	for _, name := range now.Drives {
		if h, ok := saved.Inputs[name]; ok && h != now.Inputs[name] {
			d = append(d, fmt.Sprintf("drive %s's description changed", name))
		}
	}
	return strings.Join(d, "; ")
}

// HasReviewError is the error Run returns, before any run, when the
// report folder holds a review's saved runs and Options.Resume is not
// set; or when Resume is set, the saved review's options differ from
// these and none of its runs applies to this review (Differences). It
// wraps ErrHasReview.
type HasReviewError struct {
	Dir string
	// Finished says the saved review wrote its report; Saved is its
	// options in the command's terms, when known; Runs the runs it saved.
	Finished bool
	Saved    string
	Runs     int
	// Differences, with Resume, says how the options differ, one line.
	Differences string
}

// ErrHasReview is wrapped by a HasReviewError.
var ErrHasReview = errors.New("the report folder holds a review")

// Unwrap returns ErrHasReview.
func (e *HasReviewError) Unwrap() error { return ErrHasReview }

func (e *HasReviewError) Error() string {
	if e.Differences != "" {
		return fmt.Sprintf("report: %s holds a review of other options (%s) and none of its %d saved runs applies to this one; give its options, or another folder",
			e.Dir, e.Differences, e.Runs)
	}
	return fmt.Sprintf("report: %s holds %s; resume it, or give another folder", e.Dir, e.What())
}

// What describes the review the folder holds: "a finished review
// (--drive=m4-64 --quick)", "an unfinished review (7 runs saved,
// --drive=m4-64)".
func (e *HasReviewError) What() string {
	var about []string
	what := "a finished review"
	if !e.Finished {
		what = "an unfinished review"
		about = append(about, fmt.Sprintf("%d runs saved", e.Runs))
	}
	if e.Saved != "" {
		about = append(about, e.Saved)
	}
	if len(about) == 0 {
		return what
	}
	return what + " (" + strings.Join(about, ", ") + ")"
}

// inUse is the error of a report folder that holds a review's runs, for
// a review that was not asked to resume.
func (rv *review) inUse() error {
	e := &HasReviewError{Dir: rv.o.Out, Finished: exists(filepath.Join(rv.o.Out, "report.md"))}
	if rs, err := sweep.ReadResults(filepath.Join(rv.o.Out, filepath.FromSlash(resultsFile))); err == nil {
		runs := map[string]bool{}
		for _, r := range rs {
			runs[r.Hash] = true
		}
		e.Runs = len(runs)
	}
	if r, err := loadRecord(rv.o.Out); err == nil {
		e.Saved = r.command()
	}
	return e
}

// checkResume compares a resumed review's options with those of the
// review saved in the folder: when they differ and none of its saved
// runs applies, the review is refused; when some apply, Options.Reused
// is told.
func (rv *review) checkResume(plan *sweep.Plan) error {
	if !rv.o.Resume {
		return nil
	}
	saved, err := loadRecord(rv.o.Out)
	if err != nil {
		return nil // none: the runs' hashes decide alone
	}
	diff := saved.differences(rv.record())
	switch {
	case diff == "" || plan.Found == 0:
		return nil
	case len(plan.Saved) == 0:
		return &HasReviewError{Dir: rv.o.Out, Finished: exists(filepath.Join(rv.o.Out, "report.md")), Saved: saved.command(),
			Runs: plan.Found, Differences: diff}
	}
	if rv.o.Reused != nil {
		rv.o.Reused(diff, len(plan.Saved), len(plan.Tasks))
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
