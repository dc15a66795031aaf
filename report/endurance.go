package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/chart"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// EnduranceChart draws an endurance run (sim.Engine.Endurance) against
// the terabytes written: the share of flash reads that needed read
// retries, the 99th-percentile read latency, and the reads ECC could not
// correct, with a dashed line where the rated cycles end at the measured
// write amplification. format is "svg" or "png".
func EnduranceChart(title string, res *sim.EnduranceResult, format string) ([]byte, error) {
	if len(res.Rounds) == 0 {
		return nil, fmt.Errorf("endurance chart: the run has no rounds")
	}
	f, err := enduranceFigure("endurance", "", title, []string{""}, []*sim.EnduranceResult{res})
	if err != nil {
		return nil, err
	}
	if format == "png" {
		return f.png()
	}
	return f.svg()
}

// enduranceFigure draws endurance runs, one a drive (names[i] runs
// results[i], in drive i's colour), on three panels against the
// terabytes written, each with a dashed line where its rated cycles end
// at its mean write amplification. A single run's dashed line takes a
// colour no drive has; a run without a name (a single run) has no legend
// entry of its own.
func enduranceFigure(file, caption, title string, names []string, results []*sim.EnduranceResult) (*figure, error) {
	type series struct {
		retry, p99, unc plotter.XYs
	}
	ss := make([]series, len(results))
	for i, res := range results {
		for _, r := range res.Rounds {
			tb := float64(r.HostBytes) / 1e12
			ss[i].retry = append(ss[i].retry, plotter.XY{X: tb, Y: 100 * r.RetriedReadShare})
			ss[i].p99 = append(ss[i].p99, plotter.XY{X: tb, Y: float64(r.ReadP99Ns) / 1e3})
			ss[i].unc = append(ss[i].unc, plotter.XY{X: tb, Y: float64(r.UncorrectableReads)})
		}
	}
	f := newFigure(file, caption, title, 3, 1, 6.5*vg.Inch)
	for k, pn := range []struct {
		name, y string
		pts     func(series) plotter.XYs
		counts  bool // whole numbers, from zero
	}{
		{"reads needing read retry", "% of flash reads", func(s series) plotter.XYs { return s.retry }, false},
		{"99th-percentile read latency", "latency (µs)", func(s series) plotter.XYs { return s.p99 }, false},
		{"reads ECC could not correct", "reads per read pass", func(s series) plotter.XYs { return s.unc }, true},
	} {
		p := panel(pn.name, "TB written", pn.y)
		if k < 2 {
			p.X.Label.Text = "" // one label, under the last panel
		}
		// The rated-cycles lines span the panel's data.
		ymin, ymax, have := 0.0, 0.0, false
		for i := range results {
			pts := pn.pts(ss[i])
			if len(pts) == 0 {
				continue // retired before its first read pass
			}
			l, err := line(pts, driveColor(i), false)
			if err != nil {
				return nil, err
			}
			sc, err := scatter(pts, driveColor(i), chart.Glyph(i))
			if err != nil {
				return nil, err
			}
			p.Add(l, sc)
			if k == 0 && names[i] != "" {
				f.key(names[i], l, sc)
			}
			_, _, lo, hi := plotter.XYRange(pts)
			if !have || lo < ymin {
				ymin = lo
			}
			if !have || hi > ymax {
				ymax = hi
			}
			have = true
		}
		if ymax <= ymin {
			ymax = ymin + 1
		}
		for i, res := range results {
			rated := float64(res.RatedHostBytes) / 1e12
			if rated <= 0 || !have {
				continue
			}
			var c color.Color = driveColor(i)
			if len(results) == 1 {
				c = spareColor(1)
			}
			m, err := line(plotter.XYs{{X: rated, Y: ymin}, {X: rated, Y: ymax}}, c, true)
			if err != nil {
				return nil, err
			}
			p.Add(m)
			if k == 0 {
				name := "rated cycles at the measured WA"
				if names[i] != "" {
					name = fmt.Sprintf("%s: rated cycles at WA %.1f", names[i], meanWA(res))
				}
				f.key(name, m)
			}
		}
		p.X.Tick.Marker = plot.DefaultTicks{}
		p.X.Min = 0 // from the first byte written
		if k == 1 && ymin > 0 && ymax/ymin > 10 {
			// Latencies that differ by more than ten times between
			// drives or rounds (RAISE rebuilds, retries): a log axis,
			// so that the shorter ones are not flattened to zero.
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = logTicks{latencyLabel}
			p.Y.Min, p.Y.Max = decades(ymin, ymax)
			p.Y.Label.Text = "latency"
		}
		if pn.counts {
			p.Y.Min, p.Y.Max = 0, math.Max(p.Y.Max, 1)
			p.Y.Tick.Marker = wholeTicks{}
		} else if k == 0 {
			p.Y.Min = 0
		}
		f.add(p)
	}
	return f, nil
}

// wholeTicks are linear ticks (plot.DefaultTicks) labelled at whole
// numbers only, for counts.
type wholeTicks struct{}

