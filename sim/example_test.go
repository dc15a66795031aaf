package sim_test

import (
	"fmt"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
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
	s := sim.SummarizeConsistency(r.Intervals, 40*sim.Second)
	fmt.Printf("fresh %.0f IOPS, cliff at %d s, steady %.0f IOPS, WA %.1f\n",
		s.FreshIOPS, s.CliffNs/sim.Second, s.SteadyMedian, s.SteadyWA)
	// Output:
	// fresh 43328 IOPS, cliff at 6 s, steady 2928 IOPS, WA 12.5
}
