package nand

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/ftlsim/ftlsim/internal/fields"
)

// Interface describes how a channel's bus carries an operation's command,
// address and data cycles between the controller and a die, and the
// part's cache and multi-plane timings: the ONFI asynchronous (SDR) and
// NV-DDR interfaces and Toggle DDR, as their specifications and the
// parts' data sheets give them. With it a channel's time per program,
// read and erase is the sum of its parts:
//
//	program, per plane:  80h, address cycles, tADL, data in, 10h/11h/15h, tWB
//	                     (tDBSY between the planes of a multi-plane program)
//	read:                00h, address cycles, 30h, tWB; tR; status (70h,
//	                     tWHR, a cycle), 00h, tRR, data out (and a change
//	                     of column, 06h-address-E0h and tWHR, per extra plane)
//	erase, per plane:    60h, row address cycles, D0h, tWB
//	more data out:       05h, two column cycles, E0h, tWHR, data out
//
// Each program, read and erase ends with a status read (70h, tWHR, one
// cycle), booked with its command cycles. Without an interface (the zero
// value) a channel moves data at Timing.BusMBps and every operation
// costs Timing.CommandNs of command cycles, as before.
//
// The part gives what it can do (its fastest asynchronous and DDR timing
// modes, its cache and multi-plane timings); the controller gives the
// mode it drives the bus in and its fastest rate, and whether it issues
// cache commands (Mode, MaxMTps, Cache). The fields of each say their
// layer.
type Interface struct {
	// SDRCycleNs is tRC = tWC of the part's fastest asynchronous timing
	// mode (ONFI mode 5: 20 ns, 50 MT/s; mode 4: 25 ns): a command,
	// address or data cycle in the asynchronous interface. 0: no interface
	// model (Timing.BusMBps and CommandNs apply).
	SDRCycleNs int64 `yaml:"sdr_cycle_ns" json:"sdr_cycle_ns" layer:"part" unit:"ns" range:"0..1000" default:"0: off (timing.bus_mbps and command_ns)" doc:"tRC = tWC of the part's fastest asynchronous timing mode"`
	// DDRMTps is the data rate, in transfers per microsecond on the
	// 8-bit bus (MB/s), of the part's fastest DDR mode: ONFI NV-DDR mode
	// 5 200, Toggle DDR 1.0 133, Toggle 2.0 400. 0: no DDR interface.
	DDRMTps int64 `yaml:"ddr_mtps,omitempty" json:"ddr_mtps,omitempty" layer:"part" unit:"MT/s" range:"0..10000" default:"0: none (asynchronous only)" doc:"data rate of the part's fastest DDR mode (NV-DDR, Toggle)"`
	// DDRCommandNs is a command or address cycle in the DDR mode: ONFI
	// NV-DDR latches one a clock but needs tCAD (45 ns) between them;
	// Toggle DDR takes them as asynchronous cycles of tWC.
	DDRCommandNs int64 `yaml:"ddr_command_ns,omitempty" json:"ddr_command_ns,omitempty" layer:"part" unit:"ns" range:"0..1000" doc:"a command or address cycle in the DDR mode (NV-DDR: tCAD; Toggle: tWC)"`
	// AddressCycles is the address cycles of a page address: two column
	// cycles and the row cycles (an erase sends the row cycles only).
	AddressCycles int `yaml:"address_cycles,omitempty" json:"address_cycles,omitempty" layer:"part" unit:"cycles" range:"0..8" default:"0 means 5 (2 column, 3 row)" doc:"address cycles of a page address"`
	// ADLNs is tADL, from the last address cycle to the first data cycle
	// of a program (ONFI 1.0-3.x: 70 ns; ONFI 4.0: 400 ns).
	ADLNs int64 `yaml:"adl_ns,omitempty" json:"adl_ns,omitempty" layer:"part" unit:"ns" range:"0..100000" doc:"tADL: last address cycle to first data cycle"`
	// WBNs is tWB, from a confirm command to the die going busy.
	WBNs int64 `yaml:"wb_ns,omitempty" json:"wb_ns,omitempty" layer:"part" unit:"ns" range:"0..100000" doc:"tWB: confirm command to busy"`
	// WHRNs is tWHR, from a command to the first data out (status, or
	// data after a change of column).
	WHRNs int64 `yaml:"whr_ns,omitempty" json:"whr_ns,omitempty" layer:"part" unit:"ns" range:"0..100000" doc:"tWHR: command to data out"`
	// RRNs is tRR, from ready to the first data out of a read.
	RRNs int64 `yaml:"rr_ns,omitempty" json:"rr_ns,omitempty" layer:"part" unit:"ns" range:"0..100000" doc:"tRR: ready to data out"`
	// DBSYNs is tDBSY, the die's busy time between the planes of a
	// multi-plane program: the bus is free meanwhile.
	DBSYNs int64 `yaml:"dbsy_ns,omitempty" json:"dbsy_ns,omitempty" layer:"part" unit:"ns" range:"0..1000000" doc:"tDBSY: busy between the planes of a multi-plane program"`
	// CBSYNs is tCBSY of the part's cache program (80h-data-15h): once
	// the previous program has started, the page's data moves from the
	// cache register to the data register in this time and the cache
	// register takes the next page while the array programs. 0: the part
	// has no cache program.
	CBSYNs int64 `yaml:"cbsy_ns,omitempty" json:"cbsy_ns,omitempty" layer:"part" unit:"ns" range:"0..10000000" default:"0: no cache program" doc:"tCBSY: cache program's move of a page into the data register"`

	// Mode is the interface the controller drives the bus in: "sdr"
	// (asynchronous), "ddr" (the part's DDR mode), or empty for the
	// fastest both have (DDR when the part has it).
	Mode string `yaml:"mode,omitempty" json:"mode,omitempty" layer:"controller" range:"sdr|ddr" default:"the part's fastest" doc:"the bus mode the controller drives"`
	// MaxMTps is the fastest data rate the controller drives a channel at
	// (0: the part's rate in Mode).
	MaxMTps int64 `yaml:"max_mtps,omitempty" json:"max_mtps,omitempty" layer:"controller" unit:"MT/s" range:"0..10000" default:"0: the part's" doc:"fastest data rate the controller drives a channel at"`
	// Cache makes the controller issue cache program where the part has
	// it (CBSYNs).
	Cache bool `yaml:"cache,omitempty" json:"cache,omitempty" layer:"controller" doc:"issue cache program where the part has it"`
}

