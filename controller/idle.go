package controller

import "github.com/ftlsim/ftlsim/ftl"

// Idle tells the drive that no command is outstanding from from until to.
// Once the drive has been idle for IdleNs the firmware reclaims its TRIM
// backlog, folds its SLC cache (if it has one) and, with background GC
// on, cleans dies below their target.
// Each die's work starts when the die is free and not before the idle
// period has begun; no new work starts at or after to. With
// gc_safe_erase, a cleaned block waiting for its erase is erased at once:
// the firmware programs its partly filled pages, padded, and closes the
// word lines left half programmed (ftl.FTL.SettlePending).
func (c *Controller) Idle(from, to int64) error {
	start := max(from, c.fwFree) + c.cfg.Firmware.IdleNs
	if start >= to {
		return nil
	}
	if c.trimQ > 0 {
		// Reclaiming recorded trims takes firmware time per unit.
		n := c.trimQ
		if t := c.cfg.Firmware.TrimUnitNs; t > 0 {
			n = min(n, (to-start)/t)
		}
		c.trimQ -= n
	}
	if c.re != nil && len(c.re.queue) > 0 {
		c.tl.Advance(start)
		if err := c.reclaimQueued(start); err != nil {
			return err
		}
	}
	fold := c.ftl.HasSLCCache()
	if !c.cfg.Firmware.BackgroundGC && !fold {
		return nil
	}
	c.tl.Advance(start)
	c.gc.advance(start)
	dies := c.cfg.NAND.Geometry.Dies()
	if fold {
		// The SLC cache first: folded, it takes the next burst whole.
		if err := c.foldIdle(start, to); err != nil {
			return err
		}
	}
	if !c.cfg.Firmware.BackgroundGC {
		return nil
	}
	for d := 0; d < dies && c.cfg.Firmware.ReclaimOnIdle; d++ {
		for {
			at := max(start, c.tl.DieFree(d))
			if at >= to {
				break
			}
			did, err := c.ftl.ReclaimEmpty(d)
			if err == nil && did {
				_, err = c.ftl.SettlePending()
			}
			c.drain(at)
			if err != nil {
				return err
			}
			if !did {
				break
			}
		}
	}
	for d := 0; d < dies; d++ {
		for c.ftl.NeedsBackground(d) {
			at := max(start, c.tl.DieFree(d))
			if at >= to {
				break
			}
			did, err := c.ftl.CollectBackground(d)
			if err == nil && did {
				_, err = c.ftl.SettlePending()
			}
			c.drain(at)
			if err != nil {
				return err
			}
			if !did {
				break
			}
		}
	}
	return nil
}

// SecureErase erases the whole drive at time now and returns when it is
// done. The write buffer and read-ahead data are discarded.
func (c *Controller) SecureErase(now int64) int64 {
	c.tl.Advance(now)
	c.ftl.SecureErase()
	done := c.drain(now)
	c.ra.reset()
	c.buf.reset()
	c.trimQ = 0
	c.raise.reset()
	if c.mc != nil {
		c.mc.reset()
	}
	if c.hmb != nil {
		c.hmb.reset()
	}
	if c.re != nil {
		c.re.queue = c.re.queue[:0]
	}
	if c.zones != nil {
		c.zones, _ = ftl.NewZones(c.zones.Config()) // every zone empty
	}
	c.fwFree = max(c.fwFree, done)
	return done
}

// foldIdle folds the SLC cache from start until to, an SLC group at a
// time on the die that frees up first: the dies fold side by side, and
// the work one die's folds put on others (mapping pages) delays theirs
// as it would.
func (c *Controller) foldIdle(start, to int64) error {
	dies := c.cfg.NAND.Geometry.Dies()
	need := make([]bool, dies)
	for d := range need {
		need[d] = c.ftl.NeedsFold(d)
	}
	for {
		best := -1
		for d, n := range need {
			if n && (best < 0 || c.tl.DieFree(d) < c.tl.DieFree(best)) {
				best = d
			}
		}
		if best < 0 {
			return nil
		}
		at := max(start, c.tl.DieFree(best))
		if at >= to {
			return nil
		}
		did, err := c.ftl.FoldBackground(best)
		if err == nil && did {
			_, err = c.ftl.SettlePending()
		}
		c.drain(at)
		if err != nil {
			return err
		}
		need[best] = did && c.ftl.NeedsFold(best)
	}
}
