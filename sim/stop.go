package sim

import "sync/atomic"

// Stopping a run from outside (an interrupted command).
//
// The engine is single-threaded; Stop is the one method another goroutine
// may call. It sets a flag that the run loop reads once per event (an
// atomic load), so that a stop costs nothing while no one asks for it.

// stopFlag is the engine's stop request.
type stopFlag struct{ atomic.Bool }

// Stop asks the engine to stop: the run under way issues nothing more,
// completes the requests it has in flight and returns its results so far,
// marked Result.Interrupted; every later run on the engine stops at once
// (a precondition stopped, the job after it stops too), and RunSteps runs
// no further step. Stop may be called from any goroutine, at any time,
// any number of times; it cannot be undone.
func (e *Engine) Stop() { e.stop.Store(true) }

// Stopped reports whether Stop has been called.
func (e *Engine) Stopped() bool { return e.stop.Load() }

// interrupt stops every stream of a group run once Stop has been called,
// as fio's exitall stops a group: none issues again or waits to, and the
// run ends when the requests in flight have completed. It reports
// whether it did.
func (e *Engine) interrupt(ss []*stream) bool {
	if !e.stop.Load() {
		return false
	}
	for _, s := range ss {
		s.stopAt = min(s.stopAt, e.now)
		s.waiting = false
	}
	return true
}