// On reports whether the interface model is used (SDRCycleNs given).
func (f Interface) On() bool { return f.SDRCycleNs > 0 }

// ddr reports whether the bus runs in the part's DDR mode.
func (f Interface) ddr() bool {
	return f.DDRMTps > 0 && !strings.EqualFold(f.Mode, "sdr")
}

// Validate reports the first field out of range or inconsistent.
func (f Interface) Validate() error {
	if err := fields.MustOf(reflect.TypeFor[Interface]()).Check(&f, sectionPath(func(c *Config) any { return &c.Interface })); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	name := func(ptr any) string {
		return sectionPath(func(c *Config) any { return &c.Interface }) + fields.PathOf(&f, ptr)
	}
	if !f.On() {
		if f != (Interface{}) {
			return fmt.Errorf("%w: %s is 0: the interface's other fields need it", ErrConfig, name(&f.SDRCycleNs))
		}
		return nil
	}
	switch strings.ToLower(f.Mode) {
	case "", "sdr":
	case "ddr":
		if f.DDRMTps == 0 {
			return fmt.Errorf("%w: %s = ddr, but the part has no DDR mode (%s = 0)", ErrConfig, name(&f.Mode), fields.PathOf(&f, &f.DDRMTps))
		}
	default:
		return fmt.Errorf("%w: %s = %q, allowed sdr, ddr", ErrConfig, name(&f.Mode), f.Mode)
	}
	if f.DDRMTps > 0 && f.DDRCommandNs == 0 {
		return fmt.Errorf("%w: %s = 0, allowed 1..1000 with %s", ErrConfig, name(&f.DDRCommandNs), fields.PathOf(&f, &f.DDRMTps))
	}
	return nil
}

