package workload

// zonemode=zbd on the host, as fio's zbd.c does it: the host keeps each
// zone's write pointer (fio reads them with Report Zones and tracks
// them), writes each zone sequentially at its write pointer — random
// patterns pick a random zone, within the open-zone limits — reads
// below the write pointers, and resets zones: a full zone a write picks,
// a zone a trim picks, and, past zone_reset_threshold, the zone of one
// write in every 1/zone_reset_frequency. A reset is a Zone Management
// Send Reset of the zone (blockio.ZoneManage; fio's zbd mode: a trim is a
// zone reset).

import (
	"math/rand/v2"
)

// ZoneHost is the host's view of a zoned drive's zones, shared by the
// zonemode=zbd jobs of a run (fio's zbd_info of the device): each zone's
// write pointer and the zones being written.
type ZoneHost struct {
	l  ZoneLayout
	wp []int64 // bytes written in each zone, from its start
	// open marks the zones written to and not yet full: the open zones
	// fio counts against max_open_zones.
	open  []bool
	nopen int
	// owner is the job writing each open zone (from 1; 0: none): a zone
	// is written by one job at a time, as fio's zone locks serialise
	// them, so that its writes reach the drive in write-pointer order.
	owner []int
	jobs  int
}

// NewZoneHost returns the host's view of a drive of layout l, all its
// zones empty (a drive fresh from a secure erase or a format).
func NewZoneHost(l ZoneLayout) *ZoneHost {
	if l.CapacityBytes <= 0 || l.CapacityBytes > l.ZoneBytes {
		l.CapacityBytes = l.ZoneBytes
	}
	return &ZoneHost{l: l, wp: make([]int64, l.Zones), open: make([]bool, l.Zones), owner: make([]int, l.Zones)}
}

// Layout returns the zones the host sees.
func (h *ZoneHost) Layout() ZoneLayout { return h.l }

// WritePointer returns the bytes written in zone z.
func (h *ZoneHost) WritePointer(z int) int64 { return h.wp[z] }

// OpenZones returns the zones being written (written to, not full).
func (h *ZoneHost) OpenZones() int { return h.nopen }

func (h *ZoneHost) setOpen(z int, on bool) {
	if !on {
		h.owner[z] = 0
	}
	if h.open[z] != on {
		h.open[z] = on
		if on {
			h.nopen++
		} else {
			h.nopen--
		}
	}
}

// zbdState is a zbd job's own part: the zones of its range, the zones it
// has open, its sequential zone and what it reset.
type zbdState struct {
	h          *ZoneHost
	id         int // the job's number among the host's zbd jobs, from 1
	lo, hi     int // zones of the job's range, [lo, hi)
	cur        int // the zone a sequential pattern writes
	mine       []int
	writes     int64
	resets     int64
	pendingLen int64 // a write that follows the reset just issued
	pendingOff int64
}

func newZBDState(j *Job) *zbdState {
	h := j.ZBD.Host
	zs := h.l.ZoneBytes
	lo := int(j.Offset / zs)
	hi := int(min(int64(h.l.Zones), (j.Offset+j.Size+zs-1)/zs))
	h.jobs++
	return &zbdState{h: h, id: h.jobs, lo: lo, hi: max(hi, lo+1), cur: lo}
}

// limits returns the open-zone limits that apply to the job: the global
// one and its own (0: none).
func (z *zbdState) limits(j *Job) (global, own int) {
	return j.ZBD.MaxOpenZones, j.ZBD.JobMaxOpenZones
}

// pickWriteZone returns the zone the next write goes to.
func (z *zbdState) pickWriteZone(j *Job, rng *rand.Rand) int {
	h := z.h
	if !j.Pattern.Random() {
		return z.cur
	}
	span := z.hi - z.lo
	zone := z.lo + rng.IntN(span)
	global, own := z.limits(j)
	full := (global > 0 && h.nopen >= global) || (own > 0 && len(z.mine) >= own)
	if h.open[zone] && h.owner[zone] == z.id {
		return zone
	}
	if full && len(z.mine) > 0 {
		return z.mine[rng.IntN(len(z.mine))] // fio: write one of the job's open zones
	}
	// A zone no other job is writing: the one drawn, or the next such.
	// (With the limit taken by other jobs' zones, the job opens one
	// beyond it rather than write theirs out of order; fio would wait
	// for a zone lock.)
	for k := range span {
		c := z.lo + (zone-z.lo+k)%span
		if h.owner[c] == 0 || h.owner[c] == z.id {
			return c
		}
	}
	return zone
}

