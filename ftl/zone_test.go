package ftl

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/ftlsim/ftlsim/blockio"
)

// zoneModel is the NVMe zone state machine written as the research table
// gives it (transition, cause, resources), independently of Zones.
type zoneModel struct {
	cfg    ZoneConfig
	state  []ZoneState
	wp     []int64
	opened []int // implicitly or explicitly opened zones, oldest open first
}

// allowed is, per action, the states it applies to and the state it
// leads to (NVMe ZNS; QEMU hw/nvme/ctrl.c).
var allowed = map[blockio.ZoneAction]struct {
	from []ZoneState
	to   ZoneState
}{
	blockio.ZoneOpen:    {[]ZoneState{ZoneEmpty, ZoneImplicitOpen, ZoneExplicitOpen, ZoneClosed}, ZoneExplicitOpen},
	blockio.ZoneClose:   {[]ZoneState{ZoneImplicitOpen, ZoneExplicitOpen, ZoneClosed}, ZoneClosed},
	blockio.ZoneFinish:  {[]ZoneState{ZoneEmpty, ZoneImplicitOpen, ZoneExplicitOpen, ZoneClosed, ZoneFull}, ZoneFull},
	blockio.ZoneReset:   {[]ZoneState{ZoneEmpty, ZoneImplicitOpen, ZoneExplicitOpen, ZoneClosed, ZoneFull}, ZoneEmpty},
	blockio.ZoneOffline: {[]ZoneState{ZoneReadOnly, ZoneOffline}, ZoneOffline},
}

func isOpen(s ZoneState) bool   { return s == ZoneImplicitOpen || s == ZoneExplicitOpen }
func isActive(s ZoneState) bool { return isOpen(s) || s == ZoneClosed }

func (m *zoneModel) count(f func(ZoneState) bool) int {
	n := 0
	for _, s := range m.state {
		if f(s) {
			n++
		}
	}
	return n
}

// enter moves zone i to state to, checking resources; 0 or the status.
func (m *zoneModel) enter(i int, to ZoneState) ZoneStatus {
	from := m.state[i]
	if isActive(to) && !isActive(from) && m.cfg.MaxActive > 0 && m.count(isActive) == m.cfg.MaxActive {
		return TooManyActiveZones
	}
	if isOpen(to) && !isOpen(from) && m.cfg.MaxOpen > 0 && m.count(isOpen) == m.cfg.MaxOpen {
		closed := false
		for k, j := range m.opened {
			if m.state[j] == ZoneImplicitOpen && !m.cfg.NoAutoClose {
				m.state[j] = ZoneClosed
				m.opened = slices.Delete(m.opened, k, k+1)
				closed = true
				break
			}
		}
		if !closed {
			return TooManyOpenZones
		}
	}
	if isOpen(from) && !isOpen(to) {
		m.opened = slices.DeleteFunc(m.opened, func(j int) bool { return j == i })
	}
	if isOpen(to) && !isOpen(from) {
		m.opened = append(m.opened, i)
	}
	m.state[i] = to
	switch to {
	case ZoneEmpty:
		m.wp[i] = 0
	case ZoneFull:
		m.wp[i] = m.cfg.CapacityUnits
	}
	return 0
}

func (m *zoneModel) write(i int, off, n int64) ZoneStatus {
	switch m.state[i] {
	case ZoneFull:
		return ZoneIsFull
	case ZoneReadOnly:
		return ZoneIsReadOnly
	case ZoneOffline:
		return ZoneIsOffline
	}
	if off != m.wp[i] {
		return ZoneInvalidWrite
	}
	if m.wp[i]+n > m.cfg.CapacityUnits {
		return ZoneBoundaryError
	}
	if m.state[i] != ZoneExplicitOpen {
		if st := m.enter(i, ZoneImplicitOpen); st != 0 {
			return st
		}
	}
	m.wp[i] += n
	if m.wp[i] == m.cfg.CapacityUnits {
		m.enter(i, ZoneFull)
	}
	return 0
}

func (m *zoneModel) manage(i int, a blockio.ZoneAction) ZoneStatus {
	rule := allowed[a]
	if !slices.Contains(rule.from, m.state[i]) {
		return InvalidZoneStateTransition
	}
	return m.enter(i, rule.to)
}

