package workload

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSetRefusesNonFiniteAndOverflow: a number that is NaN, infinite or
// too large for the nanoseconds or bytes it becomes is an error naming
// the option, never accepted as something else (every I/O 4 KiB, no think
// time, a wrapped negative).
func TestSetRefusesNonFiniteAndOverflow(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"bssplit", "4k/50:8k/NaN", "percentage"},
		{"bssplit", "4k/50:8k/Inf", "percentage"},
		{"thinktime", "9223372036854775", "microseconds"},
		{"thinktime", "9223372036854775807", "microseconds"},
		{"thinktime", "1e400s", "duration"},
		{"runtime", "NaN", "duration"},
		{"percentile_list", "99:NaN", "percentile"},
		{"random_distribution", "zipf:NaN", ""},
		{"random_distribution", "pareto:Inf", ""},
		{"spr_op", "NaN", "(0, 1)"},
		{"steadystate", "iops:NaN", "limit"},
		{"buffer_pattern", "0x", "hex digits"},
		{"buffer_pattern", "0xzz", "hex digits"},
	} {
		j := NewJob("t")
		err := j.Set(c.name, c.value)
		require.Error(t, err, "%s=%s", c.name, c.value)
		require.ErrorContains(t, err, c.name, "the error names the option")
		require.ErrorContains(t, err, c.want)
	}
	j := NewJob("t")
	require.NoError(t, j.Set("thinktime", "2305843009213693"), "the longest bare think time")
	require.Equal(t, int64(2305843009213693000), j.ThinkNs)
	require.NoError(t, j.Set("buffer_pattern", "0xdeadbeef"))
}
