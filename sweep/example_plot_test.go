package sweep_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/sweep"
)

// exampleTable is a small study's table: spare area (op) × GC policy,
// two repetitions of each point.
func exampleTable() *sweep.Table {
	var results []sweep.Result
	for _, op := range []float64{7, 12, 25, 28} {
		for _, gc := range []string{"greedy", "cost-benefit"} {
			for rep := range 2 {
				n := len(results)
				iops := 1000*op + 100*float64(rep)
				if gc == "cost-benefit" {
					iops += 500
				}
				results = append(results, sweep.Result{
					Point: n, Hash: strconv.Itoa(n),
					Coords: sweep.Coords{
						{Axis: "op", Value: strconv.FormatFloat(op, 'g', -1, 64)},
						{Axis: "gc_policy", Value: gc},
						{Axis: "rep", Value: strconv.Itoa(rep)},
					},
					Metrics: map[string]float64{"steady_iops": iops, "wa": 1 + 10/op},
				})
			}
		}
	}
	t, err := sweep.NewTable([]string{"op", "gc_policy", "rep"}, results)
	if err != nil {
		log.Fatal(err)
	}
	return t
}

// The default charts of a study, written as SVG files.
func ExampleTable_SavePlot() {
	table := exampleTable()
	dir, err := os.MkdirTemp("", "sweep-plot")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, spec := range sweep.DefaultPlots(table) {
		file := filepath.Join(dir, spec.Name()+".svg")
		if err := table.SavePlot(file, spec); err != nil {
			log.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s, svg=%v\n", filepath.Base(file), spec, strings.Contains(string(b), "<svg"))
	}
	// Output:
	// steady_iops-op-gc_policy.svg: steady_iops by op and gc_policy, svg=true
	// wa-op-gc_policy.svg: wa by op and gc_policy, svg=true
	// steady_iops-op-gc_policy-heatmap.svg: steady_iops by op and gc_policy (heatmap), svg=true
}

// What a line chart plots: the mean over the axes it does not name (here
// the repetitions), and the range from the smallest to the largest.
func ExampleTable_Aggregate() {
	g, err := exampleTable().Aggregate(sweep.PlotSpec{Metric: "steady_iops", X: "op", Series: "gc_policy"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("x:", g.X, "numeric:", g.XNumeric, "series:", g.Series, "over:", g.Over)
	for s, name := range g.Series {
		for i, x := range g.X {
			c := g.Cells[0][s][i]
			fmt.Printf("%s op=%s: mean %g (%g–%g, %d results)\n", name, x, c.Mean, c.Min, c.Max, c.N)
		}
	}
	_, err = exampleTable().Aggregate(sweep.PlotSpec{Metric: "iops", X: "op"})
	fmt.Println(err)
	// Output:
	// x: [7 12 25 28] numeric: true series: [greedy cost-benefit] over: [rep]
	// greedy op=7: mean 7050 (7000–7100, 2 results)
	// greedy op=12: mean 12050 (12000–12100, 2 results)
	// greedy op=25: mean 25050 (25000–25100, 2 results)
	// greedy op=28: mean 28050 (28000–28100, 2 results)
	// cost-benefit op=7: mean 7550 (7500–7600, 2 results)
	// cost-benefit op=12: mean 12550 (12500–12600, 2 results)
	// cost-benefit op=25: mean 25550 (25500–25600, 2 results)
	// cost-benefit op=28: mean 28550 (28500–28600, 2 results)
	// sweep: plot: unknown metric "iops"; allowed: steady_iops, wa
}
