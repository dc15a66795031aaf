package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
)

// TestPowerOfPresets: for each product line's largest and smallest
// preset, idle < random write and sequential write, and random writes cost
// more energy per byte than sequential ones.
func TestPowerOfPresets(t *testing.T) {
	for _, name := range []string{"bp4-60", "bp4-240", "bp3-64", "m4-64", "m4-256", "c300-256", "intel-510-250", "bp4-msata-30"} {
		f, err := measure(name, 2*sim.Second)
		require.NoError(t, err, name)
		t.Logf("%s: idle %.2f W, sequential write %.2f W (%.1f J/GB), random write %.2f W (%.1f J/GB)", name, f.IdleW, f.SeqWriteW, f.SeqJPerGB, f.RandWriteW, f.RandJPerGB)
		require.Greater(t, f.SeqWriteW, f.IdleW*1.5, name)
		require.Greater(t, f.RandWriteW, f.IdleW*1.5, name)
		require.Greater(t, f.IdleW, 0.1, name)
		require.Less(t, f.SeqWriteW, 10.0, name)
		require.GreaterOrEqual(t, f.PeakW, f.SeqWriteW*0.99, name)
	}
}
