// Package testdrive gives tests a product-line preset at the size of the
// test tier: the preset itself in the long tier (FTLSIM_LONG=1), and by
// default a description of it shrunk to 16 GiB of user capacity (at least
// 256 MiB per die) with the same controller, firmware, power figures,
// NAND part, dies and spare area. A fresh drive's speed and power follow
// from its dies, not from how many blocks each die has — and, on a drive
// with an SLC cache, from the cache taking the writes: such a drive is
// shrunk to no less than SLCCacheFloor (see Preset). Part builds small
// drives on a NAND part preset.
package testdrive

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testtier"
	"github.com/ftlsim/ftlsim/nand"
)

// SLCCacheFloor is the least user capacity a drive with an SLC cache is
// shrunk to: on a fresh drive of 128 GiB the cache's dynamic region,
// which borrows free blocks, has room for about 30 GB of host data even
// on QLC (each SLC block takes a native block's cells), so that the
// tests' runs on fresh drives — a 16 GiB fill, seconds of writes at a few
// GB/s — land in the cache as they do on the full drive.
const SLCCacheFloor = 128 << 30

// Preset returns what to build for the preset called name: its name in
// the long tier, otherwise the path of a description of the shrunk drive
// in the test's temporary directory. A drive with an SLC cache is shrunk
// to no less than SLCCacheFloor (and not at all if it is smaller); its
// cache keeps its dynamic_max (the smaller drive's free space bounds the
// dynamic region) and its static region, which is taken out of the spare
// area, shrinks with the capacity, as the spare area does.
func Preset(t testing.TB, name string) string {
	t.Helper()
	if testtier.IsLong() {
		return name
	}
	cfg, err := controller.Preset(name)
	require.NoError(t, err)
	r, err := cfg.Resolve()
	require.NoError(t, err)
	dies := int64(r.Config.NAND.Geometry.Dies())
	capacity := max(16<<30, dies<<28)
	slc := r.Config.Firmware.SLCCache
	if slc.Static+slc.DynamicMax > 0 {
		capacity = min(max(capacity, SLCCacheFloor), int64(r.Config.Capacity))
	}
	// The same drive, its flash sized from the capacity and spare area
	// (Resized scales the cache with the capacity).
	shrunk := r.Config.Resized(controller.Size(capacity), r.SparePercent)
	if slc.DynamicMax > 0 {
		// At most every block of the smaller flash in SLC mode.
		sr, err := shrunk.Resolve()
		require.NoError(t, err)
		g := sr.Config.NAND.Geometry
		all := int64(g.Dies()) * int64(g.PlanesPerDie) * int64(g.BlocksPerPlane) *
			int64(g.PagesPerBlock/sr.Config.NAND.Timing.WordLinePages()) * int64(g.PageBytes)
		shrunk.Firmware.SLCCache.DynamicMax = controller.Size(min(int64(slc.DynamicMax), all))
	}
	b, err := shrunk.Marshal()
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), name+".yaml")
	require.NoError(t, os.WriteFile(file, b, 0o644))
	return file
}

// TwoDies returns the path of a description of generic-mlc-small cut to
// two dies, in the test's temporary directory: a drive that runs a whole
// suite with a quarter of the I/Os to simulate.
func TwoDies(t testing.TB) string {
	t.Helper()
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	g := &cfg.NAND.Geometry
	g.Channels, g.TargetsPerChannel, g.DiesPerTarget = 2, 1, 1
	b, err := cfg.Marshal()
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "two-dies.yaml")
	require.NoError(t, os.WriteFile(file, b, 0o644))
	return file
}

// Part returns a small drive built on the NAND part preset called part
// (controller/presets/nand), so that tests can run TLC and QLC flash:
// generic-mlc-small's host interface, firmware and power figures on dies
// dies of the part (one channel each up to four, then more dies per
// target), with the part's die organisation, timing (its SLC mode
// included) and reliability, capacity bytes of user space and the flash
// sized from it at 25 % spare (sizing: flash): the blocks of these parts
// are large (tens of MiB), and a small drive needs the spare to keep its
// few groups a die for collection.
func Part(t testing.TB, part string, dies int, capacity controller.Size) controller.Config {
	t.Helper()
	p, err := controller.Part(part)
	require.NoError(t, err)
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	ch := min(dies, 4)
	require.Zero(t, dies%ch, "%d dies do not spread over %d channels", dies, ch)
	cfg.Name = "test-" + part
	cfg.Description = fmt.Sprintf("test drive: %s of user space on %d dies of %s", capacity, dies, part)
	cfg.Sizing = controller.SizeFlash
	cfg.Capacity = capacity
	cfg.OPPercent = 25
	cfg.NAND.Geometry = nand.Geometry{Channels: ch, TargetsPerChannel: 1, DiesPerTarget: dies / ch,
		PlanesPerDie: p.Die.PlanesPerDie, PagesPerBlock: p.Die.PagesPerBlock,
		PageBytes: p.Die.PageBytes, SpareBytes: p.Die.SpareBytes, UnitBytes: 4096}
	cfg.NAND.Timing = p.Timing
	cfg.NAND.Reliability = p.Reliability
	return cfg
}

// PartFile writes the drive Part returns as a description in the test's
// temporary directory and returns its path.
func PartFile(t testing.TB, part string, dies int, capacity controller.Size) string {
	t.Helper()
	b, err := Part(t, part, dies, capacity).Marshal()
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "test-"+part+".yaml")
	require.NoError(t, os.WriteFile(file, b, 0o644))
	return file
}
