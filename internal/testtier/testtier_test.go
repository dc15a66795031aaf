package testtier

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTiers(t *testing.T) {
	for _, c := range []struct {
		value string
		long  bool
	}{
		{"", false}, {"0", false}, {"false", false}, {"yes", false},
		{"1", true}, {"true", true},
	} {
		t.Setenv(Env, c.value)
		require.Equal(t, c.long, IsLong(), "%s=%q", Env, c.value)
		require.Equal(t, map[bool]int{false: 1, true: 2}[c.long], Pick(1, 2), "%s=%q", Env, c.value)
		skipped := true
		t.Run("long", func(t *testing.T) {
			Long(t)
			skipped = false
		})
		require.Equal(t, !c.long, skipped, "%s=%q", Env, c.value)
	}
}
