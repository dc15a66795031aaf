package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/snapshot"
	"github.com/ftlsim/ftlsim/internal/units"
)

// ErrBusy is returned by SaveState while requests are in flight.
var ErrBusy = errors.New("sim: the engine has requests in flight; save its state between runs")

// SaveState writes the state of the engine and its drive — the clock, and
// every value the controller, the FTL and the flash array hold — to w,
// and returns the bytes written (the length LoadState needs). The engine
// must be between runs.
func (e *Engine) SaveState(w io.Writer) (int64, error) {
	if e.ctrl == nil {
		return 0, ErrNoDrive
	}
	if e.ev.len() > 0 {
		return 0, ErrBusy
	}
	for k := range e.sq {
		if e.sq[k].queued() {
			return 0, ErrBusy
		}
	}
	return snapshot.Encode(w, e)
}

// LoadState restores the state SaveState wrote (n bytes) into e, an
// engine whose drive was built from the same description: runs from e
// then give the results runs from the saved engine would have given. The
// description may differ in the values that decide nothing in a state
// between runs (controller.StateClass: the firmware's and controller's
// costs and rates, and, on a drive that has never collected, how much a
// collection restores and how fast it paces): the drive loaded keeps
// the times the state booked and runs at its own costs from the load on
// (controller.Controller.Retune). A state written by a build whose types
// differ, or that does not fit the drive (another description: capacity,
// geometry, GC policy, any other field but the seed, whose effects the
// state brings along), is refused with ErrOtherDrive or the codec's error; a state that decodes
// but is inconsistent (its bytes changed after it was written) with
// ErrCorruptState, at the load where a check sees it, or by the run that
// trips over it. After an error e must be dropped.
func (e *Engine) LoadState(r io.Reader, n int64) error {
	if e.ctrl == nil {
		return ErrNoDrive
	}
	return e.load(r, n, true)
}

// load decodes a state into e, checks it when check is set, and gives
// the drive the engine's own costs (see LoadState).
func (e *Engine) load(r io.Reader, n int64, check bool) error {
	wantCfg := e.ctrl.Config()
	want, err := description(e.ctrl)
	if err != nil {
		return err
	}
	wantName, wantCap := wantCfg.Name, e.ctrl.CapacityBytes()
	if err := snapshot.Decode(r, n, e); err != nil {
		return err
	}
	got, err := description(e.ctrl)
	if err != nil {
		return err
	}
	if check {
		if err := e.checkState(); err != nil {
			return err
		}
	}
	if !bytes.Equal(got, want) {
		if wantCap != e.ctrl.CapacityBytes() || wantName != e.ctrl.Config().Name {
			return fmt.Errorf("%w: the state is of %s (%s user), the engine's drive is %s (%s user)", ErrOtherDrive,
				e.ctrl.Config().Name, units.FormatBytes(e.ctrl.CapacityBytes()), wantName, units.FormatBytes(wantCap))
		}
		if err := e.ctrl.Retune(wantCfg, e.now); err != nil {
			return fmt.Errorf("%w (%s): %w", ErrOtherDrive, wantName, err)
		}
	}
	e.restored = true
	return nil
}

// ErrOtherDrive is returned by LoadState for a state saved from a drive
// built from another description.
var ErrOtherDrive = errors.New("sim: the saved state is of another drive")

// description is the text of c's description but for its seed: the seed
// is state (the firmware's random choices and factory bad blocks come from
// it, and a state brings them along), the rest says which drive it is.
func description(c *controller.Controller) ([]byte, error) {
	cfg := c.Config()
	cfg.Seed = 0
	return cfg.Marshal()
}

// ErrCorruptState is returned by LoadState for a state that decodes but
// is not one a drive can be in: its checksum was right, its content is
// not (a mapping past the flash, counts that disagree).
var ErrCorruptState = errors.New("sim: the saved state is inconsistent")

// checkState validates a decoded state before it is used: the engine's
// own (a clock, no request in flight) and the FTL's invariants against
// the flash array's (ftl.FTL.CheckInvariants). Values no invariant ties
// may still be wrong; a check that trips over one (an index out of range)
// is an inconsistency too, not a crash.
func (e *Engine) checkState() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrCorruptState, r)
		}
	}()
	switch {
	case e.ctrl == nil || e.ctrl.FTL() == nil || e.ctrl.Device() == nil:
		return fmt.Errorf("%w: no drive", ErrCorruptState)
	case e.now < 0:
		return fmt.Errorf("%w: the clock reads %d ns", ErrCorruptState, e.now)
	case e.ev.len() > 0:
		return fmt.Errorf("%w: %d requests in flight (a state is saved between runs)", ErrCorruptState, e.ev.len())
	}
	for k := range e.sq {
		if e.sq[k].queued() {
			return fmt.Errorf("%w: requests waiting on queue %d", ErrCorruptState, k)
		}
	}
	if err := e.ctrl.FTL().CheckInvariants(); err != nil {
		return fmt.Errorf("%w: %v", ErrCorruptState, err)
	}
	return nil
}

// A State is an engine's state held in memory: what SaveState writes,
// taken once by Save and given to any number of engines by Restore (the
// forks of one prepared drive).
type State struct{ b []byte }

// Len is the state's size in bytes.
func (s *State) Len() int64 { return int64(len(s.b)) }

// Save returns the state of the engine and its drive, as SaveState
// writes it; the engine must be between runs.
func (e *Engine) Save() (*State, error) {
	var buf bytes.Buffer
	if _, err := e.SaveState(&buf); err != nil {
		return nil, err
	}
	return &State{b: buf.Bytes()}, nil
}

// Restore loads s into e as LoadState loads a state (e's description may
// differ in its costs and rates), without LoadState's check of the
// state's consistency: s was written by Save in this process and has not
// left its memory, so it is the state of a drive; the check is there for
// files.
func (e *Engine) Restore(s *State) error {
	if e.ctrl == nil {
		return ErrNoDrive
	}
	return e.load(bytes.NewReader(s.b), int64(len(s.b)), false)
}

// Bytes returns the state as SaveState writes it (not to be changed).
func (s *State) Bytes() []byte { return s.b }