// Ticks implements plot.Ticker.
func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Value != math.Trunc(ts[i].Value) {
			ts[i].Label = ""
		} else if ts[i].Label != "" {
			ts[i].Label = si(ts[i].Value)
		}
	}
	return ts
}

// meanWA is the mean of an endurance run's rounds' write amplification,
// the one its RatedHostBytes is at.
func meanWA(res *sim.EnduranceResult) float64 {
	if len(res.Rounds) == 0 {
		return 0
	}
	var sum float64
	for _, r := range res.Rounds {
		sum += r.WA
	}
	return sum / float64(len(res.Rounds))
}

// hasEndurance reports whether the report has an endurance section: any
// drive has an endurance run (then every drive needs one).
func hasEndurance(drives []Drive) bool {
	for _, d := range drives {
		if d.Endurance != nil {
			return true
		}
	}
	return false
}

// enduranceResults returns each drive's endurance run; a drive without
// one is an error wrapping ErrMissingSeries.
func enduranceResults(drives []Drive) ([]*sim.EnduranceResult, error) {
	out := make([]*sim.EnduranceResult, len(drives))
	for i, d := range drives {
		if d.Endurance == nil {
			return nil, fmt.Errorf("%w: drive %s has no endurance run", ErrMissingSeries, d.Name)
		}
		out[i] = d.Endurance
	}
	return out, nil
}

// enduranceChart is the report's endurance figure, every drive on it
// (none without an endurance run).
func enduranceChart(drives []Drive, _ suiteParams) ([]*figure, error) {
	if !hasEndurance(drives) {
		return nil, nil
	}
	res, err := enduranceResults(drives)
	if err != nil {
		return nil, err
	}
	f, err := enduranceFigure("endurance", "Accelerated endurance against TB written (host writes simulated and those the added wear stands for): reads needing read retry, p99 read latency, reads ECC could not correct; dashed, where each drive's rated P/E cycles end at its mean write amplification",
		"", names(drives), res)
	if err != nil {
		return nil, err
	}
	return []*figure{f}, nil
}

// enduranceTable is the endurance section's table: a row a drive.
func enduranceTable(drives []Drive) ([][]string, error) {
	res, err := enduranceResults(drives)
	if err != nil {
		return nil, err
	}
	t := [][]string{{"drive", "rounds", "mean WA", "TB written at retirement", "TB the rated cycles allow at that WA", "written / rated",
		"life used at first read retry", "life used at retirement", "p99 read latency, first / last round", "retired because"}}
	for i, d := range drives {
		r := res[i]
		if len(r.Rounds) == 0 {
			t = append(t, []string{d.Name, "0", "–", "–", "–", "–", "–", "–", "–", r.Retired})
			continue
		}
		first, last := r.Rounds[0], r.Rounds[len(r.Rounds)-1]
		retry := "none"
		for _, x := range r.Rounds {
			if x.RetriedReadShare > 0 {
				retry = f0(100*x.LifeUsed) + " %"
				break
			}
		}
		ratio := "–"
		if r.RatedHostBytes > 0 {
			ratio = fmt.Sprintf("%.2f×", float64(last.HostBytes)/float64(r.RatedHostBytes))
		}
		t = append(t, []string{d.Name, fmt.Sprint(len(r.Rounds)), fmt.Sprintf("%.1f", meanWA(r)), f2(float64(last.HostBytes) / 1e12),
			f2(float64(r.RatedHostBytes) / 1e12), ratio, retry, f0(100*last.LifeUsed) + " %",
			latencyLabel(float64(first.ReadP99Ns)/1e3) + " / " + latencyLabel(float64(last.ReadP99Ns)/1e3), r.Retired})
	}
	return t, nil
}

