// Command calibration checks the firmware parameters fitted to what the
// reviews measured on the real drives (shared/reference/calibration.md)
// and predicts, without refitting, the drives and capacities not used for
// the fit.
//
// It runs the reviews' procedures on the presets: performance consistency
// (secure erase, fill, 4 KiB random writes at QD 32 for 2,000 s; with
// 25 % spare area too on the calibrated drives), TRIM validation (60
// minutes of torture) and HD Tach after a 60-minute torture. It writes
// CALIBRATION.md — every fitted parameter with its target and the fitted
// result, every other figure the reviews give as a validation, and the
// predictions for the other capacities of each line — with consistency,
// TRIM and HD Tach charts of the calibrated drives beside their targets,
// and calibration.json with every figure.
//
//	go run ./examples/calibration                 # every preset, full size (about an hour on 2 cores)
//	go run ./examples/calibration -quick -out=/tmp/cal   # shrunk drives, short runs (a smoke test)
//	go run ./examples/calibration -drives=bp4-240,bp3-256  # only these drives' runs
//	go run ./examples/calibration -render          # the document and charts again from calibration.json
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	var o options
	flag.StringVar(&o.out, "out", "examples/calibration", "directory for CALIBRATION.md, calibration.json and the charts")
	flag.BoolVar(&o.quick, "quick", false, "drives shrunk to 1 GiB per die and short runs: checks the pipeline, not the fit")
	flag.IntVar(&o.jobs, "j", runtime.GOMAXPROCS(0), "runs at once")
	flag.StringVar(&o.drives, "drives", "", "comma-separated drives to run (default: every calibrated and predicted drive)")
	flag.BoolVar(&o.render, "render", false, "run nothing: write the document and charts from the figures in -out's calibration.json")
	flag.Parse()
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "calibration:", err)
		os.Exit(1)
	}
}

type options struct {
	out    string
	quick  bool
	jobs   int
	drives string
	render bool
}

// only returns the drives -drives names (nil: all).
func (o options) only() map[string]bool {
	if o.drives == "" {
		return nil
	}
	m := map[string]bool{}
	for _, d := range strings.Split(o.drives, ",") {
		m[strings.TrimSpace(d)] = true
	}
	return m
}

func run(o options, w io.Writer) error {
	if o.render {
		res, quick, err := load(filepath.Join(o.out, "calibration.json"))
		if err != nil {
			return err
		}
		o.quick = quick
		return write(o, res, w)
	}
	if o.jobs < 1 {
		return fmt.Errorf("-j=%d: at least 1", o.jobs)
	}
	plan := planRuns(o.quick, o.only())
	if len(plan) == 0 {
		return fmt.Errorf("-drives=%s: no run of the calibration uses these drives", o.drives)
	}
	res, err := execute(plan, o, w)
	if err != nil {
		return err
	}
	return write(o, res, w)
}
