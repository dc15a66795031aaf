// Package testdrive gives tests a product-line preset at the size of the
// test tier: the preset itself in the long tier (FTLSIM_LONG=1), and by
// default a description of it shrunk to 16 GiB of user capacity (at least
// 256 MiB per die) with the same controller, firmware, power figures,
// NAND part, dies and spare area. A fresh drive's speed and power follow
// from its dies, not from how many blocks each die has.
package testdrive

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testtier"
)

// Preset returns what to build for the preset called name: its name in
// the long tier, otherwise the path of a description of the shrunk drive
// in the test's temporary directory.
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
	// The same drive, its flash sized from the capacity and spare area.
	shrunk := r.Config.Resized(controller.Size(max(16<<30, dies<<28)), r.SparePercent)
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
