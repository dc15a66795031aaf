// Command custompolicy shows how a user's garbage-collection victim policy
// runs in ftlsim without editing it: the policy (WearGreedy, in
// policy.go) is registered in an ftl.Registry, checked against the FTL's
// invariants with ftltest (custompolicy_test.go), and then named like a
// built-in one — in a drive description, in the consistency scenario from
// Go, and with --gc on the command (cli.Main with cli.WithPolicies). It
// prints the consistency scenario's steady state with greedy and with
// wear-greedy side by side.
//
//	go run ./examples/custompolicy            # 600 s of random writes per policy
//	go run ./examples/custompolicy -time=120s # quicker
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/ftlsim/ftlsim/cli"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/workload"
)

func main() {
	runtime := flag.String("time", "600s", "random-write time of the consistency scenario per policy")
	drive := flag.String("drive", "generic-mlc-small", "drive preset or description file")
	flag.Parse()
	if err := run(os.Stdout, *drive, *runtime); err != nil {
		fmt.Fprintln(os.Stderr, "custompolicy:", err)
		os.Exit(1)
	}
}

// outcome is one policy's consistency run.
type outcome struct {
	policy  string
	summary analysis.ConsistencySummary
	wear    int // erase-count spread (max − min) at the end
}

// run compares greedy and wear-greedy in the consistency scenario, then
// runs the same scenario through the command with --gc=wear-greedy:8.
func run(w io.Writer, drive, runtime string) error {
	reg, err := Registry()
	if err != nil {
		return err
	}
	var outs []outcome
	for _, policy := range []string{"greedy", "wear-greedy:8"} {
		o, err := consistency(drive, policy, runtime, reg)
		if err != nil {
			return err
		}
		outs = append(outs, o)
	}
	fmt.Fprintf(w, "consistency scenario on %s, %s of 4 KiB random writes at QD 32 after a fill\n\n", drive, runtime)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tfresh IOPS\tsteady median IOPS\t10th pct\t90th pct\tsteady WA\terase spread\t")
	for _, o := range outs {
		s := o.summary
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f\t%d\t\n", o.policy, s.FreshIOPS, s.SteadyMedian, s.SteadyP10, s.SteadyP90, s.SteadyWA, o.wear)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The same policy by name on the command's Go entry point.
	fmt.Fprintf(w, "\nftlsim scenario consistency --drive=%s --gc=wear-greedy:8 --time=%s (cli.Main with the registry):\n", drive, runtime)
	if code := cli.Main([]string{"scenario", "consistency", "--drive=" + drive, "--gc=wear-greedy:8", "--time=" + runtime}, w, w, cli.WithPolicies(reg)); code != 0 {
		return fmt.Errorf("ftlsim exited with status %d", code)
	}
	return nil
}

// consistency runs the consistency scenario on drive with the victim
// policy named policy, looked up in reg.
func consistency(drive, policy, runtime string, reg *ftl.Registry) (outcome, error) {
	cfg, err := controller.Lookup(drive)
	if err != nil {
		return outcome{}, err
	}
	cfg.Firmware.GCPolicy = policy
	cfg.Policies = reg
	d, err := controller.New(cfg)
	if err != nil {
		return outcome{}, err
	}
	sc, err := workload.ScenarioByName("consistency")
	if err != nil {
		return outcome{}, err
	}
	steps, err := sc.Steps(map[string]string{"time": runtime})
	if err != nil {
		return outcome{}, err
	}
	ms, err := sim.New(d).RunSteps(steps)
	if err != nil {
		return outcome{}, err
	}
	if len(ms) != 1 {
		return outcome{}, fmt.Errorf("consistency scenario gave %d measurements, want 1", len(ms))
	}
	r := ms[0].Result
	// The reviews read the steady state from 70 % of the run on.
	steady := r.RuntimeNs * 7 / 10
	wear := d.Device().Wear()
	return outcome{policy: d.FTL().Config().Victim.Name(), summary: analysis.SummarizeConsistency(r.Intervals.Slice(), steady), wear: wear.Max - wear.Min}, nil
}
