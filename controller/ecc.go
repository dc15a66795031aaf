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
}

const (
	eccSteps  = 16  // table points per octave of rber
	eccMinExp = -60 // the smallest rber tabulated is 2^-60 (below: no failure)
	eccLogMin = -800.0
)

func newECCTable(e ECC) eccTable {
	n := -eccMinExp*eccSteps + 1 // up to rber = 1
	t := eccTable{e: e, logq: make([]float64, n), words: int64(e.CodewordBytes)}
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
	if rber <= 0 {
		return 0
	}
	x := (math.Log2(rber) - eccMinExp) * eccSteps
	if x <= 0 {
		return 0
	}
	i := int(x)
	if i >= len(t.logq)-1 {
		return math.Exp(t.logq[len(t.logq)-1])
	}
	f := x - float64(i)
	l := t.logq[i] + f*(t.logq[i+1]-t.logq[i])
	if l <= eccLogMin {
		return 0
	}
	return math.Exp(l)
}

// readFailure is the probability that a read of n data bytes (whole
// codewords) with raw bit-error rate rber holds a codeword ECC cannot
// correct.
func (t *eccTable) readFailure(rber float64, n int64) float64 {
	q := t.codewordFailure(rber)
	if q == 0 {
		return 0
	}
	k := float64((n + t.words - 1) / t.words)
	return -math.Expm1(k * math.Log1p(-q))
}
