package units

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	cases := []struct {
		in      string
		decimal bool
		want    int64
	}{
		{"4096", false, 4096}, {"4k", false, 4096}, {"4K", false, 4096}, {"128KiB", false, 131072},
		{"1m", false, 1 << 20}, {"1g", true, 1 << 30}, {"240GB", true, 240e9}, {"240GB", false, 240 << 30},
		{"256GiB", true, 256 << 30}, {"0.5k", false, 512}, {"1t", false, 1 << 40}, {"512b", false, 512},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in, c.decimal)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	for _, bad := range []string{"", "k", "4x", "1.1b", "4kk", "-4k", "99999999999999p"} {
		_, err := ParseSize(bad, false)
		require.ErrorIs(t, err, ErrSyntax, bad)
	}
}

func TestParseDuration(t *testing.T) {
	cases := map[string]int64{"60": 60e9, "2000s": 2000e9, "30m": 1800e9, "1h": 3600e9, "10ms": 10e6, "5us": 5000, "1.5": 1.5e9}
	for in, want := range cases {
		got, err := ParseDuration(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "s", "10y", "abc"} {
		_, err := ParseDuration(bad)
		require.ErrorIs(t, err, ErrSyntax, bad)
	}
}

func TestFormatBytes(t *testing.T) {
	require.Equal(t, "256 GiB", FormatBytes(256<<30))
	require.Equal(t, "4 KiB", FormatBytes(4096))
	require.Equal(t, "1.5 MiB", FormatBytes(3<<19))
	require.Equal(t, "100 B", FormatBytes(100))
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4k", "240GB", "1.5m", "", "12345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s, true)
		if err == nil && v < 0 {
			t.Fatalf("%q parsed to negative %d", s, v)
		}
	})
}
