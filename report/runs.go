package report

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/atomicfile"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// A review keeps what it computed: each run of the suite, as soon as it
// finishes, is written to the report folder — its data (data/, the CSV
// and fio JSON a full report holds) and its results in full
// (runs/DRIVE_RUN.gob) — so that a review stopped part way (a signal, a
// failed run, a crash) has lost only the runs under way, and one started
// again with Options.Resume reads the finished runs back instead of
// running them again.

// ErrOutput is wrapped by the error a review returns when its report
// folder cannot be made or written; it is found before any run starts.
var ErrOutput = errors.New("report folder not writable")

// ErrInterrupted is wrapped by the error a review returns when
// Options.Context was done before every run finished. The runs finished
// until then are written (Options.Resume continues from them).
var ErrInterrupted = errors.New("review interrupted")

// savedRunVersion changes when savedRun or what it holds does; a file of
// another version is not read back (the run is done again).
const savedRunVersion = 1

// savedRun is one run of the suite as written to runs/DRIVE_RUN.gob:
// what it was run with, so that a resumed review uses it only for the
// same run of the same drive, and its results. Results are encoded with
// encoding/gob, which keeps every float bit for bit (NaN included) and
// maps with float keys (the percentiles), as JSON cannot.
type savedRun struct {
	Version int
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

// saveRun writes a finished run into the report folder: its data files
// and its saved results, each whole.
func saveRun(o Options, input controller.Config, s suiteRun, drive string, built controller.Config, ms []sim.Measurement) error {
	in, err := input.Marshal()
	if err != nil {
		return err
	}
	out, err := built.Marshal()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	sr := savedRun{Version: savedRunVersion, Drive: drive, Run: s.name, Quick: o.Quick, Params: s.params,
		Input: in, Built: out, Measurements: ms}
	if err := gob.NewEncoder(&b).Encode(sr); err != nil {
		return fmt.Errorf("report: saving %s %s: %w", drive, s.name, err)
	}
	files := fileSet{runPath(drive, s.name): b.Bytes()}
	if err := addData(files, []Drive{{Name: drive, Runs: map[RunName][]sim.Measurement{s.name: ms}}}); err != nil {
		return err
	}
	return files.writeTo(o.Out)
}

// loadRun reads back a run saved by saveRun, if the report folder holds
// one for the same drive description, run, parameters and mode. ok is
// false when there is none, or it is stale or unreadable (the run is then
// done again and its file replaced).
func loadRun(o Options, input controller.Config, s suiteRun, drive string) (built controller.Config, ms []sim.Measurement, ok bool) {
	b, err := os.ReadFile(filepath.Join(o.Out, filepath.FromSlash(runPath(drive, s.name))))
	if err != nil {
		return built, nil, false
	}
	var sr savedRun
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&sr); err != nil {
		return built, nil, false
	}
	in, err := input.Marshal()
	if err != nil || sr.Version != savedRunVersion || sr.Drive != drive || sr.Run != s.name || sr.Quick != o.Quick ||
		!maps.Equal(sr.Params, s.params) || !bytes.Equal(sr.Input, in) {
		return built, nil, false
	}
	built, err = controller.ParseConfig(runPath(drive, s.name), sr.Built)
	if err != nil {
		return built, nil, false
	}
	built.Policies = o.Policies
	return built, sr.Measurements, true
}

// savedEnduranceVersion changes when savedEndurance or what it holds
// does; a file of another version is not read back (the run is done
// again).
const savedEnduranceVersion = 1

// savedEndurance is a drive's endurance run (Options.Endurance) as
// written to runs/DRIVE_endurance.gob: what it was run with, so that a
// resumed review uses it only for the same drive and procedure, and its
// result.
type savedEndurance struct {
	Version int
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

// saveEndurance writes a finished endurance run into the report folder:
// its data files and its saved result, each whole.
func saveEndurance(o Options, input controller.Config, drive string, res *sim.EnduranceResult) error {
	in, err := input.Marshal()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	se := savedEndurance{Version: savedEnduranceVersion, Drive: drive, Quick: o.Quick, Params: enduranceParams(o.Quick), Input: in, Result: res}
	if err := gob.NewEncoder(&b).Encode(se); err != nil {
		return fmt.Errorf("report: saving %s %s: %w", drive, RunEndurance, err)
	}
	files := fileSet{runPath(drive, RunEndurance): b.Bytes()}
	if err := addEnduranceData(files, drive, res); err != nil {
		return err
	}
	return files.writeTo(o.Out)
}

// loadEndurance reads back an endurance run saved by saveEndurance, if
// the report folder holds one for the same drive description, procedure
// and mode; ok is false when there is none, or it is stale or
// unreadable.
func loadEndurance(o Options, input controller.Config, drive string) (res *sim.EnduranceResult, ok bool) {
	b, err := os.ReadFile(filepath.Join(o.Out, filepath.FromSlash(runPath(drive, RunEndurance))))
	if err != nil {
		return nil, false
	}
	var se savedEndurance
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&se); err != nil {
		return nil, false
	}
	in, err := input.Marshal()
	if err != nil || se.Version != savedEnduranceVersion || se.Drive != drive || se.Quick != o.Quick ||
		!maps.Equal(se.Params, enduranceParams(o.Quick)) || !bytes.Equal(se.Input, in) || se.Result == nil {
		return nil, false
	}
	return se.Result, true
}
