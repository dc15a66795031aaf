package workload

// zonemode=zbd reads, trims, the job's start and the zone locks of the
// I/Os in flight (see zbd.go).

import (
	"github.com/ftlsim/ftlsim/blockio"
)

// findZone returns a zone of the range holding at least need bytes, from
// zone zb on, and (random patterns) back from it, the nearest first
// (fio's zbd_find_zone); it waits on a zone that has an I/O in flight.
func (z *zbdState) findZone(j *Job, zb int, need int64) (int, zbdVerdict) {
	h := z.h
	for z1, z2 := zb+1, zb-1; z1 < z.hi || z2 >= z.lo; z1, z2 = z1+1, z2-1 {
		if z1 < z.hi {
			if h.locked(z1) {
				return 0, zbdWait
			}
			if h.wp[z1] >= need {
				return z1, zbdGo
			}
		} else if !j.Pattern.Random() {
			break
		}
		if j.Pattern.Random() && z2 >= z.lo {
			if h.locked(z2) {
				return 0, zbdWait
			}
			if h.wp[z2] >= need {
				return z2, zbdGo
			}
		}
	}
	return 0, zbdEOF
}

// read places a read of n bytes drawn at off below a write pointer (fio's
// zbd_adjust_block for reads).
func (z *zbdState) read(j *Job, off, n, minBS int64) (int64, int64, zbdVerdict) {
	h := z.h
	zs := h.l.ZoneBytes
	orig := z.clampZone(off)
	zb := orig
	if h.locked(zb) {
		return 0, 0, zbdWait
	}
	span := h.wp[zb]
	if span < minBS || (!j.Pattern.Random() && off+minBS > int64(zb)*zs+h.wp[zb]) {
		var v zbdVerdict
		if zb, v = z.findZone(j, zb, minBS); v != zbdGo {
			return 0, 0, v
		}
		span = h.wp[zb]
		if !j.Pattern.Random() {
			off = int64(zb) * zs
		}
	}
	start := int64(zb) * zs
	switch {
	case span <= n:
		off = start
	case j.Pattern.Random():
		off = start + ((off-int64(orig)*zs)%(span-n))/minBS*minBS
	}
	length := min(n, start+h.wp[zb]-off) / minBS * minBS
	return off, length, zbdGo
}

// trim places a trim drawn at off: a reset of its zone, or for a random
// pattern of the nearest zone holding data when it holds none (fio's
// zbd_adjust_block and zbd_do_io_u_trim for trims).
func (z *zbdState) trim(j *Job, off int64) (int64, zbdVerdict) {
	h := z.h
	zb := z.clampZone(off)
	if h.locked(zb) {
		return 0, zbdWait
	}
	if j.Pattern.Random() && h.wp[zb] == 0 {
		var v zbdVerdict
		if zb, v = z.findZone(j, zb, 1); v != zbdGo {
			return 0, v
		}
	}
	z.resetZone(zb, true)
	if !j.Pattern.Random() {
		z.cur = zb + 1
		if z.cur >= z.hi {
			z.cur = z.lo
		}
	}
	return int64(zb) * h.l.ZoneBytes, zbdGo
}

// start is what fio does as a job opens its file (zbd_file_reset): the
// zone reset count restarts and, for a writing job that verifies, the
// zones of its range that hold data are reset, one at a time (ok false
// once none is left).
func (z *zbdState) start(j *Job) (off int64, v zbdVerdict, ok bool) {
	h := z.h
	if !z.started {
		z.started, z.resetScan = true, z.lo
		h.writeCnt = resetCount(j.ZBD.ResetFrequency)
	}
	if !j.Verify || !j.Pattern.Writes() {
		return 0, zbdGo, false
	}
	for ; z.resetScan < z.hi; z.resetScan++ {
		zone := z.resetScan
		if h.wp[zone] == 0 {
			continue
		}
		if h.locked(zone) {
			return 0, zbdWait, true
		}
		z.resetZone(zone, true)
		z.resetScan++
		return int64(zone) * h.l.ZoneBytes, zbdGo, true
	}
	return 0, zbdGo, false
}

// zoneOf is the zone a request holds, -1 for one that holds none (a
// flush; a read past the write pointers with read_beyond_wp, which fio
// does not lock).
func (g *Generator) zoneOf(it *Item) int {
	switch it.Op {
	case blockio.Read:
		if g.j.ZBD.ReadBeyondWP && !it.Verify {
			return -1
		}
	case blockio.Write, blockio.ZoneManage, blockio.ZoneAppend:
	default:
		return -1
	}
	z := int(it.Offset / g.zbd.h.l.ZoneBytes)
	if z < 0 || z >= len(g.zbd.h.busy) {
		return -1
	}
	return z
}

// zbdIssue takes the locks of a request the job issues.
func (g *Generator) zbdIssue(it *Item) {
	z := g.zbd
	z.inflight++
	z.h.inflight++
	if z.holdIssued {
		z.holdIssued = false // the zone is held since its reset
		return
	}
	if zone := g.zoneOf(it); zone >= 0 {
		z.h.busy[zone]++
	}
}

// Waits reports whether the generator's requests wait on others (a
// zonemode=zbd job's on those in flight: fio's zone locks; a flow job's
// on its group's): the engine then reads it no further ahead than it
// issues, tells it of each completion (Completed) and, when Next reports
// false and Stalled true, asks again after the next completion.
func (g *Generator) Waits() bool { return g.waits }

