package memlimit

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
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
