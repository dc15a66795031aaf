package controller

import (
	"fmt"
	"math"

	"github.com/ftlsim/ftlsim/internal/units"
)

// Sizing says which of a drive's three sizes — user capacity, spare area
// and flash (blocks per plane) — a description derives from the other
// two. It is the description's "sizing" field.
type Sizing string

// The sizings. The zero value is SizeFlash.
const (
	// SizeFlash derives the flash from capacity and op_percent: physical
	// = capacity × (1 + op_percent/100) (more with RAISE parity), rounded
	// up to whole blocks on every plane of every die. blocks_per_plane is
	// left 0; the rest of the geometry is given.
	SizeFlash Sizing = "flash"
	// SizeSpare keeps a full geometry and a capacity and derives the spare
	// area from them. op_percent, when given (non-zero), states the spare
	// area expected and must agree with the geometry. Product lines, whose
	// die count follows from their raw flash, use it.
	SizeSpare Sizing = "spare"
	// SizeCapacity derives the user capacity from a full geometry and
	// op_percent: capacity = flash / (1 + op_percent/100), rounded down to
	// whole mapping units. capacity is left 0.
	SizeCapacity Sizing = "capacity"
)

// sizings lists the sizings in the order errors name them.
var sizings = []Sizing{SizeFlash, SizeSpare, SizeCapacity}

// UnmarshalText accepts the name of a sizing.
func (s *Sizing) UnmarshalText(b []byte) error {
	v := Sizing(b)
	if !v.valid() {
		return fmt.Errorf("sizing %q, allowed %s", b, sizingNames())
	}
	*s = v
	return nil
}

func (s Sizing) valid() bool {
	for _, k := range sizings {
		if s == k {
			return true
		}
	}
	return false
}

func sizingNames() string {
	return fmt.Sprintf("%s, %s or %s", sizings[0], sizings[1], sizings[2])
}

// Resolved is a drive description that Resolve has checked and completed.
type Resolved struct {
	// Config is the drive as built: the full geometry (blocks_per_plane
	// derived under SizeFlash), the capacity (derived under SizeCapacity,
	// and rounded down to whole mapping units), on an NVMe drive with
	// link_mbps 0 the bandwidth its PCIe link gives (PCIeLinkMBps), and
	// Sizing SizeSpare, since every size is now given; it resolves to
	// itself. OPPercent is the description's, unchanged: the spare area
	// asked for.
	Config Config
	// SparePercent is the spare area the rounded geometry gives, in
	// percent of the user capacity: (flash less RAISE parity − capacity)
	// / capacity. Under SizeFlash it is at least the OPPercent asked for.
	SparePercent float64
	// Warnings are what the user should know about the drive as built
	// (its write points holding more than a quarter of its spare area),
	// for the caller to show.
	Warnings []Warning
}

// Resolve checks the description and returns the drive as built. The
// receiver is a value and is never changed: the sizes that the Sizing
// derives are filled in on the returned copy. Errors wrap ErrConfig and
// name the field and its allowed range.
func (c Config) Resolve() (Resolved, error) {
	r, err := c.resolve()
	return r, c.located(err)
}

