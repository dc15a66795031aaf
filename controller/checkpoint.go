package controller

import "github.com/ftlsim/ftlsim/ftl"

// checkpoints is the firmware's mapping checkpoints (Firmware.
// MapCheckpoint): after every interval bytes of host writes, the mapping
// pages whose entries changed since the last checkpoint are programmed
// (into the mapping region, cause map). A drive without power-loss
// protection then mounts by reading the whole saved mapping and scanning
// only the pages programmed since, instead of every page. Entries that
// change by garbage collection alone are found by that scan.
type checkpoints struct {
	interval int64  // host bytes between checkpoints; 0: off
	since    int64  // host bytes written since the last
	perPage  int64  // mapping entries (logical units) per mapping page
	dirty    []bool // per mapping page: changed since the last checkpoint
	ndirty   int64
	taken    bool  // a checkpoint exists
	progAt   int64 // flash programs (multi-plane pages) when it was taken
	programs int64 // flash programs (multi-plane pages) booked so far
	die      int   // next die a mapping page goes to
}

func newCheckpoints(interval, userUnits, perPage int64) checkpoints {
	if interval <= 0 {
		return checkpoints{}
	}
	return checkpoints{interval: interval, perPage: perPage, dirty: make([]bool, (userUnits+perPage-1)/perPage)}
}

// mark records that the entries of logical units first..last changed.
func (k *checkpoints) mark(first, last int64) {
	for p := first / k.perPage; p <= last/k.perPage; p++ {
		if !k.dirty[p] {
			k.dirty[p] = true
			k.ndirty++
		}
	}
}

// wrote counts n bytes of host writes to units first..last at time at and
// takes a checkpoint when the interval has passed.
func (c *Controller) checkpointWrite(first, last, n, at int64) {
	k := &c.ckpt
	k.mark(first, last)
	if k.since += n; k.since < k.interval {
		return
	}
	k.since = 0
	dies := c.cfg.NAND.Geometry.Dies()
	for p := range k.dirty {
		if !k.dirty[p] {
			continue
		}
		k.dirty[p] = false
		c.maps.program(c, ftl.CauseMap, k.die, 1, at)
		k.die = (k.die + 1) % dies
	}
	c.cnt.MapCheckpoints++
	c.cnt.CheckpointPages += k.ndirty
	k.ndirty = 0
	k.taken = true
	k.progAt = k.programs
}

// mountPages returns, for a drive mounting after a power cut, the mapping
// pages it reads and the pages it scans for entries newer than them:
// with no checkpoint, none and every page (scanned, as the FTL's rebuild
// reports).
func (c *Controller) mountPages(scanned int64) (mapPages, scan int64) {
	k := &c.ckpt
	if !k.taken {
		return 0, scanned
	}
	return int64(len(k.dirty)), min(scanned, k.programs-k.progAt)
}

// remount starts the checkpoints again after a mount: the rebuilt
// mapping is saved whole (not charged).
func (k *checkpoints) remount() {
	clear(k.dirty)
	k.ndirty, k.since = 0, 0
	k.progAt = k.programs
}
