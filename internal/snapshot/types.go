package snapshot

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"reflect"
	"strconv"
	"sync"
	"unsafe"
)

// littleEndian is whether this machine stores integers little-endian:
// only then is a value's memory its encoding, and plain values are copied
// in bulk.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// field is a struct field the codec walks.
type field struct {
	name   string
	offset uintptr
	typ    reflect.Type
}

// typeInfo is what the codec needs to know of a type, worked out once.
type typeInfo struct {
	// plain: the value's memory is its encoding (scalars, and arrays and
	// structs of them without padding), on a little-endian machine.
	plain bool
	// hasBool: a plain type holding a bool, whose bytes a decoder must
	// check (only 0 and 1 are bools).
	hasBool bool
	// minEnc is the fewest bytes a value's encoding takes; a decoder
	// bounds lengths with it.
	minEnc int64
	fields []field // struct: the fields walked (func, chan and tagged ones left out)
	err    error   // the type cannot be encoded (unsafe.Pointer, uintptr)
}

// infoCache maps reflect.Type to *typeInfo; types never change, so it is
// shared by every encoder and decoder.
var infoCache sync.Map

func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := infoCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := buildInfo(t)
	infoCache.Store(t, ti)
	return ti
}

// skipped reports whether struct field f is left out: func and chan
// values, and fields tagged `snapshot:"-"`.
func skipped(f reflect.StructField) bool {
	k := f.Type.Kind()
	return k == reflect.Func || k == reflect.Chan || f.Tag.Get("snapshot") == "-"
}

// buildInfo works out t's info. It recurses only into arrays' elements and
// structs' fields, which Go does not let a type contain itself through.
func buildInfo(t reflect.Type) *typeInfo {
	ti := &typeInfo{}
	switch k := t.Kind(); k {
	case reflect.Bool:
		ti.plain, ti.hasBool, ti.minEnc = true, true, 1
	case reflect.Int, reflect.Uint:
		ti.plain, ti.minEnc = strconv.IntSize == 64, 8
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		ti.plain, ti.minEnc = true, int64(t.Size())
	case reflect.String, reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
		ti.minEnc = 1
	case reflect.Array:
		e := infoOf(t.Elem())
		ti.plain, ti.hasBool, ti.err = e.plain, e.hasBool, e.err
		ti.minEnc = e.minEnc * int64(t.Len())
	case reflect.Struct:
		ti.plain = true
		var sum uintptr
		for i := range t.NumField() {
			sf := t.Field(i)
			if skipped(sf) {
				ti.plain = false
				continue
			}
			fi := infoOf(sf.Type)
			if fi.err != nil && ti.err == nil {
				ti.err = fmt.Errorf("field %s: %w", sf.Name, fi.err)
			}
			ti.plain = ti.plain && fi.plain
			ti.hasBool = ti.hasBool || fi.hasBool
			ti.minEnc += fi.minEnc
			sum += sf.Type.Size()
			ti.fields = append(ti.fields, field{name: sf.Name, offset: sf.Offset, typ: sf.Type})
		}
		ti.plain = ti.plain && sum == t.Size()
	case reflect.Func, reflect.Chan:
		// skipped where they are fields; elsewhere (a slice of funcs)
		// written as nothing
	default: // UnsafePointer, Uintptr
		ti.err = fmt.Errorf("%w: a %s cannot be saved", ErrShape, t)
	}
	ti.plain = ti.plain && littleEndian && ti.err == nil
	return ti
}

// typeName names t with its package path: the name a snapshot records for
// an interface's dynamic type.
func typeName(t reflect.Type) string {
	if t.Name() != "" {
		if p := t.PkgPath(); p != "" {
			return p + "." + t.Name()
		}
		return t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + typeName(t.Elem())
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + typeName(t.Elem())
	case reflect.Map:
		return "map[" + typeName(t.Key()) + "]" + typeName(t.Elem())
	}
	return t.String()
}

// layoutCache maps reflect.Type to its layout hash ([32]byte).
var layoutCache sync.Map

// Layout returns a SHA-256 of the layout of t as the codec sees it: its
// kind and name, and recursively its fields' names and types, its
// elements', keys' and pointees' (interfaces by name only: their dynamic
// types are checked where they are met). Two builds whose state types
// differ in any way the codec could misread have different layouts.
func Layout(t reflect.Type) [32]byte {
	if h, ok := layoutCache.Load(t); ok {
		return h.([32]byte)
	}
	h := sha256.New()
	writeLayout(h, t, map[reflect.Type]int{})
	var sum [32]byte
	h.Sum(sum[:0])
	layoutCache.Store(t, sum)
	return sum
}

func writeLayout(h hash.Hash, t reflect.Type, seen map[reflect.Type]int) {
	if n, ok := seen[t]; ok {
		fmt.Fprintf(h, "#%d;", n)
		return
	}
	seen[t] = len(seen)
	fmt.Fprintf(h, "%s %s %d{", t.Kind(), typeName(t), t.Size())
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		writeLayout(h, t.Elem(), seen)
	case reflect.Array:
		fmt.Fprintf(h, "%d ", t.Len())
		writeLayout(h, t.Elem(), seen)
	case reflect.Map:
		writeLayout(h, t.Key(), seen)
		writeLayout(h, t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if skipped(sf) {
				fmt.Fprintf(h, "%s -;", sf.Name)
				continue
			}
			fmt.Fprintf(h, "%s %d ", sf.Name, sf.Offset)
			writeLayout(h, sf.Type, seen)
		}
	}
	h.Write([]byte("};"))
}
