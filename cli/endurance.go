package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ftlsim/ftlsim/report"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// enduranceRun runs the endurance scenario: rounds until the drive
// retires, a line each, and the summary; --output-format=json gives the
// rounds as JSON, and the scenario's chart parameter writes the chart.
func enduranceRun(sc workload.Scenario, spec workload.Endurance, overrides map[string]string, o *options, stdout io.Writer, set settings) error {
	if !o.faults.given {
		// The study is of the flash's errors: the part's model is on.
		o.faults = newFaults()
		o.faults.readErrors = true
	}
	chart := overrides["chart"]
	if chart != "" {
		if ext := strings.ToLower(filepath.Ext(chart)); ext != ".svg" && ext != ".png" {
			return usage("--chart=%s: allowed a file ending .svg or .png", chart)
		}
	}
	c, err := buildDrive(o, []*workload.Job{spec.Fill, spec.Write, spec.Read}, sim.Second)
	if err != nil {
		return err
	}
	outs, err := newOutputs(o, stdout)
	if err != nil {
		return err
	}
	defer outs.abort()
	var chartFile io.Writer
	if chart != "" {
		f, err := outs.create("chart", chart)
		if err != nil {
			return err
		}
		chartFile = f
	}
	wall := time.Now()
	e := sim.New(c)
	defer stopOn(set.ctx, e)()
	res, err := e.Endurance(spec, sim.Hooks{})
	if err != nil {
		return err
	}
	if chartFile != nil {
		img, err := report.EnduranceChart(fmt.Sprintf("%s: accelerated endurance", o.drive), res, strings.TrimPrefix(strings.ToLower(filepath.Ext(chart)), "."))
		if err != nil {
			return err
		}
		if _, err := chartFile.Write(img); err != nil {
			return err
		}
	}
	out := outs.report
	if o.json() {
		doc := struct {
			Drive    string `json:"drive"`
			Scenario string `json:"scenario"`
			*sim.EnduranceResult
			Interrupted bool `json:"interrupted,omitempty"`
		}{o.drive, sc.Name, res, e.Stopped()}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if _, err := out.Write(append(b, '\n')); err != nil {
			return err
		}
		return scenarioDone(outs, e)
	}
	fmt.Fprintf(out, "drive %s\nscenario %s: %s\n\n", describeDrive(c), sc.Name, sc.Description)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "round\tlife used %\tTB written\tWA\twrite pass WA\tread IOPS\treads retried %\tretries/read\tp99 read us\tmean read us\tuncorrectable\trebuilt\tfailed\tgrown bad groups\t")
	for _, r := range res.Rounds {
		fmt.Fprintf(tw, "%d\t%.0f\t%.2f\t%.2f\t%.2f\t%.0f\t%.2f\t%.3f\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t\n", r.Round, 100*r.LifeUsed, float64(r.HostBytes)/1e12, r.WA, r.WritePassWA,
			r.ReadIOPS, 100*r.RetriedReadShare, r.RetriesPerRead, float64(r.ReadP99Ns)/1e3, r.ReadMeanNs/1e3, r.UncorrectableReads, r.ParityRebuilds, r.FailedReads, r.GrownBadGroups)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := len(res.Rounds); n > 0 {
		last := res.Rounds[n-1]
		fmt.Fprintf(out, "\nendurance: retired after %d rounds (%s) at %.0f %% of the rated %d P/E cycles, %.2f TB written; the rated cycles at the mean WA measured allow %.2f TB (%.2fx)\n",
			n, res.Retired, 100*last.LifeUsed, res.RatedCycles, float64(last.HostBytes)/1e12, float64(res.RatedHostBytes)/1e12, float64(last.HostBytes)/float64(max(1, res.RatedHostBytes)))
	}
	if e.Stopped() {
		fmt.Fprintf(out, "\ninterrupted: the run was stopped before the drive retired\n")
	}
	fmt.Fprintf(out, "\nsimulated %.1f s in %.2f s of wall time\n", float64(e.Now())/1e9, time.Since(wall).Seconds())
	return scenarioDone(outs, e)
}
