package controller

import "github.com/ftlsim/ftlsim/ftl"

// drain carries out the work of the FTL's Ready: it books each flash
// operation, in the order the FTL decided them, starting no earlier than
// at, reports to the FTL what booking them found (ReportUnreadable for a
// garbage-collection read that could not be decoded; book reports the
// rest), tells it the work is done (Advance), and returns when the last
// operation ends (at when there were none).
func (c *Controller) drain(at int64) int64 {
	ops := c.ftl.Ready().Ops
	if len(ops) == 0 {
		return at
	}
	done := at
	for i := range ops {
		t, ok := c.book(&ops[i], at)
		if !ok {
			c.ftl.ReportUnreadable(i)
		}
		done = max(done, t)
	}
	c.ftl.Advance()
	return done
}

// book puts one flash operation on the timeline from at and returns when
// it ends, and false for a read of data the FTL moves that could not be
// decoded (the units moved out of its page are lost). A program of host
// data frees its units of the write buffer when it ends; with RAISE it
// may be followed by a parity page. A unit moved by GC changes its
// mapping entry (a mapping-cache access).
func (c *Controller) book(op *ftl.Op, at int64) (int64, bool) {
	die, planes := int(op.Die), int(op.Planes)
	switch op.Kind {
	case ftl.OpRead:
		if op.Cause.Moves() {
			return c.gcRead(op, at)
		}
		return c.readPage(op, planes, int(op.Units)*int(c.slot), at), true
	case ftl.OpTransfer:
		return c.tl.Output(die, int(op.Units)*int(c.slot), at), true
	case ftl.OpProgram:
		c.ckpt.programs++
		var done int64
		switch {
		case op.Cause.Moves():
			done = c.gcProgram(op, at)
		case c.stripe != nil:
			done = c.stripedProgram(op, at)
		case op.SLC:
			done = c.tl.ProgramSLC(die, planes, at)
		default:
			done = c.tl.Program(die, int(op.Page), planes, at)
		}
		if op.Units > 0 {
			c.buf.release(die, done, int64(op.Units))
		}
		if !op.Cause.Moves() {
			c.programsDone = max(c.programsDone, done)
			if c.rest != nil && op.Prog != 0 {
				c.rest.program(op, done)
			}
		}
		if c.re != nil {
			c.ftl.ReportProgrammed(op, done)
		}
		if c.cfg.NAND.TrackData {
			c.fly(op, done)
		}
		if c.raise.stripe > 0 {
			done = max(done, c.raise.after(c, die, planes, at))
		}
		return done, true
	case ftl.OpErase:
		if c.rest != nil {
			// Only once the host programs it depends on are at rest (the
			// FTL names them): the host data that superseded the victim's
			// units is then on flash. The units moved out of it went to
			// its own die, whose operations run in the order they are
			// booked.
			t, ok := c.rest.after(op.Prog)
			if !ok {
				t = c.programsDone
			}
			at = max(at, t)
		}
		done := at
		for range max(op.Units, 1) {
			if op.SLC {
				done = c.tl.EraseSLC(die, planes, at)
			} else {
				done = c.tl.Erase(die, planes, at)
			}
		}
		if op.Units <= 1 && c.cfg.NAND.TrackData {
			c.fly(op, done)
		}
		return done, true
	case ftl.OpMoved:
		if c.mc != nil {
			c.mapLookup(op.LBA, true, at)
		}
	case ftl.OpVictim:
		c.victim(die, at)
	}
	return at, true
}

// stripedProgram books a program of host data in its channel's stripe
// (Firmware.ChannelStripe) and returns when it ends.
func (c *Controller) stripedProgram(op *ftl.Op, at int64) int64 {
	die, planes := int(op.Die), int(op.Planes)
	at = c.stripe.issue(die, at)
	var done int64
	if op.SLC {
		done = c.tl.ProgramSLC(die, planes, at)
	} else {
		done = c.tl.Program(die, int(op.Page), planes, at)
	}
	c.stripe.booked(die, done)
	return done
}

// bookHostRead books a read the host (or read-ahead, or a read-modify-
// write) waits for, from at: with read suspension (suspend) it may
// interrupt a program or erase in progress on its die; with
// Firmware.ReadPriority a host or read-ahead read that does not suspend
// goes before the die's queued work.
func (c *Controller) bookHostRead(op *ftl.Op, at int64, suspend bool) int64 {
	n := int(op.Units) * int(c.slot)
	first := c.cfg.Firmware.ReadPriority && !suspend && (op.Cause == ftl.CauseHost || op.Cause == ftl.CauseReadAhead)
	if first {
		return c.readFirst(op, n, at)
	}
	switch {
	case op.Kind == ftl.OpTransfer && suspend:
		return c.tl.OutputSuspending(int(op.Die), n, at)
	case op.Kind == ftl.OpTransfer:
		return c.tl.Output(int(op.Die), n, at)
	case suspend && op.SLC:
		return c.tl.ReadSLCSuspending(int(op.Die), 1, n, at, c.cfg.Firmware.SuspendNs)
	case suspend:
		return c.tl.ReadPageSuspending(int(op.Die), int(op.Page), 1, n, at, c.cfg.Firmware.SuspendNs)
	default:
		return c.readPage(op, 1, n, at)
	}
}

// readFirst books a host or read-ahead read of n bytes of op's page that
// goes before the work queued on its die (Firmware.ReadPriority) and
// returns when its data is out: the programs it went before end later by
// its time, and so do the releases of the write buffer they hold.
func (c *Controller) readFirst(op *ftl.Op, n int, at int64) int64 {
	die := int(op.Die)
	before := c.tl.DieFree(die)
	var done int64
	switch {
	case op.Kind == ftl.OpTransfer:
		done = c.tl.OutputFirst(die, n, at)
	case op.SLC:
		done = c.tl.ReadSLCFirst(die, 1, n, at)
	default:
		done = c.tl.ReadPageFirst(die, int(op.Page), 1, n, at)
	}
	if after := c.tl.DieFree(die); done < after {
		d := after - before
		c.buf.delay(die, done-d, d)
	}
	return done
}

// readPage books the array read of op's page (in its block's mode) on
// planes planes, moving n bytes out, from at.
func (c *Controller) readPage(op *ftl.Op, planes, n int, at int64) int64 {
	if op.SLC {
		return c.tl.ReadSLC(int(op.Die), planes, n, at)
	}
	return c.tl.ReadPage(int(op.Die), int(op.Page), planes, n, at)
}

// hostDie chooses the die the next host page goes to (ftl.FTL.WriteOn):
// the one that frees up first (the lowest numbered from the one after the
// last chosen, on a tie), as firmware that dispatches to idle dies does;
// with Firmware.HostDies rotate, the one after the last chosen.
// It reads the timeline, so every flash operation the FTL decided before
// must be booked first: the controller drains the FTL's work after every
// call.
func (c *Controller) hostDie() int {
	if c.dieSet.n > 0 {
		return c.zoneDie()
	}
	best := c.nextDie
	if !c.rotate {
		best = c.tl.EarliestDie(best)
	}
	c.nextDie = best + 1
	if c.nextDie == c.dies {
		c.nextDie = 0
	}
	return best
}
