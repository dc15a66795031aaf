package controller

import (
	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/ftl"
)

// readAhead is the data a sequential read stream has had read ahead into
// the buffer, and where the stream's last read ended.
type readAhead struct {
	ext  []extent // in offset order
	last int64    // where the previous read ended (-1: none)
}

// extent is data read ahead into the buffer.
type extent struct {
	off, n int64
	ready  int64
}

// holds reports whether read-ahead holds all of r.
func (ra *readAhead) holds(r blockio.Request) bool {
	for _, e := range ra.ext {
		if e.off <= r.Offset && r.Offset+r.Length <= e.off+e.n {
			return true
		}
	}
	return false
}

// hit returns the extent that holds all of r, dropping the extents
// before it.
func (ra *readAhead) hit(r blockio.Request) (extent, bool) {
	k := 0
	for k < len(ra.ext) && ra.ext[k].off+ra.ext[k].n <= r.Offset {
		k++
	}
	ra.ext = append(ra.ext[:0], ra.ext[k:]...)
	if len(ra.ext) > 0 && ra.ext[0].off <= r.Offset && r.Offset+r.Length <= ra.ext[0].off+ra.ext[0].n {
		return ra.ext[0], true
	}
	return extent{}, false
}

// drop forgets read-ahead data that request r overwrites.
func (ra *readAhead) drop(r blockio.Request) {
	for _, e := range ra.ext {
		if e.off < r.Offset+r.Length && r.Offset < e.off+e.n {
			ra.ext = ra.ext[:0]
			return
		}
	}
}

// reset forgets everything.
func (ra *readAhead) reset() { ra.ext = ra.ext[:0] }

// readAhead keeps ReadAhead bytes beyond a sequential read in the buffer,
// reading them in pieces of the stream's request size from at.
func (c *Controller) readAhead(r blockio.Request, at int64) error {
	ra := &c.ra
	next := r.Offset + r.Length
	if len(ra.ext) > 0 {
		next = max(next, ra.ext[len(ra.ext)-1].off+ra.ext[len(ra.ext)-1].n)
	}
	limit := min(r.Offset+r.Length+int64(c.cfg.Firmware.ReadAhead), c.ftl.UserUnits()*c.unit)
	for next+r.Length <= limit {
		_, ready, failed, err := c.flashRead(next, r.Length, at, ftl.CauseReadAhead)
		if err != nil {
			return err
		}
		if failed > 0 {
			// Not kept: the host's own read of it will try again.
			break
		}
		ra.ext = append(ra.ext, extent{off: next, n: r.Length, ready: ready})
		next += r.Length
	}
	return nil
}
