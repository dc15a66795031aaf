package workload

// zonemode=zbd on the host, as fio's zbd.c does it. The host keeps each
// zone's write pointer (fio reads them with Report Zones and tracks
// them) and writes each zone only at it: a random pattern draws a zone
// and writes at its write pointer, within the write zones fio tracks
// against max_open_zones and job_max_open_zones; reads stay below the
// write pointers; a trim is a zone reset; a write to a full zone resets
// it first, and past zone_reset_threshold one write in every
// 1/zone_reset_frequency does. A reset is a Zone Management Send Reset
// of the zone (blockio.ZoneManage).
//
// fio holds a zone's lock from when an I/O to it is prepared until it
// completes, so a zone has one I/O in flight at a time and reaches the
// drive in write-pointer order, and a job that needs a zone another I/O
// holds waits for it; a job that must take another write zone while
// every one is taken waits for its own I/Os to complete (fio's
// io_u_quiesce), then for anyone's, before it gives up. Here the zone's
// lock is its count of I/Os in flight (ZoneHost.busy), and a job that
// must wait says so (Generator.Stalled): the engine asks again once an
// I/O completes (Generator.Completed).

import (
	"fmt"

	"github.com/ftlsim/ftlsim/blockio"
)

// ZoneHost is the host's view of a zoned drive's zones, shared by the
// zonemode=zbd jobs of a run (fio's zbd_info of the device): each zone's
// write pointer and lock, and the write zones.
type ZoneHost struct {
	l  ZoneLayout
	wp []int64 // bytes written in each zone, from its start
	// busy counts each zone's I/Os in flight: fio's zone lock, held from
	// when an I/O is issued until it completes.
	busy []int32
	// inWrite marks the write zones (fio's z->write), writeZones lists
	// them in the order they were taken (fio's write_zones[]), and
	// taker is the job that took each (from 1).
	inWrite    []bool
	taker      []int32
	writeZones []int
	// maxWrite is fio's max_write_zones: the most write zones at once
	// (0: none tracked), set by the first job that joins.
	maxWrite    int
	maxWriteSet bool
	inflight    int // I/Os in flight, all zbd jobs (fio's any_io_in_flight)
	// The valid data of the zones zone_reset_threshold looks at (fio's
	// wp_valid_data_bytes over write_min_zone..write_max_zone), and the
	// writes left before the next reset (write_cnt).
	vdb          int64
	vdbLo, vdbHi int
	vdbSet       bool
	writeCnt     uint32
	jobs         int
	all          zbdJobs // each job's state, by its number
}

// NewZoneHost returns the host's view of a drive of layout l, all its
// zones empty (a drive fresh from a secure erase or a format).
func NewZoneHost(l ZoneLayout) *ZoneHost {
	if l.CapacityBytes <= 0 || l.CapacityBytes > l.ZoneBytes {
		l.CapacityBytes = l.ZoneBytes
	}
	return &ZoneHost{l: l, wp: make([]int64, l.Zones), busy: make([]int32, l.Zones),
		inWrite: make([]bool, l.Zones), taker: make([]int32, l.Zones)}
}

// Layout returns the zones the host sees.
func (h *ZoneHost) Layout() ZoneLayout { return h.l }

// WritePointer returns the bytes written in zone z.
func (h *ZoneHost) WritePointer(z int) int64 { return h.wp[z] }

// OpenZones returns the write zones: those jobs are writing (taken, not
// yet full).
func (h *ZoneHost) OpenZones() int { return len(h.writeZones) }

// zoneSpan returns the zones [lo, hi) of a job's range, aligned to zone
// boundaries as fio aligns them (zbd_zone_align_file_sizes): a writing
// job's start rounds up to a zone start, every job's end down to one.
func (h *ZoneHost) zoneSpan(j *Job) (lo, hi int) {
	zs := h.l.ZoneBytes
	lo = int(j.Offset / zs)
	if j.Pattern.Writes() && j.Offset%zs != 0 {
		lo++
	}
	hi = int(min(int64(h.l.Zones), (j.Offset+j.Size)/zs))
	return lo, hi
}