// validBytes is the data written in the zones of the job's range.
func (z *zbdState) validBytes() int64 {
	var n int64
	for i := z.lo; i < z.hi; i++ {
		n += z.h.wp[i]
	}
	return n
}

// write places a write of n bytes (min the smallest block size): its
// offset and length, and whether a reset of that zone must go first
// (then the write is kept for the next request).
func (z *zbdState) write(j *Job, rng *rand.Rand, n, minBS int64) (off, length int64, reset bool) {
	h := z.h
	zs, zc := h.l.ZoneBytes, h.l.CapacityBytes
	zone := z.pickWriteZone(j, rng)
	z.writes++
	if !j.Pattern.Random() && zc-h.wp[zone] < minBS {
		// A sequential pattern moves to the next zone, wrapping.
		z.close(zone)
		z.cur++
		if z.cur >= z.hi {
			z.cur = z.lo
		}
		zone = z.cur
	}
	reset = zc-h.wp[zone] < minBS // a full zone: fio resets it, then writes at its start
	if !reset && j.ZBD.ResetFrequency > 0 && h.wp[zone] > 0 {
		size := int64(z.hi-z.lo) * zs
		every := int64(1 / j.ZBD.ResetFrequency)
		reset = float64(z.validBytes()) > j.ZBD.ResetThreshold*float64(size) && every > 0 && z.writes%every == 0
	}
	if reset {
		z.resetZone(zone)
	}
	length = min(n, (zc-h.wp[zone])/minBS*minBS)
	off = int64(zone)*zs + h.wp[zone]
	h.wp[zone] += length
	if h.wp[zone]+minBS > zc {
		z.close(zone) // full
	} else if !h.open[zone] {
		h.setOpen(zone, true)
		h.owner[zone] = z.id
		z.mine = append(z.mine, zone)
	}
	return off, length, reset
}

// resetZone empties zone z on the host and counts the reset when it held
// data (as fio counts them).
func (z *zbdState) resetZone(zone int) {
	if z.h.wp[zone] > 0 {
		z.resets++
	}
	z.h.wp[zone] = 0
	z.close(zone)
}

// close drops zone from the open zones (full, or reset).
func (z *zbdState) close(zone int) {
	z.h.setOpen(zone, false)
	for i, m := range z.mine {
		if m == zone {
			z.mine = append(z.mine[:i], z.mine[i+1:]...)
			break
		}
	}
}

// read places a read of n bytes below a write pointer (anywhere in the
// range with read_beyond_wp); false when no zone of the range holds data.
func (z *zbdState) read(j *Job, rng *rand.Rand, n, minBS int64, seq *int64) (int64, bool) {
	h := z.h
	zs := h.l.ZoneBytes
	if j.ZBD.ReadBeyondWP {
		return -1, true // the pattern's own offset
	}
	span := int64(z.hi-z.lo) * zs
	for range 2 * (z.hi - z.lo) {
		var off int64
		if j.Pattern.Random() {
			off = int64(z.lo)*zs + rng.Int64N(span)/minBS*minBS
		} else {
			off = int64(z.lo)*zs + *seq%span
		}
		zone := int(off / zs)
		in := off - int64(zone)*zs
		if in+n <= h.wp[zone] {
			*seq = off - int64(z.lo)*zs + n
			return off, true
		}
		if !j.Pattern.Random() {
			*seq = int64(zone-z.lo+1) * zs // past the written data: the next zone
			continue
		}
		if h.wp[zone] >= n {
			return int64(zone)*zs + rng.Int64N(h.wp[zone]-n+1)/minBS*minBS, true
		}
	}
	return 0, false
}

// trim picks a non-empty zone of the range to reset; false when all are
// empty.
func (z *zbdState) trim(j *Job, rng *rand.Rand) (int64, int64, bool) {
	h := z.h
	start := z.lo
	if j.Pattern.Random() {
		start = z.lo + rng.IntN(z.hi-z.lo)
	}
	for k := range z.hi - z.lo {
		zone := z.lo + (start-z.lo+k)%(z.hi-z.lo)
		if h.wp[zone] > 0 {
			z.resetZone(zone)
			return int64(zone) * h.l.ZoneBytes, h.l.ZoneBytes, true
		}
	}
	return 0, 0, false
}
