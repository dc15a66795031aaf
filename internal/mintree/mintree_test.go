package mintree

import (
	"testing"

	"pgregory.net/rapid"
)

// TestAgainstScan sets random leaves of trees of 1 to 70 leaves and
// checks Min, ArgMin and First against reading every leaf.
func TestAgainstScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 70).Draw(t, "n")
		v0 := rapid.Int64Range(0, 5).Draw(t, "v0")
		tr := New(n, v0)
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = v0
		}
		for range rapid.IntRange(1, 100).Draw(t, "steps") {
			i := rapid.IntRange(0, n-1).Draw(t, "i")
			v := rapid.Int64Range(0, 8).Draw(t, "v")
			if v == 8 {
				v = Empty
			}
			tr.Set(i, v)
			vals[i] = v
			least, arg := int64(Empty), 0
			for k, x := range vals {
				if x < least {
					least, arg = x, k
				}
			}
			if tr.Min() != least || tr.Get(i) != v {
				t.Fatalf("Min %d, want %d; Get(%d) %d, want %d", tr.Min(), least, i, tr.Get(i), v)
			}
			if least != Empty && tr.ArgMin() != arg {
				t.Fatalf("ArgMin %d, want %d (%v)", tr.ArgMin(), arg, vals)
			}
			from := rapid.IntRange(0, n-1).Draw(t, "from")
			bound := rapid.Int64Range(0, 8).Draw(t, "bound")
			want := -1
			for k := from; k < n; k++ {
				if vals[k] <= bound {
					want = k
					break
				}
			}
			if got := tr.First(from, bound); got != want {
				t.Fatalf("First(%d, %d) = %d, want %d (%v)", from, bound, got, want, vals)
			}
		}
	})
}