func statusOf(t *rapid.T, err error) ZoneStatus {
	if err == nil {
		return 0
	}
	var ze *ZoneError
	if !errors.As(err, &ze) {
		t.Fatalf("not a ZoneError: %v", err)
	}
	if !errors.Is(err, ErrZone) {
		t.Fatalf("does not match ErrZone: %v", err)
	}
	return ze.Status
}

// Random zone commands against the model: the same outcome, state and
// write pointer after every command, and the resource invariants.
func TestZoneStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		zones := rapid.IntRange(1, 8).Draw(t, "zones")
		capUnits := rapid.Int64Range(1, 16).Draw(t, "capacity")
		active := rapid.IntRange(0, zones).Draw(t, "maxActive")
		open := 0
		if active > 0 {
			open = rapid.IntRange(1, active).Draw(t, "maxOpen")
		} else {
			open = rapid.IntRange(0, zones).Draw(t, "maxOpen")
		}
		cfg := ZoneConfig{Zones: zones, ZoneUnits: capUnits + rapid.Int64Range(0, 4).Draw(t, "gap"), CapacityUnits: capUnits,
			MaxOpen: open, MaxActive: active, NoAutoClose: rapid.Bool().Draw(t, "noAutoClose")}
		z, err := NewZones(cfg)
		require.NoError(t, err)
		m := &zoneModel{cfg: cfg, state: make([]ZoneState, zones), wp: make([]int64, zones)}
		for i := range m.state {
			m.state[i] = ZoneEmpty
		}
		actions := []blockio.ZoneAction{blockio.ZoneOpen, blockio.ZoneClose, blockio.ZoneFinish, blockio.ZoneReset, blockio.ZoneOffline}
		t.Repeat(map[string]func(*rapid.T){
			"write": func(t *rapid.T) {
				i := rapid.IntRange(0, zones-1).Draw(t, "zone")
				off := m.wp[i]
				if off >= cfg.ZoneUnits || rapid.IntRange(0, 3).Draw(t, "offWP") == 0 {
					off = rapid.Int64Range(0, cfg.ZoneUnits-1).Draw(t, "off")
				}
				n := rapid.Int64Range(1, capUnits).Draw(t, "n")
				want := m.write(i, off, n)
				got := statusOf(t, z.Write(int64(i)*cfg.ZoneUnits+off, n))
				require.Equal(t, want, got, "write zone %d at %d of %d", i, off, n)
			},
			"append": func(t *rapid.T) {
				i := rapid.IntRange(0, zones-1).Draw(t, "zone")
				n := rapid.Int64Range(1, capUnits).Draw(t, "n")
				wp := m.wp[i]
				want := m.write(i, wp, n)
				at, err := z.Append(int64(i)*cfg.ZoneUnits, n)
				require.Equal(t, want, statusOf(t, err))
				if err == nil {
					require.Equal(t, int64(i)*cfg.ZoneUnits+wp, at, "append returns the write pointer")
				}
			},
			"manage": func(t *rapid.T) {
				i := rapid.IntRange(0, zones-1).Draw(t, "zone")
				a := rapid.SampledFrom(actions).Draw(t, "action")
				held := m.wp[i]
				want := m.manage(i, a)
				written, err := z.Manage(i, a)
				require.Equal(t, want, statusOf(t, err), "%s zone %d", a, i)
				if err == nil && a == blockio.ZoneReset {
					require.Equal(t, held, written, "reset returns what the zone held")
				}
			},
			"fail": func(t *rapid.T) {
				i := rapid.IntRange(0, zones-1).Draw(t, "zone")
				if rapid.IntRange(0, 9).Draw(t, "rare") != 0 {
					return
				}
				off := rapid.Bool().Draw(t, "offline")
				z.Fail(i, off)
				m.opened = slices.DeleteFunc(m.opened, func(j int) bool { return j == i })
				m.state[i] = map[bool]ZoneState{false: ZoneReadOnly, true: ZoneOffline}[off]
			},
			"power_cycle": func(t *rapid.T) {
				lost := map[int]int64{}
				for i := range zones {
					if rapid.IntRange(0, 2).Draw(t, "loses") == 0 {
						lost[i] = rapid.Int64Range(0, capUnits).Draw(t, "firstLost")
					}
				}
				rolled, units, closed := z.PowerUp(lost)
				// NVMe ZNS 1.1 §2.1.1.3: after a power cycle a zone is
				// empty if its write pointer is at its start, closed if
				// past it, full, read-only or offline if it was; the
				// pointer of an active zone stands at what was kept.
				var wantRolled, wantClosed int
				var wantUnits int64
				for i, st := range m.state {
					if isOpen(st) {
						wantClosed++
					}
					if !isActive(st) {
						continue
					}
					if k, ok := lost[i]; ok && k < m.wp[i] {
						wantRolled++
						wantUnits += m.wp[i] - k
						m.wp[i] = k
					}
					m.state[i] = map[bool]ZoneState{true: ZoneEmpty, false: ZoneClosed}[m.wp[i] == 0]
				}
				m.opened = m.opened[:0]
				require.Equal(t, []any{wantRolled, wantUnits, wantClosed}, []any{rolled, units, closed}, "rolled back, units, closed")
				require.Zero(t, z.Open(), "no zone is open after a power cycle")
			},
			"": func(t *rapid.T) {
				for i := range m.state {
					d := z.Desc(i)
					ext := m.wp[i]
					if m.state[i] == ZoneFull {
						ext = cfg.CapacityUnits
					}
					require.Equal(t, ext, z.Extent(i), "zone %d's extent", i)
					require.Equal(t, m.state[i], d.State, "zone %d", i)
					require.Equal(t, m.wp[i], d.WritePointer, "zone %d", i)
					require.LessOrEqual(t, d.WritePointer, cfg.CapacityUnits)
					if d.State == ZoneEmpty {
						require.Zero(t, d.WritePointer)
					}
				}
				require.Equal(t, m.count(isOpen), z.Open())
				require.Equal(t, m.count(isActive), z.Active())
				if cfg.MaxOpen > 0 {
					require.LessOrEqual(t, z.Open(), cfg.MaxOpen)
				}
				if cfg.MaxActive > 0 {
					require.LessOrEqual(t, z.Active(), cfg.MaxActive)
				}
			},
		})
	})
}

