package controller

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/nand"
)

// Without RAISE, data garbage collection cannot read is lost: the
// logical units moved out of such a page read as errors although their
// new copies are young, until the host writes them again.
func TestGCLosesWhatItCannotRead(t *testing.T) {
	cfg, err := Preset("generic-mlc-small")
	require.NoError(t, err)
	g := &cfg.NAND.Geometry
	g.Channels, g.TargetsPerChannel, g.DiesPerTarget = 2, 1, 1
	cfg.Capacity, cfg.OPPercent = 256<<20, 30
	cfg.Firmware.ReadErrors = true
	// A year-old page is unreadable at rated wear (RBER 0.01, no read
	// retry); a young one reads well (1e-4).
	cfg.NAND.Reliability.RetrySteps = 0
	cfg.NAND.Reliability.RetentionRBER = 0.01
	c, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, c.PreWear(1))
	now := c.SecureErase(0)
	submit := func(r blockio.Request) error {
		done, err := c.Submit(now, r)
		now = max(now, done)
		return err
	}
	for off := int64(0); off < c.CapacityBytes(); off += 128 << 10 {
		require.NoError(t, submit(blockio.Request{Op: blockio.Write, Offset: off, Length: 128 << 10}))
	}
	require.NoError(t, submit(blockio.Request{Op: blockio.Flush}))
	require.NoError(t, c.Bake(nand.RetentionYear))
	// Overwrites of half the drive: collection moves what is left of
	// the old data.
	rng := rand.New(rand.NewPCG(1, 2))
	units := c.CapacityBytes() / c.unit
	for c.Counters().UnreadableUnits == 0 {
		require.NoError(t, submit(blockio.Request{Op: blockio.Write, Offset: rng.Int64N(units/2) * c.unit, Length: c.unit}))
	}
	require.NoError(t, submit(blockio.Request{Op: blockio.Flush}))
	lost := int64(-1)
	for lba := range units {
		if loc, err := c.ftl.Lookup(lba); err == nil && loc.Lost {
			lost = lba
			break
		}
	}
	require.GreaterOrEqual(t, lost, int64(0))
	loc, err := c.ftl.Lookup(lost)
	require.NoError(t, err)
	require.False(t, loc.Buffered)
	require.Less(t, now-c.dev.ProgramTime(loc.Block), nand.RetentionHour, "its new copy is young")
	read := blockio.Request{Op: blockio.Read, Offset: lost * c.unit, Length: c.unit}
	failed := c.Counters().FailedReads
	require.ErrorIs(t, submit(read), ErrUncorrectable)
	require.Equal(t, failed+1, c.Counters().FailedReads)
	require.NoError(t, submit(blockio.Request{Op: blockio.Write, Offset: lost * c.unit, Length: c.unit}))
	require.NoError(t, submit(blockio.Request{Op: blockio.Flush}))
	require.NoError(t, submit(read), "written again, it reads")
}
