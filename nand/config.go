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
	Cell        CellType `yaml:"cell" json:"cell"`
	ReadNs      int64    `yaml:"read_ns" json:"read_ns"`               // tR: array to page register (see ReadNsByPage)
	ProgLSBNs   int64    `yaml:"prog_lsb_ns" json:"prog_lsb_ns"`       // tPROG of a lower (fast) page
	ProgMSBNs   int64    `yaml:"prog_msb_ns" json:"prog_msb_ns"`       // tPROG of an upper (slow) page
	EraseNs     int64    `yaml:"erase_ns" json:"erase_ns"`             // tBERS
	BusMBps     int64    `yaml:"bus_mbps" json:"bus_mbps"`             // channel transfer rate, 10^6 bytes/s
	CommandNs   int64    `yaml:"command_ns" json:"command_ns"`         // command and address cycles per operation
	RatedCycles int      `yaml:"rated_cycles" json:"rated_cycles"`     // rated program/erase endurance
	PlaneNs     int64    `yaml:"plane_extra_ns" json:"plane_extra_ns"` // extra time a multi-plane operation takes per additional plane
	// ReadNsByPage is tR of each page type, lower page first: one value
	// per bit of the cell (lower, upper on MLC; lower, middle, upper on
	// TLC; lower, middle, upper, top on QLC). Empty: ReadNs for every
	// page. ReadNs stays the time of a read whose page is not known
	// (mapping pages, the mount scan).
	ReadNsByPage []int64 `yaml:"read_ns_by_page,omitempty" json:"read_ns_by_page,omitempty"`
	// ProgNsByPage is tPROG of each page type of a multi-pass part, in
	// the order of ReadNsByPage. Empty: derived from ProgLSBNs and
	// ProgMSBNs, which must then be given (and must not be otherwise).
	ProgNsByPage []int64 `yaml:"prog_ns_by_page,omitempty" json:"prog_ns_by_page,omitempty"`
	// Program is multi-pass (the default) or one-shot.
	Program ProgramMode `yaml:"program,omitempty" json:"program,omitempty"`
	// ProgWordLineNs is tPROG of a whole word line of a one-shot part
	// (Program: one-shot), which takes no per-page program times.
	ProgWordLineNs int64 `yaml:"prog_word_line_ns,omitempty" json:"prog_word_line_ns,omitempty"`
	// SLCReadNs, SLCProgNs and SLCEraseNs are tR, tPROG and tBERS of a
	// block used in SLC mode (one bit per cell, as an SLC cache writes
	// it); SLCRatedCycles is the program/erase endurance of such a block.
	// All zero: the part states no SLC mode. Otherwise read, program and
	// endurance are all needed; erase defaults to EraseNs. Only parts of
	// two or more bits per cell have them. See SLCMode.
	SLCReadNs      int64 `yaml:"slc_read_ns,omitempty" json:"slc_read_ns,omitempty"`
	SLCProgNs      int64 `yaml:"slc_prog_ns,omitempty" json:"slc_prog_ns,omitempty"`
	SLCEraseNs     int64 `yaml:"slc_erase_ns,omitempty" json:"slc_erase_ns,omitempty"`
	SLCRatedCycles int   `yaml:"slc_rated_cycles,omitempty" json:"slc_rated_cycles,omitempty"`
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

