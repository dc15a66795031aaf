package controller_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// The table holds every field of a description, each with a description
// and a layer; every number but the seed has a range (a float without one
// would let NaN through).
func TestFieldTable(t *testing.T) {
	rows := controller.Fields()
	require.Greater(t, len(rows), 100)
	seen := map[string]bool{}
	for _, f := range rows {
		require.False(t, seen[f.Path], "%s twice", f.Path)
		seen[f.Path] = true
		require.NotEmpty(t, f.Doc, f.Path)
		if f.Section {
			continue
		}
		require.Contains(t, controller.Layers(), f.Layer, f.Path)
		numeric := !strings.Contains(f.Type, "string") && f.Type != "bool" && f.Type != "controller.Sizing" && f.Type != "controller.Interface"
		if numeric && f.Path != "seed" {
			require.NotEmpty(t, f.Range, "%s (%s) has no range", f.Path, f.Type)
		}
		got, ok := controller.LookupField(f.Path)
		require.True(t, ok)
		require.Equal(t, f.Path, got.Path)
	}
	// Every field a preset sets is in the table (the loader refuses the
	// others, so this holds by construction; the marshalled form shows it).
	ch := controller.FieldsNamed("channels")
	require.Len(t, ch, 1)
	require.Equal(t, "nand.geometry.channels", ch[0].Path)
	require.Equal(t, "1..64", ch[0].Range)
	require.Equal(t, controller.LayerBoard, ch[0].Layer)
	var c controller.Config
	require.Equal(t, "firmware.slc_cache.when_full", c.FieldPath(&c.Firmware.SLCCache.WhenFull))
	require.Equal(t, "firmware.slc_cache", c.FieldPath(&c.Firmware.SLCCache))
	require.Equal(t, "nand.timing.read_ns", c.FieldPath(&c.NAND.Timing.ReadNs))
}

// Field.CheckText parses a value as its field's type and checks its
// range: what a sweep axis is checked with before anything runs.
func TestFieldCheckText(t *testing.T) {
	for _, tc := range []struct{ path, text, err string }{
		{"nand.geometry.channels", "8", ""},
		{"nand.geometry.channels", "65", "nand.geometry.channels = 65, allowed 1..64"},
		{"nand.geometry.channels", "4.5", "nand.geometry.channels = 4.5: not a whole number, allowed 1..64"},
		{"firmware.write_buffer", "64MiB", ""},
		{"firmware.write_buffer", "2TiB", "firmware.write_buffer = 2TiB, allowed 0..1TiB"},
		{"firmware.write_buffer", "64MB0", "firmware.write_buffer = 64MB0: "},
		{"firmware.raise_stripe", "1", "firmware.raise_stripe = 1, allowed 0 (off) or 2..1024"},
		{"host.interface", "scsi", "host.interface = scsi"},
		{"op_percent", ".nan", "op_percent = NaN, allowed 0..400"},
		{"nand.timing.read_ns_by_page", "[1, 0]", "nand.timing.read_ns_by_page[1] = 0, allowed 1..1000000000"},
		{"firmware", "3", "firmware is a section"},
	} {
		f, ok := controller.LookupField(tc.path)
		require.True(t, ok, tc.path)
		err := f.CheckText(tc.text)
		if tc.err == "" {
			require.NoError(t, err, "%s = %s", tc.path, tc.text)
			continue
		}
		require.ErrorContains(t, err, tc.err)
	}
}

// FTLConfig copies every field the table pairs with an ftl.Config field:
// each is set to a value of its own and found there.
func TestFTLConfigCopiesTheTable(t *testing.T) {
	c, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	r, err := c.Resolve()
	require.NoError(t, err)
	cfg := r.Config
	cv := reflect.ValueOf(&cfg).Elem()
	want := map[string]reflect.Value{}
	n := 0
	for _, f := range controller.Fields() {
		if f.FTL == "" {
			continue
		}
		n++
		v := fieldValue(cv, f.Path)
		switch v.Kind() {
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + int64(n))
		case reflect.Uint64:
			v.SetUint(v.Uint() + uint64(n))
		}
		want[f.FTL] = v
	}
	require.GreaterOrEqual(t, n, 8)
	fc, err := cfg.FTLConfig()
	require.NoError(t, err)
	fv := reflect.ValueOf(fc)
	for name, v := range want {
		require.Equal(t, v.Interface(), fv.FieldByName(name).Interface(), name)
	}
}

// fieldValue finds the field at a YAML path in v (a Config) by its yaml
// tags.
func fieldValue(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(path, ".") {
		t := v.Type()
		for i := range t.NumField() {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if tag == name {
				v = v.Field(i)
				break
			}
		}
	}
	return v
}

// docs/drive-fields.md is generated from the table: it is stale when it
// differs from what go generate writes.
func TestFieldReferenceUpToDate(t *testing.T) {
	committed, err := os.ReadFile("../docs/drive-fields.md")
	require.NoError(t, err)
	require.Equal(t, string(controller.FieldReference()), string(committed),
		"docs/drive-fields.md is stale: run go generate ./controller")
}
