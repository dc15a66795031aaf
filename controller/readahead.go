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

// holds reports whether read-ahead holds all of r (in one extent or in
// several that follow one another).
func (ra *readAhead) holds(r blockio.Request) bool {
	for k, e := range ra.ext {
		if e.off <= r.Offset && r.Offset < e.off+e.n {
			_, ok := ra.covers(k, r)
			return ok
		}
	}
	return false
}

// covers reports whether the extents from k on, each starting where the
// one before ends, hold all of r (which starts in extent k), and when the
// last of them is ready.
func (ra *readAhead) covers(k int, r blockio.Request) (int64, bool) {
	var ready int64
	end := r.Offset + r.Length
	for i := k; i < len(ra.ext); i++ {
		e := ra.ext[i]
		if i > k && e.off != ra.ext[i-1].off+ra.ext[i-1].n {
			return 0, false
		}
		ready = max(ready, e.ready)
		if end <= e.off+e.n {
			return ready, true
		}
	}
	return 0, false
}

// hit reports whether read-ahead holds all of r and when the data is
// ready, dropping the extents before it.
func (ra *readAhead) hit(r blockio.Request) (int64, bool) {
	k := 0
	for k < len(ra.ext) && ra.ext[k].off+ra.ext[k].n <= r.Offset {
		k++
	}
	ra.ext = append(ra.ext[:0], ra.ext[k:]...)
	if len(ra.ext) > 0 && ra.ext[0].off <= r.Offset {
		return ra.covers(0, r)
	}
	return 0, false
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
// reading them from at in pieces of whole flash pages (the stream's
// request size rounded up to pages), as firmware prefetches the pages
// that follow a stream whatever its command size: a page is sensed once,
// not once for each command it serves.
func (c *Controller) readAhead(r blockio.Request, at int64) error {
	ra := &c.ra
	next := r.Offset + r.Length
	if len(ra.ext) > 0 {
		next = max(next, ra.ext[len(ra.ext)-1].off+ra.ext[len(ra.ext)-1].n)
	}
	page := int64(c.cfg.NAND.Geometry.PageBytes)
	piece := (r.Length + page - 1) / page * page
	limit := min(r.Offset+r.Length+int64(c.cfg.Firmware.ReadAhead), c.ftl.UserUnits()*c.unit)
	for next+piece <= limit {
		n := piece
		if k := next % page; k != 0 {
			// Back on page boundaries after a stream that started off
			// them.
			n -= k
		}
		_, ready, failed, err := c.flashRead(next, n, at, ftl.CauseReadAhead)
		if err != nil {
			return err
		}
		if failed > 0 {
			// Not kept: the host's own read of it will try again.
			break
		}
		ra.ext = append(ra.ext, extent{off: next, n: n, ready: ready})
		next += n
	}
	return nil
}
