package workload

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
)

const gib = int64(1) << 30

func job(t *testing.T, opts map[string]string) *Job {
	t.Helper()
	j := NewJob("t")
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		require.NoError(t, j.Set(k, opts[k]), k)
	}
	require.NoError(t, j.Resolve(16*gib))
	return j
}

func TestSetAndResolve(t *testing.T) {
	j := job(t, map[string]string{"rw": "randrw", "bs": "16k", "iodepth": "32", "size": "75%", "offset": "1g",
		"rwmixread": "70", "runtime": "2m", "time_based": "1", "randseed": "42"})
	require.Equal(t, RandRW, j.Pattern)
	require.Equal(t, int64(16384), j.BS[0].Bytes)
	require.Equal(t, 32, j.IODepth)
	require.Equal(t, int64(12*gib), j.Size)
	require.Equal(t, gib, j.Offset)
	require.Equal(t, int64(120e9), j.RuntimeNs)
	require.True(t, j.TimeBased)
	require.Equal(t, uint64(42), j.RandSeed)

	bad := []struct{ k, v string }{
		{"rw", "up"}, {"bs", "4q"}, {"iodepth", "-1"}, {"size", "0%"}, {"rwmixread", "x"},
		{"random_distribution", "zipf:1"}, {"random_distribution", "pareto:1.5"}, {"time_based", "maybe"},
		{"randseed", "-1"}, {"nope", "1"}, {"bs", "4k,8k,16k,32k"}, {"bssplit", "4k/50,8k/50:16k/10"},
		{"rate", ",10m"}, {"rate", "1m,2m"}, {"blockalign", "4k,8k"},
	}
	for _, b := range bad {
		require.ErrorIs(t, NewJob("x").Set(b.k, b.v), ErrOption, "%s=%s", b.k, b.v)
	}
	for _, c := range []map[string]string{{"offset": "16g"}, {"size": "17g"}, {"bs": "1000"}, {"offset": "1000"},
		{"size": "1g", "offset": "15.5g"}, {"bs": "2g", "size": "1g"}} {
		j := NewJob("x")
		for k, v := range c {
			require.NoError(t, j.Set(k, v))
		}
		require.ErrorIs(t, j.Resolve(16*gib), ErrOption, "%v", c)
	}

	// As fio: time_based with no runtime is dropped with a note, and a
	// size beyond nrfiles × filesize is capped there.
	j = job(t, map[string]string{"time_based": "1", "size": "1g"})
	require.False(t, j.TimeBased)
	require.Len(t, j.Notes, 1)
	j = job(t, map[string]string{"size": "100g", "filesize": "1g", "nrfiles": "2"})
	require.Equal(t, 2*gib, j.Size)
	require.Equal(t, gib, j.FileSize)
}

func TestBSSplit(t *testing.T) {
	bs, err := ParseBSSplit("4k/10:64k/50:32k/40")
	require.NoError(t, err)
	require.Equal(t, []BlockSize{{4096, 10}, {65536, 50}, {32768, 40}}, bs)
	bs, err = ParseBSSplit("4k/50:8k:16k")
	require.NoError(t, err)
	require.Equal(t, 25.0, bs[1].Percent)
	for _, s := range []string{"4k/50:8k/20", "4k/120", "x/50", "4k/10,8k/90"} {
		_, err := ParseBSSplit(s)
		require.Error(t, err, s)
	}
	// The generator draws sizes in proportion.
	j := job(t, map[string]string{"rw": "randwrite", "bssplit": "4k/25:64k/75", "number_ios": "40000"})
	g := NewGenerator(j)
	var it Item
	n4 := 0
	for g.Next(&it) {
		if it.Length == 4096 {
			n4++
		}
		require.Zero(t, it.Offset%4096)
		require.LessOrEqual(t, it.Offset+it.Length, j.Offset+j.Size)
	}
	require.InDelta(t, 0.25, float64(n4)/40000, 0.01)
}

