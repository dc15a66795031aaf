package sim

import (
	"errors"
	"fmt"
	"math"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/workload"
)

// Second is one second of simulated time.
const Second = int64(1e9)

// Options control one run.
type Options struct {
	// Name labels the run (fio's job name).
	Name string
	// LBA is the LBA format of the namespace the requests address: with
	// an extended one (workload.LBAFormat), their offsets and lengths
	// count each block's metadata with its data, and the engine gives
	// the drive the data bytes; the result's byte counts and the
	// completions are in the requests' own bytes.
	LBA workload.LBAFormat
	// QueueDepth is the number of requests kept outstanding (closed
	// loop); 0 issues requests at their timestamps (open loop).
	QueueDepth int
	// Paced makes a closed-loop stream's request times (workload.Item.At,
	// from the stream's start) the earliest each may be issued, as fio's
	// rate and rate_iops do: a rate is a ceiling. The stream never has
	// more than QueueDepth requests outstanding; when the drive is slower
	// than the pace, it runs at the drive's speed and RuntimeNs still
	// ends it. RateBytes and RateIOPS are the ceilings the pace came
	// from, for Result.RateNotReached (0: not set).
	Paced               bool
	RateBytes, RateIOPS int64
	// RuntimeNs stops issuing requests after this much simulated time;
	// 0 runs until the source is exhausted.
	RuntimeNs int64
	// RampNs is excluded from statistics (but not from the series).
	RampNs int64
	// StartDelayNs holds the stream back this long after the group starts
	// (fio's startdelay); its runtime, statistics and series start then.
	StartDelayNs int64
	// ThinkNs pauses a closed-loop stream after every ThinkBlocks I/Os
	// (default 1) have completed, before it issues more (fio's thinktime,
	// thinktime_blocks): with one block, at most one I/O is in flight.
	ThinkNs     int64
	ThinkBlocks int
	// SteadyState stops the stream once it is steady by fio's criterion,
	// checked each series interval (Result.SteadyState says what it
	// found). Zero: no detection.
	SteadyState workload.SteadyState
	// IntervalNs is the length of one series interval (default 1 s).
	IntervalNs int64
	// TimeScale divides open-loop timestamps (2 replays twice as fast).
	TimeScale float64
	// Percentiles are the latency percentiles reported (fio's
	// percentile_list; nil: DefaultPercentiles). LatPercentiles reports
	// them as total latency's (fio's lat_percentiles; submission costs
	// nothing here, so they are the same figures), NoPercentiles leaves
	// them out (clat_percentiles=0).
	Percentiles                   []float64
	LatPercentiles, NoPercentiles bool
	// MinBytesPerSec and MinIOPS fail the stream, which then stops, when
	// its completions over a window of RateCycleNs (default 1 s) fall
	// below them (fio's rate_min, rate_iops_min, ratecycle);
	// Result.RateMinFailed says so.
	MinBytesPerSec, MinIOPS int64
	RateCycleNs             int64
	// PowerLossNs cuts the drive's power at these times from the start
	// (in order; the group's first stream's apply): the commands in
	// flight fail (Result.AbortedIOs), the drive mounts again
	// (controller.PowerLoss) and the run goes on (Result.PowerLosses).
	// The drive must track data (nand.Config.TrackData).
	PowerLossNs []int64
	// ExitAll stops the other streams of the group, once their I/Os in
	// flight complete, when this one finishes (fio's exitall).
	ExitAll bool
	// MaxStoredIntervals bounds the series a stream keeps (its stored
	// runs, Series.Stored; 0: no bound): a run whose series grows past it
	// — a long run of think times, each interval unlike the one before —
	// stops with an error wrapping ErrTooLarge, rather than growing until
	// the process runs out of memory.
	MaxStoredIntervals int
	// Hooks observe the run as it goes.
	Hooks Hooks
}

// ErrTooLarge is wrapped by the error of a run that would outgrow
// Options.MaxStoredIntervals.
var ErrTooLarge = errors.New("not enough memory")

// SeriesRunBytes is the memory one stored run of a series takes (see
// Series): what Options.MaxStoredIntervals counts in.
const SeriesRunBytes = runBytes

// Completion describes one finished request, for Hooks.OnComplete.
type Completion struct {
	Op       blockio.Op
	Offset   int64
	Length   int64
	IssuedNs int64 // from the start of the run
	DoneNs   int64 // from the start of the run
}

// Hooks are optional observers; nil fields are skipped.
type Hooks struct {
	OnComplete func(Completion)
	OnInterval func(Interval)
}

