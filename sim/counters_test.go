package sim

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/workload"
)

// setDistinct fills every int64 of c, in field order, with base, base+1, ….
func setDistinct(c *ftl.Counters, base int64) {
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Int64:
			v.SetInt(base)
			base++
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(c).Elem())
}

// TestEveryCounterReachesEveryLayer: each field of ftl.Counters is carried
// from the drive through a run's Device and through Combine (which adds
// them), checked by reflection over the struct, so a new counter cannot be
// dropped by any layer (package fioreport checks the fio JSON the same way).
func TestEveryCounterReachesEveryLayer(t *testing.T) {
	var a, b ftl.Counters
	setDistinct(&a, 1)
	setDistinct(&b, 1000)
	mk := func(k ftl.Counters) *Result {
		r := &Result{Name: "x", RuntimeNs: Second, Device: Device{Counters: k, PageBytes: 16384, SlotBytes: 4096}}
		r.Device.derive()
		return r
	}
	sum := Combine([]*Result{mk(a), mk(b)})
	require.Equal(t, a.Add(b), sum.Device.Counters)

}

// TestDeviceDerivesFromCounters: a run's Device is exactly the growth of
// the drive's counters over the run, and its derived figures follow from
// them and the page and slot sizes.
func TestDeviceDerivesFromCounters(t *testing.T) {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg = cfg.Resized(2<<30, 25)
	d, err := controller.New(cfg)
	require.NoError(t, err)
	e := New(d)
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
	before := d.Counters()
	j := workload.NewJob("rw")
	for _, kv := range [][2]string{{"rw", "randrw"}, {"runtime", "2"}, {"time_based", "1"}, {"iodepth", "16"}} {
		require.NoError(t, j.Set(kv[0], kv[1]))
	}
	r, err := e.RunJob(j, Hooks{})
	require.NoError(t, err)
	dv := r.Device
	require.Equal(t, d.Counters().Sub(before), dv.Counters)
	tot := dv.Flash.Total()
	page := int64(cfg.NAND.Geometry.PageBytes)
	require.Equal(t, tot.ProgramPages*page, dv.NANDWriteBytes)
	require.Equal(t, tot.ReadUnits*d.SlotBytes(), dv.NANDReadBytes)
	require.Equal(t, float64(dv.NANDWriteBytes)/float64(dv.HostWriteBytes), dv.WriteAmplification)
	require.Positive(t, dv.Flash[ftl.CauseGC].ReadPages, "a filled drive collects garbage under random writes")
	require.Equal(t, dv.HostReadBytes, dv.HostReadUnits*int64(cfg.NAND.Geometry.UnitBytes), "4 KiB reads of 4 KiB units")
}
