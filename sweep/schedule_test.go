package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTasks are n tasks that write points/N.txt; fail names the points
// that fail, and ran counts the runs by point.
type fakeTasks struct {
	mu   sync.Mutex
	ran  map[int]int
	fail map[int]bool
	// block, when set, holds each run until it is closed.
	block chan struct{}
}

func (f *fakeTasks) tasks(n int, hashOf func(i int) string) []*Task {
	var ts []*Task
	for i := range n {
		ts = append(ts, &Task{Point: i, Coords: Coords{{Axis: "i", Value: fmt.Sprint(i)}}, Hash: hashOf(i),
			Run: func(ctx context.Context, tick func(int64)) (Outcome, error) {
				f.mu.Lock()
				if f.ran == nil {
					f.ran = map[int]int{}
				}
				f.ran[i]++
				f.mu.Unlock()
				if f.block != nil {
					select {
					case <-f.block:
					case <-ctx.Done():
						return Outcome{}, ErrInterrupted
					}
				}
				tick(int64(i))
				if f.fail[i] {
					return Outcome{}, fmt.Errorf("task %d failed on purpose", i)
				}
				out := fmt.Sprintf("points/%d.txt", i)
				return Outcome{Files: map[string][]byte{out: []byte(fmt.Sprint(i))}, Output: out, Metrics: map[string]float64{"i": float64(i)}}, nil
			}})
	}
	return ts
}

func (f *fakeTasks) runs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, k := range f.ran {
		n += k
	}
	return n
}

func hashN(i int) string { return fmt.Sprintf("h%d", i) }

// Each finished task's files are written and its result recorded; a
// scheduler with saved results refuses without Resume, and with it runs
// only the tasks whose result is missing, of another hash or version, or
// whose output no longer reads back.
func TestSchedulerRecordsAndResumes(t *testing.T) {
	dir := t.TempDir()
	var events []Event
	s := &Scheduler{Dir: dir, Results: "results.jsonl", Study: "s", Version: "v1", Jobs: 2,
		OnEvent: func(e Event) { events = append(events, e) }}
	var f fakeTasks
	plan, err := s.Plan(f.tasks(6, hashN))
	require.NoError(t, err)
	require.Len(t, plan.Todo, 6)
	st, err := plan.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Tally{Tasks: 6, Ran: 6}, st)
	rs, err := ReadResults(filepath.Join(dir, "results.jsonl"))
	require.NoError(t, err)
	require.Len(t, rs, 6)
	for _, r := range rs {
		b, err := os.ReadFile(filepath.Join(dir, r.Output))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint(r.Point), string(b))
		assert.Equal(t, "s", r.Study)
		assert.Equal(t, float64(r.Point), r.Metrics["i"])
	}
	kinds := map[EventKind]int{}
	for _, e := range events {
		kinds[e.Kind]++
	}
	assert.Equal(t, map[EventKind]int{TaskStarted: 6, TaskTick: 6, TaskFinished: 6}, kinds)

	_, err = s.Plan(f.tasks(6, hashN))
	require.ErrorIs(t, err, ErrHasResults)

	// Resumed: point 1's inputs changed, point 2's output is gone, point
	// 3's does not read back; the others are read back.
	s.Resume = true
	require.NoError(t, os.Remove(filepath.Join(dir, "points/2.txt")))
	var g fakeTasks
	ts := g.tasks(6, func(i int) string {
		if i == 1 {
			return "changed"
		}
		return hashN(i)
	})
	var read []int
	for _, tk := range ts {
		tk.Resume = func(r Result) error {
			if r.Point == 3 {
				return errors.New("unreadable")
			}
			read = append(read, r.Point)
			return nil
		}
	}
	plan, err = s.Plan(ts)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 4, 5}, read)
	assert.Len(t, plan.Saved, 3)
	st, err = plan.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Tally{Tasks: 6, Resumed: 3, Ran: 3}, st)
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, g.ran)

	// Another version: every task runs again.
	s.Version = "v2"
	var h fakeTasks
	plan, err = s.Plan(h.tasks(6, hashN))
	require.NoError(t, err)
	assert.Len(t, plan.Todo, 6)

	// By hash, a renumbered study finds its tasks' results.
	s.Version, s.ByHash = "v1", true
	var k fakeTasks
	ts = k.tasks(6, hashN)
	for _, tk := range ts {
		tk.Point += 100
	}
	plan, err = s.Plan(ts)
	require.NoError(t, err)
	assert.Len(t, plan.Saved, 6)
	assert.Equal(t, 7, plan.Found, "h0-h5 and point 1's changed inputs")
}

// A failed task stops the others from starting with FailFast (the one
// under way finishes and is recorded), and is counted while the rest run
// without it.
func TestSchedulerFailures(t *testing.T) {
	for _, fast := range []bool{false, true} {
		t.Run(fmt.Sprint("FailFast=", fast), func(t *testing.T) {
			f := fakeTasks{fail: map[int]bool{2: true, 4: true}}
			s := &Scheduler{Dir: t.TempDir(), Results: "r/results.jsonl", Jobs: 1, FailFast: fast}
			plan, err := s.Plan(f.tasks(8, hashN))
			require.NoError(t, err)
			st, err := plan.Run(context.Background())
			var fe *FailedError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, 2, fe.First().Task.Point)
			if fast {
				assert.Equal(t, Tally{Tasks: 8, Ran: 2, Failed: 1}, st, "nothing started after the failure")
				assert.Equal(t, 3, f.runs())
				return
			}
			assert.Equal(t, Tally{Tasks: 8, Ran: 6, Failed: 2}, st)
			assert.EqualError(t, err, "2 of 8 points failed; the first, point 2 (i=2): task 2 failed on purpose")
		})
	}
}

// The context stops a study: the tasks under way get it, none starts
// after, and Run says it was interrupted; the memory budget holds tasks
// back until their estimate fits beside the running ones'.
func TestSchedulerStopsAndBudgets(t *testing.T) {
	f := fakeTasks{block: make(chan struct{})}
	s := &Scheduler{Dir: t.TempDir(), Results: "results.jsonl", Jobs: 4, MemoryBytes: 10}
	ts := f.tasks(8, hashN)
	for _, tk := range ts {
		tk.Memory = 4 // two at a time in 10
	}
	var started atomic.Int32
	s.OnEvent = func(e Event) {
		if e.Kind == TaskStarted {
			started.Add(1)
		}
	}
	plan, err := s.Plan(ts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var st Tally
	go func() {
		defer close(done)
		st, err = plan.Run(ctx)
	}()
	for started.Load() < 2 {
		runtime.Gosched()
	}
	cancel()
	<-done
	require.ErrorIs(t, err, ErrInterrupted)
	assert.Equal(t, int32(2), started.Load(), "two fit the budget; none started after the stop")
	assert.Zero(t, st.Ran)
}
