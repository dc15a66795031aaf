package controller_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
)

const (
	zoneSize = 64 << 20
	zoneCap  = 48 << 20
)

func zonedDrive(t *testing.T, zones int, maxOpen, maxActive int) *controller.Controller {
	t.Helper()
	c := preset(t, "generic-mlc-small", nil).Resized(controller.Size(zones*zoneCap), 10)
	c.Firmware.Zoned = controller.Zoned{ZoneSize: zoneSize, ZoneCapacity: zoneCap, MaxOpen: maxOpen, MaxActive: maxActive, NoAutoClose: true}
	d, err := controller.New(c)
	require.NoError(t, err)
	return d
}

func status(t *testing.T, err error) ftl.ZoneStatus {
	t.Helper()
	var ze *ftl.ZoneError
	require.True(t, errors.As(err, &ze), "%v", err)
	return ze.Status
}

// A zoned drive: its namespace is zones × zone size, writes go at the
// write pointer only, append returns where it wrote, the limits refuse
// with NVMe's statuses, and a reset empties the zone.
func TestZonedDrive(t *testing.T) {
	d := zonedDrive(t, 64, 2, 3)
	info, ok := d.Zones()
	require.True(t, ok)
	assert.Equal(t, controller.ZoneInfo{Zones: 64, ZoneBytes: zoneSize, ZoneCapacity: zoneCap, MaxOpen: 2, MaxActive: 3}, info)
	assert.Equal(t, int64(64*zoneSize), d.CapacityBytes())
	now := int64(0)
	w := func(off, n int64) error {
		done, err := d.Submit(now, blockio.Request{Op: blockio.Write, Offset: off, Length: n})
		now = max(now, done)
		return err
	}
	require.NoError(t, w(0, 1<<20))
	assert.Equal(t, ftl.ZoneInvalidWrite, status(t, w(2<<20, 4096)))
	require.NoError(t, w(1<<20, zoneCap-(1<<20)))
	assert.Equal(t, ftl.ZoneFull, d.ReportZones(0, 1)[0].State)
	assert.Equal(t, ftl.ZoneIsFull, status(t, w(zoneCap, 4096)))
	// Append: the drive picks the offset.
	_, at, err := d.SubmitAppend(now, blockio.Request{Op: blockio.ZoneAppend, Offset: zoneSize, Length: 8192})
	require.NoError(t, err)
	assert.Equal(t, int64(zoneSize), at)
	_, at, err = d.SubmitAppend(now, blockio.Request{Op: blockio.ZoneAppend, Offset: zoneSize, Length: 4096})
	require.NoError(t, err)
	assert.Equal(t, int64(zoneSize+8192), at)
	assert.Equal(t, ftl.ZoneBoundaryError, status(t, w(zoneSize+12288, zoneCap)), "past the zone capacity")
	require.NoError(t, w(2*zoneSize, 4096))
	assert.Equal(t, ftl.TooManyOpenZones, status(t, w(3*zoneSize, 4096)))
	_, err = d.Submit(now, blockio.Request{Op: blockio.ZoneManage, Zone: blockio.ZoneClose, Offset: zoneSize})
	require.NoError(t, err)
	require.NoError(t, w(3*zoneSize, 4096))
	_, err = d.Submit(now, blockio.Request{Op: blockio.ZoneManage, Zone: blockio.ZoneClose, Offset: 3 * zoneSize})
	require.NoError(t, err)
	assert.Equal(t, ftl.TooManyActiveZones, status(t, w(4*zoneSize, 4096)))
	assert.Equal(t, 75, ftl.TooManyActiveZones.Errno())
	// Reset every zone: the full one's data is deallocated.
	_, err = d.Submit(now, blockio.Request{Op: blockio.ZoneManage, Zone: blockio.ZoneReset, AllZones: true})
	require.NoError(t, err)
	for _, z := range d.ReportZones(0, 64) {
		assert.Equal(t, ftl.ZoneEmpty, z.State, "zone %d", z.Zone)
		assert.Equal(t, z.Start, z.WritePointer)
	}
	assert.Equal(t, int64(4), d.ZoneCounters().Resets)
	// Reads past the capacity complete, from no flash.
	_, err = d.Submit(now, blockio.Request{Op: blockio.Read, Offset: zoneCap, Length: 4096})
	require.NoError(t, err)
	_, err = d.Submit(now, blockio.Request{Op: blockio.Read, Offset: zoneSize - 4096, Length: 8192})
	assert.Equal(t, ftl.ZoneBoundaryError, status(t, err), "a read across zones")
	// A conventional drive refuses zone commands.
	conv, err := controller.New(preset(t, "generic-mlc-small", nil))
	require.NoError(t, err)
	_, err = conv.Submit(0, blockio.Request{Op: blockio.ZoneManage, Zone: blockio.ZoneReset})
	assert.ErrorIs(t, err, controller.ErrRequest)
}

