package nand

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/ftlsim/ftlsim/internal/prefetch"
)

// Errors returned when a NAND rule is broken. They are wrapped with the
// block and page involved.
var (
	ErrNotErased   = errors.New("nand: program of a page that is not erased")
	ErrOutOfOrder  = errors.New("nand: pages of a block must be programmed in order")
	ErrBlockFull   = errors.New("nand: program of a full block")
	ErrEraseValid  = errors.New("nand: erase of a block that holds valid data")
	ErrBadBlock    = errors.New("nand: a bad block")
	ErrEraseFailed = errors.New("nand: erase failed: the block is now bad")
	// ErrProgramFailed: the page did not program (its data is not
	// stored; the page is used up) and the block is now bad.
	ErrProgramFailed = errors.New("nand: program failed: the block is now bad")
	ErrNotProgrammed = errors.New("nand: read of a page that is not programmed")
	ErrNotValid      = errors.New("nand: unit is not valid")
	ErrRange         = errors.New("nand: address out of range")
	ErrNoSLCMode     = errors.New("nand: the part has no SLC mode")
)

// NoTag marks a unit programmed without data (padding or data that was
// overwritten while it waited in the write buffer). Such units are never valid.
const NoTag = ^uint32(0)

// tagTable holds the OOB tag of every unit, each stored complemented so
// that NoTag is zero: a new table is all NoTag without being written, and
// its pages are first touched when the units are programmed.
type tagTable []uint32

// at returns unit u's tag.
func (t tagTable) at(u int64) uint32 { return ^t[u] }

// set sets unit u's tag.
func (t tagTable) set(u int64, tag uint32) { t[u] = ^tag }

// put sets the tags of len(tags) units from unit u on.
func (t tagTable) put(u int64, tags []uint32) {
	dst := t[u : u+int64(len(tags))]
	for i, tag := range tags {
		dst[i] = ^tag
	}
}

// BlockState is the state of a physical block, derived from its write pointer.
type BlockState uint8

// Block states.
const (
	Free BlockState = iota // erased, no page programmed
	Open                   // some pages programmed
	Full                   // every page programmed
)

// String returns "free", "open" or "full".
func (s BlockState) String() string {
	switch s {
	case Free:
		return "free"
	case Open:
		return "open"
	case Full:
		return "full"
	}
	return fmt.Sprintf("BlockState(%d)", int(s))
}

// PageState is the state of one page.
type PageState uint8

// Page states.
const (
	Erased  PageState = iota // not programmed since the last erase
	Valid                    // programmed, at least one unit valid
	Invalid                  // programmed, no unit valid
)

