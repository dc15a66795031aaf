package controller

import (
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// gcPath is the way the data garbage collection (and wear levelling)
// copies reaches its new page. Through the controller, a victim page is
// read out over the channel, decoded and re-encoded by the ECC engine
// (Firmware.ECCMBps) while the firmware spends Firmware.GCUnitNs per unit
// (and Firmware.GCVictimNs per victim chosen) on a firmware core: the one
// that takes host commands, unless Firmware.Cores gives GC others. The
// program of the copied data waits until all of that is done. With
// Firmware.GCCopyback the die copies internally: the page is sensed and
// programmed again with only commands on the channel. With
// Firmware.GCStreams the firmware keeps at most that many GC operations
// in flight: the dies are dealt to the streams in turn, and each stream
// issues one read or program, waits for it (and for a read, for its data
// to be decoded) and only then issues the next, so however many dies need
// cleaning, no more than that many copy at once. Every cost is off by
// default, and then a copy costs only the flash and channel time the
// timeline books.
type gcPath struct {
	ready   []int64        // per die: when the data its last GC reads fetched can be programmed
	streams []int64        // per GC stream: when it can issue its next operation (nil: no limit)
	cores   []int64        // per firmware core that does GC work, when it is next free (nil: the host's core)
	ecc     *nand.Calendar // the ECC engine (nil: no limit)
}

func newGCPath(dies, streams, cores int, eccMBps int64) gcPath {
	p := gcPath{ready: make([]int64, dies)}
	if streams > 0 {
		p.streams = make([]int64, min(streams, dies))
	}
	if cores > 1 {
		p.cores = make([]int64, cores-1)
	}
	if eccMBps > 0 {
		p.ecc = nand.NewQueueCalendar()
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

// stream returns the GC stream that serves die d (the dies are dealt to
// the streams in turn, so that consecutive dies, on different channels,
// have different streams) and the time from which an operation wanting to
// start at at may start on it; -1 without a limit on streams.
func (p *gcPath) stream(d int, at int64) (int, int64) {
	if p.streams == nil {
		return -1, at
	}
	s := d % len(p.streams)
	return s, max(at, p.streams[s])
}

// core returns when the firmware core that does die d's GC work is next
// free: the host's core on a one-core controller, else one of the others.
func (c *Controller) core(d int) *int64 {
	if c.gc.cores == nil {
		return &c.fwFree
	}
	return &c.gc.cores[d%len(c.gc.cores)]
}

// victim spends the firmware time choosing a victim on die d takes, from
// at; the victim's copies start after it.
func (c *Controller) victim(d int, at int64) {
	if ns := c.cfg.Firmware.GCVictimNs; ns > 0 {
		core := c.core(d)
		*core = max(at, *core) + ns
		c.gc.ready[d] = max(c.gc.ready[d], *core)
	}
}

// hold marks stream s busy until until.
func (p *gcPath) hold(s int, until int64) {
	if s >= 0 {
		p.streams[s] = until
	}
}

// gcRead books a read of data the FTL moves (GC, WL, folding) of
// op.Units units from at and returns when the die is done with it, and
// whether its data could be decoded (false: the units moved out of the
// page are lost); the data is ready to program at gcPath.ready.
func (c *Controller) gcRead(op *ftl.Op, at int64) (int64, bool) {
	die, fw := int(op.Die), &c.cfg.Firmware
	s, at := c.gc.stream(die, at)
	if fw.GCCopyback {
		done := c.readPage(op, int(op.Planes), 0, at)
		c.gc.ready[die] = max(c.gc.ready[die], done)
		c.gc.hold(s, done)
		return done, true
	}
	n := int64(op.Units) * c.slot
	done := c.readPage(op, int(op.Planes), int(n), at)
	ok := true
	if c.re != nil {
		// Decoded on its way through: a page ECC cannot correct, and
		// RAISE cannot rebuild, loses the units moved out of it.
		done, ok = c.readOutcome(op, done)
	}
	ready := done
	if c.gc.ecc != nil {
		// Decoded after the read, encoded again for the program.
		ready = c.gc.ecc.Book(done, (2*n*1000+fw.ECCMBps-1)/fw.ECCMBps)
	}
	if fw.GCUnitNs > 0 {
		core := c.core(die)
		*core = max(at, *core) + int64(op.Units)*fw.GCUnitNs
		ready = max(ready, *core)
	}
	c.gc.ready[die] = max(c.gc.ready[die], ready)
	c.gc.hold(s, ready)
	return done, ok
}

// gcProgram books a program of data GC or WL copied on op's die, once
// that data is ready, and returns when it ends.
func (c *Controller) gcProgram(op *ftl.Op, at int64) int64 {
	die := int(op.Die)
	s, at := c.gc.stream(die, max(at, c.gc.ready[die]))
	var done int64
	switch {
	case op.SLC:
		done = c.tl.ProgramSLC(die, int(op.Planes), at)
	case c.cfg.Firmware.GCCopyback:
		done = c.tl.CopybackProgram(die, int(op.Page), int(op.Planes), at)
	default:
		done = c.tl.Program(die, int(op.Page), int(op.Planes), at)
	}
	c.gc.hold(s, done)
	return done
}