// maxNs is the longest time a timing field may hold: one second, which
// no real operation takes.
const maxNs = int64(1e9)

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
	if t.Cell < SLC || t.Cell > QLC {
		return fmt.Errorf("%w: timing.cell = %d, allowed slc, mlc, tlc, qlc", ErrConfig, int(t.Cell))
	}
	ns := []struct {
		name string
		v    int64
		min  int64
	}{
		{"read_ns", t.ReadNs, 1},
		{"erase_ns", t.EraseNs, 1},
		{"command_ns", t.CommandNs, 0},
		{"plane_extra_ns", t.PlaneNs, 0},
	}
	for _, f := range ns {
		if f.v < f.min || f.v > maxNs {
			return fmt.Errorf("%w: timing.%s = %d, allowed %d..%d", ErrConfig, f.name, f.v, f.min, maxNs)
		}
	}
	if err := validatePerPage("read_ns_by_page", t.ReadNsByPage, t.Cell); err != nil {
		return err
	}
	if err := t.validateProgram(); err != nil {
		return err
	}
	if t.BusMBps < 1 || t.BusMBps > 100000 {
		return fmt.Errorf("%w: timing.bus_mbps = %d, allowed 1..100000", ErrConfig, t.BusMBps)
	}
	if t.RatedCycles < 1 || t.RatedCycles > 10_000_000 {
		return fmt.Errorf("%w: timing.rated_cycles = %d, allowed 1..10000000", ErrConfig, t.RatedCycles)
	}
	if err := t.validateSLC(); err != nil {
		return err
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

// validatePerPage checks a per-page-type list: empty, or one time in
// 1..maxNs per page type of the cell.
func validatePerPage(name string, v []int64, c CellType) error {
	if len(v) == 0 {
		return nil
	}
	if len(v) != c.Bits() {
		return fmt.Errorf("%w: timing.%s has %d values, allowed %d (one per page type of a %s word line: %s)",
			ErrConfig, name, len(v), c.Bits(), c, pageTypeNames(c.Bits()))
	}
	for i, x := range v {
		if x < 1 || x > maxNs {
			return fmt.Errorf("%w: timing.%s[%d] = %d, allowed 1..%d", ErrConfig, name, i, x, maxNs)
		}
	}
	return nil
}

// validateProgram checks the program times that the programming mode
// needs, and that no other program time is given.
func (t Timing) validateProgram() error {
	switch t.Program {
	case MultiPass:
		if t.ProgWordLineNs != 0 {
			return fmt.Errorf("%w: timing.prog_word_line_ns = %d, allowed only with program: one-shot", ErrConfig, t.ProgWordLineNs)
		}
		if len(t.ProgNsByPage) > 0 {
			if t.ProgLSBNs != 0 || t.ProgMSBNs != 0 {
				return fmt.Errorf("%w: timing.prog_lsb_ns and prog_msb_ns (%d, %d) given with prog_ns_by_page, allowed one or the other",
					ErrConfig, t.ProgLSBNs, t.ProgMSBNs)
			}
			return validatePerPage("prog_ns_by_page", t.ProgNsByPage, t.Cell)
		}
		for _, f := range []struct {
			name string
			v    int64
		}{{"prog_lsb_ns", t.ProgLSBNs}, {"prog_msb_ns", t.ProgMSBNs}} {
			if f.v < 1 || f.v > maxNs {
				return fmt.Errorf("%w: timing.%s = %d, allowed 1..%d", ErrConfig, f.name, f.v, maxNs)
			}
		}
		return nil
	case OneShot:
		if t.Cell == SLC {
			return fmt.Errorf("%w: timing.program = one-shot, allowed only for mlc, tlc, qlc (an slc word line holds one page)", ErrConfig)
		}
		if t.ProgWordLineNs < 1 || t.ProgWordLineNs > maxNs {
			return fmt.Errorf("%w: timing.prog_word_line_ns = %d, allowed 1..%d with program: one-shot", ErrConfig, t.ProgWordLineNs, maxNs)
		}
		if t.ProgLSBNs != 0 || t.ProgMSBNs != 0 || len(t.ProgNsByPage) > 0 {
			return fmt.Errorf("%w: timing.prog_lsb_ns, prog_msb_ns and prog_ns_by_page are per-page times, allowed only with program: multi-pass (a one-shot part gives prog_word_line_ns)", ErrConfig)
		}
		return nil
	}
	return fmt.Errorf("%w: timing.program = %d, allowed multi-pass, one-shot", ErrConfig, int(t.Program))
}

// validateSLC checks the SLC-mode fields: none, or read, program and
// endurance (erase optional) on a part of two or more bits per cell.
func (t Timing) validateSLC() error {
	if !t.HasSLCMode() {
		return nil
	}
	if t.Cell == SLC {
		return fmt.Errorf("%w: timing.slc_* fields describe an SLC mode, allowed only for mlc, tlc, qlc parts", ErrConfig)
	}
	for _, f := range []struct {
		name string
		v    int64
		min  int64
	}{
		{"slc_read_ns", t.SLCReadNs, 1},
		{"slc_prog_ns", t.SLCProgNs, 1},
		{"slc_erase_ns", t.SLCEraseNs, 0},
	} {
		if f.v < f.min || f.v > maxNs {
			return fmt.Errorf("%w: timing.%s = %d, allowed %d..%d when the part has an SLC mode", ErrConfig, f.name, f.v, f.min, maxNs)
		}
	}
	if t.SLCRatedCycles < 1 || t.SLCRatedCycles > 10_000_000 {
		return fmt.Errorf("%w: timing.slc_rated_cycles = %d, allowed 1..10000000 when the part has an SLC mode", ErrConfig, t.SLCRatedCycles)
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
