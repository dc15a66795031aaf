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
	"unsafe"
)

// Decode restores the state that Encode wrote (rawLen bytes) into the
// graph reachable from root, a pointer of the type Encode was given,
// normally to an object built afresh from the same description: values
// are overwritten in place, the fresh graph's objects and backing arrays
// reused where they are. A stream written from another type is refused
// with ErrLayout; a malformed one with ErrCorrupt, never with a panic or
// an allocation beyond what the stream's length allows. After an error the
// graph is in an undefined state and must be dropped.
func Decode(r io.Reader, rawLen int64, root any) error {
	v := reflect.ValueOf(root)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%w: root must be a non-nil pointer to a struct, not %T", ErrShape, root)
	}
	d := &decoder{r: bufio.NewReaderSize(r, 1<<16), left: rawLen, claimed: map[unsafe.Pointer]bool{}}
	var layout [32]byte
	d.read(layout[:])
	if d.err != nil {
		return d.err
	}
	if layout != Layout(v.Type()) {
		return ErrLayout
	}
	// The root: its pointer is the first target; it is restored into
	// the object given.
	if tag := d.uvarint(); d.err == nil && tag != ptrNew {
		return fmt.Errorf("%w: the root is not a new object (%d)", ErrCorrupt, tag)
	}
	d.claimed[v.UnsafePointer()] = true
	d.ptrs = append(d.ptrs, v)
	d.field = "(root)"
	d.value(v.UnsafePointer(), v.Type().Elem())
	if d.err != nil {
		return d.err
	}
	if d.left != 0 {
		return fmt.Errorf("%w: %d bytes left after the state", ErrCorrupt, d.left)
	}
	return nil
}

type decoder struct {
	r       *bufio.Reader
	err     error
	left    int64 // stream bytes not yet read
	ptrs    []reflect.Value
	claimed map[unsafe.Pointer]bool // fresh objects and arrays restored into
	field   string
	buf     [16]byte
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) corrupt(format string, a ...any) {
	d.fail(fmt.Errorf("%w: field %s: %s", ErrCorrupt, d.field, fmt.Sprintf(format, a...)))
}

// read fills b from the stream.
func (d *decoder) read(b []byte) {
	if d.err != nil {
		for i := range b {
			b[i] = 0
		}
		return
	}
	if int64(len(b)) > d.left {
		d.corrupt("needs %d bytes, %d left", len(b), d.left)
		return
	}
	if _, err := io.ReadFull(d.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			d.corrupt("the stream ends early")
		} else {
			d.fail(err)
		}
		return
	}
	d.left -= int64(len(b))
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if shift > 63 {
			d.corrupt("bad varint")
			return 0
		}
		d.read(d.buf[:1])
		if d.err != nil {
			return 0
		}
		b := d.buf[0]
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x
		}
	}
}

func (d *decoder) fixed(size int) uint64 {
	d.buf = [16]byte{}
	d.read(d.buf[:size])
	return binary.LittleEndian.Uint64(d.buf[:8])
}

// count reads a length of elements whose encodings take at least minEnc
// bytes each, and checks that the stream can hold them.
func (d *decoder) count(minEnc int64) int {
	n := d.uvarint()
	switch {
	case d.err != nil:
		return 0
	case minEnc > 0 && n > uint64(d.left/minEnc):
		d.corrupt("%d elements, the stream has %d bytes left", n, d.left)
		return 0
	case minEnc == 0 && n > 1<<20:
		d.corrupt("%d empty elements", n)
		return 0
	}
	return int(n)
}

func (d *decoder) checkBools(b []byte) {
	for _, x := range b {
		if x > 1 {
			d.corrupt("bool byte %d", x)
			return
		}
	}
}

