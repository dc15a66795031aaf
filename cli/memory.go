package cli

import (
	"fmt"
	"os"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/memlimit"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
)

// memoryLimit is the memory a run may plan to use: --max_memory, else
// FTLSIM_MAX_MEMORY (either honoured up to the machine's memory), else
// half of the machine's available memory (package memlimit).
func memoryLimit(flag string) (memlimit.Limit, error) {
	l, err := memlimit.Resolve(flag, os.Getenv, memlimit.ReadMeminfo)
	if err != nil {
		return l, usageError{err}
	}
	return l, nil
}

// work is what jobs hold beside the drive, with series intervals of
// intervalNs and a histogram log's bins when o writes one
// (memlimit.Work).
func work(o *options, jobs []*workload.Job, intervalNs int64) memlimit.Work {
	w := memlimit.Work{Jobs: jobs, IntervalNs: intervalNs}
	if o.histLog != "" {
		w.PerJob = 2 * 2 * histBins * 8 // the interval's bins and the pending one's, reads and writes
	}
	return w
}

// statsMemory is the statistics' part of the run's estimate
// (memlimit.Statistics of work): their bytes and the longest series.
func statsMemory(o *options, jobs []*workload.Job, intervalNs int64) (bytes, intervals int64) {
	e := memlimit.Statistics(work(o, jobs, intervalNs))
	return e.Stats, e.Intervals
}

// checkMemory refuses a run whose drive (resolved r) and statistics
// (stats bytes, for jobs jobs of up to intervals series intervals) need
// more than the memory limit: the estimate memlimit.EstimateRun makes,
// statsMemory having made its statistics' part.
func checkMemory(o *options, r controller.Resolved, stats int64, jobs int, intervals int64) error {
	e := memlimit.Estimate{Drive: memlimit.Drive(r, o.trackData), Stats: stats, Jobs: jobs, Intervals: intervals}
	return checkEstimate(o, r, e)
}

// checkEstimate refuses a run whose estimate e (its drive resolved as r)
// is more than the memory limit, with one line naming the option that
// sized it: before anything is allocated, rather than the Go runtime's
// fatal out-of-memory error part way.
func checkEstimate(o *options, r controller.Resolved, e memlimit.Estimate) error {
	limit, err := memoryLimit(o.maxMemory)
	if err != nil {
		return err
	}
	if e.Bytes() <= limit.Bytes {
		return nil
	}
	if e.Drive > limit.Bytes || e.Stats < e.Drive {
		opt := "--drive=" + o.drive
		if o.capacity != "" {
			opt = "--capacity=" + o.capacity
		}
		return usage("%s: %w: the drive, %s of flash, takes about %s to simulate (and the run's statistics %s); allowed %s",
			opt, memlimit.ErrTooLarge, units.FormatBytes(r.Config.NAND.Geometry.Bytes()), units.FormatBytes(e.Drive), units.FormatBytes(e.Stats), limit)
	}
	// Blame what sized the series: an option given, else the jobs.
	opt := "the run's statistics"
	switch {
	case o.named["device_log_msec"]:
		opt = fmt.Sprintf("--device_log_msec=%d", o.intervalMsec)
	case o.named["runtime"]:
		opt = "--runtime=" + o.given["runtime"]
	}
	return usage("%s: %w: %d job(s) with series of up to %d intervals keep about %s of statistics (and the drive %s); allowed %s; a longer --device_log_msec or a shorter runtime needs less",
		opt, memlimit.ErrTooLarge, e.Jobs, e.Intervals, units.FormatBytes(e.Stats), units.FormatBytes(e.Drive), limit)
}

// noteOmittedSeries tells on stderr of the results whose series are too
// long for the JSON (fioreport.MaxSeries) when no device log holds them.
func noteOmittedSeries(o *options, stderr interface{ Write([]byte) (int, error) }, rs ...*sim.Result) {
	if !o.json() || o.deviceLog != "" {
		return
	}
	for _, r := range rs {
		if r.Intervals.Len() > fioreport.MaxSeries {
			fmt.Fprintf(stderr, "ftlsim: note: job %s: %s\n", r.Name, fioreport.SeriesOmitted(r.Intervals.Len()))
			return
		}
	}
}
