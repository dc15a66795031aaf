// Package fields reads a table of configuration fields from struct tags,
// so that each field is declared once, where it is defined: its name, Go
// type, unit, allowed range, default, layer and a one-line description.
// Range checks, documentation and look-ups by name are derived from that
// declaration instead of being written again.
//
// The tags read, besides yaml (the field's name; "-" leaves it out):
//
//	range:"1..64"        allowed values (see ParseRange); none: any
//	unit:"ns"            the unit of the value
//	default:"0: off"     what leaving the field out (its zero value) means
//	layer:"firmware"     what the value describes (free text to this package)
//	doc:"…"              a one-line description
//
// A struct-typed field that does not unmarshal itself from text is a
// section: its fields are named below it (section.field). Every other
// field is a leaf.
package fields

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Field is one field of a table: a leaf, or a section holding leaves.
type Field struct {
	// Path is the dotted path of YAML names from the table's root
	// ("geometry.channels").
	Path string
	// Name is the last element of Path.
	Name string
	// GoPath is the dotted path of Go field names ("Geometry.Channels").
	GoPath string
	// Type is the field's Go type.
	Type reflect.Type
	// Index is the field's index sequence from the root
	// (reflect.Value.FieldByIndex).
	Index []int
	// Offset is the field's byte offset from the start of the root.
	Offset uintptr
	// Section is set for a struct of fields.
	Section bool
	// OmitEmpty is the yaml tag's omitempty: the field is left out of a
	// marshalled description when zero.
	OmitEmpty bool
	// Range is the allowed values (the range tag).
	Range Range
	// Unit, Default, Layer and Doc are the tags of the same names.
	Unit, Default, Layer, Doc string
	// Tag is the field's whole struct tag, for tags this package does not
	// read.
	Tag reflect.StructTag
}

// Table is the fields of a struct type, in declaration order (a section
// before its fields).
type Table struct {
	root   reflect.Type
	fields []Field
	byPath map[string]int
}

// cache maps a root type to its *Table; types never change, so tables
// are shared.
var cache sync.Map

// Of returns the table of struct type t (a pointer to struct is taken as
// the struct). It fails on a malformed range tag.
func Of(t reflect.Type) (*Table, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v, ok := cache.Load(t); ok {
		return v.(*Table), nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("fields: %s is not a struct", t)
	}
	tb := &Table{root: t, byPath: map[string]int{}}
	if err := tb.walk(t, nil, "", "", 0); err != nil {
		return nil, err
	}
	cache.Store(t, tb)
	return tb, nil
}

