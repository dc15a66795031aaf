package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ftlsim/ftlsim/sim/analysis"
)

// sustainedWrite is a sustained write the section shows: the run, the
// step, and what the drive held.
type sustainedWrite struct {
	run   RunName
	label Label
	state string
}

// sustainedWrites are the sustained writes the section shows.
func sustainedWrites(sp suiteParams) []sustainedWrite {
	return []sustainedWrite{
		{RunSustainedWrite, LabelSustained, "empty: the whole span"},
		{RunSustained80, LabelSustained, fmt.Sprintf("%s %% full: the rest", sp.param(RunSustained80, "fill"))},
		{RunSustainedIdle, LabelSustained, fmt.Sprintf("empty: %s %% of the span", sp.param(RunSustainedIdle, "span"))},
		{RunSustainedIdle, LabelAfterIdle, fmt.Sprintf("then after %s idle: %s %% more", sp.dur(RunSustainedIdle, "idle"), sp.param(RunSustainedIdle, "burst"))},
	}
}

// sustainedSection is the sustained-write section: rows a drive, one for
// each state of sustainedWrites, and the chart of MB/s against GB written.
func sustainedSection(drives []Drive, sp suiteParams, pick func(files ...string) block) ([]block, error) {
	t := [][]string{{"drive", "write", "GB written", "average MB/s", "full speed MB/s", "full speed for GB", "MB/s after"}}
	for _, d := range drives {
		for _, w := range sustainedWrites(sp) {
			r, err := d.Result(w.run, w.label)
			if err != nil {
				return nil, err
			}
			s := analysis.SummarizeSustained(r.Intervals.Slice())
			fast, after := "the whole write", "–"
			if s.Dropped {
				fast, after = gb1(float64(s.FastBytes)/1e9), f0(s.AfterMBps)
			}
			t = append(t, []string{d.Name, w.state, gb1(float64(s.Bytes) / 1e9), f0(s.AverageMBps), f0(s.BurstMBps), fast, after})
		}
	}
	return []block{{heading: "## Sustained write"},
		{para: fmt.Sprintf("128 KiB sequential writes at QD 32, as reviews of drives with an SLC cache chart them: the rate over each GB written. "+
			"On a secure-erased drive, the whole span; on a drive filled to %s %% (then idle %s), the rest; and on a secure-erased drive, %s %% of the span, then, after %s idle, %s %% more. "+
			"Full speed lasts while the drive's fast path does (an SLC cache, free blocks); a drop is three seconds in a row below %.0f %% of it. "+
			"An SLC cache borrows free space, so it is smaller on a fuller drive, and it comes back as the idle drive folds it.",
			sp.param(RunSustained80, "fill"), sp.dur(RunSustained80, "settle"), sp.param(RunSustainedIdle, "span"), sp.dur(RunSustainedIdle, "idle"), sp.param(RunSustainedIdle, "burst"), 100*analysis.DropShare)},
		{table: t}, pick("sustained-write"), dataLinks(drives, RunSustainedWrite, RunSustained80, RunSustainedIdle)}, nil
}

func sustainedChart(drives []Drive, sp suiteParams) ([]*figure, error) {
	ws := sustainedWrites(sp)
	shown := []int{0, 1, 3} // the empty drive, the fuller one, the burst after the idle
	f := newFigure("sustained-write", "Sustained 128 KiB sequential writes at QD 32: MB/s against GB written (over each 200th of the write, at least 50 MB)", "Sustained write", 1, len(shown), 3.8*vg.Inch)
	var ymax float64
	var ps []*plot.Plot
	for k, i := range shown {
		w := ws[i]
		p := panel(w.state, "GB written", "MB/s")
		p.Y.Tick.Marker = siTicks{}
		for di, d := range drives {
			r, err := d.Result(w.run, w.label)
			if err != nil {
				return nil, err
			}
			// About 200 points a line, at least 50 MB each.
			var total float64
			for _, iv := range r.Intervals.All() {
				total += float64(iv.WriteBytes)
			}
			bin := math.Max(total/200, 50e6)
			var pts plotter.XYs
			for k, v := range analysis.RateOver(r.Intervals.Slice(), bin) {
				pts = append(pts, plotter.XY{X: math.Min(float64(k+1)*bin, total) / 1e9, Y: v})
			}
			l, err := line(pts, driveColor(di), false)
			if err != nil {
				return nil, err
			}
			p.Add(l)
			if k == 0 {
				f.key(d.Name, []plot.Thumbnailer{l}...)
			}
		}
		p.X.Min = 0
		ymax = math.Max(ymax, p.Y.Max)
		ps = append(ps, p)
	}
	for _, p := range ps {
		p.Y.Min, p.Y.Max = 0, ymax*1.08
		f.add(p)
	}
	return []*figure{f}, nil
}

// gb1 writes v with one decimal.
func gb1(v float64) string { return fmt.Sprintf("%.1f", v) }