// busCosts is what each operation costs on a channel and its die beyond
// the array times, derived once from a configuration: the legacy model
// (Timing.BusMBps, CommandNs) or the interface's.
type busCosts struct {
	// bytePs is the time of a byte of data on the bus in picoseconds
	// (interface model); 0: bytes move at mbps.
	bytePs, mbps int64
	// A program takes progFixed + planes×progPlane of command cycles on
	// the bus besides its data, and (planes−1)×dbsy of die time; a read
	// readCmdFixed + planes×readCmdPlane before tR, readOutFixed +
	// (planes−1)×readOutPlane before its data out; an erase eraseFixed +
	// planes×erasePlane; more data out outCmd; a copyback program
	// progFixed + planes×copyPlane.
	progFixed, progPlane, copyPlane int64
	readCmdFixed, readCmdPlane      int64
	readOutFixed, readOutPlane      int64
	eraseFixed, erasePlane          int64
	outCmd, dbsy                    int64
	// cbsy is the cache program's move of a page into the data register
	// (0: the controller does not use cache program, or the part has
	// none).
	cbsy int64
}

// newBusCosts derives the bus costs of configuration c.
func newBusCosts(c Config) busCosts {
	t, f := c.Timing, c.Interface
	if !f.On() {
		// Every operation's command cycles take CommandNs, its data
		// moves at BusMBps.
		cmd := t.CommandNs
		return busCosts{mbps: t.BusMBps, progFixed: cmd, readCmdFixed: cmd, eraseFixed: cmd}
	}
	cyc, bytePs := f.SDRCycleNs, f.SDRCycleNs*1000
	if f.ddr() {
		cyc, bytePs = f.DDRCommandNs, (1_000_000+f.DDRMTps-1)/f.DDRMTps
	}
	if f.MaxMTps > 0 {
		bytePs = max(bytePs, (1_000_000+f.MaxMTps-1)/f.MaxMTps)
	}
	addr := int64(f.AddressCycles)
	if addr == 0 {
		addr = 5
	}
	row := max(addr-2, 1)
	status := cyc + f.WHRNs + cyc // 70h, tWHR, the status byte
	b := busCosts{
		bytePs:       bytePs,
		progFixed:    status,
		progPlane:    (2+addr)*cyc + f.ADLNs + f.WBNs,
		copyPlane:    (2+addr)*cyc + f.WBNs,
		readCmdPlane: (2+addr)*cyc + f.WBNs,
		readOutFixed: status + cyc + f.RRNs, // status, 00h, tRR
		readOutPlane: (2+addr)*cyc + f.WHRNs,
		eraseFixed:   status,
		erasePlane:   (2+row)*cyc + f.WBNs,
		outCmd:       4*cyc + f.WHRNs, // 05h, two column cycles, E0h, tWHR
		dbsy:         f.DBSYNs,
	}
	if f.Cache {
		b.cbsy = f.CBSYNs
	}
	return b
}

// transferNs is the bus time of n bytes of data.
func (b *busCosts) transferNs(n int) int64 {
	if b.bytePs > 0 {
		return (int64(n)*b.bytePs + 999) / 1000
	}
	return (int64(n)*1000 + b.mbps - 1) / b.mbps
}

// BusTimes are one channel's times for the operations of a configuration,
// derived from its interface (or its bus rate and command time): what the
// bus carries for each, and what the die adds. The physics checks compare
// them with the arithmetic of a part's data sheet.
type BusTimes struct {
	// ProgramNs is the bus time of a program of one page on planes planes
	// (commands and data in), DieExtraNs the die's busy time between its
	// planes (tDBSY).
	ProgramNs, ProgramDieExtraNs int64
	// ReadCmdNs and ReadOutNs are the bus times of a read of one page on
	// planes planes moving n bytes out: its commands before tR, and its
	// status, column changes and data after.
	ReadCmdNs, ReadOutNs int64
	// EraseNs is the bus time of an erase of planes planes.
	EraseNs int64
}

// BusTimesOf returns the bus times of configuration c for operations on
// planes planes, a program moving whole pages and a read moving n bytes.
func BusTimesOf(c Config, planes, n int) BusTimes {
	b := newBusCosts(c)
	p := int64(planes)
	page := b.transferNs(c.Geometry.PageBytes + c.Geometry.SpareBytes)
	return BusTimes{
		ProgramNs:         b.progFixed + p*(b.progPlane+page),
		ProgramDieExtraNs: (p - 1) * b.dbsy,
		ReadCmdNs:         b.readCmdFixed + p*b.readCmdPlane,
		ReadOutNs:         b.readOutFixed + (p-1)*b.readOutPlane + b.transferNs(n),
		EraseNs:           b.eraseFixed + p*b.erasePlane,
	}
}