// Writers filling zones in turn and resetting the oldest, on a drive
// written several times over: no data is ever moved, so the device WA is
// 1 (each reset leaves whole blocks with nothing valid).
func TestZonedLogStructuredWA(t *testing.T) {
	const zones = 64
	d := zonedDrive(t, zones, 4, 4)
	now := int64(0)
	const bs = 1 << 20
	next := 0
	for pass := 0; pass < 2*zones; pass++ {
		z := next % zones
		if pass >= zones-2 { // keep two zones empty: reset the oldest
			old := (next + 2) % zones
			done, err := d.Submit(now, blockio.Request{Op: blockio.ZoneManage, Zone: blockio.ZoneReset, Offset: int64(old) * zoneSize})
			require.NoError(t, err)
			now = max(now, done)
		}
		for off := int64(0); off < zoneCap; off += bs {
			done, err := d.Submit(now, blockio.Request{Op: blockio.Write, Offset: int64(z)*zoneSize + off, Length: bs})
			require.NoError(t, err, "pass %d zone %d", pass, z)
			now = max(now, done)
		}
		next++
	}
	cnt := d.Counters()
	require.Positive(t, cnt.HostWriteUnits)
	t.Logf("host units %d, programmed %d, copied %d, GC runs %d", cnt.HostWriteUnits, cnt.ProgramUnits, cnt.GCCopiedUnits, cnt.GCRuns)
	assert.Zero(t, cnt.GCCopiedUnits, "no data moved")
	assert.Positive(t, d.ZoneCounters().Resets)
	// Resets erase the blocks they empty: one erase per block filled
	// beyond the free ones, at least the zones reset.
	assert.Greater(t, cnt.Flash.Total().EraseBlocks, d.ZoneCounters().Resets)
}

// Appended data reads back where the drive said it wrote it.
func TestZoneAppendStoresWhereItSays(t *testing.T) {
	c := preset(t, "generic-mlc-small", nil).Resized(controller.Size(64*zoneCap), 10)
	c.Firmware.Zoned = controller.Zoned{ZoneSize: zoneSize, ZoneCapacity: zoneCap}
	c.NAND.TrackData = true
	d, err := controller.New(c)
	require.NoError(t, err)
	for i := uint32(1); i <= 20; i++ {
		zone := int64(i%3) + 5
		_, at, err := d.SubmitAppend(0, blockio.Request{Op: blockio.ZoneAppend, Offset: zone * zoneSize, Length: 4096, Token: i})
		require.NoError(t, err)
		require.Equal(t, zone, at/zoneSize)
		_, err = d.Submit(0, blockio.Request{Op: blockio.Flush})
		require.NoError(t, err)
		tok, ok, err := d.DataToken(at)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, i, tok, "append %d at %d", i, at)
	}
	tok, ok, err := d.DataToken(5*zoneSize + zoneCap + 4096)
	require.NoError(t, err)
	assert.False(t, ok, "past the capacity: no data (%d)", tok)
}

