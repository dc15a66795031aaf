package bulk

import "testing"

func TestFill(t *testing.T) {
	for _, n := range []int{0, 1, 7, chunk - 1, chunk, chunk + 1, 3*chunk + 5, 1 << 22} {
		s := Uint32s(int64(n), 0xdeadbeef)
		if len(s) != n {
			t.Fatalf("Uint32s(%d) has %d elements", n, len(s))
		}
		for i, x := range s {
			if x != 0xdeadbeef {
				t.Fatalf("n=%d: element %d is %#x", n, i, x)
			}
		}
	}
	z := Uint32s(5<<20, 0)
	for i, x := range z {
		if x != 0 {
			t.Fatalf("zeroed element %d is %#x", i, x)
		}
	}
}
