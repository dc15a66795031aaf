package controller

import (
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// gcPath is the way the data garbage collection (and wear levelling)
// copies reaches its new page. Through the controller, a victim page is
// read out over the channel, decoded and re-encoded by the ECC engine
// (Firmware.ECCMBps) while the firmware spends Firmware.GCUnitNs per
// unit on the core that serves host commands; the program of the copied
// data waits until all of that is done. With Firmware.GCCopyback the die
// copies internally: the page is sensed and programmed again with only
// commands on the channel. Every cost is off by default, and then a copy
// costs only the flash and channel time the timeline books.
type gcPath struct {
	ready []int64        // per die: when the data its last GC reads fetched can be programmed
	ecc   *nand.Calendar // the ECC engine (nil: no limit)
}

func newGCPath(dies int, eccMBps int64) gcPath {
	p := gcPath{ready: make([]int64, dies)}
	if eccMBps > 0 {
		p.ecc = nand.NewCalendar()
	}
	return p
}

// advance tells the ECC engine's calendar that nothing will start before
// now (its look-ahead is a ring).
func (p *gcPath) advance(now int64) {
	if p.ecc != nil {
		p.ecc.Advance(now)
	}
}

// gcRead books a GC or WL read of op.Units units from at and returns when
// the die is done with it; the data is ready to program at gcPath.ready.
func (c *Controller) gcRead(op *ftl.Op, at int64) int64 {
	die, fw := int(op.Die), &c.cfg.Firmware
	if fw.GCCopyback {
		done := c.tl.Read(die, int(op.Planes), 0, at)
		c.gc.ready[die] = max(c.gc.ready[die], done)
		return done
	}
	n := int64(op.Units) * c.slot
	done := c.tl.Read(die, int(op.Planes), int(n), at)
	ready := done
	if c.gc.ecc != nil {
		// Decoded after the read, encoded again for the program.
		ready = c.gc.ecc.Book(done, (2*n*1000+fw.ECCMBps-1)/fw.ECCMBps)
	}
	if fw.GCUnitNs > 0 {
		c.fwFree = max(at, c.fwFree) + int64(op.Units)*fw.GCUnitNs
		ready = max(ready, c.fwFree)
	}
	c.gc.ready[die] = max(c.gc.ready[die], ready)
	return done
}

// gcProgram books a program of data GC or WL copied on op's die, once
// that data is ready, and returns when it ends.
func (c *Controller) gcProgram(op *ftl.Op, at int64) int64 {
	die := int(op.Die)
	at = max(at, c.gc.ready[die])
	if c.cfg.Firmware.GCCopyback {
		return c.tl.CopybackProgram(die, int(op.Page), int(op.Planes), at)
	}
	return c.tl.Program(die, int(op.Page), int(op.Planes), at)
}
