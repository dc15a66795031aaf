package controller_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/testtier"
)

// zonedCutModel is what the host knows of a zoned drive: each zone's
// data, by unit from its start (the token written there), and how much of
// it a completed flush made durable.
type zonedCutModel struct {
	d       *controller.Controller
	zones   int
	zb, cap int64 // zone size and capacity, bytes
	unit    int64
	tok     [][]uint32
	durable []int64 // units from each zone's start a completed flush covers
	now     int64
	next    uint32
}

func (m *zonedCutModel) zone(i int) controller.ZoneReport { return m.d.ReportZones(i, 1)[0] }

// submit sends r at m.now; a refusal must be a zone error (the commands
// are drawn at random, many do not apply), anything else fails.
func (m *zonedCutModel) submit(t *rapid.T, r blockio.Request) (int64, bool) {
	done, err := m.d.Submit(m.now, r)
	if err != nil {
		var ze *ftl.ZoneError
		if !errors.As(err, &ze) {
			t.Fatalf("%+v: %v", r, err)
		}
		return 0, false
	}
	return done, true
}

// cut cuts the power at a random time from now to a few milliseconds on
// (programs of the writes sent may still be under way or queued) and
// checks the zone table against NVMe ZNS 1.1 §2.1.1.3 and the data
// against the model.
func (m *zonedCutModel) cut(t *rapid.T) {
	before := m.d.ReportZones(0, m.zones)
	at := m.now + rapid.Int64Range(0, 3_000_000).Draw(t, "cut_after_ns")
	rep, err := m.d.PowerLoss(at)
	if err != nil {
		t.Fatalf("power loss: %v", err)
	}
	var rolled int64
	for i, b := range before {
		r := m.zone(i)
		wpb, wpa := b.WritePointer-b.Start, r.WritePointer-r.Start
		if r.State.IsOpen() {
			t.Fatalf("zone %d is %s after a power cycle", i, r.State)
		}
		switch {
		case b.State == ftl.ZoneFull || b.State == ftl.ZoneEmpty:
			require.Equal(t, b.State, r.State, "zone %d keeps its state", i)
		case b.State.IsActive():
			require.LessOrEqual(t, wpa, wpb, "zone %d's write pointer never moves on", i)
			rolled += wpb - wpa
			require.Equal(t, map[bool]ftl.ZoneState{true: ftl.ZoneEmpty, false: ftl.ZoneClosed}[wpa == 0], r.State, "zone %d at %d", i, wpa)
			if rep.LostFlushedBytes == 0 {
				require.GreaterOrEqual(t, wpa/m.unit, m.durable[i], "zone %d keeps what a flush made durable", i)
			}
			if rep.Protected {
				require.Equal(t, wpb, wpa, "zone %d: a protected drive loses nothing", i)
			}
			m.tok[i] = m.tok[i][:wpa/m.unit]
		}
		m.durable[i] = min(m.durable[i], int64(len(m.tok[i])))
		// Below the write pointer: the data written there; past it (and
		// where a full zone lost data): nothing, not even stale copies of
		// a zone reset before the cut.
		for o := int64(0); o < m.cap/m.unit; o++ {
			tok, ok, err := m.d.DataToken(r.Start + o*m.unit)
			below := o < int64(len(m.tok[i]))
			switch {
			case err != nil:
				t.Fatalf("zone %d unit %d: %v", i, o, err)
			case below && !ok && r.State != ftl.ZoneFull:
				t.Fatalf("zone %d unit %d below the write pointer %d holds no data", i, o, wpa/m.unit)
			case below && ok && tok != m.tok[i][o]:
				t.Fatalf("zone %d unit %d reads token %d, wrote %d", i, o, tok, m.tok[i][o])
			case !below && m.d.FTL().Mapped(int64(i)*m.cap/m.unit+o):
				t.Fatalf("zone %d unit %d past what it holds (%d units) is mapped", i, o, len(m.tok[i]))
			}
		}
	}
	require.Equal(t, rolled, rep.ZoneRollbackBytes, "bytes rolled back")
	require.NoError(t, m.d.FTL().CheckInvariants())
	m.now = at + rep.MountNs
}

