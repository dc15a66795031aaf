package controller

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ftlsim/ftlsim/nand"
)

// A product line is a preset family: one controller, its firmware and
// board, one NAND part, and capacity points. Each capacity point names
// its raw flash; the die count follows from the raw flash and the die
// size, so parallelism, and with it throughput, changes with capacity as
// on the real product lines. A line expands into an ordinary drive
// description (Config), which is what Preset returns and "ftlsim drives
// NAME" prints. See layers.go for the layers and the rule that holds each
// file to its own.

// NANDPart is a NAND die: its organisation, timing, reliability and
// energies (presets/nand): datasheet values, each with its source or
// marked as an estimate in the file.
type NANDPart struct {
	Part        string `yaml:"part"`
	Description string `yaml:"description"`
	Die         struct {
		PlanesPerDie   int `yaml:"planes_per_die"`
		BlocksPerPlane int `yaml:"blocks_per_plane"`
		PagesPerBlock  int `yaml:"pages_per_block"`
		PageBytes      int `yaml:"page_bytes"`
		SpareBytes     int `yaml:"spare_bytes"`
	} `yaml:"die"`
	Timing nand.Timing `yaml:"timing"`
	// Interface is the part's bus interface: its timing modes and the
	// cycles of its commands (zero: the bus rate and command time of
	// Timing).
	Interface nand.Interface `yaml:"interface,omitempty"`
	// Reliability is the part's raw bit-error model (zero: none).
	Reliability nand.Reliability `yaml:"reliability,omitempty"`
	// Power holds the part's energies (its part-layer fields: a page
	// read and programmed, a block erased, a byte over the channel); the
	// controller's and the board's are not the part's.
	Power Power `yaml:"power,omitempty"`

	file   string
	places map[string]place
}

// ControllerChip is a controller (presets/controllers): the values every
// drive on that silicon shares — its host interface, the data paths and
// engines in silicon (compression, ECC, the mapping memory on chip), its
// power — and its NAND channels and the fastest channel rate it drives.
type ControllerChip struct {
	Controller  string `yaml:"controller"`
	Description string `yaml:"description"`
	// Channels is the NAND channels the silicon has; a board populates
	// at most this many.
	Channels int `yaml:"channels"`
	// BusMBps is the fastest channel rate the controller drives (0: the
	// part's): a part run slower than it allows (an ONFI 2 part on an
	// asynchronous controller) runs at this rate.
	BusMBps int64 `yaml:"bus_mbps,omitempty"`
	// Interface holds how the controller drives a part's interface (its
	// controller-layer fields: the mode, the fastest rate, cache
	// commands).
	Interface nand.Interface `yaml:"interface,omitempty"`
	Host      Host           `yaml:"host"`
	Firmware  Firmware       `yaml:"firmware"`
	Power     Power          `yaml:"power"`

	file   string
	places map[string]place
}

// DieBytes is the data capacity of one die.
func (p NANDPart) DieBytes() int64 {
	d := p.Die
	return int64(d.PlanesPerDie) * int64(d.BlocksPerPlane) * int64(d.PagesPerBlock) * int64(d.PageBytes)
}

// Variant is one capacity point of a product line.
type Variant struct {
	Name     string `yaml:"name"`
	Capacity Size   `yaml:"capacity"` // user-visible
	Raw      Size   `yaml:"raw"`      // flash fitted
	Channels int    `yaml:"channels,omitempty"`
	// Spec holds the vendor's figures for this capacity (see Spec).
	Spec Spec `yaml:"spec,omitempty"`
}

// Spec is a drive's spec-sheet four corners: 128 KiB sequential MB/s and
// 4 KiB random IOPS. Zero means not published.
type Spec struct {
	SeqReadMBps   float64 `yaml:"seq_read_mbps,omitempty"`
	SeqWriteMBps  float64 `yaml:"seq_write_mbps,omitempty"`
	RandReadIOPS  float64 `yaml:"rand_read_iops,omitempty"`
	RandWriteIOPS float64 `yaml:"rand_write_iops,omitempty"`
	Note          string  `yaml:"note,omitempty"`
	// Data names the data pattern the figures were measured with (a
	// workload data pattern such as pseudo-random); empty: incompressible.
	Data string `yaml:"data,omitempty"`
	// How the figures were measured, where the spec sheet differs from
	// the SATA drives' usual procedure: SeqQD is the queue depth of the
	// sequential figures (0: 1), RandQD that of the random figures (0:
	// 32), and RandJobs the threads (fio jobs, Iometer workers) issuing
	// the random I/O, each at RandQD (0: 1). NVMe spec sheets quote
	// sequential figures at QD 32 and random ones at QD 32 from several
	// threads. See SeqDepth, RandDepth, RandThreads.
	SeqQD    int `yaml:"seq_qd,omitempty"`
	RandQD   int `yaml:"rand_qd,omitempty"`
	RandJobs int `yaml:"rand_jobs,omitempty"`
	// TolerancePercent is how far, in percent, the preset's simulated
	// corners may be from these figures (examples/fourcorners checks
	// them); 0: that check's default.
	TolerancePercent float64 `yaml:"tolerance_percent,omitempty"`
}

