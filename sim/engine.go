package sim

import (
	"errors"
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

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
	// IntervalNs is the length of one series interval (default 1 s).
	IntervalNs int64
	// TimeScale divides open-loop timestamps (2 replays twice as fast).
	TimeScale float64
	// Hooks observe the run as it goes.
	Hooks Hooks
}

// Completion describes one finished request, for Hooks.OnComplete.
type Completion struct {
	Op       controller.Op
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

// event is a pending completion.
type event struct {
	at  int64
	seq uint64
	req workload.Item
	iss int64 // when it was issued (arrival at the host queue)
}

// events is a min-heap on (at, seq).
type events []event

func (h events) less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}

func (h *events) push(e event) {
	*h = append(*h, e)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *events) pop() event {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a.less(l, m) {
			m = l
		}
		if l+1 < n && a.less(l+1, m) {
			m = l + 1
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// Engine runs workloads against one drive, keeping the drive's clock.
type Engine struct {
	ctrl *controller.Controller
	now  int64
	seq  uint64
	ev   events
	q    []pending // host queue (FIFO ring)
	qh   int
}

type pending struct {
	it  workload.Item
	iss int64
}

// New returns an engine for drive c at time 0.
func New(c *controller.Controller) *Engine { return &Engine{ctrl: c} }

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
	if o.IntervalNs <= 0 {
		o.IntervalNs = Second
	}
	if o.QueueDepth < 0 || o.RuntimeNs < 0 || o.RampNs < 0 || o.TimeScale < 0 {
		return nil, fmt.Errorf("sim: negative option in %+v", o)
	}
	if o.TimeScale == 0 {
		o.TimeScale = 1
	}
	ncq := e.ctrl.Config().Host.QueueDepth
	start := e.now
	m := newMetrics(e.ctrl, start, o)
	stopAt := int64(math.MaxInt64)
	if o.RuntimeNs > 0 {
		stopAt = start + o.RuntimeNs
	}
	e.ev, e.q, e.qh = e.ev[:0], e.q[:0], 0
	outstanding := 0
	idleSince := e.now
	exhausted := false
	var next workload.Item
	haveNext := false
	// The source is read two requests ahead so that the drive can start
	// loading the mapping state those requests will touch (see
	// controller.Prefetch); the requests and their order are unchanged.
	var la [4]workload.Item
	laHead, laLen := 0, 0
	fill := func() {
		for laLen < 3 && !exhausted {
			it := &la[(laHead+laLen)&3]
			if !src.Next(it) {
				exhausted = true
				break
			}
			e.ctrl.Prefetch(&it.Request, 1)
			laLen++
		}
	}
	pull := func() bool {
		fill()
		if laLen == 0 {
			return false
		}
		next = la[laHead]
		laHead = (laHead + 1) & 3
		laLen--
		if laLen > 0 {
			e.ctrl.Prefetch(&la[laHead].Request, 2)
		}
		if o.QueueDepth == 0 {
			next.At = start + int64(float64(next.At)/o.TimeScale)
		}
		return true
	}
	dispatch := func() error {
		for outstanding < ncq && e.qh < len(e.q) {
			p := e.q[e.qh]
			e.qh++
			if outstanding == 0 && e.now > idleSince {
				if err := e.ctrl.Idle(idleSince, e.now); err != nil {
					return err
				}
			}
			done, err := e.ctrl.Submit(e.now, p.it.Request)
			if err != nil {
				return fmt.Errorf("request %d (%s %d bytes at %d): %w", m.issued, p.it.Op, p.it.Length, p.it.Offset, err)
			}
			e.seq++
			e.ev.push(event{at: done, seq: e.seq, req: p.it, iss: p.iss})
			if outstanding == 0 {
				m.busyFrom(e.now)
			}
			outstanding++
			m.submitted(outstanding)
		}
		if e.qh == len(e.q) {
			e.q, e.qh = e.q[:0], 0
		}
		return nil
	}
	enqueue := func(it workload.Item) {
		e.q = append(e.q, pending{it: it, iss: e.now})
		m.issued++
	}
	// Closed loop: fill the queue.
	if o.QueueDepth > 0 {
		for i := 0; i < o.QueueDepth && e.now < stopAt && pull(); i++ {
			enqueue(next)
		}
	} else {
		haveNext = pull()
	}
	if err := dispatch(); err != nil {
		return nil, err
	}
	for {
		// Open loop: the next arrival, if it comes before the next completion.
		if o.QueueDepth == 0 && haveNext && next.At < stopAt && (len(e.ev) == 0 || next.At < e.ev[0].at) {
			e.now = max(e.now, next.At)
			enqueue(next)
			haveNext = pull()
			if err := dispatch(); err != nil {
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
		m.complete(ev)
		if outstanding == 0 {
			m.busyTo(e.now)
			idleSince = e.now
		}
		if o.QueueDepth > 0 && e.now < stopAt && pull() {
			enqueue(next)
		}
		if err := dispatch(); err != nil {
			return nil, err
		}
	}
	if es, ok := src.(interface{ Err() error }); ok {
		if err := es.Err(); err != nil {
			return nil, err
		}
	}
	if m.issued == 0 {
		return nil, ErrNoProgress
	}
	return m.finish(e.now), nil
}

// latency accumulates one direction's statistics.
type latency struct {
	ios, bytes int64
	min, max   int64
	sum, sumsq float64
	h          *hdrhistogram.Histogram
}

func newLatency() *latency {
	return &latency{h: hdrhistogram.New(1, 3600*Second, 3), min: math.MaxInt64}
}

func (l *latency) add(ns, bytes int64) {
	l.ios++
	l.bytes += bytes
	l.min = min(l.min, ns)
	l.max = max(l.max, ns)
	f := float64(ns)
	l.sum += f
	l.sumsq += f * f
	_ = l.h.RecordValue(max(1, min(ns, 3600*Second)))
}

// RunJob resolves a fio-style job against the drive and runs it: closed
// loop at the job's iodepth, for its runtime (ramp excluded from the
// statistics), with fio's stop rules.
func (e *Engine) RunJob(j *workload.Job, hooks Hooks) (*Result, error) {
	if err := j.Resolve(e.ctrl.CapacityBytes()); err != nil {
		return nil, err
	}
	return e.Run(workload.NewGenerator(j), Options{
		Name: j.Name, QueueDepth: j.IODepth, RuntimeNs: j.RuntimeNs, RampNs: j.RampNs, Hooks: hooks,
	})
}

// Precondition runs the jobs of p (none, a fill, or a fill and torture).
func (e *Engine) Precondition(p workload.Precondition) error {
	for _, j := range p.Jobs() {
		if _, err := e.RunJob(j, Hooks{}); err != nil {
			return fmt.Errorf("precondition %s: %w", j.Name, err)
		}
	}
	return nil
}
