// Command fourcorners measures every drive preset's "four corners" — 4 KiB
// random read and write at queue depth 32, 128 KiB sequential read and
// write at queue depth 1 — and compares them with the spec sheet where
// one exists. A spec measured otherwise (NVMe spec sheets quote
// sequential figures at QD 32 and random ones at QD 32 from several
// threads) says so (controller.Spec's seq_qd, rand_qd, rand_jobs), and
// its drive is measured the same way: each thread is a job of its own,
// at that depth, and the figure is their sum. It writes the table to
// TABLE.md beside this file:
//
//	go run ./examples/fourcorners            # every preset with a spec
//	go run ./examples/fourcorners -all       # every preset
//	go run ./examples/fourcorners -drive=m4-256 -out=/tmp/m4.md   # some presets
//
// Procedure (spec sheets quote fresh drives): writes are measured after a
// secure erase; reads after a secure erase and a sequential fill of the
// first 16 GiB. Random I/O covers an 8 GiB span, as Iometer's four-corner
// tests do; sequential I/O starts at LBA 0. Each corner runs for -seconds
// of simulated time (default 5: the corners settle within a second); the
// random ones after a second of ramp-up, as Iometer's ramp-up time.
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

// rampMs is the random corners' ramp-up before they are measured.
const rampMs = 1000

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
	drives := flag.String("drive", "", "measure only these presets (comma-separated)")
	flag.Parse()
	var only []string
	if *drives != "" {
		only = strings.Split(*drives, ",")
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fourcorners:", err)
		os.Exit(1)
	}
	defer f.Close()
	if err := table(io.MultiWriter(os.Stdout, f), *all, only, int64(*seconds)*sim.Second); err != nil {
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

// threads runs n clones of job j at once (fio's numjobs: each its own
// stream, with its own random seed, on the drive's queues in turn) and
// returns their summed read and write figures: bandwidth in bytes/s and
// IOPS. One clone runs as RunJob does.
func threads(e *sim.Engine, j *workload.Job, n int) (readBW, readIOPS, writeBW, writeIOPS float64, err error) {
	if n <= 1 {
		r, err := e.RunJob(j, sim.Hooks{})
		if err != nil {
			return 0, 0, 0, 0, err
		}
		return r.Read.BWBytes, r.Read.IOPS, r.Write.BWBytes, r.Write.IOPS, nil
	}
	streams := make([]sim.Stream, n)
	for k := range streams {
		c := j.Cloned(k, n)
		if err := c.Resolve(e.Controller().CapacityBytes()); err != nil {
			return 0, 0, 0, 0, err
		}
		streams[k] = sim.Stream{Source: workload.NewGenerator(c), Options: sim.JobOptions(c)}
	}
	rs, err := e.RunGroup(streams)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	for _, r := range rs {
		readBW, readIOPS = readBW+r.Read.BWBytes, readIOPS+r.Read.IOPS
		writeBW, writeIOPS = writeBW+r.Write.BWBytes, writeIOPS+r.Write.IOPS
	}
	return readBW, readIOPS, writeBW, writeIOPS, nil
}

// measure runs the four corners on drive (a preset's name or a
// description file) as spec says its figures were measured: writing the
// data they were measured with (compressible for SandForce ratings), at
// their queue depths and threads (controller.Spec).
func measure(drive string, spec controller.Spec, ns int64) (corners, error) {
	var c corners
	build := func() (*sim.Engine, error) { return sim.FreshDrive(drive) }
	rt := fmt.Sprintf("%dms", ns/1e6)
	data := spec.Data
	if data == "" {
		data = "full-random"
	}
	seqQD, randQD, jobs := fmt.Sprint(spec.SeqDepth()), fmt.Sprint(spec.RandDepth()), spec.RandThreads()
	e, err := build()
	if err != nil {
		return c, err
	}
	r, err := e.RunJob(job("name", "seq-write", "rw", "write", "bs", "128k", "iodepth", seqQD, "runtime", rt, "time_based", "1", "data", data), sim.Hooks{})
	if err != nil {
		return c, err
	}
	c.SeqWriteMBps = r.Write.BWBytes / 1e6
	if e, err = build(); err != nil {
		return c, err
	}
	r, err = e.RunJob(job("name", "seq-write", "rw", "write", "bs", "128k", "iodepth", seqQD, "runtime", rt, "time_based", "1", "data", "full-random"), sim.Hooks{})
	if err != nil {
		return c, err
	}
	c.SeqWriteIncompressible = r.Write.BWBytes / 1e6
	if e, err = build(); err != nil {
		return c, err
	}
	// The random corners ramp up for a second before they are measured, as
	// Iometer's ramp-up time does: a spec sheet's random figure is the
	// drive's steady rate, and a fresh drive with a mapping cache spends
	// its first fraction of a second filling it.
	rrt := fmt.Sprintf("%dms", ns/1e6+rampMs)
	_, _, _, c.RandWriteIOPS, err = threads(e, job("name", "rand-write", "rw", "randwrite", "bs", "4k", "iodepth", randQD, "size", "8g", "runtime", rrt, "ramp_time", fmt.Sprintf("%dms", rampMs), "time_based", "1", "norandommap", "1", "data", data), jobs)
	if err != nil {
		return c, err
	}
	if e, err = build(); err != nil {
		return c, err
	}
	if _, err := e.RunJob(job("name", "fill", "rw", "write", "bs", "128k", "size", "16g", "data", data), sim.Hooks{}); err != nil {
		return c, err
	}
	r, err = e.RunJob(job("name", "seq-read", "rw", "read", "bs", "128k", "iodepth", seqQD, "size", "16g", "runtime", rt, "time_based", "1"), sim.Hooks{})
	if err != nil {
		return c, err
	}
	c.SeqReadMBps = r.Read.BWBytes / 1e6
	_, c.RandReadIOPS, _, _, err = threads(e, job("name", "rand-read", "rw", "randread", "bs", "4k", "iodepth", randQD, "size", "8g", "runtime", rrt, "ramp_time", fmt.Sprintf("%dms", rampMs), "time_based", "1", "norandommap", "1"), jobs)
	return c, err
}

// procedure describes how a spec's figures were measured where that
// differs from the table's usual procedure (empty when it does not).
func procedure(s controller.Spec) string {
	var out []string
	if s.SeqDepth() != 1 {
		out = append(out, fmt.Sprintf("sequential at QD %d", s.SeqDepth()))
	}
	if s.RandDepth() != 32 || s.RandThreads() != 1 {
		r := fmt.Sprintf("random at QD %d", s.RandDepth())
		if s.RandThreads() > 1 {
			r += fmt.Sprintf(" × %d jobs", s.RandThreads())
		}
		out = append(out, r)
	}
	if s.TolerancePercent > 0 {
		out = append(out, fmt.Sprintf("checked within %g %%", s.TolerancePercent))
	}
	return strings.Join(out, ", ")
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

// table measures the presets with a spec (every preset with all; the
// presets named in only, when given) and writes the table.
func table(w io.Writer, all bool, only []string, ns int64) error {
	fmt.Fprintf(w, "# Four corners: simulated / spec sheet (deviation)\n\n")
	fmt.Fprintf(w, "Regenerate with `go run ./examples/fourcorners%s`. Sequential: 128 KiB at QD 1, MB/s; random: 4 KiB at QD 32 over 8 GiB, IOPS; %d s of simulated time each (the random ones after 1 s of ramp-up, as Iometer's), fresh drive (reads after a fill). Spec figures from `shared/reference/drives.md`. Data as the spec was measured: incompressible unless the note says otherwise (SandForce ratings use compressible data); the last column is always incompressible (AS-SSD's case).\n\n", map[bool]string{true: " -all", false: ""}[all], ns/1e9)
	fmt.Fprintf(w, "A drive whose spec sheet was measured otherwise is measured the same way, and its note says how: the NVMe spec sheets quote sequential figures at QD 32 and random ones from several jobs at QD 32 each (each job on its own NVMe queue; the figure is the jobs' sum). The drives of 2018 take their figures from their makers' specifications, cited in their line files (`controller/presets/lines`), and are checked within the tolerance their note gives; the others within 8 %% (`TestFourCornersMatchSpecSheets`). On a drive with an SLC cache, each run on the fresh drive, and the 16 GiB fill the reads follow, land in the cache, as on the fresh drives the spec sheets describe.\n\n")
	fmt.Fprintf(w, "| drive | seq read MB/s | seq write MB/s | 4K random read IOPS | 4K random write IOPS | note | seq write, incompressible |\n|---|---|---|---|---|---|---|\n")
	names := only
	if names == nil {
		names = controller.Presets()
	}
	for _, name := range names {
		spec := controller.SpecOf(name)
		if !all && only == nil && spec == (controller.Spec{}) {
			continue
		}
		c, err := measure(name, spec, ns)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		note := spec.Note
		if spec.Data != "" {
			note = strings.TrimPrefix(note+"; data: "+spec.Data, "; ")
		}
		if p := procedure(spec); p != "" {
			note = strings.TrimPrefix(note+"; "+p, "; ")
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.0f MB/s |\n", name, cell(c.SeqReadMBps, spec.SeqReadMBps, "MB/s"),
			cell(c.SeqWriteMBps, spec.SeqWriteMBps, "MB/s"), cell(c.RandReadIOPS, spec.RandReadIOPS, "IOPS"),
			cell(c.RandWriteIOPS, spec.RandWriteIOPS, "IOPS"), strings.ReplaceAll(note, "|", "/"), c.SeqWriteIncompressible)
	}
	return nil
}