// The refusals NVMe names, with the errno a Linux host reports.
func TestZoneRefusals(t *testing.T) {
	z, err := NewZones(ZoneConfig{Zones: 4, ZoneUnits: 16, CapacityUnits: 10, MaxOpen: 1, MaxActive: 2, NoAutoClose: true})
	require.NoError(t, err)
	st := func(err error) ZoneStatus {
		var ze *ZoneError
		require.ErrorAs(t, err, &ze)
		return ze.Status
	}
	require.NoError(t, z.Write(0, 4))
	assert.Equal(t, ZoneInvalidWrite, st(z.Write(2, 1)), "off the write pointer")
	assert.Equal(t, ZoneBoundaryError, st(z.Write(4, 7)), "past the capacity")
	assert.Equal(t, TooManyOpenZones, st(z.Write(16, 1)), "a second open zone")
	_, err = z.Manage(0, blockio.ZoneClose)
	require.NoError(t, err)
	require.NoError(t, z.Write(16, 1))
	_, err = z.Manage(1, blockio.ZoneClose)
	require.NoError(t, err)
	assert.Equal(t, TooManyActiveZones, st(z.Write(32, 1)), "a third active zone")
	_, err = z.Append(33, 1)
	assert.Equal(t, InvalidField, st(err), "append not at a zone start")
	_, err = z.Manage(0, blockio.ZoneFinish)
	require.NoError(t, err)
	assert.Equal(t, ZoneIsFull, st(z.Write(10, 1)))
	_, err = z.Manage(0, blockio.ZoneClose)
	assert.Equal(t, InvalidZoneStateTransition, st(err))
	assert.Equal(t, 75, TooManyActiveZones.Errno())
	assert.Equal(t, 109, TooManyOpenZones.Errno())
	assert.Equal(t, 5, ZoneInvalidWrite.Errno())
	assert.Equal(t, "zone 0 (full): Zone Is Full (SCT 1h SC B9h): write at unit 10", z.Write(10, 1).Error())
	assert.Equal(t, int64(8), z.Counters().Refused)
}
