package report

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ftlsim/ftlsim/internal/chart"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
)

// buildCharts builds every chart of the report, in the report's order,
// without drawing them. A series missing from a drive's runs is an error
// (ErrMissingSeries).
func buildCharts(drives []Drive, sp suiteParams) ([]*figure, error) {
	var out []*figure
	for _, mk := range []func([]Drive, suiteParams) ([]*figure, error){
		fourCornersCharts, accessPatternsChart, asSSDChart, attoChart, hdTachChart, sustainedChart,
		consistencyCharts, latencyCDFChart, trimChart, storageBenchChart, powerChart, enduranceChart,
	} {
		figs, err := mk(drives, sp)
		if err != nil {
			return nil, err
		}
		out = append(out, figs...)
	}
	return out, nil
}

// drawCharts draws figures into files, each as PNG and SVG.
func drawCharts(files fileSet, figs []*figure) error {
	for _, f := range figs {
		png, err := f.png()
		if err != nil {
			return err
		}
		svg, err := f.svg()
		if err != nil {
			return err
		}
		files[f.file+".png"], files[f.file+".svg"] = png, svg
	}
	return nil
}

func names(drives []Drive) []string {
	out := make([]string, len(drives))
	for i, d := range drives {
		out[i] = d.Name
	}
	return out
}

// perDrive returns value(result of run, label) for each drive and label:
// [drive][label].
func perDrive(drives []Drive, run RunName, value func(*sim.Result) float64, labels ...Label) ([][]float64, error) {
	out := make([][]float64, len(drives))
	for i, d := range drives {
		rs, err := d.results(run, labels...)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			out[i] = append(out[i], value(r))
		}
	}
	return out, nil
}

