package controller

import (
	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/ftl"
)

func (c *Controller) write(fw int64, r blockio.Request) (int64, error) {
	c.cnt.HostWriteBytes += r.Length
	c.ra.drop(r)
	first, last := r.Offset/c.unit, (r.Offset+r.Length-1)/c.unit
	if c.ckpt.interval > 0 {
		c.checkpointWrite(first, last, r.Length, fw)
	}
	// Large requests stream into the buffer in pieces of an eighth of it,
	// so that a transfer larger than a small (on-chip) buffer flows as
	// programs free room, as the link's data FISes would.
	chunk := max(1, c.buf.capUnits/8)
	done := fw
	for lo := first; lo <= last; lo += chunk {
		hi := min(last, lo+chunk-1)
		n := hi - lo + 1
		t, err := c.buf.wait(fw, n, &c.cnt.BufferStallNs)
		if err != nil {
			return 0, err
		}
		// The data moves over the link once the buffer has room.
		bytes := n * c.unit
		if lo == first {
			bytes -= r.Offset - first*c.unit
		}
		if hi == last {
			bytes -= (last+1)*c.unit - (r.Offset + r.Length)
		}
		done = c.linkTransferIn(t, bytes)
		if c.cfg.Firmware.CompressOutMBps > 0 && c.cfg.Firmware.Compression {
			done = max(done, c.compressPath(t, bytes, r.Data))
		} else {
			done = max(done, pass(&c.dp.writeFree, t, bytes, c.cfg.Firmware.DatapathWriteMBps))
		}
		// The flash work these units cause starts once their data is in.
		at := done
		run := c.runs(r)
		for lba := lo; lba <= hi; lba++ {
			partial := lba*c.unit < r.Offset || (lba+1)*c.unit > r.Offset+r.Length
			if run && !partial {
				// The whole units from here to the chunk's end (or to a
				// last unit written in part), a host page at a time.
				end := hi
				if (hi+1)*c.unit > r.Offset+r.Length {
					end = hi - 1
				}
				if err := c.writeRun(c.handleOf(r), lba, end, r.Token, at); err != nil {
					return 0, err
				}
				lba = end
				continue
			}
			lost := false
			if partial && c.ftl.Mapped(lba) {
				var err error
				if lost, err = c.readModifyWrite(lba, done); err != nil {
					return 0, err
				}
			}
			if c.mc != nil {
				// The firmware records the new location in the mapping
				// before it acknowledges the write.
				done = max(done, c.mapLookup(lba, true, at))
			}
			tok := r.Token
			if r.KeepData && c.cfg.NAND.TrackData {
				// The unit keeps its data: the write stores what it holds.
				if loc, err := c.ftl.Lookup(lba); err == nil && loc.Mapped {
					tok = loc.Token
				}
			}
			if c.slot < c.unit {
				if err := c.writeSlots(lba, r.Data, tok, at); err != nil {
					return 0, err
				}
			} else {
				// A new host page goes to the die that frees up first,
				// chosen once the work before it is booked.
				h := c.handleOf(r)
				die := ftl.AnyDie
				if c.ftl.OpensPageHandle(h, 1) {
					die = c.hostDie()
				}
				err := c.ftl.WriteHandle(h, die, lba, tok, 1)
				if len(c.ftl.Ready().Ops) > 0 {
					c.drain(at)
				}
				if err != nil {
					return 0, err
				}
			}
			if lost {
				// The rest of the unit could not be read: the merged unit
				// is written unreadable.
				c.ftl.ReportLost(lba)
			}
		}
	}
	return done, nil
}

// runs reports whether the whole units of write r go to the FTL in runs
// (writeRun): each unit stored in one device unit, its mapping entry in
// DRAM, its data not kept from before, on the default placement handle
// (or a handle the drive has).
func (c *Controller) runs(r blockio.Request) bool {
	return c.slot == c.unit && c.mc == nil && !(r.KeepData && c.cfg.NAND.TrackData) &&
		(r.Directive != blockio.DirectivePlacement || c.fdpStats == nil || int(r.DSpec) < c.cfg.Firmware.FDP.Handles)
}

// writeRun hands logical units first to last of a write of token tok
// through placement handle h to the FTL, a host page at a time, each new page on the die hostDie
// chooses, and books the flash work they cause from at: what the loop of
// write does unit by unit, in fewer calls.
func (c *Controller) writeRun(h int, first, last int64, tok uint32, at int64) error {
	for lba := first; lba <= last; {
		die := ftl.AnyDie
		if c.ftl.OpensPageHandle(h, 1) {
			die = c.hostDie()
		}
		n, err := c.ftl.WriteRun(h, die, lba, tok, int(last-lba+1))
		if len(c.ftl.Ready().Ops) > 0 {
			c.drain(at)
		}
		if err != nil {
			return err
		}
		lba += int64(n)
	}
	return nil
}

