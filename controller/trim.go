package controller

import "github.com/ftlsim/ftlsim/blockio"

// trim unmaps the whole units of r. With a TRIM backlog (TrimBacklog) the
// firmware records trimmed ranges until it reclaims them while idle; what
// does not fit is dropped (TRIM is advisory).
// A command with several ranges (Request.Ranges) unmaps each in turn.
func (c *Controller) trim(fw int64, r blockio.Request) (int64, error) {
	c.cnt.HostTrimBytes += r.Length
	done := c.linkTransfer(fw, 0)
	if len(r.Ranges) == 0 {
		return c.trimRange(done, r)
	}
	for _, rg := range r.Ranges {
		var err error
		if done, err = c.trimRange(done, blockio.Request{Op: blockio.Trim, Offset: rg.Offset, Length: rg.Length}); err != nil {
			return 0, err
		}
	}
	return done, nil
}

// trimRange unmaps the whole units of r's range from time done, and
// returns when the firmware has done so.
func (c *Controller) trimRange(done int64, r blockio.Request) (int64, error) {
	c.ra.drop(r)
	// Only whole units are unmapped; the partial ends keep their data.
	first := (r.Offset + c.unit - 1) / c.unit
	end := (r.Offset + r.Length) / c.unit
	if c.ckpt.interval > 0 && end > first {
		c.ckpt.mark(first, end-1)
	}
	if b := int64(c.cfg.Firmware.TrimBacklog); b > 0 && end > first {
		room := max(0, b/c.unit-c.trimQ)
		if end-first > room {
			c.cnt.TrimIgnoredBytes += (end - first - room) * c.unit
			end = first + room
		}
		c.trimQ += max(0, end-first)
	}
	if c.mc != nil {
		for mp := first / c.mc.perPage; end > first && mp <= (end-1)/c.mc.perPage; mp++ {
			done = max(done, c.mapLookup(mp*c.mc.perPage, true, done))
		}
	}
	if end > first {
		if err := c.ftl.Trim(first, end-first); err != nil {
			return 0, err
		}
		done += (end - first) * c.cfg.Firmware.TrimUnitNs
		c.fwFree = max(c.fwFree, done)
	}
	return done, nil
}
