package workload

import (
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

// TestZBDTrimResets: a zbd trim job resets zones that hold data, and
// ends when none does.
func TestZBDTrimResets(t *testing.T) {
	l := ZoneLayout{ZoneBytes: 1 << 20, CapacityBytes: 1 << 20, Zones: 8}
	h := NewZoneHost(l)
	w := zbdJob(t, h, [2]string{"rw", "write"}, [2]string{"bs", "256k"}, [2]string{"size", "4m"})
	var it Item
	for w.Next(&it) {
	}
	require.Zero(t, w.ZoneResets())
	tr := zbdJob(t, h, [2]string{"rw", "trim"}, [2]string{"bs", "1m"})
	n := 0
	for tr.Next(&it) {
		require.Equal(t, blockio.ZoneManage, it.Op)
		n++
	}
	require.Equal(t, 4, n, "the four zones written")
	require.Equal(t, int64(4), tr.ZoneResets())
}
