package controller

import (
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// drain books the flash operations the FTL has recorded since the last
// drain, in the order it decided them, each starting no earlier than at,
// and returns when the last of them ends (at when there were none).
func (c *Controller) drain(at int64) int64 {
	ops := c.ftl.Ops()
	if len(ops) == 0 {
		return at
	}
	done := at
	for i := range ops {
		done = max(done, c.book(&ops[i], at))
	}
	c.ftl.ResetOps()
	return done
}

// book puts one flash operation on the timeline from at and returns when
// it ends. A program of host data frees its units of the write buffer
// when it ends; with RAISE it may be followed by a parity page. A unit
// moved by GC changes its mapping entry (a mapping-cache access).
func (c *Controller) book(op *ftl.Op, at int64) int64 {
	die, planes := int(op.Die), int(op.Planes)
	switch op.Kind {
	case ftl.OpRead:
		if moves(op.Cause) {
			return c.gcRead(op, at)
		}
		return c.readPage(op, planes, int(op.Units)*int(c.slot), at)
	case ftl.OpTransfer:
		return c.tl.Output(die, int(op.Units)*int(c.slot), at)
	case ftl.OpProgram:
		c.ckpt.programs++
		var done int64
		switch {
		case moves(op.Cause):
			done = c.gcProgram(op, at)
		case op.SLC:
			done = c.tl.ProgramSLC(die, planes, at)
		default:
			done = c.tl.Program(die, int(op.Page), planes, at)
		}
		if op.Units > 0 {
			c.buf.release(done, int64(op.Units))
		}
		if !moves(op.Cause) {
			c.programsDone = max(c.programsDone, done)
		}
		if c.re != nil {
			c.dev.SetProgramTime(int(op.Block), planes, done)
		}
		if c.cfg.NAND.TrackData {
			c.fly(op, done)
		}
		if c.raise.stripe > 0 {
			done = max(done, c.raise.after(c, die, planes, at))
		}
		return done
	case ftl.OpErase:
		if c.cfg.Firmware.GCSafeErase {
			// Only once every host program booked before it has ended:
			// the host data that superseded the victim's units is then on
			// flash. The units moved out of it went to its own die, whose
			// operations run in the order they are booked.
			at = max(at, c.programsDone)
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
		return done
	case ftl.OpMoved:
		if c.re != nil && c.re.losing && c.re.markLost(op.LBA) {
			c.cnt.UnreadableUnits++
		}
		if c.mc != nil {
			c.mapLookup(op.LBA, true, at)
		}
	case ftl.OpVictim:
		c.victim(die, at)
	}
	return at
}

// bookHostRead books a read the host (or read-ahead, or a read-modify-
// write) waits for, from at: with read suspension (suspend) it may
// interrupt a program or erase in progress on its die.
func (c *Controller) bookHostRead(op *ftl.Op, at int64, suspend bool) int64 {
	n := int(op.Units) * int(c.slot)
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

// moves reports whether cause is the FTL moving data of its own
// (garbage collection, wear levelling, folding the SLC cache): such
// reads and programs take the GC path (gcRead, gcProgram).
func moves(cause ftl.Cause) bool {
	return cause == ftl.CauseGC || cause == ftl.CauseWL || cause == ftl.CauseFold
}

// readPage books the array read of op's page (in its block's mode) on
// planes planes, moving n bytes out, from at.
func (c *Controller) readPage(op *ftl.Op, planes, n int, at int64) int64 {
	if op.SLC {
		return c.tl.ReadSLC(int(op.Die), planes, n, at)
	}
	return c.tl.ReadPage(int(op.Die), int(op.Page), planes, n, at)
}

// leastBusy sends each host page to the die that frees up first (the
// lowest numbered on a tie), as firmware that dispatches to idle dies does.
// It reads the timeline, so the controller drains the op log before any
// FTL call that may open a new host page.
type leastBusy struct {
	tl   *nand.Timeline
	dies int
	next int
}

func (l *leastBusy) NextDie() int {
	best, bt := l.next, l.tl.DieFree(l.next)
	for d := l.next + 1; d < l.dies; d++ {
		if t := l.tl.DieFree(d); t < bt {
			best, bt = d, t
		}
	}
	for d := 0; d < l.next; d++ {
		if t := l.tl.DieFree(d); t < bt {
			best, bt = d, t
		}
	}
	l.next = best + 1
	if l.next == l.dies {
		l.next = 0
	}
	return best
}