// MustOf is Of for tables declared in the program's own types: a
// malformed tag is a programming error, and it panics.
func MustOf(t reflect.Type) *Table {
	tb, err := Of(t)
	if err != nil {
		panic(err)
	}
	return tb
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// IsLeaf reports whether a field of type t is a leaf: not a struct, or a
// struct that unmarshals itself from text.
func IsLeaf(t reflect.Type) bool {
	return t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(textUnmarshaler)
}

func (tb *Table) walk(t reflect.Type, index []int, path, goPath string, offset uintptr) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name) // yaml's default
		}
		f := Field{
			Path: join(path, name), Name: name, GoPath: join(goPath, sf.Name), Type: sf.Type,
			Index: append(append([]int(nil), index...), i), Offset: offset + sf.Offset,
			Section: !IsLeaf(sf.Type), OmitEmpty: strings.Contains(","+opts+",", ",omitempty,"),
			Unit: sf.Tag.Get("unit"), Default: sf.Tag.Get("default"), Layer: sf.Tag.Get("layer"),
			Doc: sf.Tag.Get("doc"), Tag: sf.Tag,
		}
		r, err := ParseRange(sf.Tag.Get("range"), sf.Type)
		if err != nil {
			return fmt.Errorf("fields: %s.%s: %w", tb.root, f.GoPath, err)
		}
		f.Range = r
		tb.byPath[f.Path] = len(tb.fields)
		tb.fields = append(tb.fields, f)
		if f.Section {
			if err := tb.walk(sf.Type, f.Index, f.Path, f.GoPath, f.Offset); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// Fields returns the table's fields, sections and leaves, in declaration
// order. The slice is the caller's.
func (tb *Table) Fields() []Field { return append([]Field(nil), tb.fields...) }

// Lookup returns the field at path.
func (tb *Table) Lookup(path string) (Field, bool) {
	i, ok := tb.byPath[path]
	if !ok {
		return Field{}, false
	}
	return tb.fields[i], true
}

// Named returns the leaves whose name (the last element of the path) is
// name.
func (tb *Table) Named(name string) []Field {
	var out []Field
	for _, f := range tb.fields {
		if f.Name == name && !f.Section {
			out = append(out, f)
		}
	}
	return out
}

// At returns the field that ptr points at inside root, both pointers:
// At(&cfg, &cfg.Geometry.Channels) is the field geometry.channels. The
// field is found by its offset and type, so it names fields without
// writing their names.
func (tb *Table) At(root, ptr any) (Field, bool) {
	rv, pv := reflect.ValueOf(root), reflect.ValueOf(ptr)
	if rv.Kind() != reflect.Pointer || pv.Kind() != reflect.Pointer || rv.IsNil() || pv.IsNil() {
		return Field{}, false
	}
	if pv.Pointer() < rv.Pointer() {
		return Field{}, false
	}
	off, t := pv.Pointer()-rv.Pointer(), pv.Type().Elem()
	for _, f := range tb.fields {
		if f.Offset == off && f.Type == t {
			return f, true
		}
	}
	return Field{}, false
}

// PathOf returns the path of the field ptr points at inside root (see
// Table.At); it panics when ptr is not a field of root, which is a
// programming error.
func PathOf(root, ptr any) string {
	f, ok := MustOf(reflect.TypeOf(root)).At(root, ptr)
	if !ok {
		panic(fmt.Sprintf("fields: %T is not a field of %T", ptr, root))
	}
	return f.Path
}

// Value returns field f of root, a struct or a pointer to one.
func (f Field) Value(root reflect.Value) reflect.Value {
	return reflect.Indirect(root).FieldByIndex(f.Index)
}

// RangeError is a value outside its field's range.
type RangeError struct {
	// Field is the field, Value its value as text (with its index for an
	// element of a list: Path is then "field[i]").
	Field Field
	Path  string
	Value string
}

// Error says "path = value, allowed range".
func (e *RangeError) Error() string {
	return fmt.Sprintf("%s = %s, allowed %s", e.Path, e.Value, e.Field.Allowed())
}

// Allowed writes the field's range, with what its zero value means where
// the default says ("0 (off) or 2..1024" for default "0: off").
func (f Field) Allowed() string {
	if v, meaning, ok := strings.Cut(f.Default, ": "); ok {
		return f.Range.annotated(v, meaning)
	}
	return f.Range.String()
}

// Check reports the first leaf of root (a struct or a pointer to one) whose
// value is outside its range, in declaration order, as a *RangeError;
// prefix, when given, is put before every path ("nand." + ...).
func (tb *Table) Check(root any, prefix string) error {
	rv := reflect.Indirect(reflect.ValueOf(root))
	for _, f := range tb.fields {
		if f.Section || f.Range.Empty() {
			continue
		}
		v := f.Value(rv)
		path := prefix + f.Path
		if v.Kind() == reflect.Slice || v.Kind() == reflect.Array {
			for i := range v.Len() {
				if !f.Range.Contains(v.Index(i)) {
					return &RangeError{Field: f, Path: fmt.Sprintf("%s[%d]", path, i), Value: f.Range.show(v.Index(i))}
				}
			}
			continue
		}
		if !f.Range.Contains(v) {
			return &RangeError{Field: f, Path: path, Value: f.Range.show(v)}
		}
	}
	return nil
}

// Text writes a value as a description holds it: a size with its units,
// a named value by its name, a number in Go's shortest form.
func Text(v reflect.Value) string {
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		if b, err := m.MarshalText(); err == nil {
			return string(b)
		}
	}
	if v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprint(v.Interface())
}