// SeqDepth is the queue depth of the sequential figures (SeqQD, or 1).
func (s Spec) SeqDepth() int { return max(s.SeqQD, 1) }

// RandDepth is the queue depth of the random figures (RandQD, or 32).
func (s Spec) RandDepth() int {
	if s.RandQD > 0 {
		return s.RandQD
	}
	return 32
}

// RandThreads is the threads issuing the random figures' I/O (RandJobs,
// or 1).
func (s Spec) RandThreads() int { return max(s.RandJobs, 1) }

// Line is a product line (presets/lines): its firmware and board, and
// the controller and NAND part it is built on.
type Line struct {
	Line        string `yaml:"line"`
	Description string `yaml:"description"`
	// Controller and NAND name the controller and part presets.
	Controller string `yaml:"controller"`
	NAND       string `yaml:"nand"`
	// Channels is the channels the board populates (0: all the
	// controller's); a capacity point may populate fewer.
	Channels      int `yaml:"channels,omitempty"`
	DiesPerTarget int `yaml:"dies_per_target"`
	// UnitBytes is the firmware's mapping (indirection) unit (0: 4 KiB).
	UnitBytes Size      `yaml:"unit_bytes,omitempty"`
	Host      Host      `yaml:"host,omitempty"`
	Firmware  Firmware  `yaml:"firmware"`
	Power     Power     `yaml:"power"`
	Variants  []Variant `yaml:"variants"`

	file   string
	places map[string]place
}

// Part returns the NAND part preset called name.
func Part(name string) (NANDPart, error) {
	var p NANDPart
	file, places, err := readLayerFile(partFile, "presets/nand", name, &p)
	if err != nil {
		return p, fmt.Errorf("%w: nand part %q: %w", ErrConfig, name, err)
	}
	p.file, p.places = file, places
	return p, nil
}

// Chip returns the controller preset called name.
func Chip(name string) (ControllerChip, error) {
	var c ControllerChip
	file, places, err := readLayerFile(chipFile, "presets/controllers", name, &c)
	if err != nil {
		return c, fmt.Errorf("%w: controller %q: %w", ErrConfig, name, err)
	}
	if c.Channels < 1 {
		return c, &FieldError{File: file, Msg: fmt.Sprintf("channels = %d: the controller's NAND channels, allowed 1..64", c.Channels)}
	}
	c.file, c.places = file, places
	return c, nil
}

// Chips lists the controller presets.
func Chips() []string { return listDir("presets/controllers") }

// Parts lists the NAND part presets.
func Parts() []string { return listDir("presets/nand") }

// Lines lists the product lines.
func Lines() []string { return listDir("presets/lines") }

