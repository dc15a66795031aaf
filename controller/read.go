package controller

import (
	"math"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/ftl"
)

func (c *Controller) read(fw int64, r blockio.Request) (int64, error) {
	c.cnt.HostReadBytes += r.Length
	var firstReady, ready, failed int64
	if at, ok := c.ra.hit(r); ok {
		// Served from read-ahead: counted as read, no flash work.
		firstReady, ready = max(fw, at), max(fw, at)
		c.ftl.CountHostRead((r.Offset+r.Length-1)/c.unit - r.Offset/c.unit + 1)
	} else {
		var err error
		firstReady, ready, failed, err = c.flashRead(r.Offset, r.Length, fw, ftl.CauseHost)
		if err != nil {
			return 0, err
		}
	}
	sequential := r.Offset == c.ra.last
	c.ra.last = r.Offset + r.Length
	if sequential && c.cfg.Firmware.ReadAhead > 0 {
		if err := c.readAhead(r, fw); err != nil {
			return 0, err
		}
	} else if !sequential {
		c.ra.reset()
	}
	// The data path (ECC, DMA) handles the request's bytes in order.
	ready = max(ready, pass(&c.dp.readFree, firstReady, r.Length, c.cfg.Firmware.DatapathReadMBps))
	// The controller streams data to the host as units arrive: the link
	// transfer may start with the first unit, and ends no sooner than the
	// last unit plus its own share of the transfer.
	end := c.linkTransfer(firstReady, r.Length)
	if tail := ready + c.cfg.Host.CommandNs + (min(r.Length, c.unit)*1000+c.cfg.Host.LinkMBps-1)/c.cfg.Host.LinkMBps; tail > end {
		end = tail
	}
	if c.re != nil {
		if err := c.reclaimQueued(fw); err != nil {
			return 0, err
		}
		if failed > 0 {
			c.cnt.FailedReads += failed
			return end, ErrUncorrectable
		}
	}
	return end, nil
}

// flashRead reads [off, off+n) from time at for cause (the host, or
// read-ahead) and returns when the first and the last unit are in the
// controller, and how many units could not be read (Firmware.ReadErrors).
// Units of one page cost one array read: the FTL records the rest as
// transfers. Host reads may suspend programs and erases.
func (c *Controller) flashRead(off, n, at int64, cause ftl.Cause) (firstReady, ready, failed int64, err error) {
	first, last := off/c.unit, (off+n-1)/c.unit
	ready, firstReady = at, int64(math.MaxInt64)
	suspend := cause == ftl.CauseHost && c.cfg.Firmware.ReadSuspend
	var run ftl.ReadRun
	for lba := first; lba <= last; lba++ {
		loc, err := c.ftl.ReadFor(lba, cause, &run)
		if err != nil {
			return 0, 0, 0, err
		}
		t := at
		if c.mc != nil {
			t = c.mapLookup(lba, false, at)
		}
		switch {
		case !loc.Mapped:
			// Unwritten data reads as zeros without touching flash.
		case loc.Buffered:
			t += c.cfg.Firmware.BufferNs
		default:
			ops := c.ftl.Ready().Ops
			bad := false
			for i := range ops {
				t = c.bookHostRead(&ops[i], t, suspend)
				if c.re != nil {
					var ok bool
					t, ok = c.readOutcome(&ops[i], t)
					bad = bad || !ok
				}
			}
			if bad || loc.Lost {
				failed++
			}
		}
		c.ftl.Advance()
		ready = max(ready, t)
		firstReady = min(firstReady, t)
	}
	return firstReady, ready, failed, nil
}
