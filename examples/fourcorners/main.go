// Command fourcorners measures every drive preset's "four corners" — 4 KiB
// random read and write at queue depth 32, 128 KiB sequential read and
// write at queue depth 1 — and compares them with the spec sheet where
// one exists. It writes the table to TABLE.md beside this file:
//
//	go run ./examples/fourcorners            # every preset with a spec
//	go run ./examples/fourcorners -all       # every preset
//
// Procedure (spec sheets quote fresh drives): writes are measured after a
// secure erase; reads after a secure erase and a sequential fill of the
// first 16 GiB. Random I/O covers an 8 GiB span, as Iometer's four-corner
// tests do; sequential I/O starts at LBA 0. Each corner runs for -seconds
// of simulated time (default 5: the corners settle within a second).
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// corners are one drive's four figures.
type corners struct {
	SeqReadMBps, SeqWriteMBps, RandReadIOPS, RandWriteIOPS float64
	// SeqWriteIncompressible is the sequential write with incompressible
	// data (AS-SSD's case), whatever data the spec was measured with.
	SeqWriteIncompressible float64
}

func main() {
	all := flag.Bool("all", false, "measure every preset, not only those with a spec")
	seconds := flag.Int("seconds", 5, "simulated seconds per corner")
	out := flag.String("out", filepath.Join("examples", "fourcorners", "TABLE.md"), "table file")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fourcorners:", err)
		os.Exit(1)
	}
	defer f.Close()
	if err := table(io.MultiWriter(os.Stdout, f), *all, int64(*seconds)*sim.Second); err != nil {
		fmt.Fprintln(os.Stderr, "fourcorners:", err)
		os.Exit(1)
	}
}

func job(opts ...string) *workload.Job {
	j := workload.NewJob(opts[1])
	for i := 0; i < len(opts); i += 2 {
		if err := j.Set(opts[i], opts[i+1]); err != nil {
			panic(err) // the options below are constants
		}
	}
	return j
}

// measure runs the four corners on the preset called name, writing the
// data its spec was measured with (compressible for SandForce ratings).
func measure(name string, ns int64) (corners, error) {
	var c corners
	build := func() (*sim.Engine, error) { return sim.FreshDrive(name) }
	rt := fmt.Sprintf("%dms", ns/1e6)
	data := controller.SpecOf(name).Data
	if data == "" {
		data = "full-random"
	}
	e, err := build()
	if err != nil {
		return c, err
	}
	r, err := e.RunJob(job("name", "seq-write", "rw", "write", "bs", "128k", "iodepth", "1", "runtime", rt, "time_based", "1", "data", data), sim.Hooks{})
	if err != nil {
		return c, err
	}
	c.SeqWriteMBps = r.Write.BWBytes / 1e6
	if e, err = build(); err != nil {
		return c, err
	}
	r, err = e.RunJob(job("name", "seq-write", "rw", "write", "bs", "128k", "iodepth", "1", "runtime", rt, "time_based", "1", "data", "full-random"), sim.Hooks{})
	if err != nil {
		return c, err
	}
	c.SeqWriteIncompressible = r.Write.BWBytes / 1e6
	if e, err = build(); err != nil {
		return c, err
	}
	r, err = e.RunJob(job("name", "rand-write", "rw", "randwrite", "bs", "4k", "iodepth", "32", "size", "8g", "runtime", rt, "time_based", "1", "norandommap", "1", "data", data), sim.Hooks{})
	if err != nil {
		return c, err
	}
	c.RandWriteIOPS = r.Write.IOPS
	if e, err = build(); err != nil {
		return c, err
	}
	if _, err := e.RunJob(job("name", "fill", "rw", "write", "bs", "128k", "size", "16g", "data", data), sim.Hooks{}); err != nil {
		return c, err
	}
	r, err = e.RunJob(job("name", "seq-read", "rw", "read", "bs", "128k", "iodepth", "1", "size", "16g", "runtime", rt, "time_based", "1"), sim.Hooks{})
	if err != nil {
		return c, err
	}
	c.SeqReadMBps = r.Read.BWBytes / 1e6
	r, err = e.RunJob(job("name", "rand-read", "rw", "randread", "bs", "4k", "iodepth", "32", "size", "8g", "runtime", rt, "time_based", "1", "norandommap", "1"), sim.Hooks{})
	if err != nil {
		return c, err
	}
	c.RandReadIOPS = r.Read.IOPS
	return c, nil
}

// deviation is measured/spec − 1, or NaN without a spec.
func deviation(got, spec float64) float64 {
	if spec == 0 {
		return math.NaN()
	}
	return got/spec - 1
}

func cell(got, spec float64, unit string) string {
	if spec == 0 {
		return fmt.Sprintf("%.0f %s", got, unit)
	}
	return fmt.Sprintf("%.0f / %.0f (%+.1f %%)", got, spec, 100*deviation(got, spec))
}

func table(w io.Writer, all bool, ns int64) error {
	fmt.Fprintf(w, "# Four corners: simulated / spec sheet (deviation)\n\n")
	fmt.Fprintf(w, "Regenerate with `go run ./examples/fourcorners%s`. Sequential: 128 KiB at QD 1, MB/s; random: 4 KiB at QD 32 over 8 GiB, IOPS; %d s of simulated time each, fresh drive (reads after a fill). Spec figures from `shared/reference/drives.md`. Data as the spec was measured: incompressible unless the note says otherwise (SandForce ratings use compressible data); the last column is always incompressible (AS-SSD's case).\n\n", map[bool]string{true: " -all", false: ""}[all], ns/1e9)
	fmt.Fprintf(w, "| drive | seq read MB/s | seq write MB/s | 4K random read IOPS | 4K random write IOPS | note | seq write, incompressible |\n|---|---|---|---|---|---|---|\n")
	for _, name := range controller.Presets() {
		spec := controller.SpecOf(name)
		if !all && spec == (controller.Spec{}) {
			continue
		}
		c, err := measure(name, ns)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		note := spec.Note
		if spec.Data != "" {
			note = strings.TrimPrefix(note+"; data: "+spec.Data, "; ")
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.0f MB/s |\n", name, cell(c.SeqReadMBps, spec.SeqReadMBps, "MB/s"),
			cell(c.SeqWriteMBps, spec.SeqWriteMBps, "MB/s"), cell(c.RandReadIOPS, spec.RandReadIOPS, "IOPS"),
			cell(c.RandWriteIOPS, spec.RandWriteIOPS, "IOPS"), strings.ReplaceAll(note, "|", "/"), c.SeqWriteIncompressible)
	}
	return nil
}
