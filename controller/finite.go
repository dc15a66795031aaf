package controller

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// checkFinite reports the first floating-point field of the description
// that holds NaN or an infinity (YAML's .nan, .inf, -.inf), naming it by
// its path in the description (power.transfer_byte_nj). It walks every
// field by reflection, so a float added to the description is covered
// without a check of its own; the per-field range checks then see finite
// numbers only, where a comparison with NaN is always false.
func (c Config) checkFinite() error {
	if path, x, bad := firstNonFinite(reflect.ValueOf(c), ""); bad {
		return fmt.Errorf("%w: %s = %v, allowed a finite number", ErrConfig, path, x)
	}
	return nil
}

// firstNonFinite walks v depth first, in field order, and returns the
// path and value of the first float that is NaN or infinite. Paths are
// built from the fields' YAML names; fields the description does not
// hold (yaml:"-", unexported) are skipped.
func firstNonFinite(v reflect.Value, path string) (string, float64, bool) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			return path, x, true
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return firstNonFinite(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, inline := yamlName(f)
			if name == "-" {
				continue
			}
			p := path
			if !inline {
				p = joinPath(path, name)
			}
			if q, x, bad := firstNonFinite(v.Field(i), p); bad {
				return q, x, true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if q, x, bad := firstNonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); bad {
				return q, x, true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		var worst string
		var wx float64
		found := false
		for it.Next() {
			// Maps have no order: report the smallest key's path, so
			// the message is the same every time.
			if q, x, bad := firstNonFinite(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key())); bad && (!found || q < worst) {
				worst, wx, found = q, x, true
			}
		}
		return worst, wx, found
	}
	return "", 0, false
}

// yamlName is the name field f has in a description, and whether it is
// inlined into its parent (an embedded struct, or yaml:",inline").
func yamlName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("yaml")
	name, opts, _ := strings.Cut(tag, ",")
	inline := strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && tag == "")
	if name == "" {
		name = strings.ToLower(f.Name) // yaml's default
	}
	return name, inline
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}