// Join checks a resolved zonemode=zbd job against the others of the run
// as fio's zbd_setup_files does: its range holds a zone, its
// max_open_zones is the first job's, and the jobs that use
// zone_reset_threshold write one range. The errors are fio's.
func (h *ZoneHost) Join(j *Job) error {
	lo, hi := h.zoneSpan(j)
	if hi <= lo {
		return fmt.Errorf("%w: zonemode=zbd: io_size must be at least one zone (offset %d, size %d, zones of %d bytes)", ErrOption, j.Offset, j.Size, h.l.ZoneBytes)
	}
	if !h.maxWriteSet {
		h.maxWrite, h.maxWriteSet = j.ZBD.MaxOpenZones, true
	} else if j.ZBD.maxOpenSet && j.ZBD.MaxOpenZones > 0 && j.ZBD.MaxOpenZones != h.maxWrite {
		return fmt.Errorf("%w: max_open_zones=%d: Different 'max_open_zones' values (another job of the run has %d)", ErrOption, j.ZBD.MaxOpenZones, h.maxWrite)
	}
	if j.ZBD.ResetThreshold > 0 && j.Pattern.Writes() {
		if h.vdbSet && (h.vdbLo != lo || h.vdbHi != hi) {
			return fmt.Errorf("%w: zone_reset_threshold: multi-jobs with different write ranges are not supported with zone_reset_threshold", ErrOption)
		}
		h.vdbLo, h.vdbHi, h.vdbSet = lo, hi, true
	}
	return nil
}

// remainder is the room left in zone z (fio's zbd_zone_remainder).
func (h *ZoneHost) remainder(z int) int64 { return max(0, h.l.CapacityBytes-h.wp[z]) }

// locked reports an I/O in flight to zone z: a job needing it waits.
func (h *ZoneHost) locked(z int) bool { return h.busy[z] > 0 }

// putWrite drops zone z from the write zones (fio's zbd_write_zone_put).
func (h *ZoneHost) putWrite(z int, jobs zbdJobs) {
	if !h.inWrite[z] {
		return
	}
	for i, w := range h.writeZones {
		if w == z {
			h.writeZones = append(h.writeZones[:i], h.writeZones[i+1:]...)
			break
		}
	}
	h.inWrite[z] = false
	if s := jobs[h.taker[z]]; s != nil {
		s.nwrite--
	}
	h.taker[z] = 0
}

// zbdVerdict is what placing an I/O came to.
type zbdVerdict uint8

const (
	zbdGo   zbdVerdict = iota // issue it
	zbdWait                   // wait for an I/O in flight to complete
	zbdEOF                    // no zone can take it: the job's I/O ends (fio's io_u_eof)
)

// zbdState is a zbd job's own part: the zones of its range, the write
// zones it took, its sequential zone, what it reset and what it waits
// with.
type zbdState struct {
	h        *ZoneHost
	id       int32 // the job's number among the host's zbd jobs, from 1
	lo, hi   int   // zones of the job's range, [lo, hi)
	ioSize   int64 // the range's bytes (fio's f->io_size)
	cur      int   // the zone a sequential write or trim pattern is at
	nwrite   int   // write zones it took (fio's td->num_write_zones)
	inflight int   // its I/Os in flight
	resets   int64
	acct     bool // it keeps the valid data count (zone_reset_threshold)
	// The I/O being placed, kept while the job waits: its direction,
	// length and drawn offset; placed is its zone once chosen (then a
	// retry goes on from the reset check), from 1.
	held              bool
	heldOp            blockio.Op
	heldLen, heldOff  int64
	placed            int
	stalled           bool
	resetFirst        bool // the placed zone is to be reset before the write (zone_reset_threshold)
	pendingLen        int64
	pendingOff        int64
	holdIssued        bool // the write after a reset is issued: it has the zone's hold already
	started, wroteAny bool
	resetScan         int // verify: the next zone of the range the job's start resets (fio's zbd_file_reset)
	seqRead           int64
}

// zbdJobs maps each job's number to its state, for the zones it took.
type zbdJobs = map[int32]*zbdState