// TestZonedPowerCuts drives a small zoned drive with random zone
// commands — writes at the write pointer, resets, opens, closes,
// finishes, flushes — sent at random gaps (several under way at once),
// with power cuts among them, on a drive with or without power-loss
// protection. After each cut no zone is open, each zone is empty, closed
// or full as NVMe ZNS says a zone comes back (§2.1.1.3), a write pointer
// never moves on and never back past what a flush made durable, every
// unit below it reads what was last written there, and nothing past it
// (nor in a zone reset before the cut) holds data.
func TestZonedPowerCuts(t *testing.T) {
	// Two dies of 2-plane 8 MiB groups: 17 groups a die at 192 MiB and
	// 40 % spare.
	base := preset(t, "generic-mlc-small", func(c *controller.Config) {
		c.NAND.Geometry.Channels, c.NAND.Geometry.TargetsPerChannel, c.NAND.Geometry.DiesPerTarget = 1, 1, 2
		c.Firmware.GCLowWater, c.Firmware.GCHighWater = 1, 3
	}).Resized(controller.Size(cutZones*cutZoneCap), 40)
	// The long tier runs ten rounds of rapid's checks, each from its own
	// seed.
	for range testtier.Pick(1, 10) {
		rapid.Check(t, func(t *rapid.T) { zonedPowerCuts(t, base) })
	}
}

// The drive of TestZonedPowerCuts: its zones, their size and capacity.
const cutZones, cutZoneSize, cutZoneCap = 24, 12 << 20, 8 << 20

// zonedPowerCuts is one run of TestZonedPowerCuts on drive base.
func zonedPowerCuts(t *rapid.T, base controller.Config) {
	const zones, zb, zcap = cutZones, cutZoneSize, cutZoneCap
	c := base
	c.NAND.TrackData = true
	c.Firmware.PowerLossProtection = rapid.IntRange(0, 3).Draw(t, "plp") == 0
	maxActive := rapid.IntRange(0, 6).Draw(t, "max_active")
	maxOpen := 0
	if maxActive > 0 {
		maxOpen = rapid.IntRange(1, maxActive).Draw(t, "max_open")
	}
	c.Firmware.Zoned = controller.Zoned{ZoneSize: zb, ZoneCapacity: zcap, MaxOpen: maxOpen, MaxActive: maxActive,
		ZoneDies: rapid.SampledFrom([]int{0, 1, 2}).Draw(t, "zone_dies")}
	d, err := controller.New(c)
	require.NoError(t, err)
	m := &zonedCutModel{d: d, zones: zones, zb: zb, cap: zcap, unit: d.UnitBytes(), tok: make([][]uint32, zones), durable: make([]int64, zones)}
	manage := func(a blockio.ZoneAction) func(*rapid.T) {
		return func(t *rapid.T) {
			i := rapid.IntRange(0, zones-1).Draw(t, "zone")
			if _, ok := m.submit(t, blockio.Request{Op: blockio.ZoneManage, Zone: a, Offset: int64(i) * zb}); ok && a == blockio.ZoneReset {
				m.tok[i], m.durable[i] = m.tok[i][:0], 0
			}
			m.now += rapid.Int64Range(0, 200_000).Draw(t, "gap_ns")
		}
	}
	t.Repeat(map[string]func(*rapid.T){
		"write": func(t *rapid.T) {
			i := rapid.IntRange(0, zones-1).Draw(t, "zone")
			r := m.zone(i)
			wp := r.WritePointer - r.Start
			if r.State == ftl.ZoneFull || wp == zcap {
				return
			}
			n := rapid.Int64Range(1, min(64, (zcap-wp)/m.unit)).Draw(t, "units")
			m.next++
			if _, ok := m.submit(t, blockio.Request{Op: blockio.Write, Offset: r.WritePointer, Length: n * m.unit, Token: m.next}); ok {
				for range n {
					m.tok[i] = append(m.tok[i], m.next)
				}
			}
			m.now += rapid.Int64Range(0, 200_000).Draw(t, "gap_ns")
		},
		"reset":  manage(blockio.ZoneReset),
		"open":   manage(blockio.ZoneOpen),
		"close":  manage(blockio.ZoneClose),
		"finish": manage(blockio.ZoneFinish),
		"flush": func(t *rapid.T) {
			done, ok := m.submit(t, blockio.Request{Op: blockio.Flush})
			require.True(t, ok)
			m.now = max(m.now, done)
			for i := range zones {
				m.durable[i] = int64(len(m.tok[i]))
			}
		},
		"power_cut": m.cut,
	})
	m.cut(t)
}
