package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
)

// scenario lists the review scenarios, or runs one:
//
//	ftlsim scenario
//	ftlsim scenario NAME [--PARAM=VALUE ...] [drive and output options]
func scenario(args []string, stdout io.Writer, set settings) error {
	switch {
	case len(args) == 0:
		return listScenarios(stdout)
	case isHelp(args[0]):
		return scenariosHelp(stdout)
	}
	sc, err := workload.ScenarioByName(args[0])
	if err != nil {
		return usageError{err}
	}
	if slices.ContainsFunc(args[1:], isHelp) {
		return scenarioHelp(stdout, sc)
	}
	overrides, o, err := parseScenarioArgs(sc, args[1:], set)
	if err != nil {
		return err
	}
	for _, l := range []struct{ name, val string }{{"write_iops_log", o.iopsLog}, {"write_bw_log", o.bwLog}, {"write_lat_log", o.latLog}, {"write_hist_log", o.histLog}} {
		if l.val != "" {
			return usage("--%s: a scenario's runs write no per-I/O logs; --write_device_log=FILE.csv writes each measured step's series, --output-format=json holds them too, and a job (ftlsim --rw=… or ftlsim run FILE) writes fio's logs", l.name)
		}
	}
	if spec, ok, err := sc.Endurance(overrides); ok {
		if err != nil {
			return err
		}
		return enduranceRun(sc, spec, overrides, o, stdout, set)
	}
	steps, err := scenarioSteps(sc, overrides, o)
	if err != nil {
		return err
	}
	var jobs []*workload.Job
	for _, st := range steps {
		for _, j := range st.Jobs() {
			jobs = append(jobs, j)
			o.trackData = o.trackData || j.Verify || len(j.PowerLossNs) > 0
		}
	}
	c, err := buildDrive(o, jobs, sim.Second) // scenarios' series are at the default interval
	if err != nil {
		return err
	}
	if err := checkScenarioPlacement(sc, jobs, c, o.drive); err != nil {
		return err
	}
	outs, err := newOutputs(o, stdout)
	if err != nil {
		return err
	}
	defer outs.abort()
	out := outs.report
	if o.deviceLog != "" {
		if err := check("write_device_log="+o.deviceLog, o.deviceLog); err != nil {
			return err
		}
	}
	wall := time.Now()
	e := sim.New(c)
	defer stopOn(set.ctx, e)()
	ms, err := e.RunSteps(steps)
	if err != nil {
		return err
	}
	ms = sim.CombineRepeated(ms)
	if o.deviceLog != "" {
		for _, m := range ms {
			file := o.deviceLog
			if len(ms) > 1 {
				// One file a measured step: dev.csv → dev_clean.csv, …
				ext := filepath.Ext(file)
				file = strings.TrimSuffix(file, ext) + "_" + m.Label + ext
			}
			if err := writeDeviceLog(outs, file, m.Result); err != nil {
				return err
			}
		}
	}
	if o.json() {
		global := map[string]string{"drive": o.drive, "scenario": sc.Name}
		for k, v := range overrides {
			global[k] = v
		}
		var jobs []fioreport.Job
		for _, m := range ms {
			jobs = append(jobs, o.fio(m.Result, map[string]string{"scenario": sc.Name, "step": m.Label}))
		}
		rep := fioreport.NewReport(global, jobs...)
		rep.Stamp(reportTime())
		rep.Interrupted = rep.Interrupted || e.Stopped() // also when stopped in a step without a label
		if err := rep.Write(out); err != nil {
			return err
		}
		return scenarioDone(outs, e)
	}
	writeScenarioText(out, c, sc, ms)
	if e.Stopped() {
		fmt.Fprintf(out, "\ninterrupted: the scenario was stopped before its end; the step under way ends there and the steps after it did not run\n")
	}
	fmt.Fprintf(out, "\nsimulated %.1f s in %.2f s of wall time\n", float64(e.Now())/1e9, time.Since(wall).Seconds())
	return scenarioDone(outs, e)
}