func newZBDState(j *Job) *zbdState {
	h := j.ZBD.Host
	if !h.maxWriteSet {
		h.maxWrite, h.maxWriteSet = j.ZBD.MaxOpenZones, true
	}
	lo, hi := h.zoneSpan(j)
	hi = max(hi, lo+1)
	hi = min(hi, h.l.Zones)
	lo = min(lo, hi-1)
	h.jobs++
	s := &zbdState{h: h, id: int32(h.jobs), lo: lo, hi: hi, ioSize: int64(hi-lo) * h.l.ZoneBytes, cur: lo,
		acct: j.ZBD.ResetThreshold > 0 && j.Pattern.Writes()}
	if s.acct && !h.vdbSet {
		h.vdbLo, h.vdbHi, h.vdbSet = lo, hi, true
	}
	if h.all == nil {
		h.all = zbdJobs{}
	}
	h.all[s.id] = s
	return s
}

// full reports that zone z cannot take a block of minBS (fio's
// zbd_zone_full).
func (z *zbdState) full(zone int, minBS int64) bool { return minBS > z.h.remainder(zone) }

// getWrite makes zone a write zone of the job if it is one or the limits
// allow (fio's zbd_write_zone_get).
func (z *zbdState) getWrite(j *Job, zone int, minBS int64) bool {
	h := z.h
	if j.Verify && z.full(zone, minBS) {
		return false // resetting a full zone would lose data to verify
	}
	if h.maxWrite == 0 {
		return true // no limit: nothing tracked
	}
	if h.inWrite[zone] {
		return h.remainder(zone) > 0
	}
	if j.ZBD.JobMaxOpenZones > 0 && z.nwrite >= j.ZBD.JobMaxOpenZones {
		return false
	}
	if len(h.writeZones) >= h.maxWrite {
		return false
	}
	h.writeZones = append(h.writeZones, zone)
	h.inWrite[zone], h.taker[zone] = true, z.id
	z.nwrite++
	return true
}

// pickIndex is fio's pick_random_zone_idx: the drawn offset's place in
// the range, scaled to the write zones.
func (z *zbdState) pickIndex(off int64) int {
	n := int64(len(z.h.writeZones))
	return int(max(0, off-int64(z.lo)*z.h.l.ZoneBytes) * n / z.ioSize)
}

// pickWriteZone returns a write zone in the job's range, from the drawn
// offset's index on (fio's zbd_pick_write_zone).
func (z *zbdState) pickWriteZone(off int64) (int, bool) {
	w := z.h.writeZones
	i := z.pickIndex(off)
	for range w {
		if i >= len(w) {
			i = 0
		}
		if c := w[i]; c >= z.lo && c < z.hi {
			return c, true
		}
		i++
	}
	return 0, false
}

// clampZone is the zone of offset off, kept in the job's range.
func (z *zbdState) clampZone(off int64) int {
	return min(max(int(off/z.h.l.ZoneBytes), z.lo), z.hi-1)
}

// writeZone chooses the zone of a write drawn at off (fio's
// zbd_convert_to_write_zone, its remainder finish aside): the drawn
// zone if it is or can be a write zone, else one of the write zones,
// else the next zone that can be one; waiting where fio waits.
func (z *zbdState) writeZone(j *Job, off, minBS int64) (int, zbdVerdict) {
	h := z.h
	zb := z.clampZone(off)
	if h.locked(zb) {
		return 0, zbdWait
	}
	if z.getWrite(j, zb, minBS) {
		return zb, zbdGo
	}
	limited := h.maxWrite > 0 || j.ZBD.JobMaxOpenZones > 0
	zone := zb
	if limited && len(h.writeZones) > 0 {
		zone = z.clampZone(int64(h.writeZones[min(z.pickIndex(off), len(h.writeZones)-1)]) * h.l.ZoneBytes)
	}
	for limited && len(h.writeZones) > 0 {
		if h.locked(zone) {
			return 0, zbdWait
		}
		c, ok := z.pickWriteZone(off)
		if !ok {
			return 0, zbdEOF
		}
		if c == zone {
			break
		}
		zone = c
	}
	if (!limited || len(h.writeZones) > 0) && h.remainder(zone) >= minBS {
		return zone, zbdGo
	}
	// Every write zone taken, or this one full: wait for the job's own
	// I/Os before trying another (fio's io_u_quiesce).
	atLimit := len(h.writeZones) == z.hi-z.lo || (h.maxWrite > 0 && len(h.writeZones) == h.maxWrite) ||
		(j.ZBD.JobMaxOpenZones > 0 && z.nwrite == j.ZBD.JobMaxOpenZones)
	if atLimit && z.inflight > 0 {
		return 0, zbdWait
	}
	return z.otherWriteZone(j, zb, zone, minBS)
}

