package sim

import (
	"fmt"
	"math"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/workload"
)

// group is one RunGroup in progress: its streams, what the drive holds of
// them, and the event loop's state. Each step of the loop is a method.
type group struct {
	e           *Engine
	ss          []*stream
	depth, nq   int           // commands a drive queue holds; drive queues
	outstanding int           // commands at the drive, all streams
	idleSince   int64         // when the drive last had none
	issued      int64         // requests issued, all streams
	interrupted bool          // Stop was asked for
	nextCut     int           // the next of Options.PowerLossNs
	done        workload.Item // the request a waiting source is told of (Completed)
}

// newGroup checks and defaults each stream's options and sets the
// drive's command queues up for them.
func (e *Engine) newGroup(streams []Stream) (*group, error) {
	if e.ctrl == nil {
		return nil, ErrNoDrive
	}
	if len(streams) == 0 {
		return nil, ErrNoProgress
	}
	ss := make([]*stream, len(streams))
	for i, st := range streams {
		o := st.Options
		if st.Source == nil {
			return nil, fmt.Errorf("sim: stream %d (%q) has no source", i, o.Name)
		}
		if o.IntervalNs <= 0 {
			o.IntervalNs = Second
		}
		if o.QueueDepth < 0 || o.RuntimeNs < 0 || o.RampNs < 0 || o.TimeScale < 0 || o.StartDelayNs < 0 || o.ThinkNs < 0 || o.ThinkBlocks < 0 {
			return nil, fmt.Errorf("sim: stream %d (%q): negative option (QueueDepth %d, RuntimeNs %d, RampNs %d, TimeScale %g, StartDelayNs %d, ThinkNs %d, ThinkBlocks %d)",
				i, o.Name, o.QueueDepth, o.RuntimeNs, o.RampNs, o.TimeScale, o.StartDelayNs, o.ThinkNs, o.ThinkBlocks)
		}
		if math.IsNaN(o.TimeScale) || math.IsInf(o.TimeScale, 0) {
			return nil, fmt.Errorf("sim: stream %d (%q): TimeScale %g: must be a finite number", i, o.Name, o.TimeScale)
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
		if w, ok := st.Source.(workload.Waiter); ok && w.Waits() {
			s.gate = w
		}
		if o.RuntimeNs > 0 {
			s.stopAt = s.start + o.RuntimeNs
		}
		s.m = newMetrics(e.ctrl, s.start, o)
		ss[i] = s
	}
	host := e.ctrl.Config().Host
	g := &group{e: e, ss: ss, depth: host.QueueDepth, nq: host.QueueCount(), idleSince: e.now}
	e.ev.reset()
	if len(e.sq) != g.nq {
		e.sq = make([]hostQueue, g.nq)
	}
	for k := range e.sq {
		e.sq[k].wait, e.sq[k].head, e.sq[k].out = e.sq[k].wait[:0], 0, 0
	}
	for i, s := range ss {
		s.queue = i % g.nq
	}
	return g, nil
}

// run is the event loop: each turn starts a delayed stream, takes an
// open-loop arrival, cuts the power or completes a command, whichever
// comes first; then the results.
func (g *group) run() ([]*Result, error) {
	e, ss := g.e, g.ss
	g.interrupted = e.interrupt(ss) // Stop: nothing more is issued
	for i, s := range ss {
		switch {
		case s.o.QueueDepth > 0 && s.start > e.now:
			s.waiting, s.resumeAt = true, s.start // starts later (startdelay)
		case s.o.QueueDepth > 0:
			g.fill(i)
		default:
			s.haveNext = s.pull(e.ctrl)
		}
	}
	if err := g.dispatchAll(); err != nil {
		return nil, err
	}
	for {
		g.interrupted = g.interrupted || e.interrupt(ss)
		did, err := g.resumeLate()
		if !did && err == nil {
			did, err = g.arrive()
		}
		if !did && err == nil {
			did, err = g.powerCut()
		}
		if err != nil {
			return nil, err
		}
		if did {
			continue
		}
		if e.ev.len() == 0 {
			break
		}
		if err := g.complete(); err != nil {
			return nil, err
		}
	}
	return g.results()
}

// dispatch sends queue k's waiting requests to the drive while it has
// room, at most n of them, and reports whether it sent any.
func (g *group) dispatch(k, n int) (bool, error) {
	e := g.e
	q := &e.sq[k]
	sent := false
	for ; n > 0 && q.out < g.depth && q.head < len(q.wait); n-- {
		p := q.wait[q.head]
		q.head++
		sent = true
		if g.outstanding == 0 && e.now > g.idleSince {
			if err := e.ctrl.Idle(g.idleSince, e.now); err != nil {
				return sent, err
			}
		}
		done, err := e.ctrl.Submit(e.now, p.it.Request)
		s := g.ss[p.stream]
		if err == controller.ErrUncorrectable {
			// A medium error: the read completes, failed, as an
			// EIO does for fio with continue_on_error.
			s.m.ioErrors++
			err = nil
			p.it.Verify = false
		}
		if err != nil && s.zoneRefused(err, &p.it, e.now) {
			err, done = nil, e.now // the drive's error status, at once
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
		if g.outstanding == 0 {
			for _, x := range g.ss {
				x.m.busyFrom(e.now)
			}
		}
		g.outstanding++
		q.out++
		s.outstanding++
		s.m.submitted(s.outstanding)
	}
	q.compact()
	return sent, nil
}

// dispatchAll sends every queue's waiting requests while it has room, one
// from each queue in turn (NVMe's round robin).
func (g *group) dispatchAll() error {
	if g.nq == 1 {
		_, err := g.dispatch(0, math.MaxInt)
		return err
	}
	for more := true; more; {
		more = false
		for k := range g.e.sq {
			sent, err := g.dispatch(k, 1)
			if err != nil {
				return err
			}
			more = more || sent
		}
	}
	return nil
}

// enqueue puts stream i's next request on its queue's host side.
func (g *group) enqueue(i int) {
	s := g.ss[i]
	q := &g.e.sq[s.queue]
	q.wait = append(q.wait, pending{it: s.next, iss: g.e.now, stream: int32(i)})
	s.m.issued++
	s.sinceThink++
	s.queued++
	g.issued++
}

// issueMore is whether a closed-loop stream may issue another I/O: with
// think time, not past its block count.
func issueMore(s *stream) bool { return s.o.ThinkNs == 0 || s.sinceThink < s.o.ThinkBlocks }

// fill issues closed-loop stream i's requests until it has its depth
// outstanding; a paced stream stops at a request not yet due and waits
// for its time.
func (g *group) fill(i int) {
	s, e := g.ss[i], g.e
	s.waiting, s.pacing = false, false
	for s.queued < s.o.QueueDepth && issueMore(s) && e.now < s.stopAt {
		if !s.haveNext {
			if !s.pull(e.ctrl) {
				return
			}
			s.haveNext = true
		}
		if s.o.Paced && s.next.At > e.now {
			if s.next.At < s.stopAt {
				s.waiting, s.pacing, s.resumeAt = true, true, s.next.At
			}
			return
		}
		g.enqueue(i)
		s.haveNext = false
	}
}

// resumeLate starts the delayed closed-loop stream due first (startdelay,
// think time) at its time, if that comes before the next completion and
// the next open-loop arrival, and reports whether it did.
func (g *group) resumeLate() (bool, error) {
	e, ss := g.e, g.ss
	late := -1
	for i, s := range ss {
		if s.waiting && (late < 0 || s.resumeAt < ss[late].resumeAt) {
			late = i
		}
	}
	if late < 0 || (e.ev.len() > 0 && ss[late].resumeAt >= e.ev.nextAt()) {
		return false, nil
	}
	for _, s := range ss {
		if s.o.QueueDepth == 0 && s.haveNext && s.next.At < s.stopAt && s.next.At < ss[late].resumeAt {
			return false, nil // an open-loop arrival comes first
		}
	}
	e.now = max(e.now, ss[late].resumeAt)
	if !ss[late].pacing {
		ss[late].sinceThink = 0
	}
	g.fill(late)
	_, err := g.dispatch(ss[late].queue, math.MaxInt)
	return true, err
}

// arrive takes the earliest open-loop arrival, if it comes before the
// next completion, and reports whether it did.
func (g *group) arrive() (bool, error) {
	e, ss := g.e, g.ss
	first := -1
	for i, s := range ss {
		if s.o.QueueDepth == 0 && s.haveNext && s.next.At < s.stopAt && (first < 0 || s.next.At < ss[first].next.At) {
			first = i
		}
	}
	if first < 0 || (e.ev.len() > 0 && ss[first].next.At >= e.ev.nextAt()) {
		return false, nil
	}
	s := ss[first]
	e.now = max(e.now, s.next.At)
	g.enqueue(first)
	s.haveNext = s.pull(e.ctrl)
	_, err := g.dispatch(s.queue, math.MaxInt)
	return true, err
}

// powerCut cuts the drive's power at the next of Options.PowerLossNs, if
// it comes before the next completion, and reports whether it did: the
// commands in flight and waiting fail, the drive mounts again, and the
// streams go on.
func (g *group) powerCut() (bool, error) {
	e, ss := g.e, g.ss
	cuts := ss[0].o.PowerLossNs
	if g.nextCut >= len(cuts) || e.ev.len() == 0 || ss[0].start+cuts[g.nextCut] > e.ev.nextAt() {
		return false, nil
	}
	at := max(e.now, ss[0].start+cuts[g.nextCut])
	g.nextCut++
	e.ev.each(func(ev *event) {
		ss[ev.stream].m.aborted++
		ss[ev.stream].outstanding--
		if gt := ss[ev.stream].gate; gt != nil {
			gt.Completed(&ev.req)
		}
	})
	for _, x := range ss {
		x.queued = 0
	}
	for k := range e.sq {
		q := &e.sq[k]
		for i := range q.wait[q.head:] {
			p := &q.wait[q.head+i]
			ss[p.stream].m.aborted++
			if gt := ss[p.stream].gate; gt != nil {
				gt.Completed(&p.it)
			}
		}
		q.wait, q.head, q.out = q.wait[:0], 0, 0
	}
	e.ev.reset()
	g.outstanding = 0
	e.now = at
	for _, x := range ss {
		x.m.busyTo(e.now)
	}
	rep, err := e.ctrl.PowerLoss(at)
	if err != nil {
		return true, err
	}
	e.now = at + rep.MountNs
	g.idleSince = e.now
	for i, x := range ss {
		x.m.powerLosses = append(x.m.powerLosses, rep)
		x.stalled = false
		if x.o.QueueDepth > 0 && !x.waiting {
			g.fill(i)
		}
	}
	return true, g.dispatchAll()
}

// complete takes the next completion: its stream's statistics, its stop
// conditions (steady state, rate_min, exitall), and what it issues next.
func (g *group) complete() error {
	e, ss := g.e, g.ss
	ev := e.ev.pop()
	e.now = ev.at
	g.outstanding--
	s := ss[ev.stream]
	e.sq[s.queue].out--
	s.outstanding--
	s.queued--
	s.m.complete(ev)
	if s.gate != nil {
		g.done = ev.req // (a pointer to ev would move every completion's event to the heap)
		s.gate.Completed(&g.done)
		s.stalled = false
	}
	if max := s.o.MaxStoredIntervals; max > 0 && s.m.series.Stored() > max {
		return fmt.Errorf("%s: %w: its series keeps more than %d stored intervals (about %d MiB) at %.0f s of simulated time",
			s.o.Name, ErrTooLarge, max, int64(max)*runBytes>>20, float64(e.now-s.start)/1e9)
	}
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
	if g.outstanding == 0 {
		for _, x := range ss {
			x.m.busyTo(e.now)
		}
		g.idleSince = e.now
	}
	switch {
	case s.o.QueueDepth == 0 || s.waiting:
	case !issueMore(s):
		// Think time: once its blocks have all completed, the stream
		// pauses, then issues its next blocks.
		if s.outstanding == 0 && e.now+s.o.ThinkNs < s.stopAt {
			s.waiting, s.resumeAt = true, e.now+s.o.ThinkNs
		}
	default:
		g.fill(int(ev.stream))
	}
	_, err := g.dispatch(s.queue, math.MaxInt)
	if s.gate != nil && err == nil {
		err = g.wake()
	}
	return err
}

// wake asks the streams that wait on requests in flight again, now that
// one completed.
func (g *group) wake() error {
	for i, x := range g.ss {
		if !x.stalled {
			continue
		}
		x.stalled = false
		if x.o.QueueDepth == 0 || x.waiting || !issueMore(x) {
			continue
		}
		g.fill(i)
		if _, err := g.dispatch(x.queue, math.MaxInt); err != nil {
			return err
		}
	}
	return nil
}

// results checks the sources read cleanly and returns each stream's
// result.
func (g *group) results() ([]*Result, error) {
	for _, s := range g.ss {
		if es, ok := s.src.(interface{ Err() error }); ok {
			if err := es.Err(); err != nil {
				return nil, err
			}
		}
	}
	if g.issued == 0 && !g.interrupted && !g.zonedOnly() {
		return nil, ErrNoProgress
	}
	out := make([]*Result, len(g.ss))
	for i, s := range g.ss {
		out[i] = s.m.finish(g.e.now)
		out[i].Interrupted = g.interrupted
		if z, ok := s.src.(interface{ ZoneResets() int64 }); ok {
			if n := z.ZoneResets(); n >= 0 {
				out[i].ZBD, out[i].ZoneResets = true, n
			}
		}
	}
	return out, nil
}

// zonedOnly reports whether every stream is a zonemode=zbd job: such a
// job may end with nothing issued, as fio's reads of zones holding no
// data end at once (its zbd.c reaches end of file).
func (g *group) zonedOnly() bool {
	for _, s := range g.ss {
		z, ok := s.src.(interface{ ZoneResets() int64 })
		if !ok || z.ZoneResets() < 0 {
			return false
		}
	}
	return true
}