// writeScenarioText writes a scenario's text report: the drive, a row a
// measured step, the power cuts, verify and fault lines of each, and the
// summaries of the steps that have one.
func writeScenarioText(out io.Writer, c *controller.Controller, sc workload.Scenario, ms []sim.Measurement) {
	fmt.Fprintf(out, "drive %s\nscenario %s: %s\n\n", describeDrive(c), sc.Name, sc.Description)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tread MB/s\twrite MB/s\tIOPS\tmean latency us\tWA\tpower W\tsimulated s\t")
	for _, m := range ms {
		r := m.Result
		secs := float64(r.RuntimeNs) / 1e9
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.0f\t%.1f\t%.2f\t%.2f\t%.1f\t\n", m.Label, r.Read.BWBytes/1e6, r.Write.BWBytes/1e6,
			r.Read.IOPS+r.Write.IOPS+r.Trim.IOPS, r.AvgServiceNs/1e3, r.Device.WriteAmplification, r.Power.AverageW, secs)
	}
	tw.Flush()
	for _, m := range ms {
		for _, pl := range m.Result.PowerLosses {
			fmt.Fprintf(out, "\n%s: power cut at %.1f s: %s; %d commands failed\n", m.Label, float64(pl.AtNs-m.Result.StartNs)/1e9, powerLossText(pl), m.Result.AbortedIOs)
		}
		if v := m.Result.Verify; v.Reads > 0 {
			fmt.Fprintf(out, "%s: read back %s: %d units do not hold their last write\n", m.Label, units.FormatBytes(v.Bytes), v.Mismatches)
		}
		if l := faultLine(m.Result); l != "" {
			fmt.Fprintf(out, "%s: faults: %s\n", m.Label, l)
		}
		if f := m.Result.Device.FDP; f != nil {
			fmt.Fprintf(out, "%s: fdp: %s\n", m.Label, fdpLine(f))
		}
	}
	if sc.Name == "desktop-suite" {
		desktopSummary(out, ms)
	}
	for _, m := range ms {
		if m.Label == "bench" {
			r := m.Result
			busy := float64(r.BusyNs) / 1e9
			fmt.Fprintf(out, "\n%s: %d requests (%.1f %% reads, %.1f KB a request); average data rate over busy time: read %.1f MB/s, write %.1f MB/s, combined %.1f MB/s; busy %.1f s of %.1f s (idle excluded); average service time %.1f us\n",
				sc.Name, r.Read.IOs+r.Write.IOs, 100*float64(r.Read.IOs)/float64(max(1, r.Read.IOs+r.Write.IOs)),
				float64(r.Read.Bytes+r.Write.Bytes)/float64(max(1, r.Read.IOs+r.Write.IOs))/1e3,
				float64(r.Read.Bytes)/busy/1e6, float64(r.Write.Bytes)/busy/1e6, float64(r.Read.Bytes+r.Write.Bytes)/busy/1e6,
				busy, float64(r.EndNs-r.StartNs)/1e9, r.AvgServiceNs/1e3)
		}
		if m.Label == "write-curve" {
			writeCurveSummary(out, m.Result.Intervals.Slice())
		}
		if m.Label == "sustained" || m.Label == "after-idle" {
			sustainedSummary(out, m.Label, m.Result.Intervals.Slice())
		}
		if m.Label == "consistency" || m.Label == "torture" {
			end := m.Result.EndNs - m.Result.StartNs
			s := analysis.SummarizeConsistency(m.Result.Intervals.Slice(), end*7/10)
			fmt.Fprintf(out, "\n%s: fresh %.0f IOPS; cliff at %.0f s; steady state from %.0f s: median %.0f IOPS (10th-90th percentile %.0f-%.0f, max %.0f; seconds with I/O: median %.0f), WA %.2f; %d s at 0 IOPS, longest stall %d s\n",
				m.Label, s.FreshIOPS, float64(s.CliffNs)/1e9, float64(s.SteadyFromNs)/1e9, s.SteadyMedian, s.SteadyP10, s.SteadyP90, s.SteadyMax, s.SteadyActiveMedian, s.SteadyWA, s.ZeroSeconds, s.LongestStall)
		}
	}
}

