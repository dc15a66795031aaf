package sim_test

import (
	"bytes"
	"fmt"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/workload"
)

// The reviews' procedure in a few lines: secure erase, fill, then 4 KiB
// random writes at QD 32, with the fresh and steady IOPS read off the
// per-second series.
func ExampleEngine() {
	cfg, _ := controller.Preset("generic-mlc-small")
	drive, err := controller.New(cfg)
	if err != nil {
		panic(err)
	}
	e := sim.New(drive)
	e.SecureErase()
	if err := e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}); err != nil {
		panic(err)
	}
	r, err := e.RunJob(workload.RandomWriteJob("consistency", 60*sim.Second), sim.Hooks{})
	if err != nil {
		panic(err)
	}
	s := analysis.SummarizeConsistency(r.Intervals.Slice(), 40*sim.Second)
	fmt.Printf("fresh %.0f IOPS, cliff at %d s, steady %.0f IOPS, WA %.1f\n",
		s.FreshIOPS, s.CliffNs/sim.Second, s.SteadyMedian, s.SteadyWA)
	// Output:
	// fresh 43331 IOPS, cliff at 6 s, steady 2928 IOPS, WA 12.5
}

// Prepare a drive once and run from its state: the state saved after the
// fill, restored into a drive built afresh from the same description,
// gives the results the prepared drive gives.
func ExampleEngine_SaveState() {
	cfg, _ := controller.Preset("generic-mlc-small")
	build := func() *sim.Engine {
		drive, err := controller.New(cfg)
		if err != nil {
			panic(err)
		}
		return sim.New(drive)
	}
	prepared := build()
	prepared.SecureErase()
	if err := prepared.Precondition(workload.Precondition{Kind: workload.PreconditionFill}); err != nil {
		panic(err)
	}
	var state bytes.Buffer
	n, err := prepared.SaveState(&state)
	if err != nil {
		panic(err)
	}
	restored := build()
	if err := restored.LoadState(&state, n); err != nil {
		panic(err)
	}
	for _, e := range []*sim.Engine{prepared, restored} {
		r, err := e.RunJob(workload.RandomWriteJob("after the fill", 10*sim.Second), sim.Hooks{})
		if err != nil {
			panic(err)
		}
		fmt.Printf("at %.1f s: %.0f IOPS, WA %.2f\n", float64(r.StartNs)/1e9, r.Write.IOPS, r.Device.WriteAmplification)
	}
	// Output:
	// at 98.1 s: 22669 IOPS, WA 1.92
	// at 98.1 s: 22669 IOPS, WA 1.92
}
