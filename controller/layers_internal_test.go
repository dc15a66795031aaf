package controller

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLayerFilesRefuseOtherLayers: a layer file sets only its layer's
// values. A value of another layer is refused with the file, the line,
// the field and the layer it belongs to, and where to set it instead.
func TestLayerFilesRefuseOtherLayers(t *testing.T) {
	const line = "line: x\ndescription: x\ncontroller: c\nnand: n\nchannels: 8\ndies_per_target: 1\n"
	const chip = "controller: c\ndescription: c\nchannels: 8\n"
	const part = "part: p\ndescription: p 16 Gbit\n"
	cases := []struct {
		name string
		kind layerFile
		text string
		// ok: no error; else the error names line and has each of want.
		line int
		want []string
	}{
		{"line: firmware and board values", lineFile, line + "firmware:\n  write_command_ns: 100\n  buffer_ns: 2000\npower:\n  dram_idle_mw: 5\nhost:\n  pcie_lanes: 4\n", 0, nil},
		{"line: a controller value in firmware", lineFile, line + "firmware:\n  write_command_ns: 100\n  ecc_mbps: 1900\n", 9,
			[]string{"firmware.ecc_mbps is a controller value", "product line file sets only firmware, board and drive values", "presets/controllers"}},
		{"line: a controller value in host", lineFile, line + "host:\n  link_mbps: 560\n", 8,
			[]string{"host.link_mbps is a controller value"}},
		{"line: a part value in power", lineFile, line + "power:\n  dram_idle_mw: 5\n  program_page_nj: 35000\n", 9,
			[]string{"power.program_page_nj is a part value", "presets/nand"}},
		{"line: the first wrong value, by line", lineFile, line + "firmware:\n  ecc_bits: 24\npower:\n  controller_idle_mw: 300\n", 8,
			[]string{"firmware.ecc_bits is a controller value"}},
		{"line: a NAND timing section", lineFile, line + "timing:\n  read_ns: 50000\n", 7,
			[]string{"product line file has no key \"timing\""}},
		{"line: an unknown firmware field", lineFile, line + "firmware:\n  gc_lowwater: 2\n", 8,
			[]string{"did you mean firmware.gc_low_water"}},
		{"line: a value of the wrong type", lineFile, line + "firmware:\n  write_command_ns: 4.5\n", 8,
			[]string{"firmware.write_command_ns = 4.5", "whole number"}},
		{"controller: controller values", chipFile, chip + "host:\n  link_mbps: 560\nfirmware:\n  ecc_bits: 55\npower:\n  controller_idle_mw: 1\n", 0, nil},
		{"controller: a firmware value", chipFile, chip + "firmware:\n  ecc_bits: 55\n  write_command_ns: 12000\n", 6,
			[]string{"firmware.write_command_ns is a firmware value", "controller file sets only controller values", "presets/lines"}},
		{"controller: a board value", chipFile, chip + "host:\n  pcie_lanes: 4\n", 5,
			[]string{"host.pcie_lanes is a board value"}},
		{"controller: a part value", chipFile, chip + "power:\n  erase_block_nj: 1\n", 5,
			[]string{"power.erase_block_nj is a part value"}},
		{"part: part values", partFile, part + "timing:\n  read_ns: 1\npower:\n  read_page_nj: 2\n", 0, nil},
		{"part: a controller value in power", partFile, part + "power:\n  read_page_nj: 2\n  controller_active_mw: 1\n", 5,
			[]string{"power.controller_active_mw is a controller value", "NAND part file sets only part values"}},
		{"part: a firmware section", partFile, part + "firmware:\n  ecc_bits: 1\n", 3,
			[]string{"NAND part file has no key \"firmware\""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.kind.check("presets/x.yaml", []byte(tc.text))
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.ErrorIs(t, err, ErrConfig)
			var fe *FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			require.Equal(t, "presets/x.yaml", fe.File)
			require.Equal(t, tc.line, fe.Line, "%v", err)
			require.True(t, strings.HasPrefix(err.Error(), "presets/x.yaml:"), "%v", err)
			require.NotContains(t, err.Error(), "\n")
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestExpandTakesEachFieldFromItsLayer: a drive built from a line has
// each value of its layer's file, and an error found when it is resolved
// names that file and line.
func TestExpandTakesEachFieldFromItsLayer(t *testing.T) {
	l, err := LoadLine("m4")
	require.NoError(t, err)
	chip, err := Chip(l.Controller)
	require.NoError(t, err)
	p, err := Part(l.NAND)
	require.NoError(t, err)
	c, err := l.Expand(l.Variants[0])
	require.NoError(t, err)
	require.Equal(t, chip.Firmware.ECCBits, c.Firmware.ECCBits)
	require.Equal(t, chip.Host, c.Host)
	require.Equal(t, l.Firmware.WriteCommandNs, c.Firmware.WriteCommandNs)
	require.Equal(t, p.Power.ProgramPageNJ, c.Power.ProgramPageNJ)
	require.Equal(t, chip.Power.ControllerActiveMW, c.Power.ControllerActiveMW)
	require.Equal(t, l.Power.DRAMActiveMW, c.Power.DRAMActiveMW)
	require.Equal(t, p.Timing, c.NAND.Timing)
	// An error Resolve finds names the layer file of the value.
	c.Firmware.WriteBuffer = 1
	c.origin.loaded.Firmware.WriteBuffer = 1 // as if the file said so
	_, err = c.Resolve()
	require.ErrorContains(t, err, "controller/presets/lines/m4.yaml:")
	c, err = l.Expand(l.Variants[0])
	require.NoError(t, err)
	c.Power.ControllerIdleMW = c.Power.ControllerActiveMW + 1
	c.origin.loaded.Power.ControllerIdleMW = c.Power.ControllerIdleMW
	_, err = c.Resolve()
	require.ErrorContains(t, err, "controller/presets/controllers/88ss9174.yaml:")
}
