package controller

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

// eccs are the ECC strengths of the presets.
var eccs = []ECC{{Bits: 55, CodewordBytes: 512}, {Bits: 40, CodewordBytes: 1024}, {Bits: 24, CodewordBytes: 1024}, {Bits: 8, CodewordBytes: 512}}

// A binary BCH code over GF(2^m) corrects t errors with m·t parity bits;
// 512 data bytes need m = 13 (2^12 − 1 < 4096 bits), 1 KiB m = 14.
func TestECCParityBits(t *testing.T) {
	require.Equal(t, 13*55, ECC{Bits: 55, CodewordBytes: 512}.ParityBits())
	require.Equal(t, 14*40, ECC{Bits: 40, CodewordBytes: 1024}.ParityBits())
	require.Equal(t, 8*512+13*55, ECC{Bits: 55, CodewordBytes: 512}.CodewordBits())
}

// tail is P(X > t) for X ~ Binomial(n, p), from gonum: its survival
// function, or where that has lost the far tail to rounding, the sum of
// its point probabilities.
func tail(n, t int, p float64) float64 {
	b := distuv.Binomial{N: float64(n), P: p}
	if s := b.Survival(float64(t)); s > 1e-9 {
		return s
	}
	sum := 0.0
	for i := t + 1; i <= n && i < t+400; i++ {
		sum += math.Exp(b.LogProb(float64(i)))
	}
	return sum
}

func TestCodewordFailureIsTheBinomialTail(t *testing.T) {
	for _, e := range eccs {
		n := e.CodewordBits()
		for _, p := range []float64{1e-5, 1e-4, 1e-3, 3e-3, 6e-3, 1e-2, 2e-2, 5e-2} {
			want := tail(n, e.Bits, p)
			got := e.CodewordFailure(p)
			if want < 1e-300 {
				require.Less(t, got, 1e-290, "%+v at %g", e, p)
				continue
			}
			require.InEpsilon(t, want, got, 1e-6, "%+v at rber %g", e, p)
		}
		require.Zero(t, e.CodewordFailure(0))
		require.Equal(t, 1.0, e.CodewordFailure(1))
	}
}

// The table the reads use stays within 1 % of the exact tail wherever
// the tail is not negligible.
func TestECCTableInterpolates(t *testing.T) {
	for _, e := range eccs {
		tb := newECCTable(e)
		for lp := -14.0; lp <= -1; lp += 0.0137 {
			p := math.Pow(10, lp)
			want := e.CodewordFailure(p)
			got := tb.codewordFailure(p)
			if want < 1e-200 {
				require.Less(t, got, 1e-150, "%+v at %g", e, p)
				continue
			}
			require.InEpsilon(t, want, got, 0.01, "%+v at rber %g", e, p)
		}
		// A read of k codewords fails if any does.
		q := e.CodewordFailure(5e-3)
		for _, k := range []int64{1, 4, 8, 32} {
			require.InEpsilon(t, 1-math.Pow(1-q, float64(k)), tb.readFailure(5e-3, k*int64(e.CodewordBytes)), 0.01)
		}
	}
}

// Below safeRBER a read of a whole multi-plane page fails with
// probability under 1e-30; just above it, no longer.
func TestSafeRBER(t *testing.T) {
	for _, e := range eccs {
		const n = 2 * 16384
		k := float64(n / e.CodewordBytes)
		s := safeRBER(e, n)
		require.Positive(t, s)
		require.Less(t, k*e.CodewordFailure(s), 1e-30)
		require.GreaterOrEqual(t, k*e.CodewordFailure(s*1.01), 1e-30)
	}
}

// corrects decides as the comparison with readFailure does, for every
// preset's ECC, over raw bit-error rates across the table (and past its
// ends), read sizes of one codeword to a 16 KiB page's, and draws spread
// over their range and packed around the failure probability itself,
// where the sure answer must not be taken.
func TestCorrectsIsTheComparison(t *testing.T) {
	require.Equal(t, math.Log(1-1/math.E), logOneLessInvE)
	tables := make([]eccTable, len(eccs))
	for i, e := range eccs {
		tables[i] = newECCTable(e)
	}
	rapid.Check(t, func(t *rapid.T) {
		tb := &tables[rapid.IntRange(0, len(eccs)-1).Draw(t, "ecc")]
		rber := math.Exp2(rapid.Float64Range(-70, 0).Draw(t, "log2 rber"))
		if rapid.Bool().Draw(t, "nonpositive") {
			rber = -rber * float64(rapid.IntRange(0, 1).Draw(t, "negative"))
		}
		n := int64(rapid.IntRange(1, 32).Draw(t, "codewords")) * tb.words
		if rapid.Bool().Draw(t, "part") {
			n -= int64(rapid.IntRange(0, int(tb.words)-1).Draw(t, "short"))
		}
		p := tb.readFailure(rber, n)
		var u float64
		switch rapid.IntRange(0, 2).Draw(t, "where") {
		case 0:
			u = rapid.Float64Range(0, 1).Draw(t, "u")
		case 1:
			u = math.Exp(rapid.Float64Range(-745, 0).Draw(t, "log u"))
		default: // within a few units in the last place of p
			u = p
			for range rapid.IntRange(-4, 4).Draw(t, "ulps") + 4 {
				u = math.Nextafter(u, 2)
			}
			for range 4 {
				u = math.Nextafter(u, -1)
			}
			u = max(0, u)
		}
		logU := math.NaN()
		if got, want := tb.corrects(u, &logU, rber, n), u >= p; got != want {
			t.Fatalf("corrects(u=%v, rber=%v, n=%d) = %v; u >= readFailure (%v) is %v", u, rber, n, got, p, want)
		}
		// A second step of the same read reuses the logarithm.
		if got, want := tb.corrects(u, &logU, rber/2, n), u >= tb.readFailure(rber/2, n); got != want {
			t.Fatalf("second step: corrects = %v, comparison %v", got, want)
		}
	})
}
