package ftl

import "math"

// FIFOWriteAmplification is the steady-state write amplification of FIFO
// (LRW) cleaning under uniform random single-unit writes, from Desnoyers,
// "Analytic modeling of SSD write performance" (SYSTOR 2012), eq. 5:
//
//	WA = α / (α + W₀(−α·e^(−α)))
//
// where α is physical data space over user space (> 1) and W₀ the
// principal branch of the Lambert W function. It returns +Inf for α ≤ 1.
func FIFOWriteAmplification(alpha float64) float64 {
	if alpha <= 1 {
		return math.Inf(1)
	}
	return alpha / (alpha + lambertW0(-alpha*math.Exp(-alpha)))
}

// lambertW0 returns the principal branch of the Lambert W function,
// w·e^w = x, for x ≥ −1/e, by Halley's iteration.
func lambertW0(x float64) float64 {
	if x < -1/math.E {
		return math.NaN()
	}
	if x == 0 {
		return 0
	}
	// Start near the branch point with its series, elsewhere with log1p.
	var w float64
	if x < -0.25 {
		p := math.Sqrt(2 * (math.E*x + 1))
		w = -1 + p - p*p/3 + 11*p*p*p/72
		if p < 1e-4 {
			return w // the series is exact to rounding here; Halley divides by w+1
		}
	} else {
		w = math.Log1p(x)
	}
	for range 64 {
		ew := math.Exp(w)
		f := w*ew - x
		wn := w - f/(ew*(w+1)-(w+2)*f/(2*w+2))
		if math.Abs(wn-w) <= 1e-15*(1+math.Abs(wn)) {
			return wn
		}
		w = wn
	}
	return w
}
