package controller

import (
	"fmt"
	"reflect"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/fields"
)

// Power holds a drive's power parameters. Flash energy is counted per
// operation; the controller (with its host PHY) and the DRAM draw their
// active power while a command is outstanding and their idle power
// otherwise. Energies are in nanojoules, powers in milliwatts.
type Power struct {
	ReadPageNJ         int64   `yaml:"read_page_nj" layer:"part" unit:"nJ" range:"0..1000000000" doc:"one page read from the array (per plane)"`
	ProgramPageNJ      int64   `yaml:"program_page_nj" layer:"part" unit:"nJ" range:"0..1000000000" doc:"one page programmed (per plane)"`
	EraseBlockNJ       int64   `yaml:"erase_block_nj" layer:"part" unit:"nJ" range:"0..1000000000" doc:"one block erased"`
	TransferByteNJ     float64 `yaml:"transfer_byte_nj" layer:"part" unit:"nJ" range:"0..1000" doc:"one byte over a flash channel"`
	ControllerActiveMW int64   `yaml:"controller_active_mw" layer:"controller" unit:"mW" range:"0..1000000000" doc:"controller and host PHY while a command is outstanding"`
	ControllerIdleMW   int64   `yaml:"controller_idle_mw" layer:"controller" unit:"mW" range:"0..1000000000" doc:"controller and host PHY while idle: at most the active power"`
	DRAMActiveMW       int64   `yaml:"dram_active_mw" layer:"board" unit:"mW" range:"0..1000000000" default:"0: DRAM-less" doc:"DRAM while a command is outstanding"`
	DRAMIdleMW         int64   `yaml:"dram_idle_mw" layer:"board" unit:"mW" range:"0..1000000000" doc:"DRAM while idle: at most the active power"`
}

// Validate reports the first parameter out of range, or idle power above
// active power.
func (p Power) Validate() error {
	var c Config
	c.Power = p
	if err := fields.MustOf(reflect.TypeFor[Power]()).Check(&c.Power, c.FieldPath(&c.Power)+"."); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return c.Power.rules(&c)
}

// rules checks that idle power is not above active power; p is c.Power.
func (p *Power) rules(c *Config) error {
	for _, pair := range [][2]*int64{{&p.ControllerIdleMW, &p.ControllerActiveMW}, {&p.DRAMIdleMW, &p.DRAMActiveMW}} {
		if *pair[0] > *pair[1] {
			return c.errAt(pair[0], "%s = %d, allowed 0..%s (%d)", c.FieldPath(pair[0]), *pair[0], c.FieldPath(pair[1]), *pair[1])
		}
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
