package controller_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
)

// TestHostDies writes a sequential stretch on a full drive while
// collection runs (random writes over all of it just before) and reads
// back which die each host page of the stretch landed on. With
// host_dies rotate every page lies on the die after its predecessor's,
// busy or not (static allocation); with earliest, the default, dies busy
// copying are passed over, so the order breaks somewhere (dynamic
// allocation).
func TestHostDies(t *testing.T) {
	for _, tc := range []struct {
		order  string
		rotate bool // the stretch must lie on the dies in turn
	}{
		{"", false}, {controller.HostDiesEarliest, false}, {controller.HostDiesRotate, true},
	} {
		t.Run("host_dies="+tc.order, func(t *testing.T) {
			d := drive(t, func(c *controller.Config) {
				c.Capacity, c.OPPercent = 2<<30, 25
				g := &c.NAND.Geometry
				g.Channels, g.TargetsPerChannel, g.DiesPerTarget = 4, 1, 2
				c.Firmware.HostDies = tc.order
			})
			e := sim.New(d)
			e.SecureErase()
			runJob(t, e, map[string]string{"rw": "write", "bs": "128k"})
			runJob(t, e, map[string]string{"rw": "randwrite", "bs": "4k", "iodepth": "32", "io_size": "1g", "norandommap": "1", "randseed": "7"})
			require.Positive(t, d.Counters().GCRuns, "collection must run for the orders to differ")
			runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "iodepth": "4", "size": "64m"})

			dies := d.Config().NAND.Geometry.Dies()
			unit := d.UnitBytes()
			prev, pages, breaks := -1, 0, 0
			for lba := int64(0); lba < 64<<20/unit; lba++ {
				loc, err := d.FTL().Lookup(lba)
				require.NoError(t, err)
				require.True(t, loc.Mapped, "unit %d", lba)
				if loc.Die == prev {
					continue // the same host page (its units may span planes)
				}
				pages++
				if prev >= 0 && loc.Die != (prev+1)%dies {
					breaks++
				}
				prev = loc.Die
			}
			t.Logf("host_dies %q: %d runs of units on one die (host pages), %d dies, %d not on the die after the last", tc.order, pages, dies, breaks)
			require.Greater(t, pages, 4*dies)
			if tc.rotate {
				require.Zero(t, breaks)
			} else {
				require.Positive(t, breaks)
			}
		})
	}
}
