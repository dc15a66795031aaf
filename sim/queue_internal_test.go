package sim

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/workload"
)

// TestHostQueueStaysBounded: with more requests outstanding than the
// drive's command queue holds, the host queue never empties; its slice
// must still stay within a small multiple of the requests waiting, not
// grow with the run's length (it once leaked every request ever queued).
func TestHostQueueStaysBounded(t *testing.T) {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg.Capacity = 4 << 30
	cfg.OPPercent = 25
	d, err := controller.New(cfg)
	require.NoError(t, err)
	e := New(d)
	e.SecureErase()
	ncq := d.Config().Host.QueueDepth
	for _, tc := range []struct {
		name        string
		qd, jobs    int
		runtimeSecs string
	}{
		{"qd64", 64, 1, "2"},
		{"qd256x4", 256, 4, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var streams []Stream
			for range tc.jobs {
				j := workload.NewJob("r")
				for _, kv := range [][2]string{{"rw", "randread"}, {"iodepth", "0"}, {"runtime", tc.runtimeSecs}, {"time_based", "1"}} {
					if kv[0] == "iodepth" {
						kv[1] = strconv.Itoa(tc.qd)
					}
					require.NoError(t, j.Set(kv[0], kv[1]))
				}
				require.NoError(t, j.Resolve(d.CapacityBytes()))
				streams = append(streams, Stream{Source: workload.NewGenerator(j), Options: Options{Name: "r", QueueDepth: tc.qd, RuntimeNs: j.RuntimeNs}})
			}
			rs, err := e.RunGroup(streams)
			require.NoError(t, err)
			waiting := tc.qd*tc.jobs - ncq
			issued := int64(0)
			for _, r := range rs {
				issued += r.Issued
			}
			require.Greater(t, issued, int64(50*waiting), "the run must be long enough to show growth")
			require.LessOrEqual(t, cap(e.sq[0].wait), 4*(waiting+64), "host queue of %d waiting requests after %d issued", waiting, issued)
		})
	}
}
