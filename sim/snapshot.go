package sim

import (
	"errors"
	"io"

	"github.com/ftlsim/ftlsim/internal/snapshot"
)

// ErrBusy is returned by SaveState while requests are in flight.
var ErrBusy = errors.New("sim: the engine has requests in flight; save its state between runs")

// SaveState writes the state of the engine and its drive — the clock, and
// every value the controller, the FTL and the flash array hold — to w,
// and returns the bytes written (the length LoadState needs). The engine
// must be between runs.
func (e *Engine) SaveState(w io.Writer) (int64, error) {
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
// drive (another GC policy), is refused; after an error e must be
// dropped.
func (e *Engine) LoadState(r io.Reader, n int64) error {
	return snapshot.Decode(r, n, e)
}