// value reads the value of type t into p.
func (d *decoder) value(p unsafe.Pointer, t reflect.Type) {
	if d.err != nil {
		return
	}
	ti := infoOf(t)
	if ti.err != nil {
		d.fail(ti.err)
		return
	}
	if ti.plain && !ti.hasBool {
		d.read(unsafe.Slice((*byte)(p), t.Size()))
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		b := d.fixed(1)
		if b > 1 {
			d.corrupt("bool byte %d", b)
		}
		*(*bool)(p) = b == 1
	case reflect.Int:
		*(*int)(p) = int(d.fixed(8))
	case reflect.Uint:
		*(*uint)(p) = uint(d.fixed(8))
	case reflect.Int8, reflect.Uint8:
		*(*uint8)(p) = uint8(d.fixed(1))
	case reflect.Int16, reflect.Uint16:
		*(*uint16)(p) = uint16(d.fixed(2))
	case reflect.Int32, reflect.Uint32:
		*(*uint32)(p) = uint32(d.fixed(4))
	case reflect.Int64, reflect.Uint64:
		*(*uint64)(p) = d.fixed(8)
	case reflect.Float32:
		*(*float32)(p) = math.Float32frombits(uint32(d.fixed(4)))
	case reflect.Float64:
		*(*float64)(p) = math.Float64frombits(d.fixed(8))
	case reflect.Complex64:
		re := math.Float32frombits(uint32(d.fixed(4)))
		im := math.Float32frombits(uint32(d.fixed(4)))
		*(*complex64)(p) = complex(re, im)
	case reflect.Complex128:
		re := math.Float64frombits(d.fixed(8))
		im := math.Float64frombits(d.fixed(8))
		*(*complex128)(p) = complex(re, im)
	case reflect.String:
		n := d.count(1)
		b := make([]byte, n)
		d.read(b)
		*(*string)(p) = string(b)
	case reflect.Array:
		et, n := t.Elem(), t.Len()
		for i := range n {
			d.value(unsafe.Add(p, uintptr(i)*et.Size()), et)
		}
	case reflect.Struct:
		outer := d.field
		for _, f := range ti.fields {
			d.field = f.name
			d.value(unsafe.Add(p, f.offset), f.typ)
		}
		d.field = outer
	case reflect.Slice:
		d.slice(p, t)
	case reflect.Pointer:
		d.pointer(reflect.NewAt(t, p).Elem())
	case reflect.Interface:
		d.iface(reflect.NewAt(t, p).Elem())
	case reflect.Map:
		d.mapValue(reflect.NewAt(t, p).Elem())
	case reflect.Func, reflect.Chan:
	default:
		d.fail(fmt.Errorf("%w: a %s cannot be restored", ErrShape, t))
	}
}

func (d *decoder) slice(p unsafe.Pointer, t reflect.Type) {
	v := reflect.NewAt(t, p).Elem()
	tag := d.uvarint()
	if d.err != nil {
		return
	}
	if tag == 0 {
		v.SetZero()
		return
	}
	et := t.Elem()
	eti := infoOf(et)
	n := tag - 1
	if eti.minEnc > 0 && n > uint64(d.left/eti.minEnc) || eti.minEnc == 0 && n > 1<<20 {
		d.corrupt("%d elements, the stream has %d bytes left", n, d.left)
		return
	}
	size := et.Size()
	// The fresh slice's array is reused when it is large enough and no
	// other slice was restored into it.
	if cur := v.UnsafePointer(); !v.IsNil() && uint64(v.Cap()) >= n && (v.Cap() == 0 || size == 0 || !d.claimed[cur]) {
		if v.Cap() > 0 && size > 0 {
			d.claimed[cur] = true
		}
		v.Set(v.Slice(0, int(n)))
	} else {
		v.Set(reflect.MakeSlice(t, int(n), int(n)))
	}
	data := v.UnsafePointer()
	if eti.plain && (!eti.hasBool || et.Kind() == reflect.Bool) {
		b := unsafe.Slice((*byte)(data), uintptr(n)*size)
		d.read(b)
		if eti.hasBool {
			d.checkBools(b)
		}
		return
	}
	for i := range int(n) {
		d.value(unsafe.Add(data, uintptr(i)*size), et)
	}
}

