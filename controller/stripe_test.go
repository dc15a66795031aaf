package controller_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/nand"
	"github.com/ftlsim/ftlsim/sim"
)

// Channel stripes: sequential writes to a flash-bound drive of 2
// channels with n dies each. Without stripes each die programs back to
// back: n dies × a page per (bus + tPROG) a channel while the bus has room.
// With them a channel's stripe takes its n data-ins one after another,
// the stripe's page type's tPROG and the stripe's work, so each channel
// moves n pages per (n·bus + tPROG + StripeNs): theory from the part's
// times, the tPROG the mean of the lower and upper pages'.
func TestChannelStripeThroughput(t *testing.T) {
	for _, tc := range []struct {
		dies   int
		stripe bool
		work   int64
	}{
		{1, false, 0}, {4, false, 0},
		{1, true, 0}, {2, true, 0}, {4, true, 0},
		{1, true, 200_000}, {4, true, 200_000},
	} {
		d := drive(t, func(c *controller.Config) {
			c.Capacity = 4 << 30
			g := &c.NAND.Geometry
			g.Channels, g.TargetsPerChannel, g.DiesPerTarget = 2, 1, tc.dies
			c.Firmware.CommandNs = 1000
			c.Firmware.ChannelStripe, c.Firmware.StripeNs = tc.stripe, tc.work
		})
		cfg := d.Config()
		g, tm := cfg.NAND.Geometry, cfg.NAND.Timing
		bus := nand.BusTimesOf(cfg.NAND, g.PlanesPerDie, 0).ProgramNs
		prog := float64(tm.ProgLSBNs+tm.ProgMSBNs) / 2
		page := float64(g.PageBytes * g.PlanesPerDie)
		n := float64(tc.dies)
		perChannel := n * page / (float64(bus) + prog) // bytes per ns
		if tc.stripe {
			perChannel = n * page / (n*float64(bus) + prog + float64(tc.work))
		}
		want := 2 * perChannel * 1e9
		e := sim.New(d)
		e.SecureErase()
		r := runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "1g", "iodepth": "4"})
		got := r.Write.BWBytes
		t.Logf("%d dies a channel, stripes %v, work %d ns: %.1f MB/s, theory %.1f", tc.dies, tc.stripe, tc.work, got/1e6, want/1e6)
		require.InEpsilon(t, want, got, 0.08)
	}
}
