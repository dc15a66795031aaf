package sim_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
)

// TestZBDJobResets runs zonemode=zbd jobs through the engine, the zones
// laid over a drive's LBAs: a writer's resets are in its result and in
// fio's zone_resets, summed when results merge; a reader of zones holding
// no data ends at once without error, as fio's does; other jobs carry no
// zone_resets.
func TestZBDJobResets(t *testing.T) {
	c := twoDies(t, func(cfg *controller.Config) {
		cfg.Capacity = 128 * (4 << 20) // 512 MiB: 128 zones
		cfg.OPPercent = 25
		cfg.Firmware.Zoned = controller.Zoned{ZoneSize: 4 << 20, ZoneCapacity: 4 << 20, MaxOpen: 4, MaxActive: 4}
	})
	e := sim.New(c)
	e.SecureErase()
	z, ok := c.Zones()
	require.True(t, ok)
	l := workload.ZoneLayout{ZoneBytes: z.ZoneBytes, CapacityBytes: z.ZoneCapacity, Zones: z.Zones, MaxOpen: z.MaxOpen, MaxActive: z.MaxActive}
	h := workload.NewZoneHost(l)
	zoned := func(kv ...string) *workload.Job {
		j := job(t, append([]string{"zonemode", "zbd"}, kv...)...)
		require.NoError(t, j.CheckZones(&l))
		require.NoError(t, j.Resolve(c.CapacityBytes()))
		j.ZBD.Host = h
		return j
	}
	// Nothing written yet: the reader ends at once.
	r, err := e.Run(workload.NewGenerator(zoned("rw", "read", "bs", "256k")), sim.Options{Name: "reader", QueueDepth: 4})
	require.NoError(t, err)
	require.True(t, r.ZBD)
	require.Zero(t, r.Read.IOs)

	var parts []*sim.Result
	for range 2 {
		w := zoned("rw", "randwrite", "bs", "512k", "size", "32m", "number_ios", "400")
		r, err := e.Run(workload.NewGenerator(w), sim.Options{Name: "writer", QueueDepth: 1})
		require.NoError(t, err)
		require.True(t, r.ZBD)
		require.Positive(t, r.ZoneResets, "400 writes of 512 KiB fill 8 zones of 4 MiB many times over")
		parts = append(parts, r)
	}
	m := sim.Merge(parts)
	require.Equal(t, parts[0].ZoneResets+parts[1].ZoneResets, m.ZoneResets)
	b, err := json.Marshal(fioreport.JobOf(m, nil))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	require.EqualValues(t, m.ZoneResets, doc["zone_resets"])

	plain, err := e.RunJob(job(t, "rw", "randread", "number_ios", "10"), sim.Hooks{})
	require.NoError(t, err)
	b, err = json.Marshal(fioreport.JobOf(plain, nil))
	require.NoError(t, err)
	require.NotContains(t, string(b), "zone_resets")
}
