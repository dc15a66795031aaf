package sweep_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/ftlsim/ftlsim/sweep"
)

// A study of one's own on the Scheduler: each task's file is written and
// its result recorded as it finishes; planned again with Resume, the
// tasks whose inputs are unchanged are read back, and only the changed
// one runs.
func ExampleScheduler() {
	dir, err := os.MkdirTemp("", "scheduler-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tasks := func(sizes ...int) []*sweep.Task {
		var ts []*sweep.Task
		for i, n := range sizes {
			ts = append(ts, &sweep.Task{
				Point:  i,
				Coords: sweep.Coords{{Axis: "size", Value: fmt.Sprint(n)}},
				Hash:   sweep.Hash([]byte(fmt.Sprint(n))), // the task's inputs
				Memory: int64(n) << 20,
				Run: func(ctx context.Context, tick func(simNs int64)) (sweep.Outcome, error) {
					fmt.Println("running size", n)
					out := fmt.Sprintf("out/%d.txt", i)
					return sweep.Outcome{Files: map[string][]byte{out: []byte(fmt.Sprint(n * n))}, Output: out,
						Metrics: map[string]float64{"square": float64(n * n)}}, nil
				},
			})
		}
		return ts
	}
	s := &sweep.Scheduler{Dir: dir, Results: "results.jsonl", Jobs: 1, MemoryBytes: 64 << 20}
	plan, err := s.Plan(tasks(2, 3))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := plan.Run(context.Background()); err != nil {
		log.Fatal(err)
	}
	s.Resume = true
	plan, err = s.Plan(tasks(2, 4))
	if err != nil {
		log.Fatal(err)
	}
	st, err := plan.Run(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d read back, %d run\n", st.Resumed, st.Ran)
	// Output:
	// running size 2
	// running size 3
	// running size 4
	// 1 read back, 1 run
}