func TestSequentialAndStopRules(t *testing.T) {
	j := job(t, map[string]string{"rw": "write", "bs": "128k", "size": "1m"})
	g := NewGenerator(j)
	var it Item
	var offs []int64
	for g.Next(&it) {
		require.Equal(t, blockio.Write, it.Op)
		offs = append(offs, it.Offset)
	}
	require.Equal(t, []int64{0, 131072, 262144, 393216, 524288, 655360, 786432, 917504}, offs)

	// time_based wraps around.
	j = job(t, map[string]string{"rw": "read", "bs": "512k", "size": "1m", "runtime": "1", "time_based": "1"})
	g = NewGenerator(j)
	offs = offs[:0]
	for i := 0; i < 5 && g.Next(&it); i++ {
		offs = append(offs, it.Offset)
	}
	require.Equal(t, []int64{0, 524288, 0, 524288, 0}, offs)

	// number_ios wins over size.
	j = job(t, map[string]string{"rw": "randread", "number_ios": "7"})
	g = NewGenerator(j)
	n := 0
	for g.Next(&it) {
		n++
	}
	require.Equal(t, 7, n)
}

func TestRWMix(t *testing.T) {
	j := job(t, map[string]string{"rw": "randrw", "rwmixread": "70", "number_ios": "20000"})
	g := NewGenerator(j)
	var it Item
	reads := 0
	for g.Next(&it) {
		if it.Op == blockio.Read {
			reads++
		}
	}
	require.InDelta(t, 0.70, float64(reads)/20000, 0.015)
}

func TestRandomMapVisitsEveryBlockOncePerPass(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 1000, 4097} {
		s := newSampler(Distribution{Kind: Uniform}, n, rand.New(rand.NewPCG(1, 2)), true)
		for pass := 0; pass < 2; pass++ {
			seen := make([]bool, n)
			for i := int64(0); i < n; i++ {
				b := s.next()
				require.False(t, seen[b], "n=%d block %d twice in pass %d", n, b, pass)
				seen[b] = true
			}
		}
	}
}

// share returns the fraction of draws whose rank is in the most popular
// fraction top of the blocks.
func share(t *testing.T, d Distribution, top float64) float64 {
	const n, draws = 100000, 400000
	s := newSampler(d, n, rand.New(rand.NewPCG(3, 4)), false)
	hot := 0
	for i := 0; i < draws; i++ {
		r := s.rank()
		require.True(t, r >= 0 && r < n)
		if r < int64(top*n) {
			hot++
		}
		b := s.next()
		require.True(t, b >= 0 && b < n)
	}
	return float64(hot) / draws
}

func TestDistributions(t *testing.T) {
	// Pareto with h = 0.2 is the 80/20 rule: the hottest 20 % of blocks
	// take 80 % of accesses.
	require.InDelta(t, 0.8, share(t, Distribution{Kind: Pareto, Param: 0.2}, 0.2), 0.01)
	// Zipf concentrates more as θ grows; θ < 1 is allowed. For θ = 0.9
	// over 1e5 items the share of the top 10 % is H(1e4, θ)/H(1e5, θ).
	z5 := share(t, Distribution{Kind: Zipf, Param: 0.5}, 0.1)
	z9 := share(t, Distribution{Kind: Zipf, Param: 0.9}, 0.1)
	z12 := share(t, Distribution{Kind: Zipf, Param: 1.2}, 0.1)
	require.Less(t, 0.1, z5)
	require.Less(t, z5, z9)
	require.Less(t, z9, z12)
	require.InDelta(t, zeta(10000, 0.9)/zeta(100000, 0.9), z9, 0.01)
	require.InDelta(t, zeta(10000, 0.5)/zeta(100000, 0.5), z5, 0.01)
	// The scatter spreads hot ranks: the first 10 % of block numbers get
	// about 10 % of zipf draws, not most of them.
	s := newSampler(Distribution{Kind: Zipf, Param: 0.9}, 100000, rand.New(rand.NewPCG(7, 8)), false)
	low := 0
	for i := 0; i < 100000; i++ {
		if s.next() < 10000 {
			low++
		}
	}
	require.Less(t, float64(low)/100000, 0.3)
	// zoned:80/10:20/90 sends 80 % of accesses to the first 10 % of blocks.
	d, err := ParseDistribution("zoned:80/10:20/90")
	require.NoError(t, err)
	s = newSampler(d, 1000, rand.New(rand.NewPCG(5, 6)), false)
	lo := 0
	for i := 0; i < 100000; i++ {
		if s.next() < 100 {
			lo++
		}
	}
	require.InDelta(t, 0.8, float64(lo)/100000, 0.01)
	// normal: nearly all draws within three deviations of the middle.
	s = newSampler(Distribution{Kind: Normal, Param: 5}, 1000, rand.New(rand.NewPCG(5, 6)), false)
	in := 0
	for i := 0; i < 10000; i++ {
		if b := s.next(); b >= 350 && b < 650 {
			in++
		}
	}
	require.Greater(t, in, 9900)
}

