package workload

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/ftlsim/ftlsim/blockio"
)

// Tests of what the device sees of fio's job options.

// TestFioJobOptionsDevicesSee: the fio options that change what the
// device sees — block-size ranges, skips and backwards runs, random
// offsets every N I/Os, loops, byte rates and Poisson arrivals, a
// repeated buffer pattern, zones that leave their share out.
func TestFioJobOptionsDevicesSee(t *testing.T) {
	t.Run("bsrange", func(t *testing.T) {
		for _, opts := range []map[string]string{{"bs": "4k-16k"}, {"bsrange": "4k-16k"}, {"blocksize_range": "4k-16k"}} {
			j := job(t, opts)
			require.Len(t, j.BS, 4, opts)
			_, ls := offsets(j, 2000)
			seen := map[int64]int{}
			for _, l := range ls {
				require.Zero(t, l%4096)
				require.True(t, l >= 4096 && l <= 16384, l)
				seen[l]++
			}
			require.Len(t, seen, 4, "every multiple of the smallest size")
		}
		require.Error(t, NewJob("t").Set("bs", "16k-4k"))
	})
	t.Run("per direction", func(t *testing.T) {
		// fio's bs=r,w[,t]: reads the first, writes the second, trims the
		// third or the writes'; bssplit alike.
		j := job(t, map[string]string{"rw": "randrw", "bs": "64k,4k", "norandommap": "1"})
		require.Equal(t, int64(64<<10), j.Sizes(0)[0].Bytes)
		require.Equal(t, int64(4<<10), j.Sizes(1)[0].Bytes)
		require.Equal(t, int64(4<<10), j.Sizes(2)[0].Bytes)
		g := NewGenerator(j)
		var it Item
		for range 200 {
			require.True(t, g.Next(&it))
			want := map[blockio.Op]int64{blockio.Read: 64 << 10, blockio.Write: 4 << 10}[it.Op]
			require.Equal(t, want, it.Length, "%s", it.Op)
		}
		j = job(t, map[string]string{"bssplit": "64k/40:1024k/60,1024k/100"})
		require.Len(t, j.Sizes(0), 2)
		require.Equal(t, []BlockSize{{1 << 20, 100}}, j.Sizes(1))
		require.Nil(t, job(t, map[string]string{"bs": "64k,4k"}).BSDir[0], "reads live in BS")
		one := NewJob("t")
		require.NoError(t, one.Set("bs", "64k,4k"))
		require.NoError(t, one.Set("bs", "8k"))
		require.Equal(t, int64(8<<10), one.Sizes(1)[0].Bytes, "a single size applies to every direction again")
	})
	t.Run("skip and backwards", func(t *testing.T) {
		os, _ := offsets(job(t, map[string]string{"rw": "write:4k", "size": "1m"}), 3)
		require.Equal(t, []int64{0, 8192, 16384}, os, "4 KiB written, 4 KiB skipped")
		os, _ = offsets(job(t, map[string]string{"rw": "read:-8k", "size": "1m"}), 3)
		require.Equal(t, []int64{0, 1<<20 - 4096, 1<<20 - 8192}, os, "backwards from the end")
	})
	t.Run("random every N", func(t *testing.T) {
		os, ls := offsets(job(t, map[string]string{"rw": "randread:4", "size": "1g"}), 40)
		for i := range os {
			if i%4 != 0 {
				require.Equal(t, os[i-1]+ls[i-1], os[i], "I/O %d continues the run", i)
			}
		}
		require.Error(t, NewJob("t").Set("rw", "randread:0"))
	})
	t.Run("loops", func(t *testing.T) {
		j := job(t, map[string]string{"rw": "write", "bs": "64k", "size": "1m", "loops": "3"})
		os, _ := offsets(j, 1000)
		require.Len(t, os, 3*16, "three passes over the range")
		require.Equal(t, int64(0), os[16])
	})
	t.Run("rate", func(t *testing.T) {
		j := job(t, map[string]string{"rw": "write", "rate": "1m"})
		require.Equal(t, 1, j.QueueDepth(), "closed loop at its iodepth, paced by its rate")
		g := NewGenerator(j)
		var it Item
		for k := range int64(5) {
			require.True(t, g.Next(&it))
			require.Equal(t, k*4096*1e9/(1<<20), it.At)
		}
		p := job(t, map[string]string{"rw": "write", "rate_iops": "1000", "rate_process": "poisson"})
		g = NewGenerator(p)
		var gaps []float64
		last := int64(0)
		for range 20000 {
			require.True(t, g.Next(&it))
			gaps = append(gaps, float64(it.At-last))
			last = it.At
		}
		mean, sd := stat.MeanStdDev(gaps[1:], nil)
		require.InEpsilon(t, 1e6, mean, 0.03, "mean gap 1 ms")
		require.InEpsilon(t, mean, sd, 0.05, "exponential gaps: deviation equals the mean")
		require.Error(t, NewJob("t").Set("rate_process", "bursty"))
	})
	t.Run("buffer_pattern", func(t *testing.T) {
		require.Equal(t, uint8(99), job(t, map[string]string{"buffer_pattern": "0xdeadbeef"}).Data.CompressPct)
	})
	t.Run("files", func(t *testing.T) {
		j := job(t, map[string]string{"rw": "write", "bs": "16k", "nrfiles": "4", "filesize": "64k"})
		require.Equal(t, int64(256<<10), j.Size, "size = nrfiles × filesize")
		os, _ := offsets(j, 6)
		k := int64(1 << 10)
		require.Equal(t, []int64{0, 64 * k, 128 * k, 192 * k, 16 * k, 80 * k}, os, "round robin over the files")
		os, _ = offsets(job(t, map[string]string{"rw": "write", "bs": "16k", "nrfiles": "2", "size": "64k", "file_service_type": "sequential"}), 6)
		require.Equal(t, []int64{0, 16 * k, 32 * k, 48 * k}, os, "each file to its end, then the next")
		bad := NewJob("t")
		require.NoError(t, bad.Set("nrfiles", "8"))
		require.NoError(t, bad.Set("size", "64k"))
		require.NoError(t, bad.Set("bs", "16k"))
		require.ErrorContains(t, bad.Resolve(gib), "nrfiles=8")
	})
	t.Run("blockalign", func(t *testing.T) {
		os, ls := offsets(job(t, map[string]string{"rw": "randwrite", "bssplit": "512/50:4k/50", "blockalign": "4k"}), 2000)
		small := 0
		for i := range os {
			require.Zero(t, os[i]%4096, "offset %d", os[i])
			if ls[i] == 512 {
				small++
			}
		}
		require.Positive(t, small, "sizes below the alignment still drawn")
		bad := NewJob("t")
		require.NoError(t, bad.Set("blockalign", "8m"))
		require.NoError(t, bad.Set("size", "4m"))
		require.ErrorContains(t, bad.Resolve(gib), "blockalign")
	})
	t.Run("fill_device", func(t *testing.T) {
		j := job(t, map[string]string{"rw": "write", "size": "1m", "offset": "4g", "fill_device": "1"})
		require.Equal(t, 16*gib-4*gib, j.Size, "to the drive's end, whatever size says")
	})
	t.Run("steadystate", func(t *testing.T) {
		j := job(t, map[string]string{"ss": "iops_slope:0.3%", "ss_dur": "1800s", "ss_ramp": "10s"})
		require.Equal(t, SteadyState{Slope: true, Limit: 0.3, Percent: true, DurationNs: 1800e9, RampNs: 10e9}, j.SteadyState)
		require.Equal(t, "iops_slope", j.SteadyState.Name())
		require.Equal(t, "bw", job(t, map[string]string{"steadystate": "bw:1000"}).SteadyState.Name())
		for _, bad := range []string{"latency:1%", "iops", "iops:-1", "iops:x%"} {
			require.Error(t, NewJob("t").Set("ss", bad), bad)
		}
		require.Equal(t, int64(10e9), job(t, map[string]string{"ss": "lat:5%", "ss_interval": "10"}).SteadyState.CheckNs)
		require.Error(t, NewJob("t").Set("ss_interval", "500ms"))
	})
	t.Run("fsync", func(t *testing.T) {
		ops := func(opts map[string]string, n int) []blockio.Op {
			g := NewGenerator(job(t, opts))
			var out []blockio.Op
			var it Item
			for len(out) < n && g.Next(&it) {
				out = append(out, it.Op)
			}
			return out
		}
		W, F := blockio.Write, blockio.Flush
		require.Equal(t, []blockio.Op{W, W, F, W, W, F}, ops(map[string]string{"rw": "write", "fsync": "2"}, 6))
		require.Equal(t, []blockio.Op{W, F, W, F}, ops(map[string]string{"rw": "write", "sync": "dsync"}, 4))
		require.Equal(t, []blockio.Op{W, W, W, W, F}, ops(map[string]string{"rw": "write", "size": "16k", "end_fsync": "1"}, 100),
			"io_size counts the data, and the job ends with a FLUSH")
		require.Equal(t, []blockio.Op{blockio.Read, blockio.Read}, ops(map[string]string{"rw": "read", "size": "8k", "fsync": "1", "end_fsync": "1"}, 100),
			"reads need no flush")
		require.Error(t, NewJob("t").Set("sync", "maybe"))
	})
	t.Run("rwmix both ways", func(t *testing.T) {
		require.Equal(t, 70, job(t, map[string]string{"rwmixread": "70", "rwmixwrite": "30"}).RWMixRead)
		j := NewJob("t")
		require.NoError(t, j.Set("rwmixwrite", "50"))
		require.ErrorContains(t, j.Set("rwmixread", "70"), "add up to 100")
	})
	t.Run("aliases", func(t *testing.T) {
		j := job(t, map[string]string{"timeout": "5", "offset": "0%"})
		require.Equal(t, int64(5e9), j.RuntimeNs)
		require.Zero(t, j.Offset)
	})
	t.Run("zoned shares", func(t *testing.T) {
		d, err := ParseDistribution("zoned:50/5:30/15:20/")
		require.NoError(t, err)
		require.Equal(t, []Zone{{50, 5}, {30, 15}, {20, 80}}, d.Zones)
		d, err = ParseDistribution("zoned:50/:/50")
		require.NoError(t, err)
		require.Equal(t, []Zone{{50, 50}, {50, 50}}, d.Zones)
		_, err = ParseDistribution("zoned:60/50:50/60:/")
		require.Error(t, err)
	})
}

