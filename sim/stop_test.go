package sim_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
)

// Stopped after n completions, a closed-loop run issues nothing more and
// completes what it has in flight: at most its queue depth more.
func TestStopDuringRun(t *testing.T) {
	const n, qd = 500, 8
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	done := 0
	r, err := e.RunJob(job(t, "rw", "randwrite", "iodepth", "8", "runtime", "3600", "time_based", "1"),
		sim.Hooks{OnComplete: func(sim.Completion) {
			if done++; done == n {
				e.Stop()
			}
		}})
	require.NoError(t, err)
	require.True(t, r.Interrupted)
	require.True(t, e.Stopped())
	require.GreaterOrEqual(t, r.Write.IOs, int64(n))
	require.LessOrEqual(t, r.Write.IOs, int64(n+qd), "in flight when stopped: at most the queue depth")
	require.Equal(t, r.Issued, r.Write.IOs, "every request issued completed")
	require.Less(t, r.RuntimeNs, int64(3600*sim.Second))

	// Every later run stops at once, without ErrNoProgress.
	r, err = e.RunJob(job(t, "rw", "randread", "iodepth", "4", "number_ios", "100"), sim.Hooks{})
	require.NoError(t, err)
	require.True(t, r.Interrupted)
	require.Zero(t, r.Issued)

	var b bytes.Buffer
	require.NoError(t, fioreport.WriteJSON(&b, nil, fioreport.JobOf(r, nil)))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	require.Equal(t, true, doc["interrupted"])
}

// An uninterrupted run says nothing about it in the JSON.
func TestNotInterrupted(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	r, err := e.RunJob(job(t, "rw", "randread", "number_ios", "100"), sim.Hooks{})
	require.NoError(t, err)
	require.False(t, r.Interrupted)
	var b bytes.Buffer
	require.NoError(t, fioreport.WriteJSON(&b, nil, fioreport.JobOf(r, nil)))
	require.NotContains(t, b.String(), "interrupted")
}

// Stop is safe from another goroutine: a run of an hour of simulated time
// returns soon after it.
func TestStopFromAnotherGoroutine(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	timer := time.AfterFunc(100*time.Millisecond, e.Stop)
	defer timer.Stop()
	start := time.Now()
	r, err := e.RunJob(job(t, "rw", "randrw", "iodepth", "32", "runtime", "3600", "time_based", "1"), sim.Hooks{})
	require.NoError(t, err)
	require.True(t, r.Interrupted)
	require.Positive(t, r.Read.IOs+r.Write.IOs)
	require.Less(t, time.Since(start), time.Minute)
}

// A scenario stopped during a step ends with that step, marked.
func TestStopDuringSteps(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	steps := []workload.Step{
		{Kind: workload.SecureErase},
		{Kind: workload.RunJob, Job: job(t, "rw", "randwrite", "number_ios", "1000"), Label: "first"},
		{Kind: workload.RunJob, Job: job(t, "rw", "randwrite", "runtime", "3600", "time_based", "1"), Label: "second"},
		{Kind: workload.RunJob, Job: job(t, "rw", "randread", "number_ios", "1000"), Label: "third"},
	}
	var iv int
	ms, err := e.RunStepsHooks(steps, sim.Hooks{OnInterval: func(sim.Interval) {
		if iv++; iv == 3 {
			e.Stop() // a few seconds into the second step (the first makes one interval)
		}
	}})
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.False(t, ms[0].Result.Interrupted)
	require.True(t, ms[1].Result.Interrupted)
	require.Less(t, ms[1].Result.RuntimeNs, int64(10*sim.Second))
}
