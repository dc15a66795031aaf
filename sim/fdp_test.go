package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// tenants writes 4 KiB blocks at random, each in its own quarter of the
// drive through its own placement identifier, n in all; pid 4 is one the
// drive does not have.
type tenants struct {
	rng       *rand.Rand
	quarter   int64
	n, i, bad int
}

func (s *tenants) Next(it *workload.Item) bool {
	if s.i == s.n {
		return false
	}
	h := s.i % 4
	s.i++
	pid := uint16(h)
	if s.i == s.bad {
		pid = 4
	}
	*it = workload.Item{Request: blockio.Request{Op: blockio.Write, Offset: (int64(h)*s.quarter + s.rng.Int64N(s.quarter)) * 4096,
		Length: 4096, Directive: blockio.DirectivePlacement, DSpec: pid, Token: uint32(s.i)}}
	return true
}

// The FDP statistics log: per handle the host's bytes written through it,
// in total the host's and the media's bytes, whose ratio is the device's
// write amplification.
func TestFDPStatisticsLog(t *testing.T) {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg = cfg.Resized(1<<30, 60)
	cfg.Firmware.FDP = controller.FDP{Handles: 4, PersistentHandles: 2}
	c, err := controller.New(cfg)
	require.NoError(t, err)
	src := &tenants{rng: rand.New(rand.NewPCG(1, 2)), quarter: c.CapacityBytes() / 4 / 4096, n: 500_000, bad: 1000}
	r, err := sim.New(c).Run(src, sim.Options{QueueDepth: 8})
	require.NoError(t, err)
	f := r.Device.FDP
	require.NotNil(t, f)
	require.Len(t, f.Handles, 4)
	var host int64
	media := f.SharedGC.MediaBytesWritten
	for h, s := range f.Handles {
		host += s.HostBytesWithMetadataWritten
		media += s.MediaBytesWritten
		assert.Positive(t, s.MediaBytesWritten, "handle %d", h)
	}
	assert.Equal(t, r.Device.HostWriteBytes, host)
	assert.Equal(t, r.Device.HostWriteBytes, f.HostBytesWithMetadataWritten)
	assert.Equal(t, int64(1), f.InvalidPlacementIdentifiers)
	assert.Equal(t, "persistent", f.Handles[0].Isolation)
	assert.Equal(t, "initial", f.Handles[3].Isolation)
	assert.Greater(t, r.Device.WriteAmplification, 1.0, "collection ran")
	assert.InEpsilon(t, r.Device.WriteAmplification, float64(f.MediaBytesWritten)/float64(f.HostBytesWithMetadataWritten), 1e-12)
	assert.Positive(t, f.MediaBytesErased)
	// The handles' reclaim units take every page the FTL programs: all
	// but the controller's parity and mapping pages.
	assert.Equal(t, r.Device.NANDWriteBytes-r.Device.ParityBytes-r.Device.MapWrites*r.Device.PageBytes, media)
}
