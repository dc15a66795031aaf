package controller

import (
	"math"
	"math/bits"
)

// ECC is a BCH code as a controller's ECC engine uses it: each codeword
// protects CodewordBytes of data with parity enough to correct Bits bit
// errors, and a codeword with more errors is uncorrectable. Bit errors
// are taken as independent, each bit wrong with the raw bit-error rate,
// so the errors in a codeword are binomial.
type ECC struct {
	Bits          int // bit errors corrected per codeword
	CodewordBytes int // data bytes per codeword
}

// ParityBits is the parity a binary BCH code needs to correct Bits errors
// in its codeword: m·Bits for the smallest field GF(2^m) whose codeword
// length 2^m − 1 holds the data and the parity.
func (e ECC) ParityBits() int {
	data := 8 * e.CodewordBytes
	m := bits.Len(uint(data))
	for (1<<m)-1 < data+m*e.Bits {
		m++
	}
	return m * e.Bits
}

// CodewordBits is the bits one codeword stores: data and parity.
func (e ECC) CodewordBits() int { return 8*e.CodewordBytes + e.ParityBits() }

// CodewordFailure returns the probability that a codeword read with raw
// bit-error rate rber holds more than Bits errors: the upper tail of the
// binomial distribution of errors among CodewordBits bits, summed exactly
// (in logarithms, so that it neither overflows nor loses the far tail).
func (e ECC) CodewordFailure(rber float64) float64 {
	if rber <= 0 {
		return 0
	}
	if rber >= 1 {
		return 1
	}
	n, t := e.CodewordBits(), e.Bits
	if t >= n {
		return 0
	}
	lp, lq := math.Log(rber), math.Log1p(-rber)
	lgn, _ := math.Lgamma(float64(n + 1))
	term := func(i int) float64 {
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		return math.Exp(lgn - a - b + float64(i)*lp + float64(n-i)*lq)
	}
	if float64(n)*rber < float64(t) {
		// The tail's terms fall from i = t+1 on: add them until they no
		// longer count.
		sum := 0.0
		for i := t + 1; i <= n; i++ {
			x := term(i)
			sum += x
			if x < sum*1e-17 {
				break
			}
		}
		return min(sum, 1)
	}
	// The mean is past t: one less the head.
	head := 0.0
	for i := 0; i <= t; i++ {
		head += term(i)
	}
	return max(0, 1-head)
}

// eccTable is CodewordFailure tabulated over the logarithm of the raw
// bit-error rate, for a read's cost: the natural logarithm of the failure
// probability at eccSteps points an octave, interpolated linearly.
type eccTable struct {
	e     ECC
	logq  []float64 // at rber = 2^(eccMinExp + i/eccSteps)
	words int64     // codeword data bytes
	logk  []float64 // log k for k codewords, k < len(logk)
}

const (
	eccSteps  = 16  // table points per octave of rber
	eccMinExp = -60 // the smallest rber tabulated is 2^-60 (below: no failure)
	eccLogMin = -800.0
)

func newECCTable(e ECC) eccTable {
	n := -eccMinExp*eccSteps + 1 // up to rber = 1
	t := eccTable{e: e, logq: make([]float64, n), words: int64(e.CodewordBytes), logk: make([]float64, 129)}
	for k := range t.logk {
		t.logk[k] = math.Log(float64(k))
	}
	for i := range t.logq {
		q := e.CodewordFailure(math.Exp2(float64(eccMinExp) + float64(i)/eccSteps))
		t.logq[i] = eccLogMin
		if q > 0 {
			t.logq[i] = max(eccLogMin, math.Log(q))
		}
	}
	return t
}

// codewordFailure is CodewordFailure from the table.
func (t *eccTable) codewordFailure(rber float64) float64 {
	l, ok := t.logFailure(rber)
	if !ok {
		return 0
	}
	return math.Exp(l)
}

