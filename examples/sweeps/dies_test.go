package sweeps

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sweep"
)

// The die-count study (dies.yaml): the documented command, its grid, and
// the warning exactly at the points whose write points and reserve hold
// more than a quarter of the spare, that share worked out from each
// point's description: the groups a die has beyond its share of the user
// data, one of them for the host and GC write points, and the free
// groups paced collection keeps (bp4's pace water, as given or as sized
// from the spare, at least the three a die keeps really free with safe
// erase).
func TestDieCountStudyWarnsAboveAQuarterOfTheSpare(t *testing.T) {
	assert.Contains(t, read(t, "README.md"), "ftlsim sweep examples/sweeps/dies.yaml --out=results/dies")
	s, err := sweep.Load("dies.yaml")
	require.NoError(t, err)
	require.Equal(t, []string{"nand.geometry.dies", "gc_reserve", "gc_streams"}, s.AxisNames())
	points, err := s.Points()
	require.NoError(t, err)
	require.Len(t, points, 20)
	warned := 0
	for _, p := range points {
		name := fmt.Sprint(p.Coords)
		require.NotEmpty(t, p.Drive, name)
		c, err := controller.ParseConfig(p.DriveFile, p.Drive)
		require.NoError(t, err, name)
		c = c.Resized(64<<30, c.OPPercent)
		r, err := c.Resolve()
		require.NoError(t, err, name)
		b, err := r.Config.SpareBudget()
		require.NoError(t, err, name)
		g := r.Config.NAND.Geometry
		upg := float64(g.PagesPerBlock * g.PlanesPerDie * g.PageBytes / g.UnitBytes)
		user := float64(r.Config.Capacity) / float64(g.UnitBytes) / upg / float64(g.Dies())
		spare := float64(g.BlocksPerPlane) - user
		pace := r.Config.Firmware.GCPaceWater
		if r.Config.Firmware.GCReserve == controller.ReserveSpare {
			pace = b.GCPaceWater // as sized from the spare
			assert.LessOrEqual(t, pace, r.Config.Firmware.GCPaceWater, name)
		}
		share := (1 + float64(max(pace, 3))) / spare
		assert.InDelta(t, share, b.HeldShare(), 1e-9, name)
		assert.Equal(t, share > 0.25, len(r.Warnings) == 1, "%s: %.3f of the spare held, warnings %v", name, share, r.Warnings)
		if len(r.Warnings) > 0 {
			warned++
		}
	}
	assert.Greater(t, warned, 0)
	assert.Less(t, warned, len(points))
}
