package prefetch

import (
	"testing"
	"unsafe"
)

func TestLoadIsHarmless(t *testing.T) {
	s := make([]uint32, 1<<20)
	for i := range s {
		Load(unsafe.Pointer(&s[i]))
	}
	if testing.AllocsPerRun(100, func() { Load(unsafe.Pointer(&s[5])) }) != 0 {
		t.Fatal("Load allocates")
	}
}

func TestTouchKeepsTheValue(t *testing.T) {
	s := make([]uint32, 1<<20)
	for i := range s {
		if i%1000 == 0 {
			s[i] = uint32(i) * 2654435761
		}
		Touch(&s[i])
	}
	for i, v := range s {
		want := uint32(0)
		if i%1000 == 0 {
			want = uint32(i) * 2654435761
		}
		if v != want {
			t.Fatalf("element %d is %#x after Touch, want %#x", i, v, want)
		}
	}
	if testing.AllocsPerRun(100, func() { Touch(&s[5]) }) != 0 {
		t.Fatal("Touch allocates")
	}
}
