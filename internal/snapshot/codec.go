package snapshot

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"unsafe"
)

// Errors of the codec. Decode wraps them with what it was reading.
var (
	// ErrLayout: the state was written by a build whose types differ.
	ErrLayout = errors.New("snapshot: written by a build of ftlsim whose drive state differs from this one's")
	// ErrShape: the graph cannot be saved (a value of a kind the codec
	// refuses), or cannot be restored into the fresh graph (an interface
	// it leaves nil or fills with another type).
	ErrShape = errors.New("snapshot: state does not fit")
	// ErrShared: two slices, or a slice and a pointer, share memory,
	// which Decode could not restore.
	ErrShared = errors.New("snapshot: shared memory the codec cannot restore")
	// ErrCorrupt: the stream is malformed.
	ErrCorrupt = errors.New("snapshot: corrupt state")
)

// Pointer encodings: nil, a target met for the first time (followed by
// it), or a back reference (ptrRef + its number).
const (
	ptrNil = 0
	ptrNew = 1
	ptrRef = 2
)

// Encode writes the state of the graph reachable from root, a non-nil
// pointer to a struct, to w, and returns the bytes written (the stream's
// raw length, which Decode needs).
func Encode(w io.Writer, root any) (int64, error) {
	v := reflect.ValueOf(root)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return 0, fmt.Errorf("%w: root must be a non-nil pointer to a struct, not %T", ErrShape, root)
	}
	cw := &countWriter{w: w}
	e := &encoder{w: bufio.NewWriterSize(cw, 1<<16), ptrs: map[ptrKey]uint64{}, maps: map[unsafe.Pointer]bool{}}
	layout := Layout(v.Type())
	e.w.Write(layout[:])
	e.field = "(root)"
	e.pointer(v.UnsafePointer(), v.Type())
	if e.err == nil {
		e.err = e.checkShared()
	}
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return cw.n, e.err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type ptrKey struct {
	p unsafe.Pointer
	t reflect.Type
}

// span is memory the graph holds: a slice's backing array or a pointer's
// target; two may not overlap.
type span struct {
	start, end uintptr
	what       string // the field that holds it, and its type
}