// parseScenario parses a scenario's command line (NAME, then its
// parameters and the drive and output options, in any order).
func parseScenario(args []string, set settings) (workload.Scenario, map[string]string, *options, error) {
	sc, err := workload.ScenarioByName(args[0])
	if err != nil {
		return sc, nil, nil, usageError{err}
	}
	overrides, o, err := parseScenarioArgs(sc, args[1:], set)
	return sc, overrides, o, err
}

// parseScenarioArgs parses the command line of scenario sc after its
// name: its parameters and the drive and output options, in any order.
// An unknown option close to a parameter is answered with its name.
func parseScenarioArgs(sc workload.Scenario, args []string, set settings) (map[string]string, *options, error) {
	// Scenario parameters are taken out first; the rest are the drive and
	// output options every command shares.
	overrides := map[string]string{}
	var rest []string
	for _, a := range args {
		name, val, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
		known := false
		for _, p := range sc.Params {
			known = known || p.Name == name
		}
		if ok && known && strings.HasPrefix(a, "-") {
			overrides[name] = val
			continue
		}
		rest = append(rest, a)
	}
	names := make([]string, len(sc.Params))
	for i, p := range sc.Params {
		names[i] = p.Name
	}
	o, err := parseArgsWith(rest, modeScenario, set.policies, names)
	return overrides, o, err
}

// scenarioSteps builds a scenario's steps, with the faults' bakes and,
// when --randseed is given, every job's seed mixed with it (the drive's
// own seed is the given one): repetitions of a scenario with other seeds
// are other samples of the same procedure.
func scenarioSteps(sc workload.Scenario, overrides map[string]string, o *options) ([]workload.Step, error) {
	steps, err := sc.Steps(overrides)
	if err != nil {
		return nil, err
	}
	if o.seedGiven {
		mixed := map[*workload.Job]bool{} // a job two steps share is mixed once
		for _, st := range steps {
			for _, j := range append([]*workload.Job{st.Job}, st.With...) {
				if j != nil && !mixed[j] {
					j.RandSeed = mixSeed(o.job.RandSeed, j.RandSeed)
					mixed[j] = true
				}
			}
		}
	}
	return o.faults.bakeSteps(steps), nil
}