// TestSequenceDistribution: fio's sequence:2,0,1 visits blocks 2, 0, 1
// and again; with random_sequence_stride each pass moves on by the
// sequence's length, and the job ends where the next pass would leave its
// range. A block past the range is an error.
func TestSequenceDistribution(t *testing.T) {
	for _, c := range []struct {
		stride string
		want   []int64
	}{
		{"0", []int64{2, 0, 1, 2, 0, 1, 2, 0}},
		{"1", []int64{2, 0, 1, 5, 3, 4}}, // 6 blocks of 4k: the third pass would pass the end
	} {
		j := NewJob("s")
		for k, v := range map[string]string{"rw": "randread", "bs": "4k", "size": "24k", "io_size": "32k",
			"random_distribution": "sequence:2,0,1", "random_sequence_stride": c.stride} {
			require.NoError(t, j.Set(k, v))
		}
		require.NoError(t, j.Resolve(gib))
		g := NewGenerator(j)
		var got []int64
		var it Item
		for g.Next(&it) {
			got = append(got, it.Offset/4096)
		}
		require.Equal(t, c.want, got, "stride %s", c.stride)
	}
	j := NewJob("s")
	require.NoError(t, j.Set("rw", "randread"))
	require.NoError(t, j.Set("size", "8k"))
	require.NoError(t, j.Set("random_distribution", "sequence:1,2"))
	require.ErrorContains(t, j.Resolve(gib), "block 2 is past")
	_, err := ParseDistribution("sequence:1,x")
	require.Error(t, err)
}

