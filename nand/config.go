package nand

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/ftlsim/ftlsim/internal/fields"
)

// ErrConfig is wrapped by every configuration validation error.
var ErrConfig = errors.New("invalid configuration")

// MaxUnits is the largest number of mapping units a device may hold; unit
// numbers are stored in 32 bits and one value is reserved.
const MaxUnits = 1<<32 - 2

// Geometry is the physical organisation of the flash array.
type Geometry struct {
	Channels          int `yaml:"channels" json:"channels" layer:"board" range:"1..64" doc:"independent flash buses"`
	TargetsPerChannel int `yaml:"targets_per_channel" json:"targets_per_channel" layer:"board" range:"1..16" doc:"chip enables on each bus"`
	DiesPerTarget     int `yaml:"dies_per_target" json:"dies_per_target" layer:"board" range:"1..16" doc:"dies (LUNs) behind each chip enable"`
	PlanesPerDie      int `yaml:"planes_per_die" json:"planes_per_die" layer:"part" range:"1..8" doc:"planes operated together by multi-plane commands"`
	BlocksPerPlane    int `yaml:"blocks_per_plane" json:"blocks_per_plane" layer:"part" range:"1..1048576" default:"derived (sizing: flash)" doc:"erase blocks in each plane"`
	PagesPerBlock     int `yaml:"pages_per_block" json:"pages_per_block" layer:"part" range:"1..4096" doc:"program pages in each block"`
	PageBytes         int `yaml:"page_bytes" json:"page_bytes" layer:"part" unit:"bytes" range:"1..1048576" doc:"user data bytes per page"`
	SpareBytes        int `yaml:"spare_bytes" json:"spare_bytes" layer:"part" unit:"bytes" range:"0..1048576" doc:"out-of-band bytes per page (ECC, tags), at most page_bytes"`
	UnitBytes         int `yaml:"unit_bytes" json:"unit_bytes" layer:"firmware" unit:"bytes" range:"1..1048576" doc:"mapping unit: a multiple of 512 that divides page_bytes, or a multiple of page_bytes that divides the multi-plane page (planes_per_die × page_bytes)"`
}

// Dies is the number of dies in the array.
func (g Geometry) Dies() int { return g.Channels * g.TargetsPerChannel * g.DiesPerTarget }

// Groups is the number of plane groups (multi-plane blocks).
func (g Geometry) Groups() int { return g.Dies() * g.BlocksPerPlane }

// Blocks is the number of physical erase blocks.
func (g Geometry) Blocks() int { return g.Groups() * g.PlanesPerDie }

// UnitsPerPage is the number of device units in one page of one plane:
// mapping units, or one when a mapping unit spans pages (UnitBytes above
// PageBytes; see DeviceUnitBytes).
func (g Geometry) UnitsPerPage() int { return g.PageBytes / g.DeviceUnitBytes() }

// DeviceUnitBytes is the unit the flash array stores: the mapping unit,
// or a page when the mapping unit is larger than a page. A mapping unit
// larger than a page spans UnitBytes/PageBytes planes of one multi-plane
// page, stored as that many page-sized device units.
func (g Geometry) DeviceUnitBytes() int { return min(g.UnitBytes, g.PageBytes) }

// UnitSpan is the number of device units one mapping unit spans: 1, or
// UnitBytes/PageBytes when the mapping unit is larger than a page.
func (g Geometry) UnitSpan() int { return max(1, g.UnitBytes/max(1, g.PageBytes)) }

// UnitsPerGroup is the number of mapping units in one plane group.
func (g Geometry) UnitsPerGroup() int {
	return g.PagesPerBlock * g.PlanesPerDie * g.UnitsPerPage()
}

// Units is the number of mapping units in the array.
func (g Geometry) Units() int64 { return int64(g.Groups()) * int64(g.UnitsPerGroup()) }

// Bytes is the user-data capacity of the array (spare bytes excluded).
func (g Geometry) Bytes() int64 { return g.Units() * int64(g.DeviceUnitBytes()) }

// BlockBytes is the data capacity of one physical block.
func (g Geometry) BlockBytes() int64 { return int64(g.PagesPerBlock) * int64(g.PageBytes) }