// mixSeed derives a job's seed from the run's seed and the job's own
// (splitmix64's finaliser over their combination).
func mixSeed(run, job uint64) uint64 {
	z := run*0x9e3779b97f4a7c15 + job
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// scenarioDone puts the scenario's outputs in place and returns
// errInterrupted if it was stopped.
func scenarioDone(outs *outputs, e *sim.Engine) error {
	if err := outs.commit(); err != nil {
		return err
	}
	if e.Stopped() {
		return errInterruptedRun
	}
	return nil
}

// sustainedSummary prints what a sustained write's chart shows: the
// burst rate and how many GB it lasted, the rate after, and the rate
// over each GB written (every few GB on a large drive).
func sustainedSummary(out io.Writer, label string, series []sim.Interval) {
	s := analysis.SummarizeSustained(series)
	if s.Bytes == 0 {
		return
	}
	fmt.Fprintf(out, "\n%s: %.1f GB written at %.0f MB/s on average; full speed %.0f MB/s", label, float64(s.Bytes)/1e9, s.AverageMBps, s.BurstMBps)
	if s.Dropped {
		fmt.Fprintf(out, " for the first %.1f GB, then %.0f MB/s on average\n", float64(s.FastBytes)/1e9, s.AfterMBps)
	} else {
		fmt.Fprintf(out, " throughout (the rate never fell below %.0f %% of it)\n", 100*analysis.DropShare)
	}
	step := max(1, (len(s.PerGB)+19)/20)
	fmt.Fprintf(out, "%s: MB/s over each GB written", label)
	if step > 1 {
		fmt.Fprintf(out, " (every %d GB)", step)
	}
	fmt.Fprint(out, ":")
	for i := 0; i < len(s.PerGB); i += step {
		fmt.Fprintf(out, " %.0f", s.PerGB[i])
	}
	fmt.Fprintln(out)
}

// writeCurveSummary prints what HD Tach's write curve shows: the mean
// MB/s over each tenth of the span written (the curve's shape: after a
// torture, how fast the drive recovers) and over the first 10 GB.
func writeCurveSummary(out io.Writer, series []sim.Interval) {
	var total int64
	for _, iv := range series {
		total += iv.WriteBytes
	}
	if total == 0 {
		return
	}
	var tenths [10]struct{ bytes, ns int64 }
	var first struct{ bytes, ns int64 }
	var done int64
	for _, iv := range series {
		k := min(9, int(done*10/total))
		tenths[k].bytes += iv.WriteBytes
		tenths[k].ns += iv.EndNs - iv.StartNs
		if done < 10e9 {
			first.bytes += iv.WriteBytes
			first.ns += iv.EndNs - iv.StartNs
		}
		done += iv.WriteBytes
	}
	rate := func(b, ns int64) float64 { return float64(b) / max(1, float64(ns)) * 1e3 }
	fmt.Fprintf(out, "\nwrite-curve: MB/s over each tenth of the %.0f GB written:", float64(total)/1e9)
	for _, t := range tenths {
		fmt.Fprintf(out, " %.0f", rate(t.bytes, t.ns))
	}
	fmt.Fprintf(out, "; over the first 10 GB: %.1f\n", rate(first.bytes, first.ns))
}

// isHelp reports whether argument a asks for help.
func isHelp(a string) bool {
	return a == "--help" || a == "-h" || a == "-help" || a == "help"
}

// listScenarios writes the scenarios: a line each with its name and
// parameters (with their defaults), then what it does, indented and
// wrapped to helpWidth columns.
func listScenarios(w io.Writer) error {
	for _, s := range workload.Scenarios() {
		var ps []string
		for _, p := range s.Params {
			ps = append(ps, fmt.Sprintf("--%s=%s", p.Name, p.Default))
		}
		pad := strings.Repeat(" ", len(s.Name)+2)
		lines := wrapWords(strings.Join(ps, " "), helpWidth-len(pad))
		if len(lines) == 0 {
			lines = []string{""}
		}
		for i, l := range lines {
			head := pad + l
			if i == 0 {
				head = strings.TrimRight(s.Name+"  "+l, " ")
			}
			if _, err := fmt.Fprintln(w, head); err != nil {
				return err
			}
		}
		for _, l := range wrapWords(s.Description, helpWidth-4) {
			if _, err := fmt.Fprintln(w, "    "+l); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w, "\nftlsim scenario NAME --help: what a scenario's parameters mean")
	return err
}

// helpWidth is the width help text is wrapped to.
const helpWidth = 100

// scenariosHelp writes every scenario's help: ftlsim scenario --help.
func scenariosHelp(w io.Writer) error {
	fmt.Fprint(w, `usage: ftlsim scenario                     list the scenarios
       ftlsim scenario NAME --help         a scenario's parameters
       ftlsim scenario NAME [--PARAM=VALUE ...] [options]
                                           run a review procedure on a fresh drive
The drive, fault and output options are the command's (ftlsim --help); --randseed seeds the drive
and each step.

`)
	for i, sc := range workload.Scenarios() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeScenarioHelp(w, sc)
	}
	return nil
}

// scenarioHelp writes one scenario's help: ftlsim scenario NAME --help.
func scenarioHelp(w io.Writer, sc workload.Scenario) error {
	fmt.Fprintf(w, "usage: ftlsim scenario %s", sc.Name)
	if len(sc.Params) > 0 {
		fmt.Fprint(w, " [--PARAM=VALUE ...]")
	}
	fmt.Fprint(w, " [options: see ftlsim --help]\n\n")
	writeScenarioHelp(w, sc)
	return nil
}

// writeScenarioHelp writes a scenario's name, what it does, and each of
// its parameters with its default and meaning.
func writeScenarioHelp(w io.Writer, sc workload.Scenario) {
	fmt.Fprintf(w, "%s:\n", sc.Name)
	for _, l := range wrapWords(sc.Description, helpWidth-2) {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if len(sc.Params) == 0 {
		fmt.Fprintln(w, "  (no parameters)")
		return
	}
	fmt.Fprintln(w, "  parameters (default):")
	width := 0
	for _, p := range sc.Params {
		width = max(width, len(paramForm(p)))
	}
	for _, p := range sc.Params {
		lines := wrapWords(p.Help, helpWidth-6-width)
		for i, l := range lines {
			form := ""
			if i == 0 {
				form = paramForm(p)
			}
			fmt.Fprintf(w, "    %-*s  %s\n", width, form, l)
		}
	}
}

// paramForm is how a parameter and its default are written in help.
func paramForm(p workload.Param) string {
	return "--" + p.Name + "=" + p.Default
}

// wrapWords splits text into lines of at most width characters, at
// spaces (a longer word stands on its own line).
func wrapWords(text string, width int) []string {
	var lines []string
	var line strings.Builder
	for _, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(line.String())
		if n > 0 && n+1+utf8.RuneCountInString(word) > width {
			lines = append(lines, line.String())
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(word)
	}
	if line.Len() > 0 {
		lines = append(lines, line.String())
	}
	return lines
}

// desktopSummary prints the desktop suite's figures: each trace's MB/s
// over its busy time in each state measured, the suite's score (their
// geometric mean) and, with two states, the change; and the 4 KiB random
// writes in each state.
func desktopSummary(out io.Writer, ms []sim.Measurement) {
	steps := map[string]workload.TraceTotals{}
	for _, m := range ms {
		r := m.Result
		steps[m.Label] = workload.TraceTotals{Bytes: r.Read.Bytes + r.Write.Bytes, BusyNs: r.BusyNs}
	}
	figs, err := workload.ScoreDesktop(steps)
	if err != nil || len(figs) == 0 {
		return
	}
	change := func(a, b float64) string {
		if a <= 0 || b <= 0 {
			return ""
		}
		return fmt.Sprintf("%+.1f %%", 100*(b/a-1))
	}
	fmt.Fprintf(out, "\ndesktop suite: MB/s over busy time (idle excluded)\n")
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	head := "trace"
	for _, f := range figs {
		head += "\t" + stateName(f.State)
	}
	if len(figs) == 2 {
		head += "\tchange"
	}
	fmt.Fprintln(tw, head+"\t")
	row := func(name string, pick func(workload.DesktopFigures) float64) {
		line := name
		for _, f := range figs {
			line += fmt.Sprintf("\t%.1f", pick(f))
		}
		if len(figs) == 2 {
			line += "\t" + change(pick(figs[0]), pick(figs[1]))
		}
		fmt.Fprintln(tw, line+"\t")
	}
	for i, t := range workload.DesktopTraces() {
		if figs[0].Score == 0 || (len(figs) == 2 && figs[1].Score == 0) {
			break // a state without all its traces: no table
		}
		row(t.Title, func(f workload.DesktopFigures) float64 { return f.TraceMBps[i] })
	}
	if figs[0].Score > 0 && (len(figs) == 1 || figs[1].Score > 0) {
		row("score (geometric mean)", func(f workload.DesktopFigures) float64 { return f.Score })
	}
	tw.Flush()
	fmt.Fprintf(out, "the score is the geometric mean of the eight; PCMark Vantage scales it by a constant that is not published, which cancels in the change\n")
	if figs[0].RandomWrite > 0 {
		line := "4 KiB random writes, 8 GB span, QD 3:"
		for _, f := range figs {
			line += fmt.Sprintf(" %s %.1f MB/s", stateName(f.State), f.RandomWrite)
		}
		if len(figs) == 2 {
			line += " (" + change(figs[0].RandomWrite, figs[1].RandomWrite) + ")"
		}
		fmt.Fprintln(out, line)
	}
}

// stateName names a state of the desktop suite's drive in its report.
func stateName(state string) string {
	if state == "season" {
		return "seasoned"
	}
	return state
}
