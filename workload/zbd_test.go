package workload

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/stretchr/testify/require"
)

// zoneModel is a zoned drive as NVMe defines one, for checking what zbd
// jobs issue: each zone's write pointer; a write must start at it and end
// within the zone's capacity; a reset (a zone-aligned trim of the zone)
// empties the zone.
type zoneModel struct {
	l    ZoneLayout
	wp   []int64
	open map[int]bool
}

func (m *zoneModel) apply(t *testing.T, it Item) {
	zs := m.l.ZoneBytes
	z := int(it.Offset / zs)
	in := it.Offset - int64(z)*zs
	switch it.Op {
	case blockio.Write:
		require.Equal(t, m.wp[z], in, "write at %d: not at zone %d's write pointer", it.Offset, z)
		require.LessOrEqual(t, in+it.Length, m.l.CapacityBytes, "write at %d past zone %d's capacity", it.Offset, z)
		m.wp[z] += it.Length
		m.open[z] = m.wp[z] < m.l.CapacityBytes
	case blockio.ZoneManage:
		require.Equal(t, blockio.ZoneReset, it.Zone)
		require.Zero(t, in, "a reset starts at a zone start")
		m.wp[z] = 0
		delete(m.open, z)
	case blockio.Read:
		require.LessOrEqual(t, in+it.Length, m.wp[z], "read at %d beyond zone %d's write pointer", it.Offset, z)
	}
	n := 0
	for _, o := range m.open {
		if o {
			n++
		}
	}
	if m.l.MaxOpen > 0 {
		require.LessOrEqual(t, n, m.l.MaxOpen, "open zones")
	}
}

func zbdJob(t *testing.T, h *ZoneHost, opts ...[2]string) *Generator {
	j := NewJob("z")
	require.NoError(t, j.Set("zonemode", "zbd"))
	for _, kv := range opts {
		require.NoError(t, j.Set(kv[0], kv[1]), kv)
	}
	l := h.Layout()
	require.NoError(t, j.CheckZones(&l))
	require.NoError(t, j.Resolve(int64(l.Zones)*l.ZoneBytes))
	j.ZBD.Host = h
	return NewGenerator(j)
}

// TestZBDWrites runs zbd jobs against the model of a zoned drive: every
// write at its zone's write pointer and within its capacity, never more
// zones open than the limit, reads below the write pointers, and the
// resets fio makes (of a full zone a write picks; past the threshold, one
// write in 1/frequency) counted.
func TestZBDWrites(t *testing.T) {
	l := ZoneLayout{ZoneBytes: 1 << 20, CapacityBytes: 768 << 10, Zones: 16, MaxOpen: 4, MaxActive: 4}
	cases := []struct {
		name       string
		opts       [][2]string
		ios        int
		wantResets bool
	}{
		{"random writes over every zone", [][2]string{{"rw", "randwrite"}, {"bs", "64k"}, {"number_ios", "2000"}}, 2000, true},
		{"sequential writes wrap and reset", [][2]string{{"rw", "write"}, {"bs", "128k"}, {"number_ios", "200"}}, 200, true},
		{"job_max_open_zones", [][2]string{{"rw", "randwrite"}, {"bs", "64k"}, {"job_max_open_zones", "2"}, {"number_ios", "300"}}, 300, true},
		{"reset threshold and frequency (zbd-rand-write-zone-reset-gc.fio)", [][2]string{{"rw", "randwrite"}, {"bs", "256k"}, {"size", "8m"},
			{"zone_reset_threshold", "0.1"}, {"zone_reset_frequency", "0.125"}, {"number_ios", "100"}}, 100, true},
		{"mixed reads stay below the write pointers", [][2]string{{"rw", "randrw"}, {"bs", "64k"}, {"number_ios", "1000"}}, 1000, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := NewZoneHost(l)
			g := zbdJob(t, h, c.opts...)
			m := &zoneModel{l: l, wp: make([]int64, l.Zones), open: map[int]bool{}}
			var it Item
			trims := int64(0)
			for g.Next(&it) {
				if it.Op == blockio.ZoneManage {
					trims++
				}
				m.apply(t, it)
				g.Completed(&it) // one at a time: each completes before the next
			}
			require.Equal(t, int64(c.ios), g.Issued(), "the job's I/Os; resets are not among them")
			if c.wantResets {
				require.Positive(t, g.ZoneResets())
			}
			require.LessOrEqual(t, g.ZoneResets(), trims, "each counted reset was issued")
			for z := range l.Zones {
				require.Equal(t, m.wp[z], h.WritePointer(z), "zone %d: the host's write pointer is the drive's", z)
			}
		})
	}
}

