package fioreport_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
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

// flatJSON lists the leaves of a JSON object by their dotted paths.
func flatJSON(prefix string, v any, out map[string]float64) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatJSON(prefix+k+".", e, out)
		}
	case float64:
		out[prefix[:len(prefix)-1]] = x
	}
}

// TestEveryCounterReachesTheJSON: each field of ftl.Counters reaches the
// fio JSON's device object under its own name, checked by reflection over
// the struct, so a new counter cannot be dropped.
func TestEveryCounterReachesTheJSON(t *testing.T) {
	var a, b ftl.Counters
	setDistinct(&a, 1)
	setDistinct(&b, 1000)
	mk := func(k ftl.Counters) *sim.Result {
		return &sim.Result{Name: "x", RuntimeNs: sim.Second, Device: sim.Device{Counters: k, PageBytes: 16384, SlotBytes: 4096}}
	}
	sum := sim.Combine([]*sim.Result{mk(a), mk(b)})
	var buf bytes.Buffer
	require.NoError(t, fioreport.WriteJSON(&buf, nil, fioreport.JobOf(sum, nil)))
	var doc struct {
		Jobs []struct {
			Device map[string]any `json:"device"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	got := map[string]float64{}
	flatJSON("", doc.Jobs[0].Device, got)
	want := map[string]float64{}
	raw, err := json.Marshal(sum.Device.Counters)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	flatJSON("", m, want)
	require.Len(t, want, int(reflect.TypeOf(ftl.Counters{}).Size()/8), "one JSON leaf per counter")
	for k, v := range want {
		require.Contains(t, got, k)
		require.Equal(t, v, got[k], k)
	}
}