// Validate reports the first field that is out of range.
func (g Geometry) Validate() error {
	if err := fields.MustOf(reflect.TypeFor[Geometry]()).Check(&g, sectionPath(func(c *Config) any { return &c.Geometry })); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	name := func(ptr any) string { return g.name(ptr) }
	if g.SpareBytes > g.PageBytes {
		return fmt.Errorf("%w: %s = %d, allowed 0..%s (%d)", ErrConfig, name(&g.SpareBytes), g.SpareBytes, g.leaf(&g.PageBytes), g.PageBytes)
	}
	if g.UnitBytes%512 != 0 {
		return fmt.Errorf("%w: %s = %d, must be a multiple of 512", ErrConfig, name(&g.UnitBytes), g.UnitBytes)
	}
	if g.UnitBytes > g.PageBytes {
		// A large indirection unit: whole pages of one multi-plane page.
		if mp := g.PlanesPerDie * g.PageBytes; g.UnitBytes%g.PageBytes != 0 || mp%g.UnitBytes != 0 {
			return fmt.Errorf("%w: %s = %d, allowed a divisor of %s (%d) or, spanning planes, a multiple of it that divides %s × %s (%d)",
				ErrConfig, name(&g.UnitBytes), g.UnitBytes, g.leaf(&g.PageBytes), g.PageBytes, g.leaf(&g.PlanesPerDie), g.leaf(&g.PageBytes), mp)
		}
	} else if g.PageBytes%g.UnitBytes != 0 {
		return fmt.Errorf("%w: %s = %d, must be a multiple of %s (%d)", ErrConfig, name(&g.PageBytes), g.PageBytes, g.leaf(&g.UnitBytes), g.UnitBytes)
	}
	if n := g.UnitsPerPage() * g.PlanesPerDie; n > 64 {
		return fmt.Errorf("%w: %s × %s/%s = %d mapping units per multi-plane page, allowed 1..64", ErrConfig,
			name(&g.PlanesPerDie), g.leaf(&g.PageBytes), g.leaf(&g.UnitBytes), n)
	}
	if u := g.Units(); u > MaxUnits {
		return fmt.Errorf("%w: geometry holds %d mapping units, allowed at most %d (use larger %s)", ErrConfig, u, int64(MaxUnits), g.leaf(&g.UnitBytes))
	}
	return nil
}

// sectionPath is the path, with a trailing dot, of the section of a
// Config that at returns ("geometry.").
func sectionPath(at func(*Config) any) string {
	var c Config
	return fields.PathOf(&c, at(&c)) + "."
}

// name is the path of field ptr of g in a Config ("geometry.unit_bytes").
func (g *Geometry) name(ptr any) string {
	return sectionPath(func(c *Config) any { return &c.Geometry }) + g.leaf(ptr)
}

// leaf is the name of field ptr of g ("unit_bytes").
func (g *Geometry) leaf(ptr any) string { return fields.PathOf(g, ptr) }

// CellType is the number of bits stored per cell, which decides how many
// pages share a word line and so which pages program and read fast
// (lower) or slow (upper, top).
type CellType int

// Cell types.
const (
	SLC CellType = 1
	MLC CellType = 2
	TLC CellType = 3
	QLC CellType = 4
)

// Bits returns the bits stored per cell: the pages of a word line.
func (c CellType) Bits() int { return int(c) }

// String returns "slc", "mlc", "tlc" or "qlc".
func (c CellType) String() string {
	switch c {
	case SLC:
		return "slc"
	case MLC:
		return "mlc"
	case TLC:
		return "tlc"
	case QLC:
		return "qlc"
	}
	return fmt.Sprintf("CellType(%d)", int(c))
}

