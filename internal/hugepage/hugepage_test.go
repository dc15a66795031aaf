package hugepage

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestInnerIsWholeHugePagesInside(t *testing.T) {
	buf := make([]byte, 5*Size)
	base := uintptr(unsafe.Pointer(&buf[0]))
	for _, c := range []struct{ off, n int }{{0, 5 * Size}, {1, 3 * Size}, {4095, Size + 10}, {7, 100}} {
		b := buf[c.off : c.off+c.n]
		in := inner(b)
		if len(in) == 0 {
			continue
		}
		a := uintptr(unsafe.Pointer(&in[0]))
		require.Zero(t, a%Size, "starts on a huge page")
		require.Zero(t, len(in)%Size, "whole huge pages")
		require.GreaterOrEqual(t, a, base+uintptr(c.off))
		require.LessOrEqual(t, a+uintptr(len(in)), base+uintptr(c.off+c.n))
		require.Greater(t, len(in), c.n-2*Size, "no more than a huge page lost at each end")
	}
	require.Nil(t, inner(buf[1:100]))
}

func TestAdviceKeepsTheTable(t *testing.T) {
	s := make([]uint32, 4*Min/4)
	Uint32s(s)
	for i := range s {
		s[i] = uint32(i)
	}
	for i := range s {
		if s[i] != uint32(i) {
			t.Fatalf("entry %d = %d", i, s[i])
		}
	}
	Uint32s(nil) // too small: nothing
}
