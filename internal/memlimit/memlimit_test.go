package memlimit

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

const meminfo = `MemTotal:       24684092 kB
MemFree:        19926316 kB
MemAvailable:   22278460 kB
Buffers:          153472 kB
`

func TestMemAvailable(t *testing.T) {
	b, err := MemAvailable([]byte(meminfo))
	require.NoError(t, err)
	require.Equal(t, int64(22278460)<<10, b)
	for _, bad := range []string{"MemTotal: 1 kB\n", "MemAvailable: lots kB\n", "MemAvailable: 12 MB\n", ""} {
		_, err := MemAvailable([]byte(bad))
		require.Error(t, err, bad)
	}
}

func TestResolveOrder(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	info := func() ([]byte, error) { return []byte(meminfo), nil }
	none := func() ([]byte, error) { return nil, errors.New("no /proc") }

	l, err := Resolve("", getenv, info)
	require.NoError(t, err)
	require.Equal(t, int64(22278460)<<10/2, l.Bytes, "half of MemAvailable")
	require.Contains(t, l.String(), "available")
	require.Contains(t, l.String(), "--max_memory")

	l, err = Resolve("", getenv, none)
	require.NoError(t, err)
	require.Equal(t, int64(Fallback), l.Bytes)

	env[EnvVar] = "3GiB"
	l, err = Resolve("", getenv, info)
	require.NoError(t, err)
	require.Equal(t, int64(3<<30), l.Bytes, "the environment before the machine")
	require.Contains(t, l.From, EnvVar)

	l, err = Resolve("2GB", getenv, info)
	require.NoError(t, err)
	require.Equal(t, int64(2e9), l.Bytes, "the flag before the environment")

	for _, bad := range []string{"0", "-1GB", "lots"} {
		_, err := Resolve(bad, getenv, info)
		require.ErrorIs(t, err, units.ErrSyntax, bad)
		require.ErrorContains(t, err, "--max_memory="+bad)
		env[EnvVar] = bad
		_, err = Resolve("", getenv, info)
		require.ErrorContains(t, err, EnvVar+"="+bad)
	}
}

// The estimate is close to what a built drive holds (its own account,
// controller.MemoryBytes), with and without the data tokens of verify.
func TestDriveEstimate(t *testing.T) {
	for _, track := range []bool{false, true} {
		cfg, err := controller.Preset("generic-mlc-small")
		require.NoError(t, err)
		cfg.NAND.TrackData = track
		r, err := cfg.Resolve()
		require.NoError(t, err)
		c, err := controller.New(cfg)
		require.NoError(t, err)
		est, held := float64(Drive(r, track)), float64(c.MemoryBytes())
		require.InEpsilon(t, held, est, 0.1, "track data %v: estimate %.0f, held %.0f", track, est, held)
	}
}

// A limit given is honoured up to the machine's memory (MemTotal), and
// capped there with a note that says so; the machine's own default is
// half its available memory.
func TestGivenLimitUpToTheMachine(t *testing.T) {
	getenv := func(string) string { return "" }
	big := func() ([]byte, error) { return []byte("MemTotal: 67108864 kB\nMemAvailable: 60000000 kB\n"), nil }
	l, err := Resolve("40GiB", getenv, big)
	require.NoError(t, err)
	require.Equal(t, int64(40<<30), l.Bytes, "40 GiB on a 64 GiB machine, not a lower hidden cap")
	require.False(t, l.Capped)

	small := func() ([]byte, error) { return []byte(meminfo), nil } // 23.5 GiB
	l, err = Resolve("40GiB", getenv, small)
	require.NoError(t, err)
	require.Equal(t, int64(24684092)<<10, l.Bytes, "capped at the machine's memory")
	require.True(t, l.Capped)
	require.Contains(t, l.String(), "--max_memory=40GiB is more than this machine's 23.54 GiB of memory: capped there")

	l, err = Resolve("", func(k string) string { return map[string]string{EnvVar: "1TiB"}[k] }, small)
	require.NoError(t, err)
	require.True(t, l.Capped)
	require.Contains(t, l.From, EnvVar+"=1TiB")

	// Where the machine's memory is unknown, the limit given stands.
	l, err = Resolve("1TiB", getenv, func() ([]byte, error) { return nil, errors.New("no /proc") })
	require.NoError(t, err)
	require.Equal(t, int64(1<<40), l.Bytes)
}

// The estimate of a run is its drive's and its jobs' statistics: the
// series of a timed job grow with its runtime over the interval, a job
// bounded by size counts none, and jobs run one at a time (the endurance
// procedure) count the largest only.
func TestEstimateRun(t *testing.T) {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	r, err := cfg.Resolve()
	require.NoError(t, err)
	timed := &workload.Job{Timing: workload.Timing{RuntimeNs: 100 * sim.Second, RampNs: 10 * sim.Second}}
	sized := &workload.Job{}
	e := EstimateRun(r, Work{Jobs: []*workload.Job{timed, sized}})
	require.Equal(t, Drive(r, false), e.Drive)
	require.Equal(t, sim.StreamMemoryBytes(111)+sim.StreamMemoryBytes(0), e.Stats)
	require.Equal(t, int64(111), e.Intervals)
	require.Equal(t, 2, e.Jobs)
	require.Equal(t, e.Drive+e.Stats, e.Bytes())

	ms := Statistics(Work{Jobs: []*workload.Job{timed}, IntervalNs: sim.Second / 1000, PerJob: 64})
	require.Equal(t, sim.StreamMemoryBytes(110001)+64, ms.Stats, "millisecond intervals")
	one := Statistics(Work{Jobs: []*workload.Job{timed, sized, timed}, OneAtATime: true})
	require.Equal(t, sim.StreamMemoryBytes(111), one.Stats, "the largest job's")
}