// String returns "erased", "valid" or "invalid".
func (s PageState) String() string {
	switch s {
	case Erased:
		return "erased"
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return fmt.Sprintf("PageState(%d)", int(s))
}

// Device is the state of a flash array: per block a write pointer, a valid
// unit count and an erase count; per unit an OOB tag and a valid bit.
//
// A Device is not safe for concurrent use: its FTL (and through it one
// engine) changes it from one goroutine.
type Device struct {
	geo  Geometry
	upp  int // units per page
	upg  int // units per plane group
	ppb  int // pages per block
	np   int // planes per die
	nblk int

	wp     []uint16 // next page to program, per physical block
	valid  []uint32 // valid units, per physical block
	erases []uint32 // erase count, per physical block

	ntags tagTable // OOB tag, per unit (nil with Config.DropTags)
	units int64    // units in the array
	vbit  []uint64 // valid bit, per unit
	data  []uint32 // payload token per unit, only with TrackData
	seqs  []uint32 // write sequence per unit (the FTL's), only with TrackData
	bad   []bool   // bad blocks, factory and grown (nil: none yet)
	// grown bad blocks: the failure draws, and the hazard's scale
	rng    *rand.Rand
	hazard float64 // −ln(1 − GrownBadPermille/1000) / RatedCycles³
	grown  int
	// Config.TrackAge: per block, reads since erase and when it was last
	// programmed (nil without)
	reads  []uint32
	progAt []int64
	// program failures: the draws, and the per-program hazard's scale
	prng    *rand.Rand
	phazard float64 // −ln(1 − ProgramFailPermille/1000) / RatedCycles³ / PagesPerBlock

	// SLC mode: per block, whether it is written one bit per cell (nil
	// until a block first is) and its erases in that mode; the pages a
	// block holds in SLC mode; the native cycles one SLC-mode erase
	// wears (RatedCycles / SLCRatedCycles).
	slc       []bool
	slcErases []uint32
	slcPages  int
	slcWear   float64

	// With power-of-two geometry, unit arithmetic uses shifts.
	pow2                        bool
	upgShift, uppShift, npShift uint

	cfg Config // last: read rarely, it keeps the fields above together
}

func log2(n int) (uint, bool) {
	s := uint(0)
	for 1<<s < n {
		s++
	}
	return s, 1<<s == n
}

// New builds a device in the factory state: every block erased, no erase
// counted yet.
func New(cfg Config) (*Device, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := cfg.Geometry
	d := &Device{
		cfg:  cfg,
		geo:  g,
		upp:  g.UnitsPerPage(),
		upg:  g.UnitsPerGroup(),
		ppb:  g.PagesPerBlock,
		np:   g.PlanesPerDie,
		nblk: g.Blocks(),
	}
	var ok1, ok2, ok3 bool
	d.upgShift, ok1 = log2(d.upg)
	d.uppShift, ok2 = log2(d.upp)
	d.npShift, ok3 = log2(d.np)
	d.pow2 = ok1 && ok2 && ok3
	n := g.Units()
	d.units = n
	d.wp = make([]uint16, d.nblk)
	d.valid = make([]uint32, d.nblk)
	d.erases = make([]uint32, d.nblk)
	if !cfg.DropTags {
		d.ntags = make(tagTable, n) // all NoTag
	}
	d.vbit = make([]uint64, (n+63)/64)
	if cfg.TrackData {
		d.data = make([]uint32, n)
		d.seqs = make([]uint32, n)
	}
	if pm := cfg.Timing.BadBlockPermille; pm > 0 {
		r := rand.New(rand.NewPCG(cfg.Seed, 0xbadb10c))
		d.bad = make([]bool, d.nblk)
		for pb := range d.bad {
			d.bad[pb] = r.IntN(1000) < pm
		}
	}
	if slc, ok := cfg.Timing.SLCMode(); ok && cfg.Timing.Cell != SLC {
		d.slcPages = g.PagesPerBlock / cfg.Timing.WordLinePages()
		d.slcWear = float64(cfg.Timing.RatedCycles) / float64(slc.RatedCycles)
	}
	if cfg.TrackAge {
		d.reads = make([]uint32, d.nblk)
		d.progAt = make([]int64, d.nblk)
	}
	if pm := cfg.Timing.ProgramFailPermille; pm > 0 {
		d.prng = rand.New(rand.NewPCG(cfg.Seed, 0x9f0a11))
		rc := float64(cfg.Timing.RatedCycles)
		d.phazard = -math.Log(1-float64(pm)/1000) / (rc * rc * rc) / float64(cfg.Geometry.PagesPerBlock)
		if d.bad == nil {
			d.bad = make([]bool, d.nblk)
		}
	}
	if pm := cfg.Timing.GrownBadPermille; pm > 0 {
		d.rng = rand.New(rand.NewPCG(cfg.Seed, 0x6b0b4d))
		rc := float64(cfg.Timing.RatedCycles)
		d.hazard = -math.Log(1-float64(pm)/1000) / (rc * rc * rc)
		if d.bad == nil {
			d.bad = make([]bool, d.nblk)
		}
	}
	return d, nil
}

// Config returns the configuration the device was built with.
func (d *Device) Config() Config { return d.cfg }

// Geometry returns the device geometry.
func (d *Device) Geometry() Geometry { return d.geo }

// MemoryBytes is the memory held by the device's state slices.
func (d *Device) MemoryBytes() int64 {
	return int64(len(d.reads))*4 + int64(len(d.progAt))*8 + int64(len(d.seqs))*4 + int64(len(d.wp))*2 + int64(len(d.valid))*4 + int64(len(d.erases))*4 +
		int64(len(d.ntags))*4 + int64(len(d.vbit))*8 + int64(len(d.data))*4
}

// Block returns the physical block number of plane p of plane group g.
func (d *Device) Block(group, plane int) int { return group*d.np + plane }

// DieOfBlock returns the die holding physical block pb.
func (d *Device) DieOfBlock(pb int) int { return pb / d.np / d.geo.BlocksPerPlane }

// Unit returns the unit number of slot s of page p of physical block pb.
func (d *Device) Unit(pb, page, slot int) int64 {
	if d.pow2 {
		g, pl := pb>>d.npShift, pb&(d.np-1)
		return int64(g)<<d.upgShift + int64((page<<d.npShift+pl)<<d.uppShift+slot)
	}
	g, pl := pb/d.np, pb%d.np
	return int64(g)*int64(d.upg) + int64((page*d.np+pl)*d.upp+slot)
}

// Locate returns the physical block and page holding unit u.
func (d *Device) Locate(u int64) (pb, page int) {
	if d.pow2 {
		pp := int(u&int64(d.upg-1)) >> d.uppShift
		return int(u>>d.upgShift)<<d.npShift + pp&(d.np-1), pp >> d.npShift
	}
	g := int(u / int64(d.upg))
	off := int(u % int64(d.upg))
	pp := off / d.upp
	return g*d.np + pp%d.np, pp / d.np
}

// State returns the state of physical block pb.
func (d *Device) State(pb int) BlockState {
	switch int(d.wp[pb]) {
	case 0:
		return Free
	case d.PagesIn(pb):
		return Full
	}
	return Open
}

// WritePointer returns the next page to be programmed in block pb.
func (d *Device) WritePointer(pb int) int { return int(d.wp[pb]) }

// ValidUnits returns the number of valid units in physical block pb.
func (d *Device) ValidUnits(pb int) int { return int(d.valid[pb]) }

// EraseCount returns the wear of physical block pb in native
// program/erase cycles: its erases in its native mode, plus its erases
// in SLC mode scaled by RatedCycles/SLCRatedCycles (rounded down).
func (d *Device) EraseCount(pb int) int {
	if d.slcErases != nil {
		return int(d.erases[pb]) + int(float64(d.slcErases[pb])*d.slcWear)
	}
	return int(d.erases[pb])
}

// IsValid reports whether unit u holds valid data.
func (d *Device) IsValid(u int64) bool { return d.vbit[u>>6]&(1<<(u&63)) != 0 }

// PrefetchUnit hints that unit u's valid bit (and, with tag, its OOB tag,
// which reads check) will be needed soon. It changes nothing.
func (d *Device) PrefetchUnit(u int64, tag bool) {
	if u >= 0 && u < d.units {
		prefetch.Load(unsafe.Pointer(&d.vbit[u>>6]))
		if tag && d.ntags != nil {
			prefetch.Load(unsafe.Pointer(&d.ntags[u]))
		}
	}
}

// ValidMask returns the valid bits of the n ≤ 64 units starting at u, unit
// u in bit 0.
func (d *Device) ValidMask(u int64, n int) uint64 {
	w, b := u>>6, uint(u&63)
	m := d.vbit[w] >> b
	if b+uint(n) > 64 && w+1 < int64(len(d.vbit)) {
		m |= d.vbit[w+1] << (64 - b)
	}
	if n < 64 {
		m &= 1<<uint(n) - 1
	}
	return m
}

// Tag returns the OOB tag of unit u (NoTag when never written since
// erase, or when the device keeps no tags: Config.DropTags).
func (d *Device) Tag(u int64) uint32 {
	if d.ntags == nil {
		return NoTag
	}
	return d.ntags.at(u)
}

// Data returns the payload token of unit u, or 0 when the device does not
// track data. It does not check validity; use Read for a checked read.
func (d *Device) Data(u int64) uint32 {
	if d.data == nil {
		return 0
	}
	return d.data[u]
}

// IsBad reports whether physical block pb left the factory bad: it can be
// neither programmed nor erased.
func (d *Device) IsBad(pb int) bool { return d.bad != nil && d.bad[pb] }

// BadBlocks counts the factory bad blocks.
func (d *Device) BadBlocks() int {
	n := 0
	for _, b := range d.bad {
		if b {
			n++
		}
	}
	return n - d.grown
}

// GrownBadBlocks counts the blocks whose erase or program has failed.
func (d *Device) GrownBadBlocks() int { return d.grown }
