package nand

import "fmt"

// A block in SLC mode: an SLC cache's blocks, written one bit per cell.

// PagesIn returns the pages block pb holds in its mode: PagesPerBlock,
// or in SLC mode one page per word line (PagesPerBlock / bits per cell).
func (d *Device) PagesIn(pb int) int {
	if d.slc != nil && d.slc[pb] {
		return d.slcPages
	}
	return d.ppb
}

// SLCPages returns the pages a block holds in SLC mode (0: the part has
// no SLC mode).
func (d *Device) SLCPages() int { return d.slcPages }

// IsSLC reports whether block pb is written in SLC mode.
func (d *Device) IsSLC(pb int) bool { return d.slc != nil && d.slc[pb] }

// SetSLC puts erased block pb in SLC mode (one bit per cell: it holds
// SLCPages pages, each programmed and read in the part's SLC-mode times,
// and each erase wears it RatedCycles/SLCRatedCycles of a native cycle)
// or back in its native mode. The part must state an SLC mode
// (Timing.HasSLCMode) and the block must be erased: a block changes mode
// only between an erase and its first program. The mode outlasts erases.
func (d *Device) SetSLC(pb int, on bool) error {
	if pb < 0 || pb >= d.nblk {
		return fmt.Errorf("%w: block %d", ErrRange, pb)
	}
	if d.IsSLC(pb) == on {
		return nil
	}
	if d.slcPages == 0 {
		return fmt.Errorf("%w: block %d: the part states no SLC mode (timing.slc_*)", ErrNoSLCMode, pb)
	}
	if d.wp[pb] != 0 {
		return fmt.Errorf("%w: block %d changes mode with %d pages programmed", ErrNotErased, pb, d.wp[pb])
	}
	if d.slc == nil {
		d.slc = make([]bool, d.nblk)
		d.slcErases = make([]uint32, d.nblk)
	}
	d.slc[pb] = on
	return nil
}

// cycleWear returns block pb's wear in native cycles, unrounded, and
// what one cycle in its mode adds (1, or RatedCycles/SLCRatedCycles in
// SLC mode): the wear-out hazards grow with it.
func (d *Device) cycleWear(pb int) (w, step float64) {
	w, step = float64(d.erases[pb]), 1
	if d.slcErases != nil {
		w += float64(d.slcErases[pb]) * d.slcWear
		if d.slc[pb] {
			step = d.slcWear
		}
	}
	return w, step
}

// SLCEraseCount returns the erases of block pb in SLC mode.
func (d *Device) SLCEraseCount(pb int) int {
	if d.slcErases == nil {
		return 0
	}
	return int(d.slcErases[pb])
}
