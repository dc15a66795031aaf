package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// SPRandom is fio's sprandom: preconditioning a drive for random writes
// in one pass over its physical capacity. The range is written in Regions
// equal parts of the physical size (the logical size plus OP); each part
// writes new blocks in a random order, each block once, and marks each
// block it writes, with the part's invalidation probability, to be
// rewritten in the next part. The probabilities follow the distribution
// of valid data a greedy collector leaves at steady state (Desnoyers,
// "Analytic Models of SSD Write Performance", 2012): the first parts are
// rewritten most, so that they hold the least valid data, the last hardly
// at all. With CacheBytes, the rewrites of a part are deferred to the end
// of the next one, so that a drive's write cache cannot absorb a write
// and its rewrite together.
type SPRandom struct {
	OP         float64 // the drive's over-provisioning ratio, in (0, 1) (spr_op; default 0.15)
	Regions    int     // spr_num_regions (default 100)
	CacheBytes int64   // spr_cs (default 0)
}

// sprPrecision is the resolution of the invalidation probabilities (fio's
// PCT_PRECISION).
const sprPrecision = 10000

// sprValidity returns the expected share of valid data in each of n equal
// regions of a drive at steady state under greedy collection with
// over-provisioning op, from the least valid region to the most, as fio
// computes it: validities spaced evenly from 1 down to the collector's
// victim validity 1-1/WA (WA ≈ 0.5/op + 0.7), each taking space in
// inverse proportion to its validity, resampled at n equally spaced sizes.
func sprValidity(n int, op float64) []float64 {
	wa := 0.5/op + 0.7
	gc := 1 - 1/wa
	v := linspace(1, gc, n)
	xs := make([]float64, n)
	acc := 0.0
	for i, x := range v {
		acc += 1 / x
		xs[i] = acc
	}
	out := make([]float64, n)
	for i, x := range linspace(xs[0], xs[n-1], n) {
		out[i] = interpolate(x, xs, v)
	}
	slices.Reverse(out)
	return out
}

// linspace returns n values evenly spaced from a to b, both included.
func linspace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		if n == 1 {
			out[i] = a
			break
		}
		out[i] = a + float64(i)*(b-a)/float64(n-1)
	}
	return out
}

// interpolate returns y at x on the piecewise-linear curve (xs, ys), xs
// increasing, held constant beyond its ends.
func interpolate(x float64, xs, ys []float64) float64 {
	if x <= xs[0] {
		return ys[0]
	}
	for i := 1; i < len(xs); i++ {
		if x <= xs[i] {
			if xs[i]-xs[i-1] < 1e-9 {
				return ys[i-1]
			}
			return ys[i-1] + (ys[i]-ys[i-1])*(x-xs[i-1])/(xs[i]-xs[i-1])
		}
	}
	return ys[len(ys)-1]
}

// sprPhysicalBytes is the bytes SPRandom writes: the logical size plus
// its share op, rounded down to whole blocks.
func sprPhysicalBytes(op float64, logical, bs int64) int64 {
	n := logical + int64(math.Ceil(float64(logical)*op))
	return n - n%bs
}

// check validates the options against a range of logical bytes written
// in blocks of bs.
func (s SPRandom) check(logical, bs int64) error {
	if !(s.OP > 0 && s.OP < 1) {
		return fmt.Errorf("spr_op=%g: must be in (0, 1)", s.OP)
	}
	if s.Regions < 1 {
		return fmt.Errorf("spr_num_regions=%d: at least 1", s.Regions)
	}
	region := sprPhysicalBytes(s.OP, logical, bs) / int64(s.Regions)
	if region < bs {
		return fmt.Errorf("spr_num_regions=%d: regions of %d bytes hold no %d-byte block; use fewer", s.Regions, region, bs)
	}
	if s.CacheBytes > region {
		return fmt.Errorf("spr_cs=%d: larger than a region (%d bytes): at most %d regions", s.CacheBytes, region, sprPhysicalBytes(s.OP, logical, bs)/s.CacheBytes)
	}
	return nil
}

// sprState is SPRandom's progress through the regions.
type sprState struct {
	cfg          SPRandom
	invalid      []int // per region, invalidation probability in sprPrecision
	regionWrites int64
	remaining    int64
	region       int
	phase        int
	count        [2]int64 // blocks staged for rewriting, by phase
	staged, due  []int64  // blocks to rewrite in the next region, and now
	dueHead      int
	perm         *sampler // new blocks, each once
	rng          *rand.Rand
}

func newSPRState(cfg SPRandom, logical, bs int64, rng *rand.Rand) *sprState {
	v := sprValidity(cfg.Regions, cfg.OP)
	s := &sprState{cfg: cfg, invalid: make([]int, len(v)), rng: rng}
	for i, x := range v {
		s.invalid[i] = int(math.Round((1 - x) * sprPrecision))
	}
	s.regionWrites = sprPhysicalBytes(cfg.OP, logical, bs) / int64(cfg.Regions) / bs
	s.remaining = s.regionWrites
	s.perm = newSampler(Distribution{Kind: Uniform}, logical/bs, rng, true)
	return s
}

// stage marks block b, just written, to be rewritten in the next region
// with the current region's invalidation probability.
func (s *sprState) stage(b int64) {
	if s.rng.IntN(sprPrecision+1) <= s.invalid[min(s.region, len(s.invalid)-1)] {
		s.staged = append(s.staged, b)
		s.count[s.phase^1]++
	}
}

func (s *sprState) pop() (int64, bool) {
	if s.dueHead == len(s.due) {
		return 0, false
	}
	s.dueHead++
	return s.due[s.dueHead-1], true
}

// next returns the block of the next write, and false once the range's
// physical size has been written.
func (s *sprState) next() (int64, bool) {
	cache := s.cfg.CacheBytes > 0
	if !cache {
		// The rewrites staged in the previous region come first.
		if b, ok := s.pop(); ok {
			s.stage(b)
			return b, true
		}
	}
	if s.remaining == 0 {
		if cache {
			// Deferred: the rewrites of the previous region at the end of
			// this one.
			if b, ok := s.pop(); ok {
				s.stage(b)
				return b, true
			}
		}
		if s.region >= len(s.invalid) {
			return 0, false
		}
		s.count[s.phase] = 0
		s.region++
		s.phase ^= 1
		s.remaining = s.regionWrites - s.count[s.phase]
		s.due, s.staged, s.dueHead = s.staged, s.due[:0], 0
	}
	if s.perm.permPos == s.perm.n {
		// Every block has been written once.
		if cache {
			if b, ok := s.pop(); ok {
				return b, true
			}
		}
		return 0, false
	}
	b := s.perm.rank()
	if s.remaining > 0 {
		s.remaining--
	}
	s.stage(b)
	return b, true
}