// Engine runs workloads against one drive, keeping the drive's clock.
//
// An Engine is not safe for concurrent use: one goroutine runs it (Stop
// and Stopped excepted, which any goroutine may call at any time). Run
// several drives at once with an Engine each. The zero Engine has no
// drive: its runs return ErrNoDrive; build one with New or FreshDrive.
type Engine struct {
	ctrl *controller.Controller
	now  int64
	seq  uint64
	ev   events
	// sq are the drive's command queues (SATA: one; NVMe: Host.Queues)
	// as the host sees them: each holds at most Host.QueueDepth commands
	// at the drive, and the requests beyond wait on the host.
	sq []hostQueue
	// stop is Stop's request (stop.go): the process's, not the drive's
	// state, so snapshots leave it out.
	stop stopFlag `snapshot:"-"`
	// restored says the state came from LoadState: a run that trips over
	// it (an index out of range no load-time check ties) is refused as a
	// corrupt state, not a crash.
	restored bool `snapshot:"-"`
}

// New returns an engine for drive c at time 0. With c nil, the engine's
// runs return ErrNoDrive.
func New(c *controller.Controller) *Engine { return &Engine{ctrl: c} }

// ErrNoDrive is returned by the runs of an engine that has no drive (the
// zero Engine, or New(nil)).
var ErrNoDrive = errors.New("sim: the engine has no drive (build it with sim.New(controller) or sim.FreshDrive)")

// FreshDrive builds the drive called name (a preset or a description
// file), secure-erases it, and returns an engine for it.
func FreshDrive(name string) (*Engine, error) {
	cfg, err := controller.Lookup(name)
	if err != nil {
		return nil, err
	}
	d, err := controller.New(cfg)
	if err != nil {
		return nil, err
	}
	e := New(d)
	e.SecureErase()
	return e, nil
}

// Now is the engine's simulated time.
func (e *Engine) Now() int64 { return e.now }

// Controller returns the drive.
func (e *Engine) Controller() *controller.Controller { return e.ctrl }

// SecureErase erases the drive and advances the clock past it. It panics
// with a sim: message on an engine without a drive (see ErrNoDrive).
func (e *Engine) SecureErase() {
	if e.ctrl == nil {
		panic(ErrNoDrive.Error())
	}
	e.now = e.ctrl.SecureErase(e.now)
}

// Idle lets the drive sit idle for d nanoseconds (background GC may run);
// d must not be negative, nor take the clock past math.MaxInt64.
func (e *Engine) Idle(d int64) error {
	if e.ctrl == nil {
		return ErrNoDrive
	}
	if d < 0 || d > math.MaxInt64-e.now {
		return fmt.Errorf("sim: Idle(%d): allowed 0 to %d ns", d, math.MaxInt64-e.now)
	}
	err := e.ctrl.Idle(e.now, e.now+d)
	e.now += d
	return err
}

// ErrNoProgress is returned when a run issues nothing.
var ErrNoProgress = errors.New("sim: the workload issued no request")

