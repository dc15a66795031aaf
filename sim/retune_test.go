package sim_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/fields"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

var driveFields = fields.MustOf(reflect.TypeFor[controller.Config]())

// otherValue sets the field at path in cfg to another allowed value (twice
// its value, or one more, or a value for an unset one) and says whether it
// found one.
func otherValue(t *testing.T, cfg *controller.Config, path string) bool {
	f, ok := driveFields.Lookup(path)
	require.True(t, ok, path)
	v := f.Value(reflect.ValueOf(cfg).Elem())
	cur := v.Int()
	for _, x := range []int64{2 * cur, cur + 1, 5000, 500, 2} {
		if x == cur || x <= 0 {
			continue
		}
		w := reflect.New(f.Type).Elem()
		w.SetInt(x)
		if f.Range.Empty() || f.Range.Contains(w) {
			v.SetInt(x)
			return true
		}
	}
	return false
}

// retunable returns the paths of the fields a state may be loaded with
// another value of.
func retunable() []string {
	var out []string
	for _, f := range controller.Fields() {
		if f.StateClass() != controller.StateFixed {
			out = append(out, f.Path)
		}
	}
	return out
}

// Retune leaves nothing of the old values behind: a fresh drive's state
// loaded into a drive with another cost (or, not having collected,
// another gc_restore_to or gc_pace_percent; not having trimmed, another
// trim_backlog) saves the same bytes as a
// fresh drive built with it. Every value a drive derives from the field
// when it is built is part of what it saves, so a value Retune forgot to
// rebuild shows as a difference.
func TestRetuneIsAFreshDrive(t *testing.T) {
	paths := retunable()
	require.Contains(t, paths, "firmware.command_ns")
	require.Contains(t, paths, "firmware.gc_streams")
	require.Contains(t, paths, "firmware.gc_pace_percent")
	require.Contains(t, paths, "firmware.trim_backlog")
	require.NotContains(t, paths, "firmware.gc_low_water")     // decides when collection begins
	require.NotContains(t, paths, "nand.timing.read_ns")       // the part's
	require.NotContains(t, paths, "firmware.write_buffer")     // a size
	require.NotContains(t, paths, "firmware.static_wl_spread") // decides when WL begins
	bases := map[string]func(*controller.Config){
		"plain": nil,
		"striped, GC streams, ECC, cores": func(c *controller.Config) {
			fw := &c.Firmware
			fw.ChannelStripe, fw.StripeNs, fw.GCStreams, fw.ECCMBps, fw.Cores, fw.GCUnitNs = true, 3000, 2, 800, 2, 1000
			fw.GCPaceWater, fw.GCPacePercent, fw.GCRestoreTo = 4, 150, 4
		},
	}
	for name, edit := range bases {
		for _, path := range paths {
			t.Run(name+"/"+path, func(t *testing.T) {
				base := smallDrive(t, edit).Config()
				other := base
				if !otherValue(t, &other, path) {
					t.Skipf("%s: no other value in range", path)
				}
				a := sim.New(smallDrive(t, edit))
				st, err := a.Save()
				require.NoError(t, err)
				oc, err := controller.New(other)
				if err != nil {
					t.Skipf("%s: %v", path, err) // the value needs others set
				}
				b := sim.New(oc)
				require.NoError(t, b.Restore(st))
				require.Equal(t, other, b.Controller().Config(), "the loaded drive's description is its own")
				got, err := b.Save()
				require.NoError(t, err)
				want, err := sim.New(mustNew(t, other)).Save()
				require.NoError(t, err)
				require.True(t, bytes.Equal(got.Bytes(), want.Bytes()), "%s: the retuned drive saves other bytes than a fresh one", path)
			})
		}
	}
}

func mustNew(t *testing.T, cfg controller.Config) *controller.Controller {
	c, err := controller.New(cfg)
	require.NoError(t, err)
	return c
}

// A sequential fill places every unit where it goes whatever the
// firmware's command costs: the mapping after it is the same.
func TestFillPlacementIgnoresCosts(t *testing.T) {
	fill := func(edit func(*controller.Config)) *sim.Engine {
		e := sim.New(smallDrive(t, edit))
		e.SecureErase()
		require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
		require.False(t, e.Controller().FTL().Collected())
		return e
	}
	a := fill(nil)
	b := fill(func(c *controller.Config) {
		c.Firmware.CommandNs, c.Firmware.WriteCommandNs, c.Firmware.DatapathWriteMBps = 3*c.Firmware.CommandNs+7000, 25000, 300
	})
	require.NotEqual(t, a.Now(), b.Now(), "the costs changed the fill's time")
	fa, fb := a.Controller().FTL(), b.Controller().FTL()
	for u := range fa.UserUnits() {
		la, err := fa.Lookup(u)
		require.NoError(t, err)
		lb, err := fb.Lookup(u)
		require.NoError(t, err)
		require.Equal(t, la, lb, "unit %d", u)
	}
}

// Values that shape the state are refused, naming the field; and once
// the drive has collected, so are the collection values.
func TestRetuneRefuses(t *testing.T) {
	a := sim.New(smallDrive(t, nil))
	st, err := a.Save()
	require.NoError(t, err)
	for _, c := range []struct {
		path, want string
	}{
		{"firmware.gc_low_water", "firmware.gc_low_water"},
		{"nand.timing.read_ns", "nand.timing.read_ns"},
		{"firmware.write_buffer", "firmware.write_buffer"},
	} {
		cfg := smallDrive(t, nil).Config()
		require.True(t, otherValue(t, &cfg, c.path))
		b := sim.New(mustNew(t, cfg))
		err := b.Restore(st)
		require.ErrorIs(t, err, sim.ErrOtherDrive, c.path)
		require.ErrorContains(t, err, c.want)
	}

	e := sim.New(twoDies(t, nil))
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionTorture, TortureNs: 5 * sim.Second}))
	require.True(t, e.Controller().FTL().Collected())
	tortured, err := e.Save()
	require.NoError(t, err)
	cfg := twoDies(t, nil).Config()
	require.True(t, otherValue(t, &cfg, "firmware.gc_pace_percent"))
	err = sim.New(mustNew(t, cfg)).Restore(tortured)
	require.ErrorIs(t, err, sim.ErrOtherDrive)
	require.ErrorContains(t, err, "has collected")
	// A cost may still differ, and, never having been sent a TRIM, the
	// TRIM backlog.
	cfg = twoDies(t, nil).Config()
	require.True(t, otherValue(t, &cfg, "firmware.command_ns"))
	require.NoError(t, sim.New(mustNew(t, cfg)).Restore(tortured))
	require.False(t, e.Controller().Trimmed())
	cfg = twoDies(t, nil).Config()
	cfg.Firmware.TrimBacklog = 64 << 20
	require.NoError(t, sim.New(mustNew(t, cfg)).Restore(tortured))

	// Once trimmed, the backlog has shaped the state.
	j := workload.NewJob("trim")
	require.NoError(t, j.Set("rw", "trim"))
	require.NoError(t, j.Set("bs", "1m"))
	require.NoError(t, j.Set("size", "16m"))
	_, err = e.RunJob(j, sim.Hooks{})
	require.NoError(t, err)
	require.True(t, e.Controller().Trimmed())
	trimmed, err := e.Save()
	require.NoError(t, err)
	err = sim.New(mustNew(t, cfg)).Restore(trimmed)
	require.ErrorIs(t, err, sim.ErrOtherDrive)
	require.ErrorContains(t, err, "firmware.trim_backlog")
	require.ErrorContains(t, err, "TRIM")
}