func f0(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func fourCornersCharts(drives []Drive, sp suiteParams) ([]*figure, error) {
	seq, err := perDrive(drives, RunFourCorners, mbps, LabelSeqRead128kQD1, LabelSeqWrite128kQD1)
	if err != nil {
		return nil, err
	}
	rnd, err := perDrive(drives, RunFourCorners, iops, LabelRandRead4kQD3, LabelRandRead4kQD32, LabelRandWrite4kQD3, LabelRandWrite4kQD32)
	if err != nil {
		return nil, err
	}
	span := units.FormatBytes(mustSize(sp.param(RunFourCorners, "span")))
	return []*figure{
		barFigure("four-corners-seq", "Iometer: 128 KiB sequential read and write, QD 1 (MB/s)", "128 KiB sequential, QD 1", "MB/s",
			[]string{"read", "write"}, names(drives), seq, f0),
		barFigure("four-corners-random", "Iometer: 4 KiB random read and write over "+span+", QD 3 and QD 32 (IOPS)", "4 KiB random over "+span, "IOPS",
			[]string{"read, QD 3", "read, QD 32", "write, QD 3", "write, QD 32"}, names(drives), rnd, si),
	}, nil
}

func accessPatternsChart(drives []Drive, sp suiteParams) ([]*figure, error) {
	pats := accessPatterns()
	f := newFigure("access-patterns", "TechReport's Iometer access patterns: IOPS against outstanding I/Os", "", 2, 2, 6.5*vg.Inch)
	var ticks fixedTicks
	for _, qd := range accessQDs() {
		ticks = append(ticks, plot.Tick{Value: float64(qd), Label: strconv.Itoa(qd)})
	}
	for k, pat := range pats {
		p := panel(pat, "", "IOPS")
		if k >= 2 {
			p.X.Label.Text = "outstanding I/Os (log scale)"
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = ticks
		p.Y.Tick.Marker = siTicks{}
		p.Y.Min = 0
		for i, d := range drives {
			var pts plotter.XYs
			for _, qd := range accessQDs() {
				r, err := d.Result(RunAccessPatterns, accessLabel(pat, qd))
				if err != nil {
					return nil, err
				}
				pts = append(pts, plotter.XY{X: float64(qd), Y: iops(r)})
			}
			l, s, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = driveColor(i), vg.Points(1.5)
			s.Color, s.Shape, s.Radius = driveColor(i), draw.CircleGlyph{}, vg.Points(2.2)
			p.Add(l, s)
			if k == 0 {
				f.key(d.Name, l, s)
			}
		}
		p.X.Min, p.X.Max = 0.8, 40
		p.Y.Max *= 1.05
		f.add(p)
	}
	f.caption += ", each point " + sp.dur(RunAccessPatterns, "time") + " on a filled drive"
	return []*figure{f}, nil
}

func asSSDChart(drives []Drive, _ suiteParams) ([]*figure, error) {
	v, err := perDrive(drives, RunASSSD, mbps, LabelSeqRead, LabelSeqWrite)
	if err != nil {
		return nil, err
	}
	return []*figure{barFigure("as-ssd", "AS-SSD: sequential read and write, incompressible data (MB/s)", "AS-SSD sequential, incompressible data", "MB/s",
		[]string{"read", "write"}, names(drives), v, f0)}, nil
}

// twoPanels is a figure of a read and a write panel side by side with
// one y range, a line a drive.
func twoPanels(file, caption, title, xlabel, ylabel string, stacked, marks bool, drives []Drive, curve func(d Drive, dir string) (plotter.XYs, error), style func(p *plot.Plot)) (*figure, error) {
	f := newFigure(file, caption, title, 1, 2, 3.8*vg.Inch)
	if stacked {
		f = newFigure(file, caption, title, 2, 1, 6*vg.Inch)
	}
	var top float64
	var ps []*plot.Plot
	for _, dir := range []string{"read", "write"} {
		p := panel(dir, xlabel, ylabel)
		if stacked && dir == "read" {
			p.X.Label.Text = ""
		}
		p.Y.Tick.Marker = siTicks{}
		style(p)
		for i, d := range drives {
			pts, err := curve(d, dir)
			if err != nil {
				return nil, err
			}
			l, err := line(pts, driveColor(i), false)
			if err != nil {
				return nil, err
			}
			p.Add(l)
			th := []plot.Thumbnailer{l}
			if marks {
				// Marks tell apart drives whose lines coincide.
				s, err := scatter(pts, driveColor(i), chart.Glyph(i))
				if err != nil {
					return nil, err
				}
				s.GlyphStyle.Radius = vg.Points(2.5)
				p.Add(s)
				th = append(th, s)
			}
			if dir == "read" {
				f.key(d.Name, th...)
			}
		}
		top = math.Max(top, p.Y.Max)
		ps = append(ps, p)
	}
	for _, p := range ps {
		p.Y.Min, p.Y.Max = 0, top*1.08
		f.add(p)
	}
	return f, nil
}

func attoChart(drives []Drive, sp suiteParams) ([]*figure, error) {
	var ticks fixedTicks
	for _, s := range attoSizes() {
		b, err := units.ParseSize(s, false)
		if err != nil {
			return nil, err
		}
		ticks = append(ticks, plot.Tick{Value: float64(b), Label: sizeLabel(float64(b))})
	}
	f, err := twoPanels("atto", "ATTO: throughput by transfer size, QD 4, "+units.FormatBytes(mustSize(sp.param(RunATTO, "length")))+" at each size",
		"ATTO", "transfer size (bytes, log scale)", "MB/s", true, true, drives,
		func(d Drive, dir string) (plotter.XYs, error) {
			var pts plotter.XYs
			for _, s := range attoSizes() {
				r, err := d.Result(RunATTO, attoLabel(dir, s))
				if err != nil {
					return nil, err
				}
				b, _ := units.ParseSize(s, false)
				pts = append(pts, plotter.XY{X: float64(b), Y: mbps(r)})
			}
			return pts, nil
		},
		func(p *plot.Plot) {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = ticks
		})
	if err != nil {
		return nil, err
	}
	return []*figure{f}, nil
}

func mustSize(s string) int64 {
	b, err := units.ParseSize(s, false)
	if err != nil {
		panic("report: " + err.Error())
	}
	return b
}

func hdTachChart(drives []Drive, _ suiteParams) ([]*figure, error) {
	f, err := twoPanels("hdtach", "HD Tach: 64 KiB sequential transfer rate across the drive, a point a second", "HD Tach: full-span transfer rate",
		"position (% of the drive)", "MB/s", false, false, drives,
		func(d Drive, dir string) (plotter.XYs, error) {
			label := LabelReadCurve
			if dir == "write" {
				label = LabelWriteCurve
			}
			r, err := d.Result(RunHDTach, label)
			if err != nil {
				return nil, err
			}
			// Position: the share of the span transferred by the end of
			// each interval.
			ivs := tidy(r.Intervals.Slice())
			var total, done float64
			for _, iv := range ivs {
				total += float64(iv.Bytes)
			}
			var pts plotter.XYs
			for _, iv := range ivs {
				mid := done + float64(iv.Bytes)/2
				done += float64(iv.Bytes)
				pts = append(pts, plotter.XY{X: 100 * mid / math.Max(total, 1), Y: iv.MBps})
			}
			return pts, nil
		},
		func(p *plot.Plot) { p.X.Min, p.X.Max = 0, 100 })
	if err != nil {
		return nil, err
	}
	return []*figure{f}, nil
}

// consistencySeries returns a run's per-second IOPS from fromNs on, a
// point a full interval (0 IOPS at 1 on log charts, their floor).
func consistencySeries(r *sim.Result, fromNs int64, logY bool) plotter.XYs {
	var pts plotter.XYs
	for _, iv := range tidy(r.Intervals.Slice()) {
		if iv.StartNs < fromNs || iv.EndNs-iv.StartNs < int64(sim.Second) {
			continue
		}
		y := iv.IOPS
		if logY {
			y = math.Max(y, 1)
		}
		pts = append(pts, plotter.XY{X: float64(iv.EndNs) / 1e9, Y: y})
	}
	return pts
}

// steadyFromPct is where a consistency run's steady-state window starts,
// in percent of the run: the reviews read from 1,400 s of 2,000.
const steadyFromPct = 70

// steadyFrom is where a consistency run's steady-state window starts.
func steadyFrom(r *sim.Result) int64 { return (r.EndNs - r.StartNs) * steadyFromPct / 100 }

func consistencyCharts(drives []Drive, sp suiteParams) ([]*figure, error) {
	runLen := sp.ns(RunConsistency, "time")
	var figs []*figure
	for _, c := range []struct {
		file, caption, title string
		steady, logY         bool
	}{
		{"consistency-log", "performance consistency: IOPS each second over the whole run, log time axis so the cliff shows",
			"4 KiB random writes, QD 32, " + seconds(runLen) + ": whole run", false, true},
		{"consistency-steady-log", fmt.Sprintf("performance consistency: the steady-state window (last %d %% of the run), log IOPS scale", 100-steadyFromPct),
			"steady state, " + seconds(runLen*steadyFromPct/100) + " to " + seconds(runLen) + " (log scale)", true, true},
		{"consistency-steady-linear", fmt.Sprintf("performance consistency: the steady-state window (last %d %% of the run), linear IOPS scale", 100-steadyFromPct),
			"steady state, " + seconds(runLen*steadyFromPct/100) + " to " + seconds(runLen) + " (linear scale)", true, false},
	} {
		f := newFigure(c.file, c.caption, c.title, len(drives), 1, vg.Length(0.5+1.9*float64(len(drives)))*vg.Inch)
		top, bottom := 0.0, math.Inf(1)
		var ps []*plot.Plot
		for i, d := range drives {
			p := panel(d.Name, "", "IOPS")
			if i == len(drives)-1 {
				p.X.Label.Text = "time (s)"
				if !c.steady {
					p.X.Label.Text = "time (s, log scale)"
				}
			}
			for k, run := range []RunName{RunConsistency, RunConsistency25} {
				r, err := d.Result(run, LabelConsistency)
				if err != nil {
					return nil, err
				}
				from := int64(0)
				if c.steady {
					from = steadyFrom(r)
				}
				col, shape, name := driveColor(i), draw.GlyphDrawer(draw.CircleGlyph{}), d.Name+", own spare area"
				if k == 1 {
					col, shape, name = spareColor(i), draw.TriangleGlyph{}, d.Name+", +25 % spare"
				}
				pts := consistencySeries(r, from, c.logY)
				if len(pts) == 0 {
					continue
				}
				for _, pt := range pts {
					bottom = math.Min(bottom, pt.Y)
				}
				s, err := scatter(pts, col, shape)
				if err != nil {
					return nil, err
				}
				p.Add(s)
				f.key(name, s)
			}
			top = math.Max(top, p.Y.Max)
			ps = append(ps, p)
		}
		for _, p := range ps {
			if c.logY {
				p.Y.Scale = plot.LogScale{}
				p.Y.Tick.Marker = logTicks{si}
				// Down to the decade below the lowest second: to 1 (the
				// axis's 0) when a second had no I/O.
				p.Y.Min, p.Y.Max = decades(math.Max(math.Min(bottom, top), 1), math.Max(top, 10))
			} else {
				p.Y.Tick.Marker = siTicks{}
				p.Y.Min, p.Y.Max = 0, top*1.05
			}
			if c.steady {
				p.X.Min, p.X.Max = float64(runLen*steadyFromPct/100)/1e9, float64(runLen)/1e9
			} else {
				p.X.Scale = plot.LogScale{}
				p.X.Tick.Marker = logTicks{trim}
				p.X.Min, p.X.Max = 1, math.Max(float64(runLen)/1e9, 10)
			}
			f.add(p)
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// cdf is a latency distribution's cumulative share at each bin, in µs,
// ending at exactly 1.
func cdf(l sim.LatencyStats) plotter.XYs {
	var n int64
	for _, b := range l.Bins {
		n += b.Count
	}
	var pts plotter.XYs
	var sum int64
	for _, b := range l.Bins {
		sum += b.Count
		pts = append(pts, plotter.XY{X: float64(b.Ns) / 1e3, Y: float64(sum) / float64(n)})
	}
	return pts
}

func latencyCDFChart(drives []Drive, sp suiteParams) ([]*figure, error) {
	f := newFigure("latency-cdf", "write latency distribution of the consistency runs (fraction of writes completed within a latency)", "", 1, 1, 4.2*vg.Inch)
	p := panel("4 KiB random writes, QD 32: the consistency runs of "+seconds(sp.ns(RunConsistency, "time")), "completion latency (log scale)", "fraction of writes completed within")
	lo, hi := math.Inf(1), 0.0
	for i, d := range drives {
		for k, run := range []RunName{RunConsistency, RunConsistency25} {
			r, err := d.Result(run, LabelConsistency)
			if err != nil {
				return nil, err
			}
			pts := cdf(r.Write.Latency)
			if len(pts) == 0 {
				continue
			}
			lo, hi = math.Min(lo, pts[0].X), math.Max(hi, pts[len(pts)-1].X)
			name, col := d.Name+", own spare area", driveColor(i)
			if k == 1 {
				name, col = d.Name+", +25 % spare", spareColor(i)
			}
			l, err := line(pts, col, k == 1)
			if err != nil {
				return nil, err
			}
			p.Add(l)
			f.key(name, l)
		}
	}
	if hi > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{latencyLabel}
		p.X.Min, p.X.Max = decades(lo, hi)
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = fixedTicks{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"}, {Value: 0.5, Label: "0.5"}, {Value: 0.75, Label: "0.75"}, {Value: 1, Label: "1"}}
	f.add(p)
	return []*figure{f}, nil
}

func trimChart(drives []Drive, _ suiteParams) ([]*figure, error) {
	v, err := perDrive(drives, RunTRIMValidation, mbps, LabelClean, LabelDirty, LabelAfterTrim)
	if err != nil {
		return nil, err
	}
	return []*figure{barFigure("trim-validation", "TRIM validation: 128 KiB sequential writes, QD 1, clean, after a torture and after a TRIM of every LBA (MB/s)",
		"TRIM validation: 128 KiB sequential writes", "MB/s", []string{"clean", "dirty (after torture)", "after TRIM"}, names(drives), v, f0)}, nil
}

func powerChart(drives []Drive, _ suiteParams) ([]*figure, error) {
	v, err := perDrive(drives, RunPower, func(r *sim.Result) float64 { return r.Power.AverageW }, LabelIdle, LabelSeqWrite, LabelRandomWrite)
	if err != nil {
		return nil, err
	}
	return []*figure{barFigure("power", "average power at idle, during 128 KiB sequential writes (QD 1) and 4 KiB random writes (QD 32), in watts",
		"power", "W", []string{"idle", "128 KiB sequential write", "4 KiB random write"}, names(drives), v, f2)}, nil
}

// benchRuns are the Storage Bench runs and their names.
func benchRuns() ([]RunName, []string) {
	return []RunName{RunStorageBenchHeavy, RunStorageBenchLight, RunDestroyer}, []string{"Heavy 2011", "Light 2011", "The Destroyer"}
}

// benchMBps is a Storage Bench run's average data rate: bytes read and
// written over busy time (idle excluded), 10^6 bytes a second.
func benchMBps(r *sim.Result) float64 {
	if r.BusyNs == 0 {
		return 0
	}
	return float64(r.Read.Bytes+r.Write.Bytes) / (float64(r.BusyNs) / 1e9) / 1e6
}

func storageBenchChart(drives []Drive, _ suiteParams) ([]*figure, error) {
	runs, groups := benchRuns()
	f := newFigure("storage-bench", "Storage Bench (synthesised traces): average data rate over busy time, and average service time", "", 2, 1, 6.5*vg.Inch)
	for _, m := range []struct {
		title, unit string
		value       func(*sim.Result) float64
		label       func(float64) string
	}{
		{"average data rate (higher is better)", "MB/s", benchMBps, f0},
		{"average service time (lower is better)", "µs", func(r *sim.Result) float64 { return r.AvgServiceNs / 1e3 }, f0},
	} {
		b := &bars{label: m.label}
		for i, d := range drives {
			var vals []float64
			for _, run := range runs {
				r, err := d.Result(run, LabelBench)
				if err != nil {
					return nil, err
				}
				vals = append(vals, m.value(r))
			}
			b.values = append(b.values, vals)
			b.colors = append(b.colors, driveColor(i))
			if m.unit == "MB/s" {
				f.key(d.Name, swatch{driveColor(i)})
			}
		}
		p := panel(m.title, "", m.unit)
		p.Add(b)
		p.NominalX(groups...)
		p.Y.Tick.Marker = siTicks{}
		f.add(p)
	}
	return []*figure{f}, nil
}