func TestZetaApproximation(t *testing.T) {
	// Beyond a million terms zeta uses Euler–Maclaurin; compare with a
	// direct sum.
	for _, th := range []float64{0.5, 0.99, 1.2} {
		var direct float64
		const n = 3_000_000
		for i := 1; i <= n; i++ {
			direct += math.Pow(float64(i), -th)
		}
		require.InEpsilon(t, direct, zeta(n, th), 1e-9, "θ=%g", th)
	}
}

func TestDistributionStrings(t *testing.T) {
	for _, s := range []string{"random", "zipf:0.9", "pareto:0.2", "normal:5", "zoned:60/10:30/20:8/30:2/40"} {
		d, err := ParseDistribution(s)
		require.NoError(t, err, s)
		require.Equal(t, s, d.String())
	}
}

func TestPrecondition(t *testing.T) {
	p, err := ParsePrecondition("torture:10m")
	require.NoError(t, err)
	require.Equal(t, int64(600e9), p.TortureNs)
	jobs, err := p.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 2)
	p, err = ParsePrecondition("fill")
	require.NoError(t, err)
	p.Size = "75%"
	jobs, err = p.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.NoError(t, jobs[0].Resolve(100<<30))
	require.Equal(t, int64(75<<30)/4096*4096, jobs[0].Size)
	p.Size = "lots"
	_, err = p.Jobs()
	require.ErrorIs(t, err, ErrOption)
	for _, s := range []string{"fill:1m", "torture:0", "torture:x", "soak"} {
		_, err := ParsePrecondition(s)
		require.ErrorIs(t, err, ErrOption, s)
	}
}

// TestPreconditionKind checks that kinds parse and print the same way
// (flags and files share UnmarshalText) and that a kind outside the
// constants fails loudly instead of preparing nothing.
func TestPreconditionKind(t *testing.T) {
	for _, k := range []PreconditionKind{PreconditionNone, PreconditionFill, PreconditionTorture} {
		got, err := ParsePreconditionKind(k.String())
		require.NoError(t, err)
		require.Equal(t, k, got)
		b, err := k.MarshalText()
		require.NoError(t, err)
		var u PreconditionKind
		require.NoError(t, u.UnmarshalText(b))
		require.Equal(t, k, u)
	}
	require.Equal(t, PreconditionNone, Precondition{}.Kind, "the zero value prepares nothing")
	for _, s := range []string{"fil", "", "Fill", "torture:1m"} {
		_, err := ParsePreconditionKind(s)
		require.ErrorIs(t, err, ErrOption, s)
		require.ErrorContains(t, err, "allowed none, fill, torture", s)
		var u PreconditionKind
		require.ErrorIs(t, u.UnmarshalText([]byte(s)), ErrOption, s)
	}
	bad := PreconditionKind(7)
	require.Equal(t, "PreconditionKind(7)", bad.String())
	_, err := bad.MarshalText()
	require.ErrorIs(t, err, ErrOption)
	_, err = Precondition{Kind: bad}.Jobs()
	require.ErrorIs(t, err, ErrOption)
	require.ErrorContains(t, err, "allowed none, fill, torture")
	jobs, err := Precondition{}.Jobs()
	require.NoError(t, err)
	require.Empty(t, jobs)
	p, err := ParsePrecondition("torture")
	require.NoError(t, err)
	require.Equal(t, Precondition{Kind: PreconditionTorture, TortureNs: DefaultTortureNs}, p)
	_, err = ParsePrecondition("fil")
	require.EqualError(t, err, "invalid job option: precondition=fil: allowed none, fill, torture[:DURATION], season")
}

