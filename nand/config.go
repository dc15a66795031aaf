package nand

import (
	"errors"
	"fmt"
	"strings"
)

// ErrConfig is wrapped by every configuration validation error.
var ErrConfig = errors.New("invalid configuration")

// MaxUnits is the largest number of mapping units a device may hold; unit
// numbers are stored in 32 bits and one value is reserved.
const MaxUnits = 1<<32 - 2

// Geometry is the physical organisation of the flash array.
type Geometry struct {
	Channels          int `yaml:"channels" json:"channels"`                       // independent buses
	TargetsPerChannel int `yaml:"targets_per_channel" json:"targets_per_channel"` // chip enables on each bus
	DiesPerTarget     int `yaml:"dies_per_target" json:"dies_per_target"`         // LUNs behind each chip enable
	PlanesPerDie      int `yaml:"planes_per_die" json:"planes_per_die"`           // planes operated together by multi-plane commands
	BlocksPerPlane    int `yaml:"blocks_per_plane" json:"blocks_per_plane"`       // erase blocks in each plane
	PagesPerBlock     int `yaml:"pages_per_block" json:"pages_per_block"`         // program pages in each block
	PageBytes         int `yaml:"page_bytes" json:"page_bytes"`                   // user data bytes per page
	SpareBytes        int `yaml:"spare_bytes" json:"spare_bytes"`                 // OOB bytes per page (ECC, tags)
	UnitBytes         int `yaml:"unit_bytes" json:"unit_bytes"`                   // mapping unit; PageBytes must be a multiple
}

// Dies is the number of dies in the array.
func (g Geometry) Dies() int { return g.Channels * g.TargetsPerChannel * g.DiesPerTarget }

// Groups is the number of plane groups (multi-plane blocks).
func (g Geometry) Groups() int { return g.Dies() * g.BlocksPerPlane }

// Blocks is the number of physical erase blocks.
func (g Geometry) Blocks() int { return g.Groups() * g.PlanesPerDie }

// UnitsPerPage is the number of mapping units in one page of one plane.
func (g Geometry) UnitsPerPage() int { return g.PageBytes / g.UnitBytes }

// UnitsPerGroup is the number of mapping units in one plane group.
func (g Geometry) UnitsPerGroup() int {
	return g.PagesPerBlock * g.PlanesPerDie * g.UnitsPerPage()
}

// Units is the number of mapping units in the array.
func (g Geometry) Units() int64 { return int64(g.Groups()) * int64(g.UnitsPerGroup()) }

// Bytes is the user-data capacity of the array (spare bytes excluded).
func (g Geometry) Bytes() int64 { return g.Units() * int64(g.UnitBytes) }

// BlockBytes is the data capacity of one physical block.
func (g Geometry) BlockBytes() int64 { return int64(g.PagesPerBlock) * int64(g.PageBytes) }

// Validate reports the first field that is out of range.
func (g Geometry) Validate() error {
	pos := []struct {
		name string
		v    int
		max  int
	}{
		{"channels", g.Channels, 64},
		{"targets_per_channel", g.TargetsPerChannel, 16},
		{"dies_per_target", g.DiesPerTarget, 16},
		{"planes_per_die", g.PlanesPerDie, 8},
		{"blocks_per_plane", g.BlocksPerPlane, 1 << 20},
		{"pages_per_block", g.PagesPerBlock, 4096},
		{"page_bytes", g.PageBytes, 1 << 20},
		{"unit_bytes", g.UnitBytes, 1 << 20},
	}
	for _, p := range pos {
		if p.v < 1 || p.v > p.max {
			return fmt.Errorf("%w: geometry.%s = %d, allowed 1..%d", ErrConfig, p.name, p.v, p.max)
		}
	}
	if g.SpareBytes < 0 || g.SpareBytes > g.PageBytes {
		return fmt.Errorf("%w: geometry.spare_bytes = %d, allowed 0..page_bytes (%d)", ErrConfig, g.SpareBytes, g.PageBytes)
	}
	if g.UnitBytes%512 != 0 {
		return fmt.Errorf("%w: geometry.unit_bytes = %d, must be a multiple of 512", ErrConfig, g.UnitBytes)
	}
	if g.PageBytes%g.UnitBytes != 0 {
		return fmt.Errorf("%w: geometry.page_bytes = %d, must be a multiple of unit_bytes (%d)", ErrConfig, g.PageBytes, g.UnitBytes)
	}
	if n := g.UnitsPerPage() * g.PlanesPerDie; n > 64 {
		return fmt.Errorf("%w: geometry.planes_per_die × page_bytes/unit_bytes = %d mapping units per multi-plane page, allowed 1..64", ErrConfig, n)
	}
	if u := g.Units(); u > MaxUnits {
		return fmt.Errorf("%w: geometry holds %d mapping units, allowed at most %d (use larger unit_bytes)", ErrConfig, u, int64(MaxUnits))
	}
	return nil
}

