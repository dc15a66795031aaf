package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ftlsim/ftlsim/sim"
)

// sustainedSection is the sustained-write section: a row a drive and the
// chart of MB/s against GB written.
func sustainedSection(drives []Drive, pick func(files ...string) block) ([]block, error) {
	t := [][]string{{"drive", "GB written", "average MB/s", "full speed MB/s", "full speed for GB", "MB/s after"}}
	for _, d := range drives {
		r, err := d.Result(RunSustainedWrite, LabelSustained)
		if err != nil {
			return nil, err
		}
		s := sim.SummarizeSustained(r.Intervals)
		fast, after := "the whole write", "–"
		if s.Dropped {
			fast, after = gb1(float64(s.FastBytes)/1e9), f0(s.AfterMBps)
		}
		t = append(t, []string{d.Name, gb1(float64(s.Bytes) / 1e9), f0(s.AverageMBps), f0(s.BurstMBps), fast, after})
	}
	return []block{{heading: "## Sustained write"},
		{para: fmt.Sprintf("On a secure-erased drive, one 128 KiB sequential write of the whole span at QD 32, as reviews of drives with an SLC cache chart it: the rate over each GB written. Full speed lasts while the drive's fast path does (an SLC cache, free blocks); a drop is three seconds in a row below %.0f %% of it.", 100*sim.DropShare)},
		{table: t}, pick("sustained-write"), dataLinks(drives, RunSustainedWrite)}, nil
}

func sustainedChart(drives []Drive, _ suiteParams) ([]*figure, error) {
	f := newFigure("sustained-write", "Sustained 128 KiB sequential write of the whole span at QD 32: MB/s over each GB written", "Sustained write", 1, 1, 3.8*vg.Inch)
	p := panel("", "GB written", "MB/s")
	p.Y.Tick.Marker = siTicks{}
	for i, d := range drives {
		r, err := d.Result(RunSustainedWrite, LabelSustained)
		if err != nil {
			return nil, err
		}
		s := sim.SummarizeSustained(r.Intervals)
		var pts plotter.XYs
		for g, v := range s.PerGB {
			end := math.Min(float64(g+1), float64(s.Bytes)/1e9)
			pts = append(pts, plotter.XY{X: end, Y: v})
		}
		l, err := line(pts, driveColor(i), false)
		if err != nil {
			return nil, err
		}
		p.Add(l)
		f.key(d.Name, []plot.Thumbnailer{l}...)
	}
	p.Y.Min = 0
	p.Y.Max *= 1.08
	p.X.Min = 0
	f.add(p)
	return []*figure{f}, nil
}

// gb1 writes v with one decimal.
func gb1(v float64) string { return fmt.Sprintf("%.1f", v) }