func TestGeneratorDeterministic(t *testing.T) {
	run := func() []int64 {
		j := job(t, map[string]string{"rw": "randwrite", "random_distribution": "zipf:0.8", "number_ios": "1000", "randseed": "9"})
		g := NewGenerator(j)
		var it Item
		var out []int64
		for g.Next(&it) {
			out = append(out, it.Offset)
		}
		return out
	}
	require.Equal(t, run(), run())
}

func TestGeneratorDoesNotAllocate(t *testing.T) {
	j := job(t, map[string]string{"rw": "randrw", "bssplit": "4k/50:8k/50", "random_distribution": "zipf:0.9", "runtime": "1", "time_based": "1"})
	g := NewGenerator(j)
	var it Item
	require.Zero(t, testing.AllocsPerRun(1000, func() { g.Next(&it) }))
}

func FuzzParseDistribution(f *testing.F) {
	for _, s := range []string{"random", "zipf:0.9", "pareto:0.2", "normal:5", "zoned:60/10:40/90", "zoned:", "zipf:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDistribution(s)
		if err != nil {
			return
		}
		smp := newSampler(d, 97, rand.New(rand.NewPCG(1, 1)), true)
		for range 50 {
			if b := smp.next(); b < 0 || b >= 97 {
				t.Fatalf("%q drew %d outside [0, 97)", s, b)
			}
		}
	})
}

func FuzzJobSet(f *testing.F) {
	f.Add("bs", "4k", "size", "50%")
	f.Add("bssplit", "4k/10:64k/90", "offset", "1g")
	f.Add("rw", "randrw", "random_distribution", "zipf:1.1")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		j := NewJob("fuzz")
		_ = j.Set(k1, v1)
		_ = j.Set(k2, v2)
		j.NumberIOs = 20
		if j.Resolve(1<<30) != nil {
			return
		}
		g := NewGenerator(j)
		var it Item
		for g.Next(&it) {
			if it.Op == blockio.Flush {
				if it.Offset != 0 || it.Length != 0 {
					t.Fatalf("a FLUSH with data %+v from %s=%s %s=%s", it, k1, v1, k2, v2)
				}
				continue
			}
			if it.Offset < 0 || it.Length <= 0 || it.Offset+it.Length > 1<<30 || it.Offset%512 != 0 || it.Length%512 != 0 {
				t.Fatalf("bad request %+v from %s=%s %s=%s", it, k1, v1, k2, v2)
			}
		}
	})
}

func TestDataContent(t *testing.T) {
	j := job(t, map[string]string{"rw": "randwrite", "buffer_compress_percentage": "60", "dedupe_percentage": "10", "buffer_compress_chunk": "4k", "number_ios": "3"})
	g := NewGenerator(j)
	var it Item
	for g.Next(&it) {
		require.Equal(t, blockio.Data{CompressPct: 60, DedupePct: 10}, it.Data)
	}
	require.Equal(t, int64(4096), j.CompressChunk)
	j = job(t, map[string]string{"rw": "randrw", "data": "pseudo-random", "number_ios": "50"})
	g = NewGenerator(j)
	for g.Next(&it) {
		if it.Op == blockio.Read {
			require.Zero(t, it.Data, "reads carry no data description")
		} else {
			require.Equal(t, uint8(85), it.Data.CompressPct)
		}
	}
	for _, bad := range [][2]string{{"buffer_compress_percentage", "101"}, {"dedupe_percentage", "-1"}, {"data", "random-ish"}, {"buffer_compress_chunk", "0"}} {
		require.ErrorIs(t, NewJob("x").Set(bad[0], bad[1]), ErrOption, bad[0])
	}
	require.Contains(t, DataPatternNames(), "full-random")
	require.Len(t, DataPatterns(), len(DataPatternNames()))
}

// offsets returns the first n requests' offsets and lengths of job j.
func offsets(j *Job, n int) (off, length []int64) {
	g := NewGenerator(j)
	var it Item
	for range n {
		if !g.Next(&it) {
			break
		}
		off, length = append(off, it.Offset), append(length, it.Length)
	}
	return
}
