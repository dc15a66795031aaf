package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testdrive"
	"github.com/ftlsim/ftlsim/sim"
)

// TestPowerOfPresets: for each product line's largest and smallest
// preset, idle < random write and sequential write, and random writes cost
// at least as much energy per byte as sequential ones (more once the dies,
// not the link, bound the sequential writes). An idle drive draws its
// controller's and DRAM's idle power; a writing one no more than their
// active power and every die programming without pause (1 % allowed for
// the pages the FTL stages).
func TestPowerOfPresets(t *testing.T) {
	const run = 2 * sim.Second
	for _, name := range []string{"bp4-60", "bp4-240", "bp3-64", "m4-64", "m4-256", "c300-256", "intel-510-250", "bp4-msata-30"} {
		f, err := measure(testdrive.Preset(t, name), run)
		require.NoError(t, err, name)
		cfg, err := controller.Preset(name)
		require.NoError(t, err)
		p, g, tm := cfg.Power, cfg.NAND.Geometry, cfg.NAND.Timing
		idle := float64(p.ControllerIdleMW+p.DRAMIdleMW) / 1e3
		require.InEpsilon(t, idle, f.IdleW, 0.02, name)
		// Every die programming multi-plane pages back to back (nJ per ns
		// is W), erasing a block per block's pages, with the controller and
		// DRAM active; besides, the energy of programming a write buffer's
		// worth of pages, which the drive books when it takes the data.
		pageNs := float64(tm.ProgLSBNs+tm.ProgMSBNs)/2 + float64(tm.TransferNs(g.PlanesPerDie*(g.PageBytes+g.SpareBytes)))
		perPage := float64(p.ProgramPageNJ) + float64(g.PageBytes)*p.TransferByteNJ + float64(p.EraseBlockNJ)/float64(g.PagesPerBlock)
		buffered := float64(cfg.Firmware.WriteBuffer) / float64(g.PageBytes) * perPage / float64(run)
		busiest := float64(p.ControllerActiveMW+p.DRAMActiveMW)/1e3 + float64(g.Dies()*g.PlanesPerDie)*perPage/pageNs + buffered
		t.Logf("%s: idle %.2f W (%.2f W idle power), sequential write %.2f W (%.1f J/GB), random write %.2f W (%.1f J/GB); at most %.2f W", name, f.IdleW, idle, f.SeqWriteW, f.SeqJPerGB, f.RandWriteW, f.RandJPerGB, busiest)
		require.Greater(t, f.SeqWriteW, f.IdleW*1.5, name)
		require.Greater(t, f.RandWriteW, f.IdleW*1.5, name)
		require.LessOrEqual(t, f.SeqWriteW, busiest*1.01, name)
		require.LessOrEqual(t, f.RandWriteW, busiest*1.01, name)
		require.GreaterOrEqual(t, f.RandJPerGB, f.SeqJPerGB*0.99, name)
		require.GreaterOrEqual(t, f.PeakW, f.SeqWriteW*0.99, name)
	}
}