// storeWriters runs eight writers as a log-structured store on drive d,
// each filling its own zones of zoneCap bytes in turn (writer w: zones w,
// w+8, ...; odd writers twice as fast) in 1 MiB writes, over three drive
// writes: reset(now, z) empties zone z just before its writer takes it
// again and returns when it is done; start(z) is zone z's first byte. It
// returns the drive's counters.
func storeWriters(t *testing.T, d *controller.Controller, zones int, zoneCap int64, reset func(now int64, z int) int64, start func(z int) int64) ftl.Counters {
	t.Helper()
	const writers, bs = 8, 1 << 20
	now := int64(0)
	zone := make([]int, writers) // each writer's current zone
	wp := make([]int64, writers)
	for w := range zone {
		zone[w] = w
	}
	for turn := 0; turn < 3*zones*int(zoneCap/bs)/writers; turn++ {
		for w := 0; w < writers; w++ {
			for k := 0; k <= w%2; k++ {
				if wp[w] == zoneCap {
					zone[w], wp[w] = (zone[w]+writers)%zones, 0
					now = max(now, reset(now, zone[w]))
				}
				done, err := d.Submit(now, blockio.Request{Op: blockio.Write, Offset: start(zone[w]) + wp[w], Length: bs})
				require.NoError(t, err, "writer %d zone %d", w, zone[w])
				now = max(now, done)
				wp[w] += bs
			}
		}
	}
	return d.Counters()
}

// zoneWriters is storeWriters on zoned drive d, each zone reset (unless
// empty) before it is written again.
func zoneWriters(t *testing.T, d *controller.Controller, zones int, zoneSize, zoneCap int64) ftl.Counters {
	t.Helper()
	return storeWriters(t, d, zones, zoneCap, func(now int64, z int) int64 {
		if d.ReportZones(z, 1)[0].State == ftl.ZoneEmpty {
			return now
		}
		done, err := d.Submit(now, blockio.Request{Op: blockio.ZoneManage, Zone: blockio.ZoneReset, Offset: int64(z) * zoneSize})
		require.NoError(t, err)
		return done
	}, func(z int) int64 { return int64(z) * zoneSize })
}

// The writers of zoneWriters with zones of 48 MiB, which do not fill
// whole groups (8 MiB on each of 8 dies): with each zone on a die of its
// own (zone_dies 1) no block holds two zones' data and nothing is ever
// moved; striped over every die, the few write points the spare allows
// are shared by the zones written at once, and resets at different
// times leave valid data for collection to move.
func TestZonesOnTheirOwnDiesMoveNothing(t *testing.T) {
	copied := map[int]int64{}
	for _, zoneDies := range []int{1, 0} {
		const zones = 64
		c := preset(t, "generic-mlc-small", nil).Resized(controller.Size(zones*zoneCap), 10)
		c.Firmware.Zoned = controller.Zoned{ZoneSize: zoneSize, ZoneCapacity: zoneCap, ZoneDies: zoneDies}
		d, err := controller.New(c)
		require.NoError(t, err)
		require.Equal(t, 8, c.NAND.Geometry.Dies())
		cnt := zoneWriters(t, d, zones, zoneSize, zoneCap)
		copied[zoneDies] = cnt.GCCopiedUnits
		t.Logf("zone_dies %d: host units %d, programmed %d, copied %d", zoneDies, cnt.HostWriteUnits, cnt.ProgramUnits, cnt.GCCopiedUnits)
	}
	assert.Zero(t, copied[1], "zones on their own dies")
	assert.Positive(t, copied[0], "zones striped over every die share blocks")
}

