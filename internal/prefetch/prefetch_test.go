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
