package fields

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

// Range is the values a field allows: alternatives, each a single value
// or an interval lo..hi with either end open. Numbers are written as Go
// writes them (1e9, 0.1) or as sizes with units (64MiB, 1TiB); a field
// whose values have names (a string, or a type that marshals itself as
// text) lists the names: "sata|nvme". An empty string is always allowed
// for a string field (the field left out).
type Range struct {
	text  string
	alts  []interval
	words []string
}

type interval struct {
	lo, hi       float64
	hasLo, hasHi bool
}

// ParseRange parses the range tag s of a field of type t (for a list,
// the range of each element).
func ParseRange(s string, t reflect.Type) (Range, error) {
	r := Range{text: s}
	if s == "" {
		return r, nil
	}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if named(t) {
		r.words = strings.Split(s, "|")
		return r, nil
	}
	if !numeric(t.Kind()) {
		return r, fmt.Errorf("range %q on a %s, which has no order", s, t)
	}
	for _, a := range strings.Split(s, "|") {
		lo, hi, isInterval := strings.Cut(a, "..")
		if !isInterval {
			hi = lo
		}
		var iv interval
		var err error
		if iv.hasLo = lo != ""; iv.hasLo {
			if iv.lo, err = bound(lo); err != nil {
				return r, fmt.Errorf("range %q: %w", s, err)
			}
		}
		if iv.hasHi = hi != ""; iv.hasHi {
			if iv.hi, err = bound(hi); err != nil {
				return r, fmt.Errorf("range %q: %w", s, err)
			}
		}
		r.alts = append(r.alts, iv)
	}
	return r, nil
}

// named reports whether values of t are written by name.
func named(t reflect.Type) bool {
	_, isText := reflect.New(t).Elem().Interface().(encoding.TextMarshaler)
	return t.Kind() == reflect.String || (isText && !sizeLike(t))
}

// sizeLike reports whether t is a count (a byte size) that marshals
// itself with units rather than a name: its zero marshals as a number.
func sizeLike(t reflect.Type) bool {
	m, ok := reflect.New(t).Elem().Interface().(encoding.TextMarshaler)
	if !ok {
		return false
	}
	b, err := m.MarshalText()
	if err != nil {
		return false
	}
	_, err = strconv.ParseFloat(string(b), 64)
	return err == nil
}

func numeric(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

func bound(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, nil
	}
	v, err := units.ParseSize(s, false)
	if err != nil {
		return 0, fmt.Errorf("bound %q is neither a number nor a size", s)
	}
	return float64(v), nil
}

// show writes v for an error: as Text does, but a named value the range
// does not list (a number no name stands for) as its number.
func (r Range) show(v reflect.Value) string {
	s := Text(v)
	if r.words == nil || v.Kind() == reflect.String || slices.Contains(r.words, s) {
		return s
	}
	if v.CanInt() {
		return strconv.FormatInt(v.Int(), 10)
	}
	if v.CanUint() {
		return strconv.FormatUint(v.Uint(), 10)
	}
	return s
}

// Empty reports whether the range allows every value of the type.
func (r Range) Empty() bool { return r.text == "" }

// String writes the range as errors and documentation show it: "1..64",
// "0 or 2..1024", "at least 0", "sata or nvme", "flash, spare or capacity".
func (r Range) String() string { return r.annotated("", "") }

// annotated is String with alternative value, when it is one, followed
// by "(meaning)".
func (r Range) annotated(value, meaning string) string {
	if r.Empty() {
		return ""
	}
	var alts []string
	if r.words != nil {
		alts = r.words
	} else {
		for _, a := range strings.Split(r.text, "|") {
			lo, hi, ok := strings.Cut(a, "..")
			switch {
			case ok && hi == "":
				a = "at least " + lo
			case ok && lo == "":
				a = "at most " + hi
			}
			if a == value {
				a += " (" + meaning + ")"
			}
			alts = append(alts, a)
		}
	}
	if len(alts) < 2 {
		return strings.Join(alts, "")
	}
	return strings.Join(alts[:len(alts)-1], ", ") + " or " + alts[len(alts)-1]
}

// Contains reports whether v, a value of the field's type (an element for
// a list), is allowed. NaN is never allowed in a range.
func (r Range) Contains(v reflect.Value) bool {
	if r.Empty() {
		return true
	}
	if r.words != nil {
		s := Text(v)
		if v.Kind() == reflect.String {
			s = v.String()
			if s == "" {
				return true
			}
		}
		for _, w := range r.words {
			if s == w {
				return true
			}
		}
		return false
	}
	var x float64
	switch {
	case v.CanInt():
		x = float64(v.Int())
	case v.CanUint():
		x = float64(v.Uint())
	case v.CanFloat():
		x = v.Float()
	default:
		return false
	}
	return r.containsNumber(x)
}

func (r Range) containsNumber(x float64) bool {
	if math.IsNaN(x) {
		return false
	}
	for _, a := range r.alts {
		if (!a.hasLo || x >= a.lo) && (!a.hasHi || x <= a.hi) {
			return true
		}
	}
	return false
}