// corrects reports whether a read of n data bytes with raw bit-error
// rate rber, drawn u (uniform in [0, 1)), is corrected: u ≥
// readFailure(rber, n), decided without the exponentials and logarithms
// of readFailure where the answer is sure. logU is log(u), or NaN when
// not computed yet (it is then computed, and kept for the read's next
// steps).
//
// The failure probability of k codewords each failing with probability
// q = exp(l) is P = 1 − (1 − q)^k, and with x = k·q,
// x/2 ≤ P ≤ x when x ≤ 1 and 1 − 1/e ≤ P ≤ 1 when x > 1. readFailure
// computes P to a few units in its last place, so when log u clears
// these bounds by corrMargin the comparison's answer is known: u ≥ P when
// log u ≥ log x + corrMargin, u < P when log u ≤ log x − ln 2 −
// corrMargin (x ≤ 1) or log u ≤ log(1 − 1/e) − corrMargin (x > 1).
// Between them P is computed as readFailure computes it: the answer is
// always that of the comparison with readFailure.
func (t *eccTable) corrects(u float64, logU *float64, rber float64, n int64) bool {
	l, ok := t.logFailure(rber)
	if !ok {
		return u >= 0 // readFailure is 0
	}
	k := t.codewords(n)
	if u >= corrMinU {
		if math.IsNaN(*logU) {
			*logU = math.Log(u)
		}
		lx := l + t.logCodewords(k) // log x
		switch {
		case *logU >= lx+corrMargin:
			return true
		case lx <= 0 && *logU <= lx-math.Ln2-corrMargin:
			return false
		case lx > 0 && *logU <= logOneLessInvE-corrMargin:
			return false
		}
	}
	return u >= -math.Expm1(float64(k)*math.Log1p(-math.Exp(l)))
}

// logOneLessInvE is log(1 − 1/e), the logarithm of the least failure
// probability of k codewords whose expected failures k·q exceed 1
// (TestCorrectsIsTheComparison checks it against math.Log).
const logOneLessInvE = -0.45867514538708193

// corrMargin is the margin of corrects' sure answers in natural-log
// units: far above the rounding of log u, log k and the interpolated l (a
// few units in the last place of numbers below 10³), far below any draw
// that matters.
const corrMargin = 1e-9

// corrMinU is the smallest draw corrects answers for without computing
// P: above it, a failure probability within a factor of two of the draw
// is a normal number, computed to a few units in its last place (a
// subnormal one is not, but lies below every draw the bounds admit). The
// engine's draws are 0 or at least 2⁻⁵³.
const corrMinU = 1e-290

// logCodewords returns log k, from a table for the reads of a page or
// less.
func (t *eccTable) logCodewords(k int64) float64 {
	if k < int64(len(t.logk)) {
		return t.logk[k]
	}
	return math.Log(float64(k))
}

// codewords is the number of codewords a read of n data bytes decodes.
func (t *eccTable) codewords(n int64) int64 { return (n + t.words - 1) / t.words }

// logFailure is the natural logarithm of codewordFailure(rber), the
// table's interpolation, and false where codewordFailure is 0.
func (t *eccTable) logFailure(rber float64) (float64, bool) {
	if rber <= 0 {
		return 0, false
	}
	x := (math.Log2(rber) - eccMinExp) * eccSteps
	if x <= 0 {
		return 0, false
	}
	i := int(x)
	if i >= len(t.logq)-1 {
		return t.logq[len(t.logq)-1], true
	}
	f := x - float64(i)
	l := t.logq[i] + f*(t.logq[i+1]-t.logq[i])
	if l <= eccLogMin {
		return 0, false
	}
	return l, true
}

// readFailure is the probability that a read of n data bytes (whole
// codewords) with raw bit-error rate rber holds a codeword ECC cannot
// correct.
func (t *eccTable) readFailure(rber float64, n int64) float64 {
	q := t.codewordFailure(rber)
	if q == 0 {
		return 0
	}
	k := float64(t.codewords(n))
	return -math.Expm1(k * math.Log1p(-q))
}