// ParseCellType parses "slc", "mlc", "tlc" or "qlc".
func ParseCellType(s string) (CellType, error) {
	switch strings.ToLower(s) {
	case "slc":
		return SLC, nil
	case "mlc":
		return MLC, nil
	case "tlc":
		return TLC, nil
	case "qlc":
		return QLC, nil
	}
	return 0, fmt.Errorf("%w: cell type %q, allowed slc, mlc, tlc, qlc", ErrConfig, s)
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

// ProgramMode is how a part programs the pages of a word line.
type ProgramMode uint8

// Programming modes.
const (
	// MultiPass programs each page on its own, in order, with its page
	// type's tPROG (Timing.ProgNs): the lower page of a word line is
	// stored before its upper pages are sent. The zero value.
	MultiPass ProgramMode = iota
	// OneShot loads the pages of a word line into the die's latches and
	// programs them together: the die's array is busy once per word
	// line, for Timing.ProgWordLineNs, when its last page arrives (see
	// Timeline.Program).
	OneShot
)

// String returns "multi-pass" or "one-shot".
func (m ProgramMode) String() string {
	switch m {
	case MultiPass:
		return "multi-pass"
	case OneShot:
		return "one-shot"
	}
	return fmt.Sprintf("ProgramMode(%d)", int(m))
}

// ParseProgramMode parses "multi-pass" or "one-shot".
func ParseProgramMode(s string) (ProgramMode, error) {
	switch strings.ToLower(s) {
	case "multi-pass":
		return MultiPass, nil
	case "one-shot":
		return OneShot, nil
	}
	return 0, fmt.Errorf("%w: program mode %q, allowed multi-pass, one-shot", ErrConfig, s)
}

// MarshalText implements encoding.TextMarshaler.
func (m ProgramMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *ProgramMode) UnmarshalText(b []byte) error {
	v, err := ParseProgramMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Timing holds the latencies of one die and of its bus. Read and program
// latencies depend on the page's type — its position on its word line:
// lower, then middle, upper and top as the cell holds more bits (see
// PageType) — and programming is multi-pass or one-shot (ProgramMode).
//
// Without the per-page-type lists, every page reads in ReadNs and a
// multi-pass part programs its lower pages in ProgLSBNs, its last page of
// a word line in ProgMSBNs and those between at evenly spaced times (see
// ProgNs). The SLC-mode fields describe the part's blocks written one bit
// per cell (an SLC cache); SLCMode returns that timing.
type Timing struct {
	Cell        CellType `yaml:"cell" json:"cell" layer:"part" range:"slc|mlc|tlc|qlc" doc:"bits per cell"`
	ReadNs      int64    `yaml:"read_ns" json:"read_ns" layer:"part" unit:"ns" range:"1..1000000000" doc:"tR: array to page register"`                                                      // tR: array to page register (see ReadNsByPage)
	ProgLSBNs   int64    `yaml:"prog_lsb_ns" json:"prog_lsb_ns" layer:"part" unit:"ns" range:"0..1000000000" doc:"tPROG of a lower (fast) page; multi-pass parts without prog_ns_by_page"`  // tPROG of a lower (fast) page
	ProgMSBNs   int64    `yaml:"prog_msb_ns" json:"prog_msb_ns" layer:"part" unit:"ns" range:"0..1000000000" doc:"tPROG of an upper (slow) page; multi-pass parts without prog_ns_by_page"` // tPROG of an upper (slow) page
	EraseNs     int64    `yaml:"erase_ns" json:"erase_ns" layer:"part" unit:"ns" range:"1..1000000000" doc:"tBERS: block erase"`                                                            // tBERS
	BusMBps     int64    `yaml:"bus_mbps" json:"bus_mbps" layer:"part" unit:"MB/s" range:"1..100000" doc:"channel transfer rate"`                                                           // channel transfer rate, 10^6 bytes/s
	CommandNs   int64    `yaml:"command_ns" json:"command_ns" layer:"part" unit:"ns" range:"0..1000000000" doc:"command and address cycles per operation"`                                  // command and address cycles per operation
	RatedCycles int      `yaml:"rated_cycles" json:"rated_cycles" layer:"part" unit:"P/E cycles" range:"1..10000000" doc:"rated program/erase endurance"`                                   // rated program/erase endurance
	PlaneNs     int64    `yaml:"plane_extra_ns" json:"plane_extra_ns" layer:"part" unit:"ns" range:"0..1000000000" doc:"extra time of a multi-plane operation per additional plane"`        // extra time a multi-plane operation takes per additional plane
	// ReadNsByPage is tR of each page type, lower page first: one value
	// per bit of the cell (lower, upper on MLC; lower, middle, upper on
	// TLC; lower, middle, upper, top on QLC). Empty: ReadNs for every
	// page. ReadNs stays the time of a read whose page is not known
	// (mapping pages, the mount scan).
	ReadNsByPage []int64 `yaml:"read_ns_by_page,omitempty" json:"read_ns_by_page,omitempty" layer:"part" unit:"ns" range:"1..1000000000" default:"read_ns for every page" doc:"tR of each page type, lower page first: one value per bit of the cell"`
	// ProgNsByPage is tPROG of each page type of a multi-pass part, in
	// the order of ReadNsByPage. Empty: derived from ProgLSBNs and
	// ProgMSBNs, which must then be given (and must not be otherwise).
	ProgNsByPage []int64 `yaml:"prog_ns_by_page,omitempty" json:"prog_ns_by_page,omitempty" layer:"part" unit:"ns" range:"1..1000000000" default:"from prog_lsb_ns and prog_msb_ns" doc:"tPROG of each page type of a multi-pass part, lower page first"`
	// Program is multi-pass (the default) or one-shot.
	Program ProgramMode `yaml:"program,omitempty" json:"program,omitempty" layer:"part" range:"multi-pass|one-shot" doc:"how the pages of a word line are programmed"`
	// ProgWordLineNs is tPROG of a whole word line of a one-shot part
	// (Program: one-shot), which takes no per-page program times.
	ProgWordLineNs int64 `yaml:"prog_word_line_ns,omitempty" json:"prog_word_line_ns,omitempty" layer:"part" unit:"ns" range:"0..1000000000" doc:"tPROG of a whole word line of a one-shot part"`
	// SLCReadNs, SLCProgNs and SLCEraseNs are tR, tPROG and tBERS of a
	// block used in SLC mode (one bit per cell, as an SLC cache writes
	// it); SLCRatedCycles is the program/erase endurance of such a block.
	// All zero: the part states no SLC mode. Otherwise read, program and
	// endurance are all needed; erase defaults to EraseNs. Only parts of
	// two or more bits per cell have them. See SLCMode.
	SLCReadNs      int64 `yaml:"slc_read_ns,omitempty" json:"slc_read_ns,omitempty" layer:"part" unit:"ns" range:"0..1000000000" default:"0: no SLC mode" doc:"tR of a block used in SLC mode"`
	SLCProgNs      int64 `yaml:"slc_prog_ns,omitempty" json:"slc_prog_ns,omitempty" layer:"part" unit:"ns" range:"0..1000000000" default:"0: no SLC mode" doc:"tPROG of a block used in SLC mode"`
	SLCEraseNs     int64 `yaml:"slc_erase_ns,omitempty" json:"slc_erase_ns,omitempty" layer:"part" unit:"ns" range:"0..1000000000" default:"erase_ns" doc:"tBERS of a block used in SLC mode"`
	SLCRatedCycles int   `yaml:"slc_rated_cycles,omitempty" json:"slc_rated_cycles,omitempty" layer:"part" unit:"P/E cycles" range:"0..10000000" default:"0: no SLC mode" doc:"program/erase endurance of a block used in SLC mode"`
	// BadBlockPermille is the share of blocks, in thousandths, that leave
	// the factory bad (data sheets give a minimum of valid blocks: 4,016
	// of 4,096 is at most 19.5 ‰). Each block is bad with that
	// probability, drawn from Config.Seed. 0: none.
	BadBlockPermille int `yaml:"bad_block_permille,omitempty" json:"bad_block_permille,omitempty" layer:"part" unit:"‰ of blocks" range:"0..100" default:"0: none" doc:"blocks that leave the factory bad"`
	// GrownBadPermille is the share of blocks, in thousandths, whose
	// erase has failed by the time they reach RatedCycles: a failed erase
	// makes the block bad. The hazard grows with the cube of the erase
	// count (wear-out), so few blocks fail early. 0: none.
	GrownBadPermille int `yaml:"grown_bad_permille,omitempty" json:"grown_bad_permille,omitempty" layer:"part" unit:"‰ of blocks" range:"0..999" default:"0: none" doc:"blocks whose erase has failed by rated_cycles"`
	// ProgramFailPermille is the share of blocks, in thousandths, with a
	// page whose program has failed by the time they reach RatedCycles:
	// the page's data is not stored and the block is bad. The hazard
	// grows with the cube of the erase count, like erase failures. 0:
	// none.
	ProgramFailPermille int `yaml:"program_fail_permille,omitempty" json:"program_fail_permille,omitempty" layer:"part" unit:"‰ of blocks" range:"0..999" default:"0: none" doc:"blocks with a failed page program by rated_cycles"`
}

// maxNs is the longest time a timing field may hold: one second, which
// no real operation takes (the range tags state it); maxCycles is the
// highest endurance.
const (
	maxNs     = int64(1e9)
	maxCycles = 10_000_000
)

// pageTypeNames names the page types of a word line of n pages.
func pageTypeNames(n int) string {
	switch n {
	case 1:
		return "lower"
	case 2:
		return "lower, upper"
	case 3:
		return "lower, middle, upper"
	}
	return "lower, middle, upper, top"
}

// Validate reports the first field that is out of range.
func (t Timing) Validate() error {
	if err := fields.MustOf(reflect.TypeFor[Timing]()).Check(&t, sectionPath(func(c *Config) any { return &c.Timing })); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := t.validatePerPage(&t.ReadNsByPage); err != nil {
		return err
	}
	if err := t.validateProgram(); err != nil {
		return err
	}
	return t.validateSLC()
}

// name is the path of field ptr of t in a Config ("timing.read_ns").
func (t *Timing) name(ptr any) string {
	return sectionPath(func(c *Config) any { return &c.Timing }) + t.leaf(ptr)
}

// leaf is the name of field ptr of t ("read_ns").
func (t *Timing) leaf(ptr any) string { return fields.PathOf(t, ptr) }

// validatePerPage checks the length of a per-page-type list of t (its
// values are in range): empty, or one time per page type of the cell.
func (t *Timing) validatePerPage(list *[]int64) error {
	if n := len(*list); n != 0 && n != t.Cell.Bits() {
		return fmt.Errorf("%w: %s has %d values, allowed %d (one per page type of a %s word line: %s)",
			ErrConfig, t.name(list), n, t.Cell.Bits(), t.Cell, pageTypeNames(t.Cell.Bits()))
	}
	return nil
}

// validateProgram checks the program times that the programming mode
// needs, and that no other program time is given.
func (t *Timing) validateProgram() error {
	switch t.Program {
	case MultiPass:
		if t.ProgWordLineNs != 0 {
			return fmt.Errorf("%w: %s = %d, allowed only with %s: %s", ErrConfig, t.name(&t.ProgWordLineNs), t.ProgWordLineNs, t.leaf(&t.Program), OneShot)
		}
		if len(t.ProgNsByPage) > 0 {
			if t.ProgLSBNs != 0 || t.ProgMSBNs != 0 {
				return fmt.Errorf("%w: %s and %s (%d, %d) given with %s, allowed one or the other",
					ErrConfig, t.name(&t.ProgLSBNs), t.leaf(&t.ProgMSBNs), t.ProgLSBNs, t.ProgMSBNs, t.leaf(&t.ProgNsByPage))
			}
			return t.validatePerPage(&t.ProgNsByPage)
		}
		for _, p := range []*int64{&t.ProgLSBNs, &t.ProgMSBNs} {
			if *p < 1 {
				return fmt.Errorf("%w: %s = %d, allowed 1..%d", ErrConfig, t.name(p), *p, maxNs)
			}
		}
		return nil
	case OneShot:
		if t.Cell == SLC {
			return fmt.Errorf("%w: %s = %s, allowed only for mlc, tlc, qlc (an slc word line holds one page)", ErrConfig, t.name(&t.Program), OneShot)
		}
		if t.ProgWordLineNs < 1 {
			return fmt.Errorf("%w: %s = %d, allowed 1..%d with %s: %s", ErrConfig, t.name(&t.ProgWordLineNs), t.ProgWordLineNs, maxNs, t.leaf(&t.Program), OneShot)
		}
		if t.ProgLSBNs != 0 || t.ProgMSBNs != 0 || len(t.ProgNsByPage) > 0 {
			return fmt.Errorf("%w: %s, %s and %s are per-page times, allowed only with %s: %s (a one-shot part gives %s)", ErrConfig,
				t.name(&t.ProgLSBNs), t.leaf(&t.ProgMSBNs), t.leaf(&t.ProgNsByPage), t.leaf(&t.Program), MultiPass, t.leaf(&t.ProgWordLineNs))
		}
		return nil
	}
	return fmt.Errorf("%w: %s = %d, allowed %s, %s", ErrConfig, t.name(&t.Program), int(t.Program), MultiPass, OneShot)
}

// validateSLC checks the SLC-mode fields: none, or read, program and
// endurance (erase optional) on a part of two or more bits per cell.
func (t *Timing) validateSLC() error {
	if !t.HasSLCMode() {
		return nil
	}
	if t.Cell == SLC {
		return fmt.Errorf("%w: %s and the other SLC-mode times describe an SLC mode, allowed only for mlc, tlc, qlc parts", ErrConfig, t.name(&t.SLCReadNs))
	}
	for _, p := range []*int64{&t.SLCReadNs, &t.SLCProgNs} {
		if *p < 1 {
			return fmt.Errorf("%w: %s = %d, allowed 1..%d when the part has an SLC mode", ErrConfig, t.name(p), *p, maxNs)
		}
	}
	if t.SLCRatedCycles < 1 {
		return fmt.Errorf("%w: %s = %d, allowed 1..%d when the part has an SLC mode", ErrConfig, t.name(&t.SLCRatedCycles), t.SLCRatedCycles, maxCycles)
	}
	return nil
}

// HasSLCMode reports whether the part states an SLC mode (any slc_*
// field given).
func (t Timing) HasSLCMode() bool {
	return t.SLCReadNs != 0 || t.SLCProgNs != 0 || t.SLCEraseNs != 0 || t.SLCRatedCycles != 0
}

// SLCMode returns the timing of the part's blocks written in SLC mode:
// one bit per cell, every page a lower page read in SLCReadNs and
// programmed in SLCProgNs (multi-pass), erased in SLCEraseNs (EraseNs
// when not given), rated for SLCRatedCycles; the bus, command and
// failure rates are the part's. ok is false when the part states no SLC
// mode (HasSLCMode); an SLC part is its own SLC mode.
func (t Timing) SLCMode() (slc Timing, ok bool) {
	if t.Cell == SLC {
		return t, true
	}
	if !t.HasSLCMode() {
		return Timing{}, false
	}
	erase := t.SLCEraseNs
	if erase == 0 {
		erase = t.EraseNs
	}
	return Timing{
		Cell: SLC, ReadNs: t.SLCReadNs, ProgLSBNs: t.SLCProgNs, ProgMSBNs: t.SLCProgNs, EraseNs: erase,
		BusMBps: t.BusMBps, CommandNs: t.CommandNs, RatedCycles: t.SLCRatedCycles, PlaneNs: t.PlaneNs,
		BadBlockPermille: t.BadBlockPermille, GrownBadPermille: t.GrownBadPermille, ProgramFailPermille: t.ProgramFailPermille,
	}, true
}

// Config describes a flash array.
type Config struct {
	Geometry Geometry `yaml:"geometry" json:"geometry" doc:"the organisation of the flash array"`
	Timing   Timing   `yaml:"timing" json:"timing" doc:"the latencies of one die and of its bus"`
	// Interface is how the channel's bus carries each operation's
	// command, address and data cycles, and the part's cache-program and
	// multi-plane timings (zero: Timing.BusMBps and CommandNs).
	Interface Interface `yaml:"interface,omitempty" json:"interface,omitempty" doc:"the bus interface: command, address and data cycles, cache program, multi-plane timings"`
	// TrackData keeps a 32-bit payload token per unit so that reads return
	// what was written. Tests use it; simulations leave it off to save memory.
	TrackData bool `yaml:"-" json:"-"`
	// Seed draws the factory bad blocks (Timing.BadBlockPermille).
	Seed uint64 `yaml:"-" json:"-"`
	// Reliability is the part's raw bit-error model (zero: none).
	Reliability Reliability `yaml:"reliability,omitempty" json:"reliability,omitempty" doc:"the raw bit-error model (none: every read is correct)"`
	// TrackAge keeps, per block, the reads since its erase and the time
	// it was last programmed (the inputs of Reliability.RBER); a
	// controller that models read errors sets it.
	TrackAge bool `yaml:"-" json:"-"`
	// DropTags keeps no OOB tag per unit: Program still marks the units
	// it is given a tag for valid, but Tag and Read return NoTag. The
	// tags are the drive's reverse map; an FTL over such a device keeps
	// what it needs of them itself (the victims' and the open groups'),
	// saving 4 bytes a unit. Not with TrackData: a power-loss rebuild
	// reads every tag. (The controller sets it on large drives:
	// controller.CompactMapUnits.)
	DropTags bool `yaml:"-" json:"-"`
}

// Validate checks the geometry, the timing, the interface and the
// reliability model.
func (c Config) Validate() error {
	if err := c.Geometry.Validate(); err != nil {
		return err
	}
	if c.DropTags && c.TrackData {
		return fmt.Errorf("%w: DropTags with TrackData: a device that tracks data keeps its tags", ErrConfig)
	}
	if err := c.Timing.Validate(); err != nil {
		return err
	}
	if err := c.Interface.Validate(); err != nil {
		return err
	}
	return c.Reliability.Validate()
}
