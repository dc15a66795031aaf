// Command power measures every drive preset's power as the reviews read
// it from the drive's supply rail: idle, during 128 KiB sequential writes
// at queue depth 1, and during 4 KiB random writes at queue depth 32 over
// an 8 GiB span, each on a fresh drive, with the energy per GB written.
// It writes POWER.md beside this file:
//
//	go run ./examples/power
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// figures are one drive's power readings.
type figures struct {
	IdleW, SeqWriteW, RandWriteW, SeqJPerGB, RandJPerGB, PeakW float64
}

// idleSource issues one 4 KiB read a second: a drive at rest.
type idleSource struct{ n int }

func (s *idleSource) Next(it *workload.Item) bool {
	if s.n == 10 {
		return false
	}
	it.At = int64(s.n) * sim.Second
	it.Op, it.Offset, it.Length = blockio.Read, 0, 4096
	s.n++
	return true
}

func measure(name string, ns int64) (figures, error) {
	var f figures
	build := func() (*sim.Engine, error) { return sim.FreshDrive(name) }
	e, err := build()
	if err != nil {
		return f, err
	}
	r, err := e.Run(&idleSource{}, sim.Options{})
	if err != nil {
		return f, err
	}
	f.IdleW = r.Power.AverageW
	seq := workload.NewJob("seq-write")
	seq.Pattern, seq.BS, seq.RuntimeNs, seq.TimeBased = workload.SeqWrite, []workload.BlockSize{{Bytes: 128 << 10, Percent: 100}}, ns, true
	if r, err = e.RunJob(seq, sim.Hooks{}); err != nil {
		return f, err
	}
	f.SeqWriteW, f.SeqJPerGB, f.PeakW = r.Power.AverageW, r.Power.JoulesPerGBWritten, r.Power.PeakW
	if e, err = build(); err != nil {
		return f, err
	}
	rnd := workload.RandomWriteJob("rand-write", ns)
	if err := rnd.Set("size", "8g"); err != nil {
		return f, err
	}
	if r, err = e.RunJob(rnd, sim.Hooks{}); err != nil {
		return f, err
	}
	f.RandWriteW, f.RandJPerGB, f.PeakW = r.Power.AverageW, r.Power.JoulesPerGBWritten, max(f.PeakW, r.Power.PeakW)
	return f, nil
}

func table(w io.Writer, ns int64) error {
	fmt.Fprintf(w, "# Power of every preset\n\nRegenerate with `go run ./examples/power`. Average power over %d s of simulated time on a fresh drive: idle (one 4 KiB read a second), 128 KiB sequential writes at QD 1, 4 KiB random writes at QD 32 over 8 GiB; energy per GB the host wrote. The power parameters are the presets' (see each line's file): estimates, not measurements.\n\n", ns/1e9)
	fmt.Fprintf(w, "| drive | idle W | sequential write W | J/GB | random write W | J/GB | peak W |\n|---|---|---|---|---|---|---|\n")
	for _, name := range controller.Presets() {
		f, err := measure(name, ns)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.1f | %.2f | %.1f | %.2f |\n", name, f.IdleW, f.SeqWriteW, f.SeqJPerGB, f.RandWriteW, f.RandJPerGB, f.PeakW)
	}
	return nil
}

func main() {
	seconds := flag.Int("seconds", 5, "simulated seconds per reading")
	out := flag.String("out", filepath.Join("examples", "power", "POWER.md"), "table file")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "power:", err)
		os.Exit(1)
	}
	defer f.Close()
	if err := table(io.MultiWriter(os.Stdout, f), int64(*seconds)*sim.Second); err != nil {
		fmt.Fprintln(os.Stderr, "power:", err)
		os.Exit(1)
	}
}