// pointer reads a pointer into v (settable, of pointer type).
func (d *decoder) pointer(v reflect.Value) {
	tag := d.uvarint()
	switch {
	case d.err != nil:
		return
	case tag == ptrNil:
		v.SetZero()
		return
	case tag >= ptrRef:
		id := tag - ptrRef
		if id >= uint64(len(d.ptrs)) {
			d.corrupt("reference to object %d of %d", id, len(d.ptrs))
			return
		}
		if p := d.ptrs[id]; p.Type() != v.Type() {
			d.corrupt("reference to a %s where a %s is", p.Type(), v.Type())
		} else {
			v.Set(p)
		}
		return
	}
	// The target: the fresh graph's object here, unless another was
	// restored into it already.
	et := v.Type().Elem()
	var target reflect.Value
	if v.IsNil() || d.claimed[v.UnsafePointer()] || et.Size() == 0 {
		target = reflect.New(et)
	} else {
		target = reflect.NewAt(et, v.UnsafePointer())
		d.claimed[v.UnsafePointer()] = true
	}
	d.ptrs = append(d.ptrs, target)
	d.value(target.UnsafePointer(), et)
	v.Set(target)
}

// iface reads an interface into v, restoring its dynamic value in place
// of the fresh graph's, which must be of the same type.
func (d *decoder) iface(v reflect.Value) {
	tag := d.uvarint()
	switch {
	case d.err != nil:
		return
	case tag == 0:
		v.SetZero()
		return
	case tag != 1:
		d.corrupt("interface tag %d", tag)
		return
	}
	n := d.count(1)
	name := make([]byte, n)
	d.read(name)
	var layout [8]byte
	d.read(layout[:])
	if d.err != nil {
		return
	}
	if v.IsNil() {
		d.fail(fmt.Errorf("%w: field %s holds a %s; the drive built here holds nothing there (built from another description?)", ErrShape, d.field, name))
		return
	}
	dt := v.Elem().Type()
	l := Layout(dt)
	if typeName(dt) != string(name) || !bytes.Equal(l[:8], layout[:]) {
		d.fail(fmt.Errorf("%w: field %s holds a %s; the drive built here holds a %s there", ErrShape, d.field, name, typeName(dt)))
		return
	}
	tmp := reflect.New(dt)
	tmp.Elem().Set(v.Elem())
	d.value(tmp.UnsafePointer(), dt)
	v.Set(tmp.Elem())
}

func (d *decoder) mapValue(v reflect.Value) {
	tag := d.uvarint()
	if d.err != nil {
		return
	}
	if tag == 0 {
		v.SetZero()
		return
	}
	t := v.Type()
	if !pointerFree(t.Key()) {
		d.fail(fmt.Errorf("%w: field %s: a %s: map keys must hold no pointers", ErrShape, d.field, t))
		return
	}
	n := tag - 1
	minEnc := infoOf(t.Key()).minEnc + infoOf(t.Elem()).minEnc
	if minEnc > 0 && n > uint64(d.left/minEnc) || minEnc == 0 && n > 1<<20 {
		d.corrupt("%d map entries, the stream has %d bytes left", n, d.left)
		return
	}
	m := reflect.MakeMapWithSize(t, int(n))
	for range n {
		k := reflect.New(t.Key())
		d.value(k.UnsafePointer(), t.Key())
		val := reflect.New(t.Elem())
		if !v.IsNil() {
			if fv := v.MapIndex(k.Elem()); fv.IsValid() {
				val.Elem().Set(fv) // the fresh entry's objects are reused
			}
		}
		d.value(val.UnsafePointer(), t.Elem())
		if d.err != nil {
			return
		}
		m.SetMapIndex(k.Elem(), val.Elem())
	}
	v.Set(m)
}
