package ftl

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLambertW0(t *testing.T) {
	for _, x := range []float64{-1 / math.E, -0.3, -0.1, -1e-6, 1e-6, 0.5, 1, math.E, 10, 1e6} {
		w := lambertW0(x)
		require.InDelta(t, x, w*math.Exp(w), 1e-9*(1+math.Abs(x)), "x=%g", x)
		require.GreaterOrEqual(t, w, -1.0)
	}
	require.True(t, math.IsNaN(lambertW0(-1)))
	require.InDelta(t, 0.5671432904097838, lambertW0(1), 1e-14) // the omega constant
}

func TestFIFOWriteAmplificationTheory(t *testing.T) {
	// Values from Desnoyers (2012), fig. 3: WA falls as spare area grows,
	// and tends to 1/(2·(α−1))+… for small spare; at α = 2 it is ≈ 1.26.
	require.True(t, math.IsInf(FIFOWriteAmplification(1), 1))
	prev := math.Inf(1)
	for _, a := range []float64{1.05, 1.07, 1.12, 1.25, 1.5, 2} {
		wa := FIFOWriteAmplification(a)
		require.Less(t, wa, prev)
		require.Greater(t, wa, 1.0)
		prev = wa
	}
	require.InDelta(t, 1.2550, FIFOWriteAmplification(2), 0.001)
}