// otherWriteZone is fio's retry of zbd_convert_to_write_zone: the drawn
// zone again for a random pattern, then the next zones of the range that
// can be write zones, then any write zone with room; while anything is in
// flight the job waits, else it finishes a write zone (random, no
// verify) or gives up.
func (z *zbdState) otherWriteZone(j *Job, zb, zone int, minBS int64) (int, zbdVerdict) {
	h := z.h
	if j.Pattern.Random() {
		if h.locked(zb) {
			return 0, zbdWait
		}
		if z.getWrite(j, zb, minBS) {
			return zb, zbdGo
		}
		zone = zb
	}
	for i := z.ioSize / h.l.ZoneBytes; i > 0; i-- {
		zone++
		if zone >= z.hi {
			zone = z.lo
		}
		if h.locked(zone) {
			return 0, zbdWait
		}
		if h.inWrite[zone] {
			continue
		}
		if z.getWrite(j, zone, minBS) {
			return zone, zbdGo
		}
	}
	for _, w := range h.writeZones {
		if w < z.lo || w >= z.hi {
			continue
		}
		if h.locked(w) {
			return 0, zbdWait
		}
		if h.remainder(w) >= minBS && z.getWrite(j, w, minBS) {
			return w, zbdGo
		}
	}
	if h.inflight > 0 {
		return 0, zbdWait
	}
	return 0, zbdEOF
}

// write places a write of n bytes drawn at off (min the smallest block
// size): its offset and length, and whether a reset of that zone must go
// first (then the write is kept until the reset completes).
func (z *zbdState) write(j *Job, off, n, minBS int64) (woff, length int64, reset bool, v zbdVerdict) {
	h := z.h
	if h.l.CapacityBytes < minBS {
		return 0, 0, false, zbdEOF // fio: "zone capacity smaller than minimum block size"
	}
	zone := z.placed - 1
	if z.placed == 0 {
		if zone, v = z.writeZone(j, off, minBS); v != zbdGo {
			return 0, 0, false, v
		}
		z.placed = zone + 1
		// Past the threshold, one write in every 1/frequency resets its
		// zone first (fio's zone_reset_threshold, write_cnt).
		if f := j.ZBD.ResetFrequency; f > 0 && float64(h.vdb) >= float64(z.ioSize)*j.ZBD.ResetThreshold {
			if h.writeCnt > 0 {
				h.writeCnt--
			}
			if h.writeCnt == 0 {
				h.writeCnt = resetCount(f)
				z.resetFirst = true
			}
		}
	}
	if z.resetFirst || z.full(zone, minBS) {
		// fio waits for the job's writes in flight, then resets the zone
		// synchronously, then writes at its start.
		if z.inflight > 0 {
			return 0, 0, false, zbdWait
		}
		z.resetFirst = false
		reset = h.wp[zone] > 0 // an empty zone needs no command
		z.resetZone(zone, false)
	}
	length = min(n, h.remainder(zone)/minBS*minBS)
	woff = int64(zone)*h.l.ZoneBytes + h.wp[zone]
	h.wp[zone] += length
	if z.acct {
		h.vdb += length
	}
	z.placed = 0
	z.wroteAny = true
	if !j.Pattern.Random() {
		z.cur = zone
		if h.remainder(zone) < minBS {
			z.cur = zone + 1 // fio's last_pos moves to the next zone's start
			if z.cur >= z.hi {
				z.cur = z.lo
			}
		}
	}
	return woff, length, reset, zbdGo
}

// resetCount is fio's write_cnt after a reset: 1/zone_reset_frequency.
func resetCount(f float64) uint32 {
	if f <= 0 {
		return ^uint32(0)
	}
	return uint32(min(1/f, float64(^uint32(0))))
}

// resetZone empties zone z on the host, counting the reset when it held
// data (as fio's __zbd_reset_zone counts them); drop also takes it out of
// the write zones (fio's zbd_reset_zone, a trim's).
func (z *zbdState) resetZone(zone int, drop bool) {
	h := z.h
	if h.wp[zone] > 0 {
		z.resets++
		if z.acct {
			h.vdb -= h.wp[zone]
		}
	}
	h.wp[zone] = 0
	if drop {
		h.putWrite(zone, h.all)
	}
}