func (c *Config) resolve() (Resolved, error) {
	if err := c.checkFinite(); err != nil {
		return Resolved{}, err
	}
	// The sizes the sizing works from; the rest is checked on the drive
	// as built, once the derived sizes are filled in.
	for _, p := range []any{&c.Sizing, &c.OPPercent, &c.Capacity} {
		if err := c.checkRange(p); err != nil {
			return Resolved{}, err
		}
	}
	if c.Capacity%512 != 0 {
		return Resolved{}, c.errAt(&c.Capacity, "%s = %d bytes, must be a multiple of 512", c.FieldPath(&c.Capacity), c.Capacity)
	}
	built := *c
	switch c.Sizing {
	case SizeFlash, "":
		bpp, err := c.flashBlocks()
		if err != nil {
			return Resolved{}, err
		}
		built.NAND.Geometry.BlocksPerPlane = bpp
	case SizeSpare:
		if err := c.checkSpare(); err != nil {
			return Resolved{}, err
		}
	case SizeCapacity:
		capacity, err := c.geometryCapacity()
		if err != nil {
			return Resolved{}, err
		}
		built.Capacity = capacity
	}
	if err := built.resolveHost(); err != nil {
		return Resolved{}, err
	}
	if err := built.checkRanges(); err != nil {
		return Resolved{}, err
	}
	g := built.NAND.Geometry
	if err := built.NAND.Validate(); err != nil {
		return Resolved{}, built.located(err)
	}
	// The FTL maps whole units; a capacity that is not a whole number of
	// units is rounded down, as drives report whole sectors.
	whole := built.Capacity / Size(g.UnitBytes) * Size(g.UnitBytes)
	if whole == 0 {
		return Resolved{}, built.errAt(&built.Capacity, "%s = %d bytes is less than one mapping unit (%s = %d)",
			c.FieldPath(&c.Capacity), built.Capacity, c.FieldPath(&c.NAND.Geometry.UnitBytes), g.UnitBytes)
	}
	built.Capacity = whole
	if err := built.validateFirmwareData(); err != nil {
		return Resolved{}, err
	}
	if err := built.validateRules(); err != nil {
		return Resolved{}, err
	}
	if err := built.validateZoned(); err != nil {
		return Resolved{}, err
	}
	if err := built.validateFDP(); err != nil {
		return Resolved{}, err
	}
	built.Sizing = SizeSpare
	built.origin = nil // the drive as built is not the text read
	return Resolved{Config: built, SparePercent: spareOf(g.Bytes(), built.Firmware.RaiseStripe, built.Capacity), Warnings: built.spareWarnings()}, nil
}

// Resized returns the description of the same drive — its dies, NAND,
// host interface and firmware — sized from capacity and opPercent
// (SizeFlash), with blocks_per_plane left for Resolve to derive. The
// receiver is not changed. The command's --capacity and --op and the
// quick review build their drives with it. An SLC cache scales with the
// capacity (firmware sizes it as a share of the drive), rounded to
// whole MiB.
func (c Config) Resized(capacity Size, opPercent float64) Config {
	if old := c.Capacity; old > 0 && capacity != old {
		s := &c.Firmware.SLCCache
		scale := func(v Size) Size {
			if v <= 0 {
				return v
			}
			return max(Size(math.Round(float64(v)*float64(capacity)/float64(old)/(1<<20))), 1) << 20
		}
		s.Static, s.DynamicMax, s.DynamicReserve = scale(s.Static), scale(s.DynamicMax), scale(s.DynamicReserve)
	}
	c.Sizing, c.Capacity, c.OPPercent = SizeFlash, capacity, opPercent
	c.NAND.Geometry.BlocksPerPlane = 0
	return c
}

// flashBlocks returns the blocks per plane that hold capacity × (1 + OP)
// (SizeFlash).
func (c *Config) flashBlocks() (int, error) {
	g := c.NAND.Geometry
	n := c.names()
	if c.Capacity == 0 {
		return 0, c.errAt(&c.Capacity, "%s = 0: %s: %s sizes the flash from %s and %s; allowed a positive multiple of 512 bytes",
			n.capacity, n.sizing, SizeFlash, n.capacity, n.op)
	}
	if g.BlocksPerPlane != 0 {
		return 0, c.errAt(&c.NAND.Geometry.BlocksPerPlane, "%s = %d: %s: %s derives it from %s and %s; leave it 0, or set %s: %s to keep the geometry and derive the spare area",
			n.blocks, g.BlocksPerPlane, n.sizing, SizeFlash, n.capacity, n.op, n.sizing, SizeSpare)
	}
	g.BlocksPerPlane = 1 // placeholder so the rest of the geometry validates
	if err := g.Validate(); err != nil {
		return 0, c.located(err)
	}
	perBlockRow := float64(g.Dies()) * float64(g.PlanesPerDie) * float64(g.BlockBytes())
	want := float64(c.Capacity) * (1 + c.OPPercent/100) / dataShare(c.Firmware.RaiseStripe)
	bpp := math.Ceil(want / perBlockRow)
	if bpp > 1<<20 {
		return 0, c.errAt(&c.Capacity, "%s = %d bytes needs %g blocks per plane, allowed at most %d", n.capacity, c.Capacity, bpp, 1<<20)
	}
	return int(bpp), nil
}

