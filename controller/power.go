package controller

import "fmt"

// Power holds a drive's power parameters. Flash energy is counted per
// operation; the controller (with its host PHY) and the DRAM draw their
// active power while a command is outstanding and their idle power
// otherwise. Energies are in nanojoules, powers in milliwatts.
type Power struct {
	ReadPageNJ         int64   `yaml:"read_page_nj"`     // one page read from the array (per plane)
	ProgramPageNJ      int64   `yaml:"program_page_nj"`  // one page programmed (per plane)
	EraseBlockNJ       int64   `yaml:"erase_block_nj"`   // one block erased
	TransferByteNJ     float64 `yaml:"transfer_byte_nj"` // one byte over a flash channel
	ControllerActiveMW int64   `yaml:"controller_active_mw"`
	ControllerIdleMW   int64   `yaml:"controller_idle_mw"`
	DRAMActiveMW       int64   `yaml:"dram_active_mw"` // 0 for DRAM-less controllers
	DRAMIdleMW         int64   `yaml:"dram_idle_mw"`
}

// Validate reports the first parameter out of range.
func (p Power) Validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"power.read_page_nj", p.ReadPageNJ}, {"power.program_page_nj", p.ProgramPageNJ},
		{"power.erase_block_nj", p.EraseBlockNJ}, {"power.controller_active_mw", p.ControllerActiveMW},
		{"power.controller_idle_mw", p.ControllerIdleMW}, {"power.dram_active_mw", p.DRAMActiveMW},
		{"power.dram_idle_mw", p.DRAMIdleMW},
	} {
		if f.v < 0 || f.v > 1e9 {
			return fmt.Errorf("%w: %s = %d, allowed 0..1000000000", ErrConfig, f.name, f.v)
		}
	}
	if p.TransferByteNJ < 0 || p.TransferByteNJ > 1e3 {
		return fmt.Errorf("%w: power.transfer_byte_nj = %g, allowed 0..1000", ErrConfig, p.TransferByteNJ)
	}
	if p.ControllerIdleMW > p.ControllerActiveMW || p.DRAMIdleMW > p.DRAMActiveMW {
		return fmt.Errorf("%w: power: idle power above active power", ErrConfig)
	}
	return nil
}

// EnergyJ returns the energy, in joules, a drive spends over span ns of
// which busy ns had a command outstanding, doing the flash work in the
// counter difference d (the counters after minus before): pages read and
// programmed (data, parity and mapping), blocks erased, and the bytes the
// channels moved (programmed pages in full, reads as much as they read).
func (p Power) EnergyJ(d Counters, pageBytes int, busy, span int64) float64 {
	reads := d.ReadPages + d.MapReads
	progs := d.FlashWritePages()
	flashNJ := float64(reads*p.ReadPageNJ + progs*p.ProgramPageNJ + (d.Erases+d.RegionErases)*p.EraseBlockNJ)
	moved := float64(progs)*float64(pageBytes) + float64(d.ChannelReadBytes)
	flashNJ += moved * p.TransferByteNJ
	idle := span - busy
	staticNJ := float64(busy)*float64(p.ControllerActiveMW+p.DRAMActiveMW)*1e-3 +
		float64(idle)*float64(p.ControllerIdleMW+p.DRAMIdleMW)*1e-3
	return (flashNJ + staticNJ) * 1e-9
}

// Sub returns the counter differences c − o.
func (c Counters) Sub(o Counters) Counters {
	d := c
	d.HostWriteUnits -= o.HostWriteUnits
	d.HostReadUnits -= o.HostReadUnits
	d.TrimUnits -= o.TrimUnits
	d.ProgramPages -= o.ProgramPages
	d.ReadPages -= o.ReadPages
	d.ProgramUnits -= o.ProgramUnits
	d.GCCopiedUnits -= o.GCCopiedUnits
	d.WLCopiedUnits -= o.WLCopiedUnits
	d.Erases -= o.Erases
	d.GCRuns -= o.GCRuns
	d.BackgroundRuns -= o.BackgroundRuns
	d.PaddedUnits -= o.PaddedUnits
	d.DiscardedUnits -= o.DiscardedUnits
	d.GCFallbacks -= o.GCFallbacks
	d.HostReadBytes -= o.HostReadBytes
	d.HostWriteBytes -= o.HostWriteBytes
	d.HostTrimBytes -= o.HostTrimBytes
	d.Commands -= o.Commands
	d.RMWReads -= o.RMWReads
	d.BufferStallNs -= o.BufferStallNs
	d.HostSlots -= o.HostSlots
	d.ChannelReadBytes -= o.ChannelReadBytes
	d.ParityPages -= o.ParityPages
	d.MapReads -= o.MapReads
	d.MapWrites -= o.MapWrites
	d.RegionErases -= o.RegionErases
	d.DedupedUnits -= o.DedupedUnits
	d.TrimIgnoredBytes -= o.TrimIgnoredBytes
	return d
}
