package controller_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// floatField is a float of the description: its path as a description
// names it and a way to reach it in a Config.
type floatField struct {
	path  string
	index [][]int // field indexes from Config down to the float
}

// floatFields lists every float field of a Config by reflection, so that
// a float added to the description is tested without editing this test.
func floatFields(t reflect.Type, path string, idx [][]int) []floatField {
	var out []floatField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		p := path
		if !(f.Anonymous && f.Tag.Get("yaml") == "") && !strings.Contains(opts, "inline") {
			if tag == "" {
				tag = strings.ToLower(f.Name)
			}
			p = strings.TrimPrefix(path+"."+tag, ".")
		}
		at := append(append([][]int(nil), idx...), f.Index)
		switch f.Type.Kind() {
		case reflect.Float32, reflect.Float64:
			out = append(out, floatField{p, at})
		case reflect.Struct:
			out = append(out, floatFields(f.Type, p, at)...)
		}
	}
	return out
}

// Every float of a drive description refuses NaN and the infinities with
// an error naming the field (a NaN passes every range check written as
// "x < lo || x > hi", and ended as `json: unsupported value: NaN`).
func TestNonFiniteFloatsRefused(t *testing.T) {
	fields := floatFields(reflect.TypeFor[controller.Config](), "", nil)
	require.NotEmpty(t, fields)
	var names []string
	for _, f := range fields {
		names = append(names, f.path)
	}
	require.Contains(t, names, "op_percent")
	require.Contains(t, names, "power.transfer_byte_nj")
	for _, f := range fields {
		for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			c := preset(t, "generic-mlc-small", nil)
			v := reflect.ValueOf(&c).Elem()
			for _, i := range f.index {
				v = v.FieldByIndex(i)
			}
			v.SetFloat(x)
			_, err := c.Resolve()
			require.ErrorIs(t, err, controller.ErrConfig, f.path)
			require.Contains(t, err.Error(), f.path+" = ", f.path)
			require.Contains(t, err.Error(), "finite", f.path)
			_, err = controller.New(c)
			require.ErrorIs(t, err, controller.ErrConfig, f.path)
		}
	}
}

// The YAML spellings of NaN and the infinities are caught the same way.
func TestNonFiniteFloatsInYAML(t *testing.T) {
	base, err := preset(t, "generic-mlc-small", nil).Marshal()
	require.NoError(t, err)
	for _, spell := range []string{".nan", ".NaN", ".inf", "-.inf", "+.Inf"} {
		text := strings.Replace(string(base), "transfer_byte_nj: ", "transfer_byte_nj: "+spell+" #", 1)
		c, err := controller.ParseConfig("d.yaml", []byte(text))
		require.NoError(t, err, spell)
		_, err = c.Resolve()
		require.ErrorIs(t, err, controller.ErrConfig, spell)
		require.Contains(t, err.Error(), "power.transfer_byte_nj = ", spell)
	}
}
