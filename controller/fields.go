package controller

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/fields"
)

// The table of drive-description fields. Each field is declared once, on
// the struct field that holds it (Config, Host, Firmware, SLCCache, Power
// here; nand.Geometry, nand.Timing, nand.Reliability in package nand): its
// yaml tag is its name, its Go type its type, and the tags layer, unit,
// range, default, doc and ftl the rest of its row. Range checks (Resolve),
// the translation layer's configuration (FTLConfig), the sweep's drive
// axes (package sweep) and docs/drive-fields.md (go generate) are derived
// from it.

//go:generate go run ./internal/fielddoc -o ../docs/drive-fields.md

// Layer is what a drive-description field describes, and so which
// drives share its value.
type Layer string

// The layers.
const (
	// LayerPart is the NAND part: datasheet values, shared by every drive
	// built on the part.
	LayerPart Layer = "part"
	// LayerController is the controller silicon: shared by every drive on
	// that controller.
	LayerController Layer = "controller"
	// LayerFirmware is the firmware of a product line: its policies and
	// its fitted costs.
	LayerFirmware Layer = "firmware"
	// LayerBoard is the board: channels populated, packages, DRAM,
	// capacitors, the PCIe lanes wired.
	LayerBoard Layer = "board"
	// LayerDrive is the description itself: its name, its sizing, its
	// seed.
	LayerDrive Layer = "drive"
)

// Layers lists the layers in the order the reference table shows them.
func Layers() []Layer {
	return []Layer{LayerPart, LayerController, LayerFirmware, LayerBoard, LayerDrive}
}

// Field is one row of the table of drive-description fields.
type Field struct {
	// Path is the field's dotted YAML path ("firmware.gc_low_water").
	Path string
	// Type is the Go type of its value ("int", "controller.Size").
	Type string
	// Unit is the unit of its value ("ns", "bytes"; "" for none).
	Unit string
	// Range is the values allowed, as errors state it ("0..1048576");
	// rules between fields (Resolve) may narrow it.
	Range string
	// Default is what leaving the field out means, where that is not
	// simply its zero value.
	Default string
	// Layer is what the value describes.
	Layer Layer
	// Doc is a one-line description.
	Doc string
	// FTL names the ftl.Config field it configures ("" for none):
	// FTLConfig copies it there.
	FTL string
	// Section is set for a group of fields (firmware, nand.geometry).
	Section bool

	f fields.Field
}

// driveTable is the table built from the description's types.
type driveTable struct {
	t      *fields.Table
	rows   []Field
	byPath map[string]int
	// copies pairs the index of each field tagged ftl with the index of
	// its ftl.Config field.
	copies [][2][]int
}

// table is built once, when the package is initialised, from the types'
// tags; it is never changed. A malformed tag is a programming error that
// TestFieldTable reports.
var table = mustTable()

func mustTable() *driveTable {
	t, err := newTable()
	if err != nil {
		panic(err)
	}
	return t
}

func newTable() (*driveTable, error) {
	ft, err := fields.Of(reflect.TypeFor[Config]())
	if err != nil {
		return nil, err
	}
	dt := &driveTable{t: ft, byPath: map[string]int{}}
	ftlType := reflect.TypeFor[ftl.Config]()
	for _, f := range ft.Fields() {
		row := Field{Path: f.Path, Type: f.Type.String(), Unit: f.Unit, Range: f.Allowed(), Default: f.Default,
			Layer: Layer(f.Layer), Doc: f.Doc, FTL: f.Tag.Get("ftl"), Section: f.Section, f: f}
		if row.Doc == "" {
			return nil, fmt.Errorf("controller: field %s has no doc tag", f.Path)
		}
		if !f.Section && !validLayer(row.Layer) {
			return nil, fmt.Errorf("controller: field %s: layer %q, allowed %v", f.Path, f.Layer, Layers())
		}
		if row.FTL != "" {
			to, ok := ftlType.FieldByName(row.FTL)
			if !ok || to.Type != f.Type {
				return nil, fmt.Errorf("controller: field %s: ftl.Config has no field %s of type %s", f.Path, row.FTL, f.Type)
			}
			dt.copies = append(dt.copies, [2][]int{f.Index, to.Index})
		}
		dt.byPath[f.Path] = len(dt.rows)
		dt.rows = append(dt.rows, row)
	}
	return dt, nil
}

func validLayer(l Layer) bool {
	for _, k := range Layers() {
		if l == k {
			return true
		}
	}
	return false
}

// Fields returns the table of drive-description fields: every section and
// every field, in the order a description lists them.
func Fields() []Field { return append([]Field(nil), table.rows...) }