// checkSpare checks that the capacity fits the geometry and, when
// op_percent is given, that it agrees with the spare area the geometry
// leaves (SizeSpare).
func (c *Config) checkSpare() error {
	g := c.NAND.Geometry
	n := c.names()
	if c.Capacity == 0 {
		return c.errAt(&c.Capacity, "%s = 0: %s: %s derives the spare area from %s and the geometry; allowed a positive multiple of 512 bytes",
			n.capacity, n.sizing, SizeSpare, n.capacity)
	}
	if err := c.NAND.Validate(); err != nil {
		return c.located(err)
	}
	phys := g.Bytes()
	if int64(c.Capacity) >= phys {
		return c.errAt(&c.Capacity, "%s = %s does not fit the geometry's %s of flash (%d dies × %d planes × %d blocks × %d pages × %d bytes)",
			n.capacity, units.FormatBytes(int64(c.Capacity)), units.FormatBytes(phys), g.Dies(), g.PlanesPerDie,
			g.BlocksPerPlane, g.PagesPerBlock, g.PageBytes)
	}
	share := dataShare(c.Firmware.RaiseStripe)
	if data := int64(float64(phys) * share); int64(c.Capacity) >= data {
		return c.errAt(&c.Capacity, "%s = %s does not fit the %s of flash the geometry leaves beside RAISE parity (%s = %d)",
			n.capacity, units.FormatBytes(int64(c.Capacity)), units.FormatBytes(data), c.FieldPath(&c.Firmware.RaiseStripe), c.Firmware.RaiseStripe)
	}
	if c.OPPercent == 0 {
		return nil // not stated: the geometry decides
	}
	derived := spareOf(phys, c.Firmware.RaiseStripe, c.Capacity)
	row := float64(g.Dies()) * float64(g.PlanesPerDie) * float64(g.BlockBytes())
	sized := int(math.Ceil(float64(c.Capacity) * (1 + c.OPPercent/100) / share / row))
	if math.Abs(c.OPPercent-derived) > 0.01 && sized != g.BlocksPerPlane {
		return c.errAt(&c.OPPercent, "%s = %g does not match the geometry, which leaves %.3f %% spare; set %s to that, or %s: %s with %s: 0 to size the flash from %s",
			n.op, c.OPPercent, derived, n.op, n.sizing, SizeFlash, n.blocksLeaf, n.op)
	}
	return nil
}

// geometryCapacity returns the user capacity the geometry holds with
// op_percent of spare area (SizeCapacity).
func (c *Config) geometryCapacity() (Size, error) {
	g := c.NAND.Geometry
	if n := c.names(); c.Capacity != 0 {
		return 0, c.errAt(&c.Capacity, "%s = %s: %s: %s derives it from the geometry and %s; leave it 0, or set %s: %s to keep it and derive the spare area",
			n.capacity, c.Capacity, n.sizing, SizeCapacity, n.op, n.sizing, SizeSpare)
	}
	if err := c.NAND.Validate(); err != nil {
		return 0, c.located(err)
	}
	u := float64(g.Bytes()) * dataShare(c.Firmware.RaiseStripe) / (1 + c.OPPercent/100)
	return Size(int64(u) / int64(g.UnitBytes) * int64(g.UnitBytes)), nil
}

// sizeNames are the names of the fields the sizing relates, as errors
// write them.
type sizeNames struct{ capacity, op, sizing, blocks, blocksLeaf string }

func (c *Config) names() sizeNames {
	g := &c.NAND.Geometry
	return sizeNames{capacity: c.FieldPath(&c.Capacity), op: c.FieldPath(&c.OPPercent), sizing: c.FieldPath(&c.Sizing),
		blocks: c.FieldPath(&g.BlocksPerPlane), blocksLeaf: fieldName(g, &g.BlocksPerPlane)}
}

// dataShare is the share of the flash that can hold data: all of it, less
// RAISE parity (one page in raiseStripe).
func dataShare(raiseStripe int) float64 {
	if raiseStripe > 1 {
		return float64(raiseStripe-1) / float64(raiseStripe)
	}
	return 1
}

// spareOf is the spare area, in percent of capacity, that flash bytes
// leave beside RAISE parity.
func spareOf(flash int64, raiseStripe int, capacity Size) float64 {
	data := int64(float64(flash) * dataShare(raiseStripe))
	return 100 * float64(data-int64(capacity)) / float64(capacity)
}
