package memlimit

import (
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// Work is what a run does on its drive, as far as its memory goes: the
// jobs whose statistics it holds.
type Work struct {
	// Jobs are the run's jobs: a job file's, a scenario's steps', a
	// review run's.
	Jobs []*workload.Job
	// IntervalNs is the length of a series interval (0: a simulated
	// second, the engine's default).
	IntervalNs int64
	// PerJob is what each job keeps beside its histograms and series (a
	// histogram log's bins).
	PerJob int64
	// OneAtATime says each job's statistics are dropped before the next
	// job starts (the endurance procedure sums a round up and drops it):
	// the largest job's count, not their sum.
	OneAtATime bool
}

// Estimate is the memory a run plans to use: its drive's state and its
// jobs' statistics.
type Estimate struct {
	// Drive is the drive's state (Drive).
	Drive int64
	// Stats is the jobs' statistics: latency histograms, series and
	// PerJob.
	Stats int64
	// Jobs is the number of jobs; Intervals the longest series, in
	// intervals.
	Jobs      int
	Intervals int64
}

// Bytes is the whole estimate.
func (e Estimate) Bytes() int64 { return e.Drive + e.Stats }

// EstimateRun is the one estimate of what a run holds: the drive built
// from r (its TrackData as resolved) and the statistics of w. The command
// (a job, a job file, a scenario), a sweep's points and a review's runs
// all plan with it.
func EstimateRun(r controller.Resolved, w Work) Estimate {
	e := Statistics(w)
	e.Drive = Drive(r, r.Config.NAND.TrackData)
	return e
}

// Statistics is the part of EstimateRun that the jobs hold (Drive left
// 0): each job's latency histograms, its series (runtime and ramp over
// the interval; a job that runs until its size is done counts none, its
// length being unknown until it has run) and PerJob.
func Statistics(w Work) Estimate {
	interval := w.IntervalNs
	if interval <= 0 {
		interval = sim.Second
	}
	e := Estimate{Jobs: len(w.Jobs)}
	for _, j := range w.Jobs {
		n := int64(0)
		if j.RuntimeNs > 0 {
			n = (j.RuntimeNs+j.RampNs)/interval + 1
		}
		e.Intervals = max(e.Intervals, n)
		b := sim.StreamMemoryBytes(n) + w.PerJob
		if w.OneAtATime {
			e.Stats = max(e.Stats, b)
		} else {
			e.Stats += b
		}
	}
	return e
}
