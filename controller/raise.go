package controller

import "github.com/ftlsim/ftlsim/ftl"

// raise is die-level parity (SandForce's RAISE): after every stripe−1
// data pages the firmware programs a parity page on the next die in turn,
// into a region of its own (the space held out of the FTL as reserved
// groups). stripe 0 turns it off.
type raise struct {
	stripe int
	dies   int
	n      int // data pages since the last parity page
	region region
}

// after counts one data page programmed on die with planes planes at at
// and, when it completes a stripe, books the parity page; it returns when
// that ends (at when there is none).
func (r *raise) after(c *Controller, die, planes int, at int64) int64 {
	if r.stripe == 0 {
		return at
	}
	if r.n++; r.n < r.stripe-1 {
		return at
	}
	r.n = 0
	return r.region.program(c, ftl.CauseParity, (die+1)%r.dies, planes, at)
}

func (r *raise) reset() { r.n = 0 }

// region is flash the firmware writes outside the FTL's mapping — RAISE
// parity and mapping pages — as a log of blocks on each die: each page
// goes to the next page of the die's current block, and a block is
// erased before it is written again. The space it takes is held out of
// the FTL (parity) or counted in the spare area (mapping pages).
type region struct {
	n   []int64 // per die: pages written
	ppb int64
}

func newRegion(dies, pagesPerBlock int) region {
	return region{n: make([]int64, dies), ppb: int64(pagesPerBlock)}
}

// program books a page program for cause on die (planes planes) from at,
// erasing the die's region block first when it wraps, counts both, and
// returns when the program is done.
func (r *region) program(c *Controller, cause ftl.Cause, die, planes int, at int64) int64 {
	p := r.n[die] % r.ppb
	if p == 0 && r.n[die] > 0 {
		c.cnt.Count(&ftl.Op{Kind: ftl.OpErase, Cause: cause, Die: int32(die), Planes: uint8(planes)})
		at = c.tl.Erase(die, planes, at)
	}
	r.n[die]++
	c.cnt.Count(&ftl.Op{Kind: ftl.OpProgram, Cause: cause, Die: int32(die), Page: int32(p), Planes: uint8(planes)})
	return c.tl.Program(die, int(p), planes, at)
}