// Run drives the workload from src until it is exhausted or the runtime
// ends, then waits for every outstanding request.
func (e *Engine) Run(src workload.Source, o Options) (*Result, error) {
	rs, err := e.RunGroup([]Stream{{Source: src, Options: o}})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// Stream is one workload of a group run, with its own options, like one
// job of a fio group.
type Stream struct {
	Source  workload.Source
	Options Options
}

// stream is a Stream being run.
type stream struct {
	src         workload.Source
	o           Options
	m           *metrics
	start       int64
	stopAt      int64
	outstanding int   // this stream's requests in flight (fio's iodepth level)
	queue       int   // the drive's command queue it submits to
	queued      int   // this stream's requests issued and not yet completed (at the drive or waiting on the host)
	waiting     bool  // a closed-loop stream not issuing until resumeAt (startdelay, thinktime, pacing)
	pacing      bool  // the wait is for the next request's paced time (Options.Paced), not a think time
	resumeAt    int64 // when a waiting stream issues again
	sinceThink  int   // I/Os issued since its last think time
	exhausted   bool
	next        workload.Item
	haveNext    bool
	// The source is read two requests ahead so that the drive can start
	// loading the mapping state those requests will touch (see
	// controller.Prefetch); the requests and their order are unchanged.
	la     [4]workload.Item
	laHead int
	laLen  int
	// rate_min: the current rate cycle's start and completions
	rcStart, rcBytes, rcIOs int64
	// gate is the source when its requests wait on those in flight
	// (workload.Waiter); stalled: it waits now.
	gate    workload.Waiter
	stalled bool
}

func (s *stream) fill(c *controller.Controller) {
	ahead := 3
	if s.gate != nil {
		ahead = 1 // what it issues depends on what completes first
	}
	for s.laLen < ahead && !s.exhausted && !s.stalled {
		it := &s.la[(s.laHead+s.laLen)&3]
		if !s.src.Next(it) {
			if s.gate != nil && s.gate.Stalled() {
				s.stalled = true
			} else {
				s.exhausted = true
			}
			break
		}
		if s.o.LBA.Extended() {
			toDevice(&it.Request, s.o.LBA)
		}
		c.Prefetch(&it.Request, 1)
		s.laLen++
	}
}

// toDevice converts r from the addresses of an extended LBA format to the
// drive's data bytes.
func toDevice(r *blockio.Request, f workload.LBAFormat) {
	r.Offset, r.Length = f.DeviceBytes(r.Offset), f.DeviceBytes(r.Length)
	for i := range r.Ranges {
		r.Ranges[i].Offset, r.Ranges[i].Length = f.DeviceBytes(r.Ranges[i].Offset), f.DeviceBytes(r.Ranges[i].Length)
	}
}

// pull takes the next request into s.next.
func (s *stream) pull(c *controller.Controller) bool {
	s.fill(c)
	if s.laLen == 0 {
		return false
	}
	s.next = s.la[s.laHead]
	s.laHead = (s.laHead + 1) & 3
	s.laLen--
	if s.laLen > 0 {
		c.Prefetch(&s.la[s.laHead].Request, 2)
	}
	switch {
	case s.o.QueueDepth == 0:
		s.next.At = s.start + int64(float64(s.next.At)/s.o.TimeScale)
	case s.o.Paced:
		s.next.At = satAdd(s.start, s.next.At)
	}
	return true
}

// RunGroup runs several workloads at once on the drive, as fio runs the
// jobs of one group: each keeps its own queue depth (or timestamps),
// runtime and statistics, and all share the drive's command queues:
// stream k submits to queue k mod Host.QueueCount (SATA has one; NVMe's
// numjobs clones spread over its queue pairs). Each queue holds at most
// Host.QueueDepth commands at the drive; requests beyond wait on the host,
// in order, and their latency counts from when they were issued. At one
// instant, the firmware takes one command from each queue with any in
// turn (NVMe's round-robin arbitration); later arrivals queue for its
// time in arrival order. The device figures of every result cover the
// whole group.
func (e *Engine) RunGroup(streams []Stream) (rs []*Result, err error) {
	if e.restored {
		defer func() {
			if r := recover(); r != nil {
				rs, err = nil, fmt.Errorf("%w: the drive failed on it: %v", ErrCorruptState, r)
			}
		}()
	}
	g, err := e.newGroup(streams)
	if err != nil {
		return nil, err
	}
	return g.run()
}

// RunJob resolves a fio-style job against the drive and runs it: closed
// loop at the job's iodepth, for its runtime (ramp excluded from the
// statistics), with fio's stop rules.
func (e *Engine) RunJob(j *workload.Job, hooks Hooks) (*Result, error) {
	if e.ctrl == nil {
		return nil, ErrNoDrive
	}
	if err := e.resolve(j); err != nil {
		return nil, err
	}
	o := JobOptions(j)
	o.Hooks = hooks
	return e.Run(workload.NewGenerator(j), o)
}

// resolve resolves job j against the drive: its range against the
// capacity, its placement identifiers against those the drive reports.
func (e *Engine) resolve(j *workload.Job) error {
	if err := j.Resolve(e.ctrl.CapacityBytes()); err != nil {
		return err
	}
	return j.CheckPlacement(e.ctrl.PlacementIDs())
}

// JobOptions are the run options a resolved job asks for: its name, queue
// depth (paced by its rate, if it has one), runtime, ramp, start delay, think time
// and steady-state criterion. Callers add the series interval and hooks.
func JobOptions(j *workload.Job) Options {
	return Options{
		Name: j.Name, QueueDepth: j.QueueDepth(), Paced: j.RateBytes > 0 || j.RateIOPS > 0, RateBytes: j.RateBytes, RateIOPS: int64(j.RateIOPS), RuntimeNs: j.RuntimeNs, RampNs: j.RampNs, StartDelayNs: j.StartDelayNs,
		ThinkNs: j.ThinkNs, ThinkBlocks: j.ThinkBlocks, SteadyState: j.SteadyState,
		Percentiles: j.PercentileList, LatPercentiles: j.LatPercentiles, NoPercentiles: j.NoClatPercentiles && !j.LatPercentiles,
		ExitAll: j.ExitAll, PowerLossNs: j.PowerLossNs, MinBytesPerSec: j.RateMinBytes, MinIOPS: int64(j.RateMinIOPS), RateCycleNs: j.RateCycleNs,
		LBA: j.LBA,
	}
}

// Precondition runs the jobs of p (none, a fill, or a fill and torture).
func (e *Engine) Precondition(p workload.Precondition) error {
	if e.ctrl == nil {
		return ErrNoDrive
	}
	jobs, err := p.Jobs()
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if _, err := e.RunJob(j, Hooks{}); err != nil {
			return fmt.Errorf("precondition %s: %w", j.Name, err)
		}
	}
	return nil
}
