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