// TestNumRange: with num_range=N each TRIM command carries N ranges of a
// block each, at the offsets the pattern gives in turn (random ones visit
// distinct blocks under the random map); its length is their total.
func TestNumRange(t *testing.T) {
	j := job(t, map[string]string{"rw": "randtrim", "bs": "4k", "size": "1m", "num_range": "8"})
	g := NewGenerator(j)
	seen := map[int64]bool{}
	var it Item
	cmds := 0
	for g.Next(&it) {
		cmds++
		require.Len(t, it.Ranges, 8)
		require.Equal(t, int64(8*4096), it.Length)
		require.Equal(t, it.Ranges[0].Offset, it.Offset)
		for _, r := range it.Ranges {
			require.False(t, seen[r.Offset], "offset %d twice", r.Offset)
			seen[r.Offset] = true
		}
	}
	require.Equal(t, int(j.Size/4096/8), cmds)
	require.Len(t, seen, int(j.Size/4096), "every block once")
}

// TestStridedZones: zonemode=strided moves zonesize bytes in a zone of
// zonerange bytes, then skips to zonerange+zoneskip further on, wrapping
// to the range's start; random offsets stay in the current zone.
func TestStridedZones(t *testing.T) {
	const kib = 1024
	for _, c := range []struct {
		opts map[string]string
		want []int64 // zone start of each I/O, in KiB
	}{
		{map[string]string{"rw": "read", "bs": "4k", "size": "64k", "io_size": "40k", "zonesize": "8k", "zoneskip": "16k"},
			[]int64{0, 0, 24, 24, 48, 48, 0, 0, 24, 24}},
		// zonesize above zonerange: each zone is gone over twice.
		{map[string]string{"rw": "randread", "bs": "4k", "size": "64k", "io_size": "32k", "zonemode": "strided", "zonesize": "16k", "zonerange": "8k"},
			[]int64{0, 0, 0, 0, 8, 8, 8, 8}},
	} {
		j := job(t, c.opts)
		g := NewGenerator(j)
		var got []int64
		var it Item
		for g.Next(&it) {
			zr := j.ZoneRange
			zone := (it.Offset / (zr + j.ZoneSkip)) * (zr + j.ZoneSkip)
			require.Less(t, it.Offset+it.Length, zone+zr+1, "I/O at %d leaves its zone", it.Offset)
			got = append(got, zone/kib)
		}
		require.Equal(t, c.want, got, "%v", c.opts)
	}
	j := NewJob("z")
	require.NoError(t, j.Set("zonemode", "strided"))
	require.ErrorContains(t, j.Resolve(gib), "zonesize")
	z := NewJob("z")
	require.NoError(t, z.Set("zonemode", "zbd"))
	require.ErrorContains(t, z.CheckZones(nil), "conventional")
}

