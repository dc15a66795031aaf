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
// FTLSIM_MAX_MEMORY, else half of the machine's available memory
// (package memlimit).
func memoryLimit(flag string) (memlimit.Limit, error) {
	l, err := memlimit.Resolve(flag, os.Getenv, memlimit.ReadMeminfo)
	if err != nil {
		return l, usageError{err}
	}
	return l, nil
}

// statsMemory estimates the memory the statistics of jobs hold, with
// series intervals of intervalNs: each job's latency histograms, its
// series (runtime and ramp over the interval; a job that runs until its
// size is done counts none, its length being unknown until it has run)
// and its histogram log's bins.
func statsMemory(o *options, jobs []*workload.Job, intervalNs int64) (bytes, intervals int64) {
	for _, j := range jobs {
		n := int64(0)
		if j.RuntimeNs > 0 && intervalNs > 0 {
			n = (j.RuntimeNs+j.RampNs)/intervalNs + 1
		}
		intervals = max(intervals, n)
		bytes += sim.StreamMemoryBytes(n)
		if o.histLog != "" {
			bytes += 2 * 2 * histBins * 8 // the interval's bins and the pending one's, reads and writes
		}
	}
	return bytes, intervals
}

// checkMemory refuses a run whose drive (resolved r) and statistics
// (stats bytes, for jobs jobs of up to intervals series intervals) need
// more than the memory limit, with one line naming the option that sized
// it: before anything is allocated, rather than the Go runtime's fatal
// out-of-memory error part way.
func checkMemory(o *options, r controller.Resolved, stats int64, jobs int, intervals int64) error {
	limit, err := memoryLimit(o.maxMemory)
	if err != nil {
		return err
	}
	drive := memlimit.Drive(r, o.trackData)
	if drive+stats <= limit.Bytes {
		return nil
	}
	if drive > limit.Bytes || stats < drive {
		opt := "--drive=" + o.drive
		if o.capacity != "" {
			opt = "--capacity=" + o.capacity
		}
		return usage("%s: %w: the drive, %s of flash, takes about %s to simulate (and the run's statistics %s); allowed %s",
			opt, memlimit.ErrTooLarge, units.FormatBytes(r.Config.NAND.Geometry.Bytes()), units.FormatBytes(drive), units.FormatBytes(stats), limit)
	}
	return usage("--device_log_msec=%d: %w: %d job(s) with series of up to %d intervals keep about %s of statistics (and the drive %s); allowed %s; a longer interval or a shorter runtime needs less",
		o.intervalMsec, memlimit.ErrTooLarge, jobs, intervals, units.FormatBytes(stats), units.FormatBytes(drive), limit)
}

// noteOmittedSeries tells on stderr of the results whose series are too
// long for the JSON (fioreport.MaxSeries) when no device log holds them.
func noteOmittedSeries(o *options, stderr interface{ Write([]byte) (int, error) }, rs ...*sim.Result) {
	if !o.json() || o.deviceLog != "" {
		return
	}
	for _, r := range rs {
		if len(r.Intervals) > fioreport.MaxSeries {
			fmt.Fprintf(stderr, "ftlsim: note: job %s: %s\n", r.Name, fioreport.SeriesOmitted(len(r.Intervals)))
			return
		}
	}
}
