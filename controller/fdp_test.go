package controller_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
)

// fdpDrive is a small drive with handles reclaim unit handles, the first
// persistent of them persistently isolated.
func fdpDrive(t *testing.T, handles, persistent int) *controller.Controller {
	t.Helper()
	c := preset(t, "generic-mlc-small", nil).Resized(1<<30, 60)
	c.Firmware.FDP = controller.FDP{Handles: handles, PersistentHandles: persistent}
	d, err := controller.New(c)
	require.NoError(t, err)
	return d
}

// Writes through each handle's placement identifier: the FDP statistics
// add up, per handle and in total, to the host's bytes and the FTL's
// programs and erases; a placement identifier naming no handle goes to
// handle 0 and is counted.
func TestFDPStatistics(t *testing.T) {
	d := fdpDrive(t, 4, 2)
	info, ok := d.FDP()
	require.True(t, ok)
	assert.Equal(t, 4, info.Handles)
	assert.Equal(t, []uint16{0, 1, 2, 3}, d.PlacementIDs(), "one identifier a handle, as the handle status reports them")
	rng := rand.New(rand.NewPCG(1, 2))
	region := d.CapacityBytes() / 4 / 4096
	now := int64(0)
	var host [4]int64
	for i := range 600_000 {
		h := i % 4
		off := (int64(h)*region + rng.Int64N(region)) * 4096
		done, err := d.Submit(now, blockio.Request{Op: blockio.Write, Offset: off, Length: 4096, Directive: blockio.DirectivePlacement, DSpec: uint16(h)})
		require.NoError(t, err)
		now = max(now, done)
		host[h] += 4096
	}
	_, err := d.Submit(now, blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096, Directive: blockio.DirectivePlacement, DSpec: 9})
	require.NoError(t, err)
	host[0] += 4096
	st, ok := d.FDPCounters()
	require.True(t, ok)
	assert.Equal(t, int64(1), st.InvalidPIDs)
	var media, erased int64
	for h, s := range st.Handles {
		assert.Equal(t, host[h], s.HostBytes, "handle %d", h)
		media += s.MediaBytes
		erased += s.ErasedBytes
	}
	media += st.Shared.MediaBytes
	erased += st.Shared.ErasedBytes
	k := d.FTL().Counters()
	slot := d.SlotBytes()
	assert.Equal(t, k.ProgramUnits*slot, media)
	assert.Positive(t, k.GCCopiedUnits, "collection ran")
	assert.Positive(t, erased)
	// Every handle's data is collected; the persistently isolated ones
	// never into the shared reclaim units.
	assert.Greater(t, st.Handles[0].MediaBytes, st.Handles[0].HostBytes)
	assert.Positive(t, st.Shared.MediaBytes, "initially isolated handles' data moves into shared units")
}

// The description's FDP fields are checked against the drive.
func TestFDPValidation(t *testing.T) {
	for name, edit := range map[string]func(*controller.Config){
		"persistent over handles": func(c *controller.Config) { c.Firmware.FDP = controller.FDP{Handles: 2, PersistentHandles: 3} },
		"fields without handles":  func(c *controller.Config) { c.Firmware.FDP = controller.FDP{PersistentHandles: 1} },
		"reclaim unit size":       func(c *controller.Config) { c.Firmware.FDP = controller.FDP{Handles: 2, ReclaimUnitSize: 4096} },
		"two reclaim groups":      func(c *controller.Config) { c.Firmware.FDP = controller.FDP{Handles: 2, ReclaimGroups: 2} },
		"persistently isolated with safe erase": func(c *controller.Config) {
			c.Firmware.FDP = controller.FDP{Handles: 2, PersistentHandles: 1}
			c.Firmware.GCSafeErase = true
		},
		"too many handles for the spare": func(c *controller.Config) { c.Firmware.FDP = controller.FDP{Handles: 128, PersistentHandles: 128} },
	} {
		t.Run(name, func(t *testing.T) {
			c := preset(t, "generic-mlc-small", nil).Resized(1<<30, 60)
			edit(&c)
			_, err := controller.New(c)
			require.ErrorIs(t, err, controller.ErrConfig)
			assert.Contains(t, err.Error(), "firmware.")
		})
	}
}

// TestFDPSafeErasePowerLoss: initially isolated handles on a drive that
// erases a victim only once what superseded its data is programmed
// (gc_safe_erase), through the controller: a fill and random writes
// through four handles past the cliff (each handle's host bytes its own),
// then eight rounds of a flush, writes and a power cut. After every cut
// nothing the flush made durable is lost and the FTL's invariants hold;
// the drive writes again. (The ordering itself is checked where it is
// made, by ftl's isolation property test with SafeErase and power cuts.)
func TestFDPSafeErasePowerLoss(t *testing.T) {
	cfg := powerCutDrive(t, func(c *controller.Config) { c.Firmware.FDP = controller.FDP{Handles: 4} })
	d, err := controller.New(cfg)
	require.NoError(t, err)
	units := d.CapacityBytes() / 4096
	quarter := units / 4
	at := int64(0)
	var host [4]int64
	write := func(u int64, tok uint32) {
		h := int(u / quarter % 4)
		at, err = d.Submit(at, blockio.Request{Op: blockio.Write, Offset: u * 4096, Length: 4096, Token: tok,
			Directive: blockio.DirectivePlacement, DSpec: uint16(h)})
		require.NoError(t, err)
		host[h] += 4096
	}
	for u := range units {
		write(u, 1)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range units / 2 { // past the cliff: collection runs, victims wait for their erase
		write(rng.Int64N(units), uint32(i+2))
	}
	st, ok := d.FDPCounters()
	require.True(t, ok)
	for h, s := range st.Handles {
		assert.Equal(t, host[h], s.HostBytes, "handle %d", h)
	}
	assert.Positive(t, d.FTL().Counters().GCCopiedUnits, "collection ran")
	var rep controller.PowerLossReport
	for cut := range 8 { // a flush, writes, a cut; again
		at, err = d.Submit(at, blockio.Request{Op: blockio.Flush})
		require.NoError(t, err)
		for i := range 3000 {
			write(rng.Int64N(units), uint32(cut<<20+i+1<<30))
		}
		rep, err = d.PowerLoss(at)
		require.NoError(t, err)
		require.Zero(t, rep.LostFlushedBytes, "cut %d: what the flush made durable survives (%+v)", cut, rep)
		require.NoError(t, d.FTL().CheckInvariants())
		at += rep.MountNs
	}
	_, err = d.Submit(at, blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096, Token: 7,
		Directive: blockio.DirectivePlacement, DSpec: 0})
	require.NoError(t, err, "the drive writes again after mounting")
}
