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
	// QueueDepth is the number of requests kept outstanding (closed
	// loop); 0 issues requests at their timestamps (open loop).
	QueueDepth int
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
	// Hooks observe the run as it goes.
	Hooks Hooks
}

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
}

// New returns an engine for drive c at time 0.
func New(c *controller.Controller) *Engine { return &Engine{ctrl: c} }

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

// SecureErase erases the drive and advances the clock past it.
func (e *Engine) SecureErase() {
	e.now = e.ctrl.SecureErase(e.now)
}

// Idle lets the drive sit idle for d nanoseconds (background GC may run).
func (e *Engine) Idle(d int64) error {
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
	waiting     bool  // a closed-loop stream not issuing until resumeAt (startdelay, thinktime)
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
}

func (s *stream) fill(c *controller.Controller) {
	for s.laLen < 3 && !s.exhausted {
		it := &s.la[(s.laHead+s.laLen)&3]
		if !s.src.Next(it) {
			s.exhausted = true
			break
		}
		c.Prefetch(&it.Request, 1)
		s.laLen++
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
	if s.o.QueueDepth == 0 {
		s.next.At = s.start + int64(float64(s.next.At)/s.o.TimeScale)
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
func (e *Engine) RunGroup(streams []Stream) ([]*Result, error) {
	if len(streams) == 0 {
		return nil, ErrNoProgress
	}
	ss := make([]*stream, len(streams))
	for i, st := range streams {
		o := st.Options
		if o.IntervalNs <= 0 {
			o.IntervalNs = Second
		}
		if o.QueueDepth < 0 || o.RuntimeNs < 0 || o.RampNs < 0 || o.TimeScale < 0 || o.StartDelayNs < 0 || o.ThinkNs < 0 || o.ThinkBlocks < 0 {
			return nil, fmt.Errorf("sim: negative option in %+v", o)
		}
		if o.TimeScale == 0 {
			o.TimeScale = 1
		}
		if o.ThinkBlocks == 0 {
			o.ThinkBlocks = 1
		}
		if v, ok := st.Source.(workload.Verifier); ok {
			v.SetDeviceUnit(e.ctrl.UnitBytes())
		}
		s := &stream{src: st.Source, o: o, start: e.now + o.StartDelayNs, stopAt: math.MaxInt64}
		if o.RuntimeNs > 0 {
			s.stopAt = s.start + o.RuntimeNs
		}
		s.m = newMetrics(e.ctrl, s.start, o)
		ss[i] = s
	}
	host := e.ctrl.Config().Host
	depth, nq := host.QueueDepth, host.QueueCount()
	e.ev = e.ev[:0]
	if len(e.sq) != nq {
		e.sq = make([]hostQueue, nq)
	}
	for k := range e.sq {
		e.sq[k].wait, e.sq[k].head, e.sq[k].out = e.sq[k].wait[:0], 0, 0
	}
	for i, s := range ss {
		s.queue = i % nq
	}
	outstanding := 0
	idleSince := e.now
	var issued int64
	// dispatch sends queue k's waiting requests to the drive while it has
	// room, at most n of them, and reports whether it sent any.
	dispatch := func(k, n int) (bool, error) {
		q := &e.sq[k]
		sent := false
		for ; n > 0 && q.out < depth && q.head < len(q.wait); n-- {
			p := q.wait[q.head]
			q.head++
			sent = true
			if outstanding == 0 && e.now > idleSince {
				if err := e.ctrl.Idle(idleSince, e.now); err != nil {
					return sent, err
				}
			}
			done, err := e.ctrl.Submit(e.now, p.it.Request)
			s := ss[p.stream]
			if err == controller.ErrUncorrectable {
				// A medium error: the read completes, failed, as an
				// EIO does for fio with continue_on_error.
				s.m.ioErrors++
				err = nil
				p.it.Verify = false
			}
			if err == nil && p.it.Verify {
				err = e.verify(s, &p.it)
			}
			if err != nil {
				return sent, fmt.Errorf("%s request %d (%s %d bytes at %d): %w", s.o.Name, s.m.issued, p.it.Op, p.it.Length, p.it.Offset, err)
			}
			e.seq++
			e.ev.push(event{at: done, seq: e.seq, req: p.it, iss: p.iss, stream: p.stream})
			if outstanding == 0 {
				for _, x := range ss {
					x.m.busyFrom(e.now)
				}
			}
			outstanding++
			q.out++
			s.outstanding++
			s.m.submitted(s.outstanding)
		}
		q.compact()
		return sent, nil
	}
	// dispatchAll sends every queue's waiting requests while it has
	// room, one from each queue in turn (NVMe's round robin).
	dispatchAll := func() error {
		if nq == 1 {
			_, err := dispatch(0, math.MaxInt)
			return err
		}
		for more := true; more; {
			more = false
			for k := range e.sq {
				sent, err := dispatch(k, 1)
				if err != nil {
					return err
				}
				more = more || sent
			}
		}
		return nil
	}
	enqueue := func(i int) {
		q := &e.sq[ss[i].queue]
		q.wait = append(q.wait, pending{it: ss[i].next, iss: e.now, stream: int32(i)})
		ss[i].m.issued++
		ss[i].sinceThink++
		issued++
	}
	// issueMore is whether a closed-loop stream may issue another I/O:
	// with think time, not past its block count.
	issueMore := func(s *stream) bool { return s.o.ThinkNs == 0 || s.sinceThink < s.o.ThinkBlocks }
	// fill starts a closed-loop stream: its queue filled to its depth.
	fill := func(i int) {
		s := ss[i]
		s.waiting = false
		for k := 0; k < s.o.QueueDepth && issueMore(s) && e.now < s.stopAt && s.pull(e.ctrl); k++ {
			enqueue(i)
		}
	}
	interrupted := e.interrupt(ss) // Stop: nothing more is issued
	nextCut := 0                   // the next of Options.PowerLossNs
	for i, s := range ss {
		switch {
		case s.o.QueueDepth > 0 && s.start > e.now:
			s.waiting, s.resumeAt = true, s.start // starts later (startdelay)
		case s.o.QueueDepth > 0:
			fill(i)
		default:
			s.haveNext = s.pull(e.ctrl)
		}
	}
	if err := dispatchAll(); err != nil {
		return nil, err
	}
	for {
		interrupted = interrupted || e.interrupt(ss)
		// A delayed closed-loop stream starts at its time, if before the
		// next completion and the next open-loop arrival.
		late := -1
		for i, s := range ss {
			if s.waiting && (late < 0 || s.resumeAt < ss[late].resumeAt) {
				late = i
			}
		}
		if late >= 0 && (len(e.ev) == 0 || ss[late].resumeAt < e.ev[0].at) {
			early := false
			for _, s := range ss {
				early = early || (s.o.QueueDepth == 0 && s.haveNext && s.next.At < s.stopAt && s.next.At < ss[late].resumeAt)
			}
			if !early {
				e.now = max(e.now, ss[late].resumeAt)
				ss[late].sinceThink = 0
				fill(late)
				if _, err := dispatch(ss[late].queue, math.MaxInt); err != nil {
					return nil, err
				}
				continue
			}
		}
		// Open loop: the earliest next arrival, if before the next completion.
		first := -1
		for i, s := range ss {
			if s.o.QueueDepth == 0 && s.haveNext && s.next.At < s.stopAt && (first < 0 || s.next.At < ss[first].next.At) {
				first = i
			}
		}
		if first >= 0 && (len(e.ev) == 0 || ss[first].next.At < e.ev[0].at) {
			s := ss[first]
			e.now = max(e.now, s.next.At)
			enqueue(first)
			s.haveNext = s.pull(e.ctrl)
			if _, err := dispatch(s.queue, math.MaxInt); err != nil {
				return nil, err
			}
			continue
		}
		if cuts := ss[0].o.PowerLossNs; nextCut < len(cuts) && len(e.ev) > 0 && ss[0].start+cuts[nextCut] <= e.ev[0].at {
			// A power cut: the commands in flight and waiting fail, the
			// drive mounts again, and the streams go on.
			at := max(e.now, ss[0].start+cuts[nextCut])
			nextCut++
			for _, ev := range e.ev {
				ss[ev.stream].m.aborted++
				ss[ev.stream].outstanding--
			}
			for k := range e.sq {
				q := &e.sq[k]
				for _, p := range q.wait[q.head:] {
					ss[p.stream].m.aborted++
				}
				q.wait, q.head, q.out = q.wait[:0], 0, 0
			}
			e.ev, outstanding = e.ev[:0], 0
			e.now = at
			for _, x := range ss {
				x.m.busyTo(e.now)
			}
			rep, err := e.ctrl.PowerLoss(at)
			if err != nil {
				return nil, err
			}
			e.now = at + rep.MountNs
			idleSince = e.now
			for i, x := range ss {
				x.m.powerLosses = append(x.m.powerLosses, rep)
				if x.o.QueueDepth > 0 && !x.waiting {
					fill(i)
				}
			}
			if err := dispatchAll(); err != nil {
				return nil, err
			}
			continue
		}
		if len(e.ev) == 0 {
			break
		}
		ev := e.ev.pop()
		e.now = ev.at
		outstanding--
		s := ss[ev.stream]
		e.sq[s.queue].out--
		s.outstanding--
		s.m.complete(ev)
		if s.m.ss != nil && s.m.ss.done && s.stopAt > e.now {
			s.stopAt = e.now // steady: fio stops the job
		}
		if s.o.MinBytesPerSec > 0 || s.o.MinIOPS > 0 {
			s.checkMinRate(e.now, ev.req.Length)
		}
		if s.o.ExitAll && s.outstanding == 0 && !s.waiting && (e.now >= s.stopAt || (s.exhausted && s.laLen == 0 && !s.haveNext)) {
			// fio's exitall: this job is done, and so are the others.
			for _, x := range ss {
				x.stopAt = min(x.stopAt, e.now)
				x.waiting = false
			}
		}
		if outstanding == 0 {
			for _, x := range ss {
				x.m.busyTo(e.now)
			}
			idleSince = e.now
		}
		switch {
		case s.o.QueueDepth == 0 || s.waiting:
		case !issueMore(s):
			// Think time: once its blocks have all completed, the stream
			// pauses, then issues its next blocks.
			if s.outstanding == 0 && e.now+s.o.ThinkNs < s.stopAt {
				s.waiting, s.resumeAt = true, e.now+s.o.ThinkNs
			}
		case e.now < s.stopAt && s.pull(e.ctrl):
			enqueue(int(ev.stream))
		}
		if _, err := dispatch(s.queue, math.MaxInt); err != nil {
			return nil, err
		}
	}
	for _, s := range ss {
		if es, ok := s.src.(interface{ Err() error }); ok {
			if err := es.Err(); err != nil {
				return nil, err
			}
		}
	}
	if issued == 0 && !interrupted {
		return nil, ErrNoProgress
	}
	out := make([]*Result, len(ss))
	for i, s := range ss {
		out[i] = s.m.finish(e.now)
		out[i].Interrupted = interrupted
	}
	return out, nil
}

// RunJob resolves a fio-style job against the drive and runs it: closed
// loop at the job's iodepth, for its runtime (ramp excluded from the
// statistics), with fio's stop rules.
func (e *Engine) RunJob(j *workload.Job, hooks Hooks) (*Result, error) {
	if err := j.Resolve(e.ctrl.CapacityBytes()); err != nil {
		return nil, err
	}
	o := JobOptions(j)
	o.Hooks = hooks
	return e.Run(workload.NewGenerator(j), o)
}

// JobOptions are the run options a resolved job asks for: its name, queue
// depth (0 when paced: open loop), runtime, ramp, start delay, think time
// and steady-state criterion. Callers add the series interval and hooks.
func JobOptions(j *workload.Job) Options {
	return Options{
		Name: j.Name, QueueDepth: j.QueueDepth(), RuntimeNs: j.RuntimeNs, RampNs: j.RampNs, StartDelayNs: j.StartDelayNs,
		ThinkNs: j.ThinkNs, ThinkBlocks: j.ThinkBlocks, SteadyState: j.SteadyState,
		Percentiles: j.PercentileList, LatPercentiles: j.LatPercentiles, NoPercentiles: j.NoClatPercentiles && !j.LatPercentiles,
		ExitAll: j.ExitAll, PowerLossNs: j.PowerLossNs, MinBytesPerSec: j.RateMinBytes, MinIOPS: int64(j.RateMinIOPS), RateCycleNs: j.RateCycleNs,
	}
}

// Precondition runs the jobs of p (none, a fill, or a fill and torture).
func (e *Engine) Precondition(p workload.Precondition) error {
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
