package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

// DistKind is a random offset distribution.
type DistKind uint8

// Distributions, as fio's random_distribution names them.
const (
	Uniform DistKind = iota
	Zipf
	Pareto
	Normal
	Zoned
	// Sequence visits the blocks Distribution.Sequence lists, in that
	// order, again and again (fio's sequence:2,0,1).
	Sequence
)

// Zone is one access%/range% pair of a zoned distribution.
type Zone struct{ Access, Range float64 }

// Distribution is a parsed random_distribution value.
type Distribution struct {
	Kind  DistKind
	Param float64 // θ for zipf, h for pareto, deviation % for normal
	Zones []Zone
	// Sequence is the block indexes of a sequence distribution, in units
	// of the job's smallest block size.
	Sequence []int64
}

// String renders the distribution in fio's syntax.
func (d Distribution) String() string {
	switch d.Kind {
	case Zipf:
		return "zipf:" + strconv.FormatFloat(d.Param, 'g', -1, 64)
	case Pareto:
		return "pareto:" + strconv.FormatFloat(d.Param, 'g', -1, 64)
	case Normal:
		return "normal:" + strconv.FormatFloat(d.Param, 'g', -1, 64)
	case Zoned:
		parts := make([]string, len(d.Zones))
		for i, z := range d.Zones {
			parts[i] = strconv.FormatFloat(z.Access, 'g', -1, 64) + "/" + strconv.FormatFloat(z.Range, 'g', -1, 64)
		}
		return "zoned:" + strings.Join(parts, ":")
	case Sequence:
		parts := make([]string, len(d.Sequence))
		for i, b := range d.Sequence {
			parts[i] = strconv.FormatInt(b, 10)
		}
		return "sequence:" + strings.Join(parts, ",")
	}
	return "random"
}

// ParseDistribution parses fio's random_distribution: random, zipf:θ
// (θ > 0, θ ≠ 1), pareto:h (0 < h < 1), normal:dev (0 < dev ≤ 100, the
// standard deviation in percent of the range) or zoned:a/r:a/r… (access and
// range percentages, each list summing to 100; a zone may leave either out,
// and the zones that do share what the others leave, as in fio) or
// sequence:b,b,… (up to 64 block indexes, visited in order).
func ParseDistribution(s string) (Distribution, error) {
	name, arg, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	num := func(lo, hi float64, what string) (float64, error) {
		v, err := units.ParseFloat(arg)
		if err != nil || v <= lo || v > hi || math.IsNaN(v) {
			return 0, fmt.Errorf("random_distribution %q: %s must be a number in (%g, %g]", s, what, lo, hi)
		}
		return v, nil
	}
	switch name {
	case "random":
		if arg != "" {
			return Distribution{}, fmt.Errorf("random_distribution %q: random takes no parameter", s)
		}
		return Distribution{Kind: Uniform}, nil
	case "zipf":
		v, err := num(0, 100, "θ")
		if err == nil && v == 1 {
			err = fmt.Errorf("random_distribution %q: θ = 1 is not supported (use 0.99 or 1.01)", s)
		}
		return Distribution{Kind: Zipf, Param: v}, err
	case "pareto":
		v, err := num(0, 1, "h")
		if err == nil && v == 1 {
			err = fmt.Errorf("random_distribution %q: h must be below 1", s)
		}
		return Distribution{Kind: Pareto, Param: v}, err
	case "normal":
		v, err := num(0, 100, "deviation %")
		return Distribution{Kind: Normal, Param: v}, err
	case "sequence":
		var seq []int64
		for _, p := range strings.Split(arg, ",") {
			b, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
			if err != nil || b < 0 || b > 1<<40 {
				return Distribution{}, fmt.Errorf("random_distribution %q: %q: block indexes are integers from 0", s, p)
			}
			seq = append(seq, b)
		}
		if len(seq) > 64 {
			return Distribution{}, fmt.Errorf("random_distribution %q: %d blocks, at most 64", s, len(seq))
		}
		return Distribution{Kind: Sequence, Sequence: seq}, nil
	case "zoned":
		// As fio: a zone may leave out its access or range percentage
		// ("20/" or "/10"); what the others leave is shared among those.
		var zs []Zone
		var sa, sr float64
		var missA, missR int
		for _, p := range strings.Split(arg, ":") {
			a, r, ok := strings.Cut(p, "/")
			z := Zone{-1, -1}
			var err1, err2 error
			if a != "" {
				z.Access, err1 = units.ParseFloat(a)
			}
			if r != "" {
				z.Range, err2 = units.ParseFloat(r)
			}
			if !ok || err1 != nil || err2 != nil || (a != "" && z.Access < 0) || (r != "" && z.Range <= 0) {
				return Distribution{}, fmt.Errorf("random_distribution %q: zone %q must be access%%/range%% with range > 0 (either may be left out)", s, p)
			}
			if a == "" {
				missA++
			} else {
				sa += z.Access
			}
			if r == "" {
				missR++
			} else {
				sr += z.Range
			}
			zs = append(zs, z)
		}
		for i := range zs {
			if zs[i].Access < 0 {
				zs[i].Access = (100 - sa) / float64(missA)
			}
			if zs[i].Range < 0 {
				zs[i].Range = (100 - sr) / float64(missR)
			}
		}
		if missA > 0 {
			sa = 100
		}
		if missR > 0 {
			sr = 100
		}
		if math.Abs(sa-100) > 1e-6 || sr > 100+1e-6 {
			return Distribution{}, fmt.Errorf("random_distribution %q: access must sum to 100 (got %g) and ranges to at most 100 (got %g)", s, sa, sr)
		}
		for _, z := range zs {
			if z.Range <= 0 || z.Access < 0 {
				return Distribution{}, fmt.Errorf("random_distribution %q: the zones given leave nothing for the ones left out", s)
			}
		}
		return Distribution{Kind: Zoned, Zones: zs}, nil
	}
	return Distribution{}, fmt.Errorf("random_distribution %q: allowed random, zipf:θ, pareto:h, normal:dev, zoned:a/r:…, sequence:b,b,…", s)
}

