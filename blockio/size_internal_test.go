package blockio

import (
	"testing"
	"unsafe"
)

// A Request is copied by value through the engine's queues: it stays
// within one 64-byte cache line.
func TestRequestSize(t *testing.T) {
	if s := unsafe.Sizeof(Request{}); s > 64 {
		t.Fatalf("Request is %d bytes, more than 64", s)
	}
}

// TestOpDir: fio numbers its data directions read 0, write 1, trim 2; a
// zone append writes.
func TestOpDir(t *testing.T) {
	for _, c := range []struct {
		op   Op
		want int
	}{{Read, 0}, {Write, 1}, {ZoneAppend, 1}, {Trim, 2}, {Flush, 2}, {ZoneManage, 2}} {
		if got := c.op.Dir(); got != c.want {
			t.Errorf("%v.Dir() = %d, want %d", c.op, got, c.want)
		}
	}
}