type encoder struct {
	w     *bufio.Writer
	err   error
	ptrs  map[ptrKey]uint64
	maps  map[unsafe.Pointer]bool
	spans []span
	field string // the struct field being written, for ErrShared
	buf   [binary.MaxVarintLen64]byte
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

func (e *encoder) uvarint(x uint64) {
	n := binary.PutUvarint(e.buf[:], x)
	e.w.Write(e.buf[:n])
}

func (e *encoder) raw(p unsafe.Pointer, n uintptr) {
	if n > 0 {
		e.w.Write(unsafe.Slice((*byte)(p), n))
	}
}

func (e *encoder) fixed(x uint64, size int) {
	binary.LittleEndian.PutUint64(e.buf[:8], x)
	e.w.Write(e.buf[:size])
}

func (e *encoder) note(p unsafe.Pointer, n uintptr, t reflect.Type) {
	if n > 0 {
		e.spans = append(e.spans, span{start: uintptr(p), end: uintptr(p) + n, what: e.field + " (" + t.String() + ")"})
	}
}

// value writes the value of type t at p.
func (e *encoder) value(p unsafe.Pointer, t reflect.Type) {
	if e.err != nil {
		return
	}
	ti := infoOf(t)
	if ti.err != nil {
		e.fail(ti.err)
		return
	}
	if ti.plain {
		e.raw(p, t.Size())
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		b := byte(0)
		if *(*bool)(p) {
			b = 1
		}
		e.w.WriteByte(b)
	case reflect.Int:
		e.fixed(uint64(*(*int)(p)), 8)
	case reflect.Uint:
		e.fixed(uint64(*(*uint)(p)), 8)
	case reflect.Int8, reflect.Uint8:
		e.fixed(uint64(*(*uint8)(p)), 1)
	case reflect.Int16, reflect.Uint16:
		e.fixed(uint64(*(*uint16)(p)), 2)
	case reflect.Int32, reflect.Uint32:
		e.fixed(uint64(*(*uint32)(p)), 4)
	case reflect.Int64, reflect.Uint64:
		e.fixed(*(*uint64)(p), 8)
	case reflect.Float32:
		e.fixed(uint64(math.Float32bits(*(*float32)(p))), 4)
	case reflect.Float64:
		e.fixed(math.Float64bits(*(*float64)(p)), 8)
	case reflect.Complex64:
		c := *(*complex64)(p)
		e.fixed(uint64(math.Float32bits(real(c))), 4)
		e.fixed(uint64(math.Float32bits(imag(c))), 4)
	case reflect.Complex128:
		c := *(*complex128)(p)
		e.fixed(math.Float64bits(real(c)), 8)
		e.fixed(math.Float64bits(imag(c)), 8)
	case reflect.String:
		s := *(*string)(p)
		e.uvarint(uint64(len(s)))
		e.w.WriteString(s)
	case reflect.Array:
		et, n := t.Elem(), t.Len()
		for i := range n {
			e.value(unsafe.Add(p, uintptr(i)*et.Size()), et)
		}
	case reflect.Struct:
		outer := e.field
		for _, f := range ti.fields {
			e.field = f.name
			e.value(unsafe.Add(p, f.offset), f.typ)
		}
		e.field = outer
	case reflect.Slice:
		e.slice(p, t)
	case reflect.Pointer:
		e.pointer(*(*unsafe.Pointer)(p), t)
	case reflect.Interface:
		e.iface(reflect.NewAt(t, p).Elem())
	case reflect.Map:
		e.mapValue(reflect.NewAt(t, p).Elem())
	case reflect.Func, reflect.Chan:
		// wiring, not state
	default:
		e.fail(fmt.Errorf("%w: a %s cannot be saved", ErrShape, t))
	}
}

func (e *encoder) slice(p unsafe.Pointer, t reflect.Type) {
	v := reflect.NewAt(t, p).Elem()
	if v.IsNil() {
		e.uvarint(0)
		return
	}
	n := v.Len()
	e.uvarint(uint64(n) + 1)
	et := t.Elem()
	data := v.UnsafePointer()
	e.note(data, uintptr(v.Cap())*et.Size(), t)
	if infoOf(et).plain {
		e.raw(data, uintptr(n)*et.Size())
		return
	}
	for i := range n {
		e.value(unsafe.Add(data, uintptr(i)*et.Size()), et)
	}
}

func (e *encoder) pointer(p unsafe.Pointer, t reflect.Type) {
	if p == nil {
		e.uvarint(ptrNil)
		return
	}
	et := t.Elem()
	k := ptrKey{p, et}
	if id, ok := e.ptrs[k]; ok {
		e.uvarint(ptrRef + id)
		return
	}
	e.ptrs[k] = uint64(len(e.ptrs))
	e.uvarint(ptrNew)
	e.note(p, et.Size(), t)
	e.value(p, et)
}

func (e *encoder) iface(v reflect.Value) {
	if v.IsNil() {
		e.uvarint(0)
		return
	}
	dyn := v.Elem()
	dt := dyn.Type()
	e.uvarint(1)
	name := typeName(dt)
	e.uvarint(uint64(len(name)))
	e.w.WriteString(name)
	l := Layout(dt)
	e.w.Write(l[:8])
	tmp := reflect.New(dt)
	tmp.Elem().Set(dyn)
	e.value(tmp.UnsafePointer(), dt)
}

func (e *encoder) mapValue(v reflect.Value) {
	if v.IsNil() {
		e.uvarint(0)
		return
	}
	t := v.Type()
	if mp := v.UnsafePointer(); e.maps[mp] {
		e.fail(fmt.Errorf("%w: field %s: a %s shared by two owners", ErrShared, e.field, t))
		return
	} else {
		e.maps[mp] = true
	}
	if !pointerFree(t.Key()) {
		e.fail(fmt.Errorf("%w: field %s: a %s: map keys must hold no pointers", ErrShape, e.field, t))
		return
	}
	e.uvarint(uint64(v.Len()) + 1)
	// Keys in the order of their encoding, so that the stream does not
	// depend on the map's iteration order.
	type entry struct {
		key []byte
		k   reflect.Value
	}
	var entries []entry
	var b bytes.Buffer
	ke := &encoder{w: bufio.NewWriterSize(&b, 64), ptrs: map[ptrKey]uint64{}, maps: map[unsafe.Pointer]bool{}}
	k := reflect.New(t.Key())
	for it := v.MapRange(); it.Next(); {
		k.Elem().Set(it.Key())
		b.Reset()
		ke.value(k.UnsafePointer(), t.Key())
		if ke.err != nil {
			e.fail(ke.err)
			return
		}
		ke.w.Flush()
		entries = append(entries, entry{bytes.Clone(b.Bytes()), it.Key()})
	}
	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].key, entries[j].key) < 0 })
	for _, en := range entries {
		e.w.Write(en.key)
		val := reflect.New(t.Elem())
		val.Elem().Set(v.MapIndex(en.k))
		e.value(val.UnsafePointer(), t.Elem())
	}
}

// pointerFree reports whether values of t hold no pointers (map keys
// are written without identity).
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return false
	}
	return true
}

// checkShared refuses a graph in which two spans overlap.
func (e *encoder) checkShared() error {
	slices.SortFunc(e.spans, func(a, b span) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	for i := 1; i < len(e.spans); i++ {
		if a, b := e.spans[i-1], e.spans[i]; b.start < a.end {
			return fmt.Errorf("%w: %s and %s", ErrShared, a.what, b.what)
		}
	}
	return nil
}