// sampler draws block indexes in [0, n) from a distribution.
type sampler struct {
	d   Distribution
	n   int64
	rng *rand.Rand
	// zipf (Gray et al., "Quickly generating billion-record synthetic
	// databases", SIGMOD 1994)
	alpha, zetan, eta, theta float64
	powP                     float64 // pareto exponent
	zoneCum                  []float64
	zoneLo, zoneN            []int64
	// permutation for fio's random map
	perm     bool
	permKey  uint64
	permPos  int64
	permHalf uint   // half the bits of the permutation's domain
	permMask uint64 // 1<<permHalf - 1
}

func newSampler(d Distribution, n int64, rng *rand.Rand, randomMap bool) *sampler {
	s := &sampler{d: d, n: n, rng: rng}
	switch d.Kind {
	case Uniform:
		if randomMap {
			s.perm = true
			bits := uint(1)
			for uint64(1)<<bits < uint64(n) {
				bits++
			}
			s.permHalf = (bits + 1) / 2
			s.permMask = 1<<s.permHalf - 1
			s.permKey = rng.Uint64()
		}
	case Zipf:
		t := d.Param
		s.theta = t
		s.zetan = zeta(n, t)
		zeta2 := zeta(2, t)
		s.alpha = 1 / (1 - t)
		s.eta = (1 - math.Pow(2/float64(n), 1-t)) / (1 - zeta2/s.zetan)
	case Pareto:
		s.powP = math.Log(d.Param) / math.Log(1-d.Param)
	case Zoned:
		var ca float64
		var lo int64
		for _, z := range d.Zones {
			ca += z.Access
			s.zoneCum = append(s.zoneCum, ca)
			zn := max(1, int64(float64(n)*z.Range/100))
			if lo+zn > n {
				zn = max(1, n-lo)
			}
			s.zoneLo = append(s.zoneLo, min(lo, n-1))
			s.zoneN = append(s.zoneN, zn)
			lo += zn
		}
	}
	return s
}

// zeta returns Σ_{i=1..n} i^-θ: exactly for the first million terms and
// by the Euler–Maclaurin formula beyond.
func zeta(n int64, theta float64) float64 {
	const exact = 1 << 20
	var s float64
	m := min(n, exact)
	for i := int64(1); i <= m; i++ {
		s += math.Pow(float64(i), -theta)
	}
	if n > exact {
		a, b := float64(exact+1), float64(n)
		var integral float64
		if theta == 1 {
			integral = math.Log(b / a)
		} else {
			integral = (math.Pow(b, 1-theta) - math.Pow(a, 1-theta)) / (1 - theta)
		}
		s += integral + (math.Pow(a, -theta)+math.Pow(b, -theta))/2 +
			theta/12*(math.Pow(a, -theta-1)-math.Pow(b, -theta-1))
	}
	return s
}

// scatter spreads a rank over [0, n) as fio does, so that hot blocks are
// not all at the start of the range.
func scatter(rank uint64, n int64) int64 {
	x := rank + 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return int64(x % uint64(n))
}

// permute maps i < n to a unique value in [0, n): a keyed balanced
// Feistel network over 2h bits (a bijection), cycle-walked until the
// result falls below n.
func (s *sampler) permute(i uint64) uint64 {
	for {
		l, r := i>>s.permHalf&s.permMask, i&s.permMask
		for round := range uint64(4) {
			l, r = r, l^(scatterKey(r, s.permKey+round)&s.permMask)
		}
		i = l<<s.permHalf | r
		if i < uint64(s.n) {
			return i
		}
	}
}

func scatterKey(v, k uint64) uint64 {
	x := v ^ k*0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// next returns the next block index: a rank from the distribution,
// scattered over the range for the skewed ones.
func (s *sampler) next() int64 {
	switch s.d.Kind {
	case Zipf, Pareto:
		return scatter(uint64(s.rank()), s.n)
	}
	return s.rank()
}

// rank draws from the distribution: for zipf and pareto, 0 is the most
// popular block.
func (s *sampler) rank() int64 {
	switch s.d.Kind {
	case Zipf:
		u := s.rng.Float64()
		uz := u * s.zetan
		var r int64
		switch {
		case uz < 1:
			r = 0
		case uz < 1+math.Pow(0.5, s.theta):
			r = 1
		default:
			r = int64(float64(s.n) * math.Pow(s.eta*u-s.eta+1, s.alpha))
		}
		return min(max(r, 0), s.n-1)
	case Pareto:
		return int64(float64(s.n-1) * math.Pow(s.rng.Float64(), s.powP))
	case Normal:
		v := s.rng.NormFloat64()*s.d.Param/100*float64(s.n) + float64(s.n)/2
		return min(max(int64(v), 0), s.n-1)
	case Zoned:
		a := s.rng.Float64() * 100
		z := len(s.zoneCum) - 1
		for i, c := range s.zoneCum {
			if a < c {
				z = i
				break
			}
		}
		return s.zoneLo[z] + s.rng.Int64N(s.zoneN[z])
	}
	if s.perm {
		if s.permPos == s.n {
			s.permPos = 0
			s.permKey = s.rng.Uint64()
		}
		s.permPos++
		return int64(s.permute(uint64(s.permPos - 1)))
	}
	return s.rng.Int64N(s.n)
}