// LookupField returns the field at a dotted YAML path.
func LookupField(path string) (Field, bool) {
	i, ok := table.byPath[path]
	if !ok {
		return Field{}, false
	}
	return table.rows[i], true
}

// FieldsNamed returns the fields (not sections) whose last path element is
// name: "channels" is nand.geometry.channels.
func FieldsNamed(name string) []Field {
	var out []Field
	for _, f := range table.t.Named(name) {
		out = append(out, table.rows[table.byPath[f.Path]])
	}
	return out
}

// FieldPath returns the YAML path of the field of c that ptr points at:
// c.FieldPath(&c.Firmware.GCLowWater) is "firmware.gc_low_water". It
// panics when ptr is not a field of c, a programming error.
func (c *Config) FieldPath(ptr any) string { return fields.PathOf(c, ptr) }

// fieldName is the name (the last path element) of the field of section
// that ptr points at.
func fieldName(section, ptr any) string { return fields.PathOf(section, ptr) }

// CheckText reports whether text, written as a YAML value of the field,
// is a value of its type within its range. An error states the field, the
// value and the range.
func (f Field) CheckText(text string) error {
	if f.Section {
		return fmt.Errorf("%s is a section, not a field; set one of its fields", f.Path)
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil || len(n.Content) != 1 {
		return fmt.Errorf("%s = %s: not a single YAML value", f.Path, text)
	}
	v, err := decodeLeaf(f.f, n.Content[0])
	if err != nil {
		return fmt.Errorf("%s = %s: %s, allowed %s", f.Path, text, err, f.allowed())
	}
	if msg := f.rangeProblem(v); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// allowed states what the field takes: its range, or its type.
func (f Field) allowed() string {
	if f.Range != "" {
		return f.Range
	}
	return kindName(f.f.Type)
}

// rangeProblem is the error for value v of the field when it is out of
// range ("" when it is in).
func (f Field) rangeProblem(v reflect.Value) string {
	if v.Kind() == reflect.Slice {
		for i := range v.Len() {
			if !f.f.Range.Contains(v.Index(i)) {
				return fmt.Sprintf("%s[%d] = %s, allowed %s", f.Path, i, fields.Text(v.Index(i)), f.Range)
			}
		}
		return ""
	}
	if !f.f.Range.Contains(v) {
		return fmt.Sprintf("%s = %s, allowed %s", f.Path, fields.Text(v), f.Range)
	}
	return ""
}

// kindName says what a value of type t is written as.
func kindName(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[Size]():
		return "a size such as 32MiB or 256GB"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Slice:
		return "a list of " + strings.TrimPrefix(kindName(t.Elem()), "a ")
	case isInteger(t):
		return "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number"
	}
	return "a " + t.String()
}

// isInteger reports whether values of t are integers.
func isInteger(t reflect.Type) bool {
	return t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr
}

// checkFinite reports the first float of the description that holds NaN
// or an infinity (YAML's .nan, .inf, -.inf); the range checks then see
// finite numbers only.
func (c *Config) checkFinite() error {
	v := reflect.ValueOf(c).Elem()
	for _, row := range table.rows {
		if k := row.f.Type.Kind(); row.Section || (k != reflect.Float32 && k != reflect.Float64) {
			continue
		}
		if x := row.f.Value(v).Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			return c.fieldErr(row.Path, "%s = %v, allowed a finite number (%s)", row.Path, x, row.Range)
		}
	}
	return nil
}

// checkRanges reports the first field of the description outside its
// range.
func (c *Config) checkRanges() error {
	var re *fields.RangeError
	if err := table.t.Check(c, ""); errors.As(err, &re) {
		return c.fieldErr(re.Field.Path, "%s", re.Error())
	}
	return nil
}

// checkRange reports whether the field ptr points at is outside its
// range.
func (c *Config) checkRange(ptr any) error {
	row, _ := LookupField(c.FieldPath(ptr))
	if msg := row.rangeProblem(reflect.ValueOf(ptr).Elem()); msg != "" {
		return c.fieldErr(row.Path, "%s", msg)
	}
	return nil
}

// copyToFTL sets the ftl.Config fields the table pairs with description
// fields (the ftl tag).
func (c *Config) copyToFTL(fc *ftl.Config) {
	src, dst := reflect.ValueOf(c).Elem(), reflect.ValueOf(fc).Elem()
	for _, cp := range table.copies {
		dst.FieldByIndex(cp[1]).Set(src.FieldByIndex(cp[0]))
	}
}
