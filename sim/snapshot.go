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
	if len(e.ev) > 0 {
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
// then give the results runs from the saved engine would have given. A
// state written by a build whose types differ, or that does not fit the
// drive (another description: capacity, geometry, GC policy, any field
// but the seed, whose effects the state brings along),
// is refused with ErrOtherDrive or the codec's error; after an error e
// must be dropped.
func (e *Engine) LoadState(r io.Reader, n int64) error {
	if e.ctrl == nil {
		return ErrNoDrive
	}
	want, err := description(e.ctrl)
	if err != nil {
		return err
	}
	wantName, wantCap := e.ctrl.Config().Name, e.ctrl.CapacityBytes()
	if err := snapshot.Decode(r, n, e); err != nil {
		return err
	}
	got, err := description(e.ctrl)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%w: the state is of %s (%s user), the engine's drive is %s (%s user)", ErrOtherDrive,
			e.ctrl.Config().Name, units.FormatBytes(e.ctrl.CapacityBytes()), wantName, units.FormatBytes(wantCap))
	}
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