// enduranceText describes the endurance procedure as run (quick or
// not), from its parameters.
func enduranceText(quick bool) string {
	spec, err := workload.NewEndurance(quick)
	if err != nil {
		panic("report: " + err.Error())
	}
	// The jobs' shares of a drive, resolved against a power of two.
	const capacity = 1 << 40
	share := func(j *workload.Job) string {
		if err := j.Resolve(capacity); err != nil {
			panic("report: " + err.Error())
		}
		return strconv.FormatFloat(100*float64(j.IOSize)/capacity, 'f', -1, 64) + " %"
	}
	job := func(j *workload.Job) string {
		kind := strings.TrimPrefix(j.Pattern.String(), "rand")
		if j.Pattern.Random() {
			kind = "random " + kind
		}
		return fmt.Sprintf("%s %ss at QD %d", units.FormatBytes(j.Sizes(0)[0].Bytes), kind, j.QueueDepth())
	}
	var fc controller.Config
	return fmt.Sprintf("Each drive, on its own copy with its NAND part's read-error model on (`%s`), gets a secure erase, a fill, and %s of its capacity in %s; then rounds until it retires. "+
		"Each round writes %s of the drive in %s; adds %s of the rated P/E cycles to every block at once (the passes it stands for, counted as host bytes written at the round's write amplification); "+
		"idles %s (collecting in the background, as the drive's firmware does); bakes %s of retention into the data; and runs %s for %s, counting the reads that needed read retry, the p99 read latency and the reads ECC could not correct. "+
		"A round's write amplification counts every page programmed from its writes to its reads (the collection while it idles too) per byte written; the CSV's write_pass_write_amplification counts the writes alone. "+
		"The drive retires on the first read it can neither correct nor rebuild from RAISE parity, when grown bad blocks leave it read-only, or at %s times the rated cycles. "+
		"Life used is the mean erase count over the rated cycles. The parts' error models are estimates: these runs show the mechanism and compare drives, they do not measure a drive's endurance. `ftlsim scenario endurance --drive=NAME%s --chart=FILE.png` runs the procedure alone%s.",
		fc.FieldPath(&fc.Firmware.ReadErrors),
		share(spec.Precondition), job(spec.Precondition), share(spec.Write), job(spec.Write), trim(spec.RoundWear),
		seconds(spec.SettleNs), days(spec.RetentionNs), job(spec.Read), seconds(spec.Read.RuntimeNs), trim(spec.MaxLife),
		map[bool]string{true: " --quick=1"}[quick], map[bool]string{true: ", on the drive at its own capacity (this review's are smaller: see The drives)"}[quick])
}

// days renders a duration in whole days when it is one: "30 days".
func days(ns int64) string {
	const day = 24 * 3600 * 1e9
	if ns%day == 0 {
		if ns == day {
			return "1 day"
		}
		return thousands(float64(ns/day)) + " days"
	}
	return seconds(ns)
}

// enduranceBlocks is the report's endurance section.
func enduranceBlocks(o Options, drives []Drive, pick func(...string) block) ([]block, error) {
	t, err := enduranceTable(drives)
	if err != nil {
		return nil, err
	}
	var links []string
	for _, d := range drives {
		links = append(links, fmt.Sprintf("[%s](%s) ([CSV](%s))", d.Name, enduranceJSON(d.Name), enduranceCSV(d.Name)))
	}
	return []block{{heading: "## Endurance"}, {para: enduranceText(o.Quick)}, {table: t}, pick("endurance"),
		{para: "Rounds as JSON: " + strings.Join(links, ", ") + "."}}, nil
}

// enduranceJSON and enduranceCSV are the paths of a drive's endurance
// rounds in the report folder.
func enduranceJSON(drive string) string { return dataJSON(drive, RunEndurance) }

func enduranceCSV(drive string) string {
	return fmt.Sprintf("data/%s_%s.csv", safe(drive), RunEndurance)
}

// addEnduranceData adds a drive's endurance run as JSON (the shape of
// ftlsim scenario endurance --output-format=json) and its rounds as CSV.
func addEnduranceData(files fileSet, drive string, res *sim.EnduranceResult) error {
	doc := struct {
		Drive    string `json:"drive"`
		Scenario string `json:"scenario"`
		*sim.EnduranceResult
	}{drive, string(RunEndurance), res}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("report: %s endurance: %w", drive, err)
	}
	files[enduranceJSON(drive)] = append(b, '\n')
	var c bytes.Buffer
	fmt.Fprintln(&c, "round,life_used,host_bytes,simulated_host_bytes,write_amplification,write_pass_write_amplification,read_iops,retried_read_share,retries_per_read,read_p99_us,read_mean_us,uncorrectable_reads,parity_rebuilds,failed_reads,grown_bad_groups")
	for _, r := range res.Rounds {
		fmt.Fprintf(&c, "%d,%.4f,%d,%d,%.3f,%.3f,%.1f,%.5f,%.5f,%.1f,%.1f,%d,%d,%d,%d\n", r.Round, r.LifeUsed, r.HostBytes, r.SimulatedHostBytes, r.WA, r.WritePassWA,
			r.ReadIOPS, r.RetriedReadShare, r.RetriesPerRead, float64(r.ReadP99Ns)/1e3, r.ReadMeanNs/1e3, r.UncorrectableReads, r.ParityRebuilds, r.FailedReads, r.GrownBadGroups)
	}
	files[enduranceCSV(drive)] = c.Bytes()
	return nil
}

// runEndurance runs the endurance procedure (quick or not) on a fresh
// drive built from cfg (which models read errors), telling at the
// simulated time every simulated second. A run stopped by ctx returns an
// error wrapping ErrInterrupted.
func runEndurance(ctx context.Context, cfg controller.Config, quick bool, at func(simNs int64)) (*sim.EnduranceResult, error) {
	spec, err := workload.NewEndurance(quick)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	c, err := controller.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	eng := sim.New(c)
	if ctx.Err() != nil {
		eng.Stop()
	}
	defer context.AfterFunc(ctx, eng.Stop)()
	res, err := eng.Endurance(spec, sim.Hooks{OnInterval: func(sim.Interval) { at(eng.Now()) }})
	if eng.Stopped() {
		// Stopped part way: whatever it returned is not the drive's.
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}