// TestWrittenExtents: the verify record keeps, for each block, the last
// write's token, as extents split by later writes and trims.
func TestWrittenExtents(t *testing.T) {
	w := newWritten()
	w.write(0, 10, 1)
	w.write(4, 6, 2)  // splits the first
	w.write(8, 12, 3) // overlaps its end
	w.cut(1, 2)       // a trim
	var got [][3]int64
	for b := int64(0); ; {
		s, e, tok, ok := w.from(b)
		if !ok {
			break
		}
		got = append(got, [3]int64{s, e, int64(tok)})
		b = e
	}
	require.Equal(t, [][3]int64{{0, 1, 1}, {2, 4, 1}, {4, 6, 2}, {6, 8, 1}, {8, 12, 3}}, got)
	s, e, tok, ok := w.from(5)
	require.True(t, ok)
	require.Equal(t, []int64{5, 6, 2}, []int64{s, e, int64(tok)}, "from inside an extent")
	_, _, _, ok = w.from(12)
	require.False(t, ok)
}

// TestSPRandomLeavesTheSteadyStateValidity: fio's sprandom writes the
// range's physical size (logical plus OP) about once, every block at least once,
// and each region of that pass ends with the share of valid data the
// steady-state model gives it: the writes a later region rewrote are the
// invalid ones.
func TestSPRandomLeavesTheSteadyStateValidity(t *testing.T) {
	const bs, op, regions = 4096, 0.12, 20
	j := job(t, map[string]string{"rw": "randwrite", "bs": "4k", "size": "800m", "sprandom": "1",
		"spr_op": strconv.FormatFloat(op, 'g', -1, 64), "spr_num_regions": strconv.Itoa(regions), "norandommap": "1"})
	require.Equal(t, sprPhysicalBytes(op, j.Size, bs), j.IOSize)
	g := NewGenerator(j)
	var offs []int64
	var it Item
	for g.Next(&it) {
		require.Equal(t, int64(bs), it.Length)
		offs = append(offs, it.Offset/bs)
	}
	// The physical size, less the rewrites the last region staged: the
	// pass ends, as fio's does, once every block has been written.
	require.LessOrEqual(t, int64(len(offs)), j.IOSize/bs)
	require.InDelta(t, j.IOSize/bs, len(offs), float64(j.IOSize/bs)/100)
	last := map[int64]int{}
	for k, b := range offs {
		last[b] = k
	}
	require.Len(t, last, int(j.Size/bs), "every block written")
	per := len(offs) / regions
	want := sprValidity(regions, op)
	for r := 0; r < regions-1; r++ { // the last region has nothing after it to rewrite it
		valid := 0
		for k := r * per; k < (r+1)*per; k++ {
			if last[offs[k]] == k {
				valid++
			}
		}
		require.InDelta(t, want[r], float64(valid)/float64(per), 0.02, "region %d", r)
	}
	require.Less(t, want[0], want[regions-1], "the first regions are the least valid")
	require.InDelta(t, 1-1/(0.5/op+0.7), want[0], 0.01, "the least valid region is the collector's victim")

	for _, bad := range []map[string]string{
		{"rw": "randread", "sprandom": "1"}, {"rw": "randwrite", "sprandom": "1", "bssplit": "4k/50:8k/50"},
		{"rw": "randwrite", "sprandom": "1", "spr_num_regions": "1000000", "size": "1m"},
		{"rw": "randwrite", "sprandom": "1", "spr_cs": "1g", "size": "1g"},
	} {
		j := NewJob("x")
		for k, v := range bad {
			require.NoError(t, j.Set(k, v))
		}
		require.ErrorIs(t, j.Resolve(16*gib), ErrOption, "%v", bad)
	}
	require.Error(t, NewJob("x").Set("spr_op", "1.5"))
}

// TestLFSRCoversEveryBlock: with norandommap, fio's default generator may
// draw a block twice in a pass, but random_generator=lfsr (full period)
// visits each block once.
func TestLFSRCoversEveryBlock(t *testing.T) {
	for _, c := range []struct {
		gen  string
		once bool
	}{{"tausworthe", false}, {"lfsr", true}} {
		j := job(t, map[string]string{"rw": "randwrite", "bs": "4k", "size": "4m", "norandommap": "1", "random_generator": c.gen})
		g := NewGenerator(j)
		seen := map[int64]bool{}
		var it Item
		for g.Next(&it) {
			seen[it.Offset] = true
		}
		require.Equal(t, c.once, len(seen) == int(j.Size/4096), "%s: %d of %d blocks", c.gen, len(seen), j.Size/4096)
	}
	j := job(t, map[string]string{"randrepeat": "0"})
	require.NotEmpty(t, j.Notes)
}