// TestZBDTrimResets: a sequential zbd trim job resets each zone of its
// range in turn, counting those that held data (fio's sequential trims
// take empty zones too; its random ones look for a zone holding data).
func TestZBDTrimResets(t *testing.T) {
	l := ZoneLayout{ZoneBytes: 1 << 20, CapacityBytes: 1 << 20, Zones: 8}
	h := NewZoneHost(l)
	w := zbdJob(t, h, [2]string{"rw", "write"}, [2]string{"bs", "256k"}, [2]string{"size", "4m"})
	var it Item
	for w.Next(&it) {
		w.Completed(&it)
	}
	require.Zero(t, w.ZoneResets())
	tr := zbdJob(t, h, [2]string{"rw", "trim"}, [2]string{"bs", "1m"})
	n := 0
	for tr.Next(&it) {
		require.Equal(t, blockio.ZoneManage, it.Op)
		tr.Completed(&it)
		n++
	}
	require.Equal(t, 8, n, "every zone of the range")
	require.Equal(t, int64(4), tr.ZoneResets(), "the four zones written")
	rt := zbdJob(t, h, [2]string{"rw", "randtrim"}, [2]string{"bs", "1m"})
	require.False(t, rt.Next(&it), "a random trim finds no zone holding data: the job ends")
	require.False(t, rt.Stalled())
}

// flight is a request in flight in the concurrent zbd test.
type flight struct {
	g  *Generator
	it Item
}

// TestZBDJobsShareWriteZones runs sixteen random writers on one drive as
// fio's zbd.c shares its write zones among jobs, their requests
// completing in random order (a drive may reorder): every write lands at
// its zone's write pointer (the model applies them as they are issued),
// a zone never has two I/Os in flight, the write zones never pass the
// limit, jobs wait for one another (Stalled) instead of opening more
// zones, and every job gets all its writes done.
func TestZBDJobsShareWriteZones(t *testing.T) {
	for _, c := range []struct {
		name    string
		layout  ZoneLayout
		opts    [][2]string
		depth   int
		wantMax int
	}{
		{"16 jobs on the device's 14 open zones", ZoneLayout{ZoneBytes: 1 << 20, CapacityBytes: 1 << 20, Zones: 64, MaxOpen: 14, MaxActive: 14},
			[][2]string{{"rw", "randwrite"}, {"bs", "64k"}, {"number_ios", "600"}}, 1, 14},
		{"max_open_zones=4, iodepth 4", ZoneLayout{ZoneBytes: 1 << 20, CapacityBytes: 768 << 10, Zones: 32},
			[][2]string{{"rw", "randwrite"}, {"bs", "64k"}, {"max_open_zones", "4"}, {"number_ios", "400"}}, 4, 4},
		{"sequential writers, job_max_open_zones=1", ZoneLayout{ZoneBytes: 1 << 20, CapacityBytes: 1 << 20, Zones: 32, MaxOpen: 8},
			[][2]string{{"rw", "write"}, {"bs", "128k"}, {"job_max_open_zones", "1"}, {"number_ios", "300"}}, 2, 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := NewZoneHost(c.layout)
			gs := make([]*Generator, 16)
			for i := range gs {
				opts := append([][2]string{{"randseed", fmt.Sprint(i + 1)}}, c.opts...)
				gs[i] = zbdJob(t, h, opts...)
			}
			m := &zoneModel{l: c.layout, wp: make([]int64, c.layout.Zones), open: map[int]bool{}}
			rng := rand.New(rand.NewPCG(7, 7))
			var fl []flight
			depth := make(map[*Generator]int)
			done := make(map[*Generator]bool)
			busy := make(map[int64]int)
			stalls := 0
			for steps := 0; len(done) < len(gs) || len(fl) > 0; steps++ {
				require.Less(t, steps, 10_000_000, "the jobs make progress")
				if len(fl) > 0 && (rng.IntN(2) == 0 || len(done) == len(gs)) {
					k := rng.IntN(len(fl))
					f := fl[k]
					fl = append(fl[:k], fl[k+1:]...)
					depth[f.g]--
					if f.it.Op != blockio.Flush {
						busy[f.it.Offset/c.layout.ZoneBytes]--
					}
					f.g.Completed(&f.it)
					continue
				}
				g := gs[rng.IntN(len(gs))]
				if done[g] || depth[g] >= c.depth {
					continue
				}
				var it Item
				if !g.Next(&it) {
					if g.Stalled() {
						stalls++
						if len(fl) == 0 {
							held := false
							for _, o := range gs {
								held = held || o.zbd.pendingLen > 0
							}
							require.True(t, held, "a job waits with nothing in flight and no write waiting to go after its zone's reset")
						}
						continue
					}
					done[g] = true
					continue
				}
				if os.Getenv("ZBD_TRACE") != "" {
					fmt.Println("issue", g.j.RandSeed, it.Op, it.Offset, it.Length)
				}
				m.apply(t, it)
				z := it.Offset / c.layout.ZoneBytes
				require.Zero(t, busy[z], "zone %d: a second I/O in flight", z)
				busy[z]++
				require.LessOrEqual(t, h.OpenZones(), c.wantMax, "write zones")
				depth[g]++
				fl = append(fl, flight{g, it})
			}
			require.Positive(t, stalls, "jobs waited for one another")
			for _, g := range gs {
				require.Equal(t, g.j.NumberIOs, g.Issued(), "every job did all its writes")
			}
		})
	}
}
