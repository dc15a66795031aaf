package controller_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// The die-count study's drives (examples/sweeps/dies.yaml): bp4 firmware
// on 32 GiB of flash spread over 8 to 128 dies. Resolve warns exactly
// where the write points and the reserve hold more than a quarter of the
// spare, worked out here from the description alone: the groups a die
// has beyond its share of the user data, one of them for the host and GC
// write points, and the free groups paced collection keeps (its pace
// water, at least the three a die keeps really free with safe erase).
func TestResolveWarnsWhereWritePointsHoldAQuarterOfTheSpare(t *testing.T) {
	warned := map[string]bool{}
	for _, mode := range []string{controller.ReserveFixed, controller.ReserveSpare} {
		for _, dies := range []int{8, 16, 32, 64, 128} {
			name := fmt.Sprintf("%s/%d", mode, dies)
			c := preset(t, "bp4-60", nil).Resized(32<<30, 0)
			c.OPPercent = preset(t, "bp4-60", nil).OPPercent
			c.NAND.Geometry.DiesPerTarget = dies / (c.NAND.Geometry.Channels * c.NAND.Geometry.TargetsPerChannel)
			c.Firmware.GCReserve = mode
			r, err := c.Resolve()
			require.NoError(t, err, name)
			g := r.Config.NAND.Geometry
			upg := float64(g.PagesPerBlock * g.PlanesPerDie * g.PageBytes / g.UnitBytes)
			user := float64(r.Config.Capacity) / float64(g.UnitBytes) / upg / float64(dies)
			spare := float64(g.BlocksPerPlane) - user
			b, err := r.Config.SpareBudget()
			require.NoError(t, err, name)
			fw := r.Config.Firmware
			level := float64(max(fw.GCPaceWater, 3))
			if mode == controller.ReserveSpare {
				// Sized from the spare: the thresholds as scaled.
				level = float64(max(b.GCPaceWater, 3))
			}
			share := (1 + level) / spare
			assert.InDelta(t, share, b.HeldShare(), 1e-9, name)
			if share > 0.25 {
				require.Len(t, r.Warnings, 1, name)
				assert.Contains(t, r.Warnings[0].String(), "write points and reserve hold", name)
				assert.Contains(t, r.Warnings[0].String(), fmt.Sprintf("on %d dies", dies), name)
			} else {
				assert.Empty(t, r.Warnings, name)
			}
			warned[name] = len(r.Warnings) > 0
		}
	}
	// As fixed, the bp4 reserve (pace water 6) is more than a quarter of
	// the spare from 32 dies (147 blocks a plane) up; sized from the spare
	// it scales down until 64 dies, and at 128 dies (37 blocks a plane)
	// even its floors hold more.
	assert.Equal(t, map[string]bool{
		"fixed/8": false, "fixed/16": false, "fixed/32": true, "fixed/64": true, "fixed/128": true,
		"spare/8": false, "spare/16": false, "spare/32": false, "spare/64": true, "spare/128": true,
	}, warned)
}