func listDir(dir string) []string {
	ents, _ := presetFS.ReadDir(dir)
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// LoadLine returns the product line called name.
func LoadLine(name string) (Line, error) {
	var l Line
	file, places, err := readLayerFile(lineFile, "presets/lines", name, &l)
	if err != nil {
		return l, fmt.Errorf("%w: product line %q: %w", ErrConfig, name, err)
	}
	l.file, l.places = file, places
	return l, nil
}

// Expand builds the drive description of variant v from its layers: the
// NAND part's values, the controller's, and the line's firmware and
// board — the line's dies with their full geometry (SizeSpare), the
// variant's capacity, and the spare area they leave, to three decimals,
// as op_percent. Each field of the description comes from the layer the
// table puts it at (Fields), and errors Resolve finds later name the
// layer file and the line that set it.
func (l Line) Expand(v Variant) (Config, error) {
	p, err := Part(l.NAND)
	if err != nil {
		return Config{}, err
	}
	chip, err := Chip(l.Controller)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", v.Name, err)
	}
	die := p.DieBytes()
	if die <= 0 || int64(v.Raw)%die != 0 {
		return Config{}, fmt.Errorf("%w: %s: raw = %d bytes is not a whole number of %s dies (%d bytes)", ErrConfig, v.Name, v.Raw, p.Part, die)
	}
	dies := int(int64(v.Raw) / die)
	ch := chip.Channels
	for _, n := range []int{l.Channels, v.Channels} {
		if n > chip.Channels {
			return Config{}, fmt.Errorf("%w: %s: channels = %d, allowed 1..%d (the %s's channels)", ErrConfig, v.Name, n, chip.Channels, chip.Controller)
		}
		if n > 0 {
			ch = n
		}
	}
	ch = min(ch, dies) // small capacities leave channels unpopulated
	dpt := max(l.DiesPerTarget, 1)
	if dies%(ch*dpt) != 0 {
		return Config{}, fmt.Errorf("%w: %s: %d dies do not spread evenly over %d channels with %d dies per target", ErrConfig, v.Name, dies, ch, dpt)
	}
	// The line states its spare area: what the raw flash, less RAISE
	// parity, leaves beside the user capacity (SizeSpare checks it
	// against the geometry; --op and --capacity resize from it).
	spare := spareOf(int64(v.Raw), l.Firmware.RaiseStripe, v.Capacity)
	if v.Capacity <= 0 || spare <= 0 {
		var c Config
		return Config{}, fmt.Errorf("%w: %s: capacity = %s does not fit raw = %s (%s = %d)",
			ErrConfig, v.Name, v.Capacity, v.Raw, c.FieldPath(&c.Firmware.RaiseStripe), l.Firmware.RaiseStripe)
	}
	c := Config{
		Name:        v.Name,
		Description: fmt.Sprintf("%s, %s user on %d dies of %s", l.Description, v.Capacity.String(), dies, p.Part),
		Sizing:      SizeSpare,
		Capacity:    v.Capacity,
		OPPercent:   math.Round(spare*1000) / 1000,
		NAND: nand.Config{
			Geometry: nand.Geometry{Channels: ch, TargetsPerChannel: dies / ch / dpt, DiesPerTarget: dpt,
				PlanesPerDie: p.Die.PlanesPerDie, BlocksPerPlane: p.Die.BlocksPerPlane, PagesPerBlock: p.Die.PagesPerBlock,
				PageBytes: p.Die.PageBytes, SpareBytes: p.Die.SpareBytes, UnitBytes: int(cmp.Or(l.UnitBytes, 4096))},
		},
	}
	part := Config{NAND: nand.Config{Timing: p.Timing, Reliability: p.Reliability, Interface: p.Interface}, Power: p.Power}
	fromLayer(&c, &part, LayerPart)
	fromLayer(&c, &Config{NAND: nand.Config{Interface: chip.Interface}, Host: chip.Host, Firmware: chip.Firmware, Power: chip.Power}, LayerController)
	fromLayer(&c, &Config{Host: l.Host, Firmware: l.Firmware, Power: l.Power}, LayerFirmware, LayerBoard, LayerDrive)
	if chip.BusMBps > 0 {
		c.NAND.Timing.BusMBps = min(c.NAND.Timing.BusMBps, chip.BusMBps)
	}
	places := map[string]place{}
	for _, m := range []map[string]place{p.places, chip.places, l.places} {
		for k, pl := range m {
			places[k] = pl
		}
	}
	if l.file != "" {
		c.origin = &origin{file: l.file, places: places, loaded: c}
	}
	return c, nil
}

// variantByName finds the line and capacity point called name.
func variantByName(name string) (Line, Variant, bool) {
	for _, ln := range Lines() {
		l, err := LoadLine(ln)
		if err != nil {
			continue
		}
		for _, v := range l.Variants {
			if v.Name == name {
				return l, v, true
			}
		}
	}
	return Line{}, Variant{}, false
}

// SpecOf returns the spec-sheet figures of a preset (zero when none).
func SpecOf(name string) Spec {
	if _, v, ok := variantByName(name); ok {
		return v.Spec
	}
	return Spec{}
}

// String writes a size as MarshalText does ("240GB", "256GiB").
func (s Size) String() string {
	b, _ := s.MarshalText()
	return string(b)
}