// writeSlots hands logical unit lba of a write of data d and token tok to the FTL on a
// compressing drive and books the flash work that causes from at. The
// unit takes the slots its compressed size needs; when they do not fit in
// the host page being filled, that page is completed first and its work
// booked, so that the die chosen for the next page (hostDie) sees it.
func (c *Controller) writeSlots(lba int64, d blockio.Data, tok uint32, at int64) error {
	n := c.slotsFor(d)
	err := c.ftl.MakeRoom(n)
	c.drain(at)
	if err != nil {
		return err
	}
	die := ftl.AnyDie
	if c.ftl.OpensPage(n) {
		die = c.hostDie()
	}
	err = c.ftl.WriteOn(die, lba, tok, n)
	c.drain(at)
	return err
}

// compressPath returns when n bytes of data d that reach the write data
// path of a compressing drive at t have passed it. The path takes them in
// at DatapathWriteMBps while the engine emits what compression leaves of
// them (stored bytes) at CompressOutMBps, and the slower of the two sets
// the pace.
func (c *Controller) compressPath(t, n int64, d blockio.Data) int64 {
	fw := &c.cfg.Firmware
	ns := int64(0)
	if fw.DatapathWriteMBps > 0 {
		ns = (n*1000 + fw.DatapathWriteMBps - 1) / fw.DatapathWriteMBps
	}
	stored := n * int64(100-min(d.CompressPct, 100)) / 100
	ns = max(ns, (stored*1000+fw.CompressOutMBps-1)/fw.CompressOutMBps)
	c.dp.writeFree = max(t, c.dp.writeFree) + ns
	return c.dp.writeFree
}

// readModifyWrite reads the rest of a partly written unit from flash at
// at, and reports whether it could not be read (Firmware.ReadErrors).
// The old data is read into DRAM and merged there while the dies go on
// with their work: the read occupies its die, but the page program is
// not booked after it (a booking in the future would leave its die idle
// until then, which the firmware's queues would not).
func (c *Controller) readModifyWrite(lba, at int64) (lost bool, err error) {
	loc, err := c.ftl.ReadFor(lba, ftl.CauseRMW, nil)
	if err != nil {
		return false, err
	}
	if loc.Mapped && !loc.Buffered {
		c.cnt.RMWReads++
		ops := c.ftl.Ready().Ops
		for i := range ops {
			t := c.bookHostRead(&ops[i], at, c.cfg.Firmware.ReadSuspend)
			if c.re != nil {
				if _, ok := c.readOutcome(&ops[i], t); !ok {
					lost = true
				}
			}
		}
	}
	c.ftl.Advance()
	return lost, nil
}

// slotsFor returns the slots a unit of data d takes once compressed: its
// compressed size rounded up to whole slots, at most the whole unit
// (incompressible data is stored as it is); a unit that repeats earlier
// data (drawn with probability DedupePct) is stored as a reference in one
// slot. Without compression (a mapping unit larger than a page, stored in
// page-sized slots) a unit takes all its slots.
func (c *Controller) slotsFor(d blockio.Data) int {
	k := c.unit / c.slot
	if !c.cfg.Firmware.Compression {
		return int(k) // a mapping unit larger than a page: all its pages
	}
	if d.DedupePct > 0 {
		if c.rng.Uint32N(100) < uint32(d.DedupePct) {
			c.cnt.DedupedUnits++
			return 1
		}
	}
	stored := c.unit * int64(100-min(d.CompressPct, 100)) / 100
	return int(min(k, max(1, (stored+c.slot-1)/c.slot)))
}

// flush completes a FLUSH command: the partly filled pages are padded
// and programmed, and the command completes once everything the write
// buffer holds is on flash.
func (c *Controller) flush(fw int64) (int64, error) {
	err := c.ftl.Flush()
	done := c.drain(fw)
	if err != nil {
		return 0, err
	}
	end := c.linkTransfer(max(done, c.buf.drainedAt()), 0)
	if c.cfg.NAND.TrackData {
		c.flushes = append(c.flushes, flushMark{seq: c.ftl.WriteSeq(), done: end})
	}
	return end, nil
}
