package sweep_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/ftlsim/ftlsim/cli"
	"github.com/ftlsim/ftlsim/sweep"
)

// A study driven from Go: the points of a small grid, run two at a time
// by the command's own entry point (cli.Command, each point checked and
// its memory estimated first by cli.CommandMemory), and their table.
func ExampleRun() {
	study, err := sweep.Parse("example.yaml", []byte(`
drive: generic-mlc-small
options: {capacity: 2GiB, op: 28, rw: randwrite, bs: 4k, runtime: 1, time_based: 1, norandommap: 1}
axes:
  iodepth: [1, 32]
  random_distribution: [random, "zipf:1.2"]
seed: 1
`))
	if err != nil {
		log.Fatal(err)
	}
	out, err := os.MkdirTemp("", "sweep-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	_, err = sweep.Run(context.Background(), study, sweep.Options{
		Out: out, Jobs: 2, Version: cli.Version(), Main: cli.Command, Memory: cli.CommandMemory,
	})
	if err != nil {
		log.Fatal(err)
	}
	table, err := sweep.LoadTable(out)
	if err != nil {
		log.Fatal(err)
	}
	iops := map[string]float64{}
	for _, r := range table.Results {
		qd, _ := r.Coords.Get("iodepth")
		dist, _ := r.Coords.Get("random_distribution")
		iops[qd+" "+dist] = r.Metrics["write_iops"]
	}
	fmt.Println(len(table.Results), "points")
	for _, dist := range []string{"random", "zipf:1.2"} {
		fmt.Printf("%s: QD 32 writes faster than QD 1: %v\n", dist, iops["32 "+dist] > iops["1 "+dist])
	}
	// Output:
	// 4 points
	// random: QD 32 writes faster than QD 1: true
	// zipf:1.2: QD 32 writes faster than QD 1: true
}
