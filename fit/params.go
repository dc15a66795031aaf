package fit

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/fields"
)

// Param is one drive-description field the fit searches, within bounds.
type Param struct {
	// Path is the field's dotted path ("firmware.gc_streams").
	Path string
	// Lo and Hi bound the values searched (Lo < Hi).
	Lo, Hi float64
	// Start is the base drive's value, where the search starts.
	Start float64
	// Integer is set for a field of integer type: values are rounded.
	Integer bool
	// Unit is the field's unit, from the table.
	Unit string

	f fields.Field
}

// table is the drive description's field table.
var table = fields.MustOf(reflect.TypeFor[controller.Config]())

// costUnits are the units of the firmware fields a fit adjusts by
// default: processor costs, rates, pacing and concurrency. Fields of
// other units (sizes, thresholds in groups, counts of reads) describe
// structure or policy and are fitted only when named.
var costUnits = map[string]bool{"ns": true, "MB/s": true, "%": true, "operations": true}

// DefaultParams returns the parameters a fit adjusts when none are
// named: the firmware-layer fields of the field table whose unit is a
// cost or a rate (ns, MB/s, %, operations) and that cfg sets (a zero
// means "off" or "the default" and is not a value to fit), each bounded
// at a quarter and four times its value, within its field's range.
func DefaultParams(cfg controller.Config) []Param {
	var out []Param
	rv := reflect.ValueOf(&cfg).Elem()
	for _, f := range table.Fields() {
		if f.Section || f.Layer != string(controller.LayerFirmware) || !costUnits[f.Unit] || !numericKind(f.Type.Kind()) {
			continue
		}
		v := toFloat(f.Value(rv))
		if v <= 0 {
			continue
		}
		p, err := newParam(f, v, v/4, v*4)
		if err != nil {
			continue
		}
		out = append(out, p)
	}
	return out
}

func numericKind(k reflect.Kind) bool {
	return (k >= reflect.Int && k <= reflect.Uint64) || k == reflect.Float32 || k == reflect.Float64
}

// newParam makes the parameter of field f starting at v, bounded by
// lo..hi clipped to the field's range.
func newParam(f fields.Field, v, lo, hi float64) (Param, error) {
	p := Param{Path: f.Path, Start: v, Lo: lo, Hi: hi, Unit: f.Unit, f: f,
		Integer: f.Type.Kind() != reflect.Float32 && f.Type.Kind() != reflect.Float64}
	// Clip to the field's range: find the nearest allowed values by
	// probing the ends (ranges are intervals for these fields).
	for p.Lo < p.Hi && !f.Range.Empty() && !inRange(f, p.Lo) {
		p.Lo = math.Min(p.Hi, math.Max(p.Lo*1.01, p.Lo+1))
	}
	for p.Hi > p.Lo && !f.Range.Empty() && !inRange(f, p.Hi) {
		p.Hi = math.Max(p.Lo, math.Min(p.Hi/1.01, p.Hi-1))
	}
	if p.Integer {
		p.Lo, p.Hi = math.Ceil(p.Lo), math.Floor(p.Hi)
		if p.Lo < 1 && v >= 1 {
			p.Lo = 1
		}
	}
	if !(p.Lo < p.Hi) {
		return p, fmt.Errorf("%s: bounds %s..%s leave nothing to search", f.Path, num(lo), num(hi))
	}
	p.Start = math.Min(math.Max(p.Start, p.Lo), p.Hi)
	return p, nil
}

func inRange(f fields.Field, x float64) bool {
	v := reflect.New(f.Type).Elem()
	setFloat(v, x)
	return f.Range.Contains(v)
}

