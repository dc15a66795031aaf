package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ftlsim/ftlsim/sim"
)

// exitInterrupted is the exit status of a run stopped by SIGINT or
// SIGTERM (128 + SIGINT, as shells report a Ctrl-C).
const exitInterrupted = 130

// errInterrupted is returned, after the results so far are written, when
// a run was stopped early; Main exits 130 for errors that wrap it.
var errInterrupted = errors.New("interrupted")

// errInterruptedRun is errInterrupted for a run whose results were
// written.
var errInterruptedRun = fmt.Errorf("%w: the results so far are written, marked interrupted", errInterrupted)

// WithContext makes the command stop its runs when ctx is done, as it
// does on SIGINT or SIGTERM: the simulation stops at its next event, the
// results so far are written, marked interrupted, and Main returns 130.
// Without it, Main watches SIGINT and SIGTERM itself while a simulation
// runs; with it, Main leaves the process's signals alone.
func WithContext(ctx context.Context) Option { return func(s *settings) { s.ctx = ctx } }

// watch returns the context that stops the command's runs, and a function
// to call once they are over: the one given with WithContext, or else one
// done on the first SIGINT or SIGTERM. A second signal ends the process
// at once, as without ftlsim's handler: the handler is removed when the
// first arrives.
func (s *settings) watch() (context.Context, func()) {
	if s.ctx != nil {
		return s.ctx, func() {}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// stopOn stops engine e when ctx is done; the returned function releases
// the watch.
func stopOn(ctx context.Context, e *sim.Engine) func() {
	if ctx.Err() != nil {
		e.Stop() // done already: before the first event, not when AfterFunc's goroutine runs
	}
	release := context.AfterFunc(ctx, e.Stop)
	return func() { release() }
}

// interrupted returns errInterrupted when any of rs was cut short, else
// err.
func interrupted(err error, rs ...*sim.Result) error {
	for _, r := range rs {
		if r != nil && r.Interrupted {
			return errInterruptedRun
		}
	}
	return err
}