// Stalled reports that the last Next returned false because the job
// waits (for an I/O in flight, or its flow group), not because it is
// done.
func (g *Generator) Stalled() bool { return g.flowStalled || (g.zbd != nil && g.zbd.stalled) }

// Completed is told of each of the generator's requests the drive
// completed, or failed: it releases the request's zone (fio's
// zbd_put_io), and a write that filled its zone takes it out of the
// write zones (zbd_end_zone_io).
func (g *Generator) Completed(it *Item) {
	z := g.zbd
	if z == nil {
		return
	}
	h := z.h
	z.inflight--
	h.inflight--
	zone := g.zoneOf(it)
	if zone < 0 {
		return
	}
	h.busy[zone]--
	if it.Op == blockio.Write && it.Offset+it.Length >= int64(zone)*h.l.ZoneBytes+h.l.CapacityBytes {
		h.putWrite(zone, h.all)
	}
}

// zbdPrelude issues what comes before a zbd job's next I/O: the write
// kept while its zone's reset runs, the resets of the job's start, or
// the I/O it waits to place. done is false when there is none.
func (g *Generator) zbdPrelude() (op blockio.Op, n, off int64, implicit, ok, done bool) {
	z, j := g.zbd, g.j
	if z.pendingLen > 0 {
		if z.h.busy[z.pendingOff/z.h.l.ZoneBytes] > 1 {
			z.stalled = true // fio's resets are synchronous: the write waits for it
			return 0, 0, 0, false, false, true
		}
		off, n = z.pendingOff, z.pendingLen
		z.pendingLen, z.holdIssued = 0, true // the write takes over the zone's hold
		return blockio.Write, n, off, false, true, true
	}
	if off, v, more := z.start(j); more {
		if v == zbdWait {
			z.stalled = true
			return 0, 0, 0, false, false, true
		}
		g.cutZone(off)
		return blockio.ZoneManage, 0, off, true, true, true
	}
	if z.held {
		op, n, off, implicit, ok = g.zbdPlace(z.heldOp, z.heldLen)
		return op, n, off, implicit, ok, true
	}
	return 0, 0, 0, false, false, false
}

// zbdAdjustDir makes the first I/O of a mixed job a write, so that there
// is data to read (fio's zbd_adjust_ddir).
func (g *Generator) zbdAdjustDir(op blockio.Op) blockio.Op {
	j := g.j
	if op == blockio.Read && (j.Pattern == SeqRW || j.Pattern == RandRW) && !g.zbd.wroteAny && !j.ZBD.ReadBeyondWP && j.RWMixRead < 100 {
		return blockio.Write
	}
	return op
}

// zbdDraw draws the offset of a zbd job's next I/O as its pattern does,
// then places it.
func (g *Generator) zbdDraw(op blockio.Op, n int64) (blockio.Op, int64, int64, bool, bool) {
	z, j := g.zbd, g.j
	zs := z.h.l.ZoneBytes
	var off int64
	switch {
	case op == blockio.Read && j.ZBD.ReadBeyondWP:
		o, ok := g.offset(op, n)
		return op, n, o, false, ok
	case j.Pattern.Random():
		off, _ = g.offset(op, n)
	case op == blockio.Read:
		if z.seqRead >= z.ioSize {
			z.seqRead = 0
		}
		off = int64(z.lo)*zs + z.seqRead
	default:
		off = int64(z.cur) * zs
	}
	z.held, z.heldOp, z.heldLen, z.heldOff = true, op, n, off
	return g.zbdPlace(op, n)
}

// zbdPlace places the I/O held (see zbd.go): it issues it, says the job
// waits (Stalled), or ends the job's I/O.
func (g *Generator) zbdPlace(op blockio.Op, n int64) (blockio.Op, int64, int64, bool, bool) {
	z, j := g.zbd, g.j
	var v zbdVerdict
	var off int64
	switch op {
	case blockio.Write:
		var reset bool
		var l int64
		off, l, reset, v = z.write(j, z.heldOff, n, g.minBS)
		if v == zbdGo && reset {
			z.held = false
			z.pendingOff, z.pendingLen = off, l
			zs := z.h.l.ZoneBytes
			z.h.busy[off/zs]++ // the write holds the zone through its reset, as fio's zone lock does
			g.cutZone(off / zs * zs)
			return blockio.ZoneManage, 0, off / zs * zs, true, true // not an I/O of the job
		}
		n = l
	case blockio.Read:
		var l int64
		off, l, v = z.read(j, z.heldOff, n, g.minBS)
		if v == zbdGo && !j.Pattern.Random() {
			z.seqRead = off + l - int64(z.lo)*z.h.l.ZoneBytes
		}
		n = l
	default:
		off, v = z.trim(j, z.heldOff)
		op, n = blockio.ZoneManage, z.h.l.ZoneBytes
	}
	switch v {
	case zbdWait:
		z.stalled = true
		return op, 0, 0, false, false
	case zbdEOF:
		z.held = false
		return op, 0, 0, false, false
	}
	z.held = false
	return op, n, off, false, true
}

// cutZone forgets, for verify, what the job wrote in the zone at off: a
// reset emptied it.
func (g *Generator) cutZone(off int64) {
	if g.w != nil {
		zs := g.zbd.h.l.ZoneBytes
		g.w.cut((off+g.vunit-1)/g.vunit, (off+zs)/g.vunit)
	}
}