// ParseParam reads a parameter named on the command line or in a
// targets file: "firmware.gc_restore_to=2..12" (bounds) or a field path
// alone, which takes the default bounds around cfg's value (a quarter to
// four times). A field that is not numeric, or has no value and no
// bounds, is refused.
func ParseParam(cfg controller.Config, s string) (Param, error) {
	path, bounds, hasBounds := strings.Cut(strings.TrimSpace(s), "=")
	f, ok := table.Lookup(path)
	if !ok || f.Section {
		return Param{}, fmt.Errorf("parameter %q: no such field of a drive description (see docs/drive-fields.md)", path)
	}
	if !numericKind(f.Type.Kind()) && !isSize(f) {
		return Param{}, fmt.Errorf("parameter %s: a %s field cannot be fitted; allowed numeric fields", path, f.Type)
	}
	v := toFloat(f.Value(reflect.ValueOf(&cfg).Elem()))
	if !hasBounds {
		if v <= 0 {
			return Param{}, fmt.Errorf("parameter %s: the drive leaves it at 0, so it has no default bounds; give them: %s=LO..HI", path, path)
		}
		return newParam(f, v, v/4, v*4)
	}
	los, his, ok := strings.Cut(bounds, "..")
	lo, err1 := parseNumber(los)
	hi, err2 := parseNumber(his)
	if !ok || err1 != nil || err2 != nil || !(lo < hi) {
		return Param{}, fmt.Errorf("parameter %s: bounds %q: allowed LO..HI with LO < HI (numbers or sizes such as 4GiB)", path, bounds)
	}
	if v <= 0 || v < lo || v > hi {
		v = math.Sqrt(math.Max(lo, 1) * hi) // the middle, on a log scale
	}
	return newParam(f, v, lo, hi)
}

func isSize(f fields.Field) bool { return f.Type == reflect.TypeFor[controller.Size]() }

// parseNumber reads a number or a size with units.
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		return x, nil
	}
	var z controller.Size
	if err := z.UnmarshalText([]byte(s)); err != nil {
		return 0, err
	}
	return float64(z), nil
}

func toFloat(v reflect.Value) float64 {
	switch {
	case v.CanInt():
		return float64(v.Int())
	case v.CanUint():
		return float64(v.Uint())
	case v.CanFloat():
		return v.Float()
	}
	return 0
}

func setFloat(v reflect.Value, x float64) {
	switch {
	case v.CanInt():
		v.SetInt(int64(math.Round(x)))
	case v.CanUint():
		v.SetUint(uint64(math.Round(math.Max(x, 0))))
	case v.CanFloat():
		v.SetFloat(x)
	}
}

// Value returns the parameter's value in cfg.
func (p Param) Value(cfg controller.Config) float64 {
	return toFloat(p.f.Value(reflect.ValueOf(&cfg).Elem()))
}

// set writes x (rounded for an integer or size field) into cfg.
func (p Param) set(cfg *controller.Config, x float64) {
	setFloat(p.f.Value(reflect.ValueOf(cfg).Elem()), p.round(x))
}

// round is x as the field holds it.
func (p Param) round(x float64) float64 {
	if p.Integer {
		if isSize(p.f) {
			return math.Round(x/4096) * 4096 // whole 4 KiB: what sizes in descriptions are
		}
		return math.Round(x)
	}
	return x
}

// Text writes value x as a description holds it.
func (p Param) Text(x float64) string {
	v := reflect.New(p.f.Type).Elem()
	setFloat(v, p.round(x))
	return fields.Text(v)
}

// The search runs in [0, 1] per parameter, on a log scale when the
// bounds are positive (costs and rates are searched in proportion).
func (p Param) logScale() bool { return p.Lo > 0 }

func (p Param) toUnit(x float64) float64 {
	if p.logScale() {
		return math.Log(x/p.Lo) / math.Log(p.Hi/p.Lo)
	}
	return (x - p.Lo) / (p.Hi - p.Lo)
}

func (p Param) fromUnit(u float64) float64 {
	u = math.Min(math.Max(u, 0), 1)
	if p.logScale() {
		return p.round(p.Lo * math.Exp(u*math.Log(p.Hi/p.Lo)))
	}
	return p.round(p.Lo + u*(p.Hi-p.Lo))
}

// Params returns the parameters of a fit of cfg: DefaultParams with the
// named ones added, a named one replacing a default of the same path,
// sorted by path.
func Params(cfg controller.Config, named []Param) []Param {
	defaults := DefaultParams(cfg)
	by := map[string]Param{}
	for _, p := range defaults {
		by[p.Path] = p
	}
	for _, p := range named {
		by[p.Path] = p
	}
	out := make([]Param, 0, len(by))
	for _, p := range by {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
