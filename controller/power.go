package controller

import (
	"fmt"

	"github.com/ftlsim/ftlsim/ftl"
)

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
// counter difference d (the counters after minus before): pages sensed
// and programmed (data, parity and mapping), blocks erased, and the bytes
// the channels moved (programmed pages in full, reads the device units
// they moved out, slotBytes each).
func (p Power) EnergyJ(d ftl.Counters, pageBytes, slotBytes int, busy, span int64) float64 {
	t := d.Flash.Total()
	flashNJ := float64(t.ReadPages*p.ReadPageNJ + t.ProgramPages*p.ProgramPageNJ + t.EraseBlocks*p.EraseBlockNJ)
	moved := float64(t.ProgramPages)*float64(pageBytes) + float64(t.ReadUnits)*float64(slotBytes)
	flashNJ += moved * p.TransferByteNJ
	idle := span - busy
	staticNJ := float64(busy)*float64(p.ControllerActiveMW+p.DRAMActiveMW)*1e-3 +
		float64(idle)*float64(p.ControllerIdleMW+p.DRAMIdleMW)*1e-3
	return (flashNJ + staticNJ) * 1e-9
}
