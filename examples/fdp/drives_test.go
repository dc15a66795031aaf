// Package fdp holds the drives of the tenants experiment (README.md);
// its test checks that they are the FDP preset with FDP off, the quarter
// one with a quarter of the dies and the same blocks a plane.
package fdp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

func resolved(t *testing.T, file string, capacity controller.Size) controller.Config {
	t.Helper()
	c, err := controller.LoadConfig(file)
	require.NoError(t, err)
	c = c.Resized(capacity, c.OPPercent)
	r, err := c.Resolve()
	require.NoError(t, err)
	return r.Config
}

func TestTenantDrives(t *testing.T) {
	preset, err := controller.Preset("generic-nvme-fdp")
	require.NoError(t, err)
	preset = preset.Resized(64<<30, preset.OPPercent)
	r, err := preset.Resolve()
	require.NoError(t, err)
	full := r.Config
	off := resolved(t, "no-fdp.yaml", 64<<30)
	quarter := resolved(t, "quarter.yaml", 16<<30)
	assert.True(t, full.Firmware.FDP.On())
	assert.False(t, off.Firmware.FDP.On())
	assert.False(t, quarter.Firmware.FDP.On())
	assert.Equal(t, full.NAND.Geometry, off.NAND.Geometry)
	assert.Equal(t, full.NAND.Geometry.Dies()/4, quarter.NAND.Geometry.Dies())
	assert.Equal(t, full.NAND.Geometry.BlocksPerPlane, quarter.NAND.Geometry.BlocksPerPlane)
	assert.Equal(t, full.OPPercent, quarter.OPPercent)
}