// The same writers with zones that fill whole groups (64 MiB: a group on
// each of the 8 dies), striped over every die: with a write point per
// active zone (the default) no group holds two zones' data, nothing is
// moved and every unit programmed is the host's; with one write point
// (write_points 1: the zones written at once interleave in each die's
// open group, as a conventional drive's host data does) collection
// moves data.
func TestZoneWritePointsKeepZonesApart(t *testing.T) {
	const zones, size = 64, 64 << 20
	copied := map[int]int64{}
	for _, points := range []int{0, 1} {
		c := preset(t, "generic-mlc-small", nil).Resized(controller.Size(zones*size), 10)
		c.Firmware.Zoned = controller.Zoned{ZoneSize: size, WritePoints: points}
		d, err := controller.New(c)
		require.NoError(t, err)
		cnt := zoneWriters(t, d, zones, size, size)
		copied[points] = cnt.GCCopiedUnits
		t.Logf("write_points %d: host units %d, programmed %d, copied %d", points, cnt.HostWriteUnits, cnt.ProgramUnits, cnt.GCCopiedUnits)
		if points == 0 {
			assert.Equal(t, cnt.HostWriteUnits, cnt.ProgramUnits, "device WA 1")
		}
	}
	assert.Zero(t, copied[0], "a write point per active zone")
	assert.Positive(t, copied[1], "one write point shared")
}

// write_points beyond what the description allows is refused, naming
// the field.
func TestZoneWritePointsValidated(t *testing.T) {
	for _, tc := range []struct {
		name   string
		points int
		edit   func(*controller.Config)
		want   string
	}{
		{"too many", 129, nil, "firmware.zoned.write_points = 129, allowed 0..128"},
		{"negative", -1, nil, "firmware.zoned.write_points = -1"},
		{"with compression", 4, func(c *controller.Config) { c.Firmware.Compression, c.Firmware.CompressionSlot = true, 1024 }, "with an SLC cache or compression, allowed 0 or 1"},
		{"unaligned, over the spare", 32, func(c *controller.Config) { c.Firmware.Zoned.ZoneCapacity = zoneCap }, "raise the spare area"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := preset(t, "generic-mlc-small", nil).Resized(controller.Size(64*zoneCap), 10)
			c.Firmware.Zoned = controller.Zoned{ZoneSize: zoneSize, ZoneCapacity: zoneSize, WritePoints: tc.points}
			if tc.edit != nil {
				tc.edit(&c)
			}
			_, err := controller.New(c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The block-interface tax: the eight writers of
// TestZonesOnTheirOwnDiesMoveNothing as a log-structured store on a
// conventional drive — each zone an LBA range of the same size, trimmed
// where the zoned drive resets it — at 7 % and 28 % spare, against the
// zoned drive with each zone on its own die.
func TestBlockInterfaceTax(t *testing.T) {
	const zones = 64
	run := func(d *controller.Controller, reset func(now int64, z int) int64, start func(z int) int64) ftl.Counters {
		return storeWriters(t, d, zones, zoneCap, reset, start)
	}
	wa := func(c ftl.Counters) float64 { return float64(c.ProgramUnits) / float64(c.HostWriteUnits) }
	c := preset(t, "generic-mlc-small", nil).Resized(controller.Size(zones*zoneCap), 10)
	c.Firmware.Zoned = controller.Zoned{ZoneSize: zoneSize, ZoneCapacity: zoneCap, ZoneDies: 1}
	zd, err := controller.New(c)
	require.NoError(t, err)
	zns := zoneWriters(t, zd, zones, zoneSize, zoneCap)
	t.Logf("zoned, 10 %% spare: WA %.3f", wa(zns))
	assert.LessOrEqual(t, wa(zns), 1.01)
	for _, op := range []float64{7, 28} {
		cc := preset(t, "generic-mlc-small", nil).Resized(controller.Size(zones*zoneCap), op)
		cc.Firmware.GCReserve = controller.ReserveSpare // 7 % is little spare for dies of 52 groups
		cd, err := controller.New(cc)
		require.NoError(t, err)
		conv := run(cd, func(now int64, z int) int64 {
			done, err := cd.Submit(now, blockio.Request{Op: blockio.Trim, Offset: int64(z) * zoneCap, Length: zoneCap})
			require.NoError(t, err)
			return done
		}, func(z int) int64 { return int64(z) * zoneCap })
		t.Logf("conventional, %.0f %% spare, ranges trimmed: WA %.3f", op, wa(conv))
		assert.Greater(t, wa(conv), wa(zns), "op %.0f", op)
	}
}
