package sim_test

import (
	"testing"
	"unsafe"

	"github.com/ftlsim/ftlsim/internal/prefetch"
	"github.com/ftlsim/ftlsim/workload"
)

// floor is the least a page-mapped FTL can do for uniform random 4 KiB
// writes: a mapping table, a valid count a group, per die a free list, an
// open host group, an open GC group and greedy collection when the free
// list runs low — the simulator's algorithms without its timing model, op
// log, controller or event engine. BenchmarkFloorRandomWrite runs it on
// the geometry and spare of BenchmarkSteadyStateRandomWrite, so that the
// ratio of the two is the cost of everything the simulator adds, measured
// in one run on any machine. It hides memory latency as the simulator
// does (internal/prefetch): the mapping entry of the write three ahead
// and the unit it replaces one ahead are loaded early, and collection
// loads the mapping entries of the units it is about to move; without
// that the floor waits for every miss, and the simulator runs faster
// than it.
type floor struct {
	upg, gpd, dies int      // units a group, groups a die, dies
	low            int      // free groups at which a die collects
	l2p            []uint32 // logical unit → physical unit (^0: unmapped)
	p2l            []uint32 // physical unit → logical unit (^0: invalid)
	valid          []int32  // valid units a group
	free           [][]int32
	open, gc       []int32 // per die: open host and GC group (-1: none)
	fill, gcFill   []int32 // units written in them
	die            int     // the die the next host unit goes to
	copied         int64   // units collection moved
}

func newFloor(dies, gpd, upg, users, low int) *floor {
	f := &floor{upg: upg, gpd: gpd, dies: dies, low: low,
		l2p: make([]uint32, users), p2l: make([]uint32, dies*gpd*upg), valid: make([]int32, dies*gpd),
		free: make([][]int32, dies), open: make([]int32, dies), gc: make([]int32, dies),
		fill: make([]int32, dies), gcFill: make([]int32, dies)}
	for i := range f.l2p {
		f.l2p[i] = ^uint32(0)
	}
	for i := range f.p2l {
		f.p2l[i] = ^uint32(0)
	}
	for d := range dies {
		for g := range gpd {
			f.free[d] = append(f.free[d], int32(d*gpd+g))
		}
		f.open[d], f.gc[d] = f.take(d), f.take(d)
	}
	return f
}

func (f *floor) take(d int) int32 {
	n := len(f.free[d]) - 1
	g := f.free[d][n]
	f.free[d] = f.free[d][:n]
	return g
}

// place maps logical unit lu to the next unit of group g (filled n).
func (f *floor) place(lu uint32, g int32, n *int32) {
	p := uint32(int(g)*f.upg + int(*n))
	*n++
	if old := f.l2p[lu]; old != ^uint32(0) {
		f.p2l[old] = ^uint32(0)
		f.valid[int(old)/f.upg]--
	}
	f.l2p[lu], f.p2l[p] = p, lu
	f.valid[g]++
}

// write writes logical unit lu: to the next die's open group, collecting
// greedily on that die first when it is low on free groups.
func (f *floor) write(lu uint32) {
	d := f.die
	f.die = (f.die + 1) % f.dies
	if f.fill[d] == int32(f.upg) {
		for len(f.free[d]) <= f.low {
			f.collect(d)
		}
		f.open[d], f.fill[d] = f.take(d), 0
	}
	f.place(lu, f.open[d], &f.fill[d])
}

// collect cleans die d's group with the fewest valid units into its GC
// group.
func (f *floor) collect(d int) {
	best, bv := int32(-1), int32(f.upg+1)
	for g := int32(d * f.gpd); g < int32((d+1)*f.gpd); g++ {
		if g != f.open[d] && g != f.gc[d] && f.valid[g] < bv && !f.isFree(d, g) {
			best, bv = g, f.valid[g]
		}
	}
	base := int(best) * f.upg
	const ahead = 16 // units whose mapping entries are loaded early
	for u := base; u < base+f.upg && f.valid[best] > 0; u++ {
		if v := u + ahead; v < base+f.upg {
			if lu := f.p2l[v]; lu != ^uint32(0) {
				prefetch.Load(unsafe.Pointer(&f.l2p[lu]))
			}
		}
		if lu := f.p2l[u]; lu != ^uint32(0) {
			if f.gcFill[d] == int32(f.upg) {
				f.gc[d], f.gcFill[d] = f.take(d), 0
			}
			f.place(lu, f.gc[d], &f.gcFill[d])
			f.copied++
		}
	}
	f.free[d] = append(f.free[d], best)
}

// isFree reports whether g is on die d's free list (a linear look, as the
// list is short once the drive is full).
func (f *floor) isFree(d int, g int32) bool {
	for _, x := range f.free[d] {
		if x == g {
			return true
		}
	}
	return false
}

// BenchmarkFloorRandomWrite is the floor under BenchmarkSteadyStateRandomWrite:
// the same 4 KiB uniform random writes from the same generator, on the same
// dies, groups and spare area of the 256 GiB generic drive, in steady
// state, through floor. Host I/Os per second here over those of
// BenchmarkSteadyStateRandomWrite is how close the full model is to it.
func BenchmarkFloorRandomWrite(b *testing.B) {
	d := bigDrive(b, 0, false)
	g := d.Config().NAND.Geometry
	users := int(d.CapacityBytes() / 4096)
	f := newFloor(g.Dies(), g.BlocksPerPlane, g.UnitsPerGroup(), users, d.Config().Firmware.GCLowWater)
	j := workload.RandomWriteJob("floor", 1<<62)
	if err := j.Resolve(d.CapacityBytes()); err != nil {
		b.Fatal(err)
	}
	gen := workload.NewGenerator(j)
	var it workload.Item
	for lu := range users { // the sequential fill
		f.write(uint32(lu))
	}
	for range users / 4 { // past the cliff, as steadyEngineMode
		gen.Next(&it)
		f.write(uint32(it.Offset / 4096))
	}
	copied := f.copied
	// A lookahead of four writes, as the engine's: the mapping entry of
	// the fourth, the replaced unit's state of the second, loaded early.
	var la [4]uint32
	for i := range la {
		gen.Next(&it)
		la[i] = uint32(it.Offset / 4096)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		lu := la[i&3]
		gen.Next(&it)
		la[i&3] = uint32(it.Offset / 4096)
		prefetch.Load(unsafe.Pointer(&f.l2p[la[i&3]]))
		if p := f.l2p[la[(i+1)&3]]; p != ^uint32(0) {
			prefetch.Load(unsafe.Pointer(&f.p2l[p]))
			prefetch.Load(unsafe.Pointer(&f.valid[int(p)/f.upg]))
		}
		f.write(lu)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "host-IOs/s")
	b.ReportMetric(1+float64(f.copied-copied)/float64(b.N), "WA")
}
