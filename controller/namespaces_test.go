package controller

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSplitNamespaces: the user capacity in equal namespaces of whole
// units, in LBA order from 1, the last taking the rest; 0 and 1 are one.
func TestSplitNamespaces(t *testing.T) {
	cases := []struct {
		capacity, unit int64
		n              int
		want           []Namespace
	}{
		{1 << 30, 4096, 0, []Namespace{{1, 0, 1 << 30}}},
		{1 << 30, 4096, 1, []Namespace{{1, 0, 1 << 30}}},
		{1 << 30, 4096, 4, []Namespace{{1, 0, 256 << 20}, {2, 256 << 20, 256 << 20}, {3, 512 << 20, 256 << 20}, {4, 768 << 20, 256 << 20}}},
		{10 * 4096, 4096, 3, []Namespace{{1, 0, 3 * 4096}, {2, 3 * 4096, 3 * 4096}, {3, 6 * 4096, 4 * 4096}}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, splitNamespaces(c.capacity, c.unit, c.n), "%+v", c)
	}
}