// CellType is the number of bits stored per cell, which decides how pages
// pair up on word lines and so which pages program fast (LSB) or slow (MSB).
type CellType int

// Cell types.
const (
	SLC CellType = 1
	MLC CellType = 2
	TLC CellType = 3
)

// String returns "slc", "mlc" or "tlc".
func (c CellType) String() string {
	switch c {
	case SLC:
		return "slc"
	case MLC:
		return "mlc"
	case TLC:
		return "tlc"
	}
	return fmt.Sprintf("CellType(%d)", int(c))
}

// ParseCellType parses "slc", "mlc" or "tlc".
func ParseCellType(s string) (CellType, error) {
	switch strings.ToLower(s) {
	case "slc":
		return SLC, nil
	case "mlc":
		return MLC, nil
	case "tlc":
		return TLC, nil
	}
	return 0, fmt.Errorf("%w: cell type %q, allowed slc, mlc, tlc", ErrConfig, s)
}

// MarshalText implements encoding.TextMarshaler.
func (c CellType) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *CellType) UnmarshalText(b []byte) error {
	v, err := ParseCellType(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Timing holds the latencies of one die and of its bus. Program latency
// depends on the page's position on its word line: pages are LSB (fast) or
// MSB (slow) in the interleaved order that MLC parts use (see PageKind).
type Timing struct {
	Cell        CellType `yaml:"cell" json:"cell"`
	ReadNs      int64    `yaml:"read_ns" json:"read_ns"`               // tR: array to page register
	ProgLSBNs   int64    `yaml:"prog_lsb_ns" json:"prog_lsb_ns"`       // tPROG of a lower (fast) page
	ProgMSBNs   int64    `yaml:"prog_msb_ns" json:"prog_msb_ns"`       // tPROG of an upper (slow) page
	EraseNs     int64    `yaml:"erase_ns" json:"erase_ns"`             // tBERS
	BusMBps     int64    `yaml:"bus_mbps" json:"bus_mbps"`             // channel transfer rate, 10^6 bytes/s
	CommandNs   int64    `yaml:"command_ns" json:"command_ns"`         // command and address cycles per operation
	RatedCycles int      `yaml:"rated_cycles" json:"rated_cycles"`     // rated program/erase endurance
	PlaneNs     int64    `yaml:"plane_extra_ns" json:"plane_extra_ns"` // extra time a multi-plane operation takes per additional plane
	// BadBlockPermille is the share of blocks, in thousandths, that leave
	// the factory bad (data sheets give a minimum of valid blocks: 4,016
	// of 4,096 is at most 19.5 ‰). Each block is bad with that
	// probability, drawn from Config.Seed. 0: none.
	BadBlockPermille int `yaml:"bad_block_permille,omitempty" json:"bad_block_permille,omitempty"`
	// GrownBadPermille is the share of blocks, in thousandths, whose
	// erase has failed by the time they reach RatedCycles: a failed erase
	// makes the block bad. The hazard grows with the cube of the erase
	// count (wear-out), so few blocks fail early. 0: none.
	GrownBadPermille int `yaml:"grown_bad_permille,omitempty" json:"grown_bad_permille,omitempty"`
	// ProgramFailPermille is the share of blocks, in thousandths, with a
	// page whose program has failed by the time they reach RatedCycles:
	// the page's data is not stored and the block is bad. The hazard
	// grows with the cube of the erase count, like erase failures. 0:
	// none.
	ProgramFailPermille int `yaml:"program_fail_permille,omitempty" json:"program_fail_permille,omitempty"`
}

// Validate reports the first field that is out of range.
func (t Timing) Validate() error {
	if t.Cell < SLC || t.Cell > TLC {
		return fmt.Errorf("%w: timing.cell = %d, allowed slc, mlc, tlc", ErrConfig, int(t.Cell))
	}
	const maxNs = int64(1e9) // one second: no real operation takes longer
	ns := []struct {
		name string
		v    int64
		min  int64
	}{
		{"read_ns", t.ReadNs, 1},
		{"prog_lsb_ns", t.ProgLSBNs, 1},
		{"prog_msb_ns", t.ProgMSBNs, 1},
		{"erase_ns", t.EraseNs, 1},
		{"command_ns", t.CommandNs, 0},
		{"plane_extra_ns", t.PlaneNs, 0},
	}
	for _, f := range ns {
		if f.v < f.min || f.v > maxNs {
			return fmt.Errorf("%w: timing.%s = %d, allowed %d..%d", ErrConfig, f.name, f.v, f.min, maxNs)
		}
	}
	if t.BusMBps < 1 || t.BusMBps > 100000 {
		return fmt.Errorf("%w: timing.bus_mbps = %d, allowed 1..100000", ErrConfig, t.BusMBps)
	}
	if t.RatedCycles < 1 || t.RatedCycles > 10_000_000 {
		return fmt.Errorf("%w: timing.rated_cycles = %d, allowed 1..10000000", ErrConfig, t.RatedCycles)
	}
	if t.BadBlockPermille < 0 || t.BadBlockPermille > 100 {
		return fmt.Errorf("%w: timing.bad_block_permille = %d, allowed 0..100", ErrConfig, t.BadBlockPermille)
	}
	if t.GrownBadPermille < 0 || t.GrownBadPermille > 999 {
		return fmt.Errorf("%w: timing.grown_bad_permille = %d, allowed 0..999", ErrConfig, t.GrownBadPermille)
	}
	if t.ProgramFailPermille < 0 || t.ProgramFailPermille > 999 {
		return fmt.Errorf("%w: timing.program_fail_permille = %d, allowed 0..999", ErrConfig, t.ProgramFailPermille)
	}
	return nil
}

// Config describes a flash array.
type Config struct {
	Geometry Geometry `yaml:"geometry" json:"geometry"`
	Timing   Timing   `yaml:"timing" json:"timing"`
	// TrackData keeps a 32-bit payload token per unit so that reads return
	// what was written. Tests use it; simulations leave it off to save memory.
	TrackData bool `yaml:"-" json:"-"`
	// Seed draws the factory bad blocks (Timing.BadBlockPermille).
	Seed uint64 `yaml:"-" json:"-"`
	// Reliability is the part's raw bit-error model (zero: none).
	Reliability Reliability `yaml:"reliability,omitempty" json:"reliability,omitempty"`
	// TrackAge keeps, per block, the reads since its erase and the time
	// it was last programmed (the inputs of Reliability.RBER); a
	// controller that models read errors sets it.
	TrackAge bool `yaml:"-" json:"-"`
}

// Validate checks the geometry, the timing and the reliability model.
func (c Config) Validate() error {
	if err := c.Geometry.Validate(); err != nil {
		return err
	}
	if err := c.Timing.Validate(); err != nil {
		return err
	}
	return c.Reliability.Validate()
}
