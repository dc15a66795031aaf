package fields

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

type size int64

func (s size) MarshalText() ([]byte, error) { return []byte("0"), nil }

type sample struct {
	N     int     `yaml:"n" range:"0|2..1024" default:"0: off"`
	F     float64 `yaml:"f" range:"0..0.1"`
	S     size    `yaml:"s" range:"1KiB.."`
	W     string  `yaml:"w" range:"fold|direct"`
	L     []int64 `yaml:"l" range:"1..9"`
	Inner struct {
		X int `yaml:"x,omitempty" range:"..5"`
	} `yaml:"inner"`
	Skip int `yaml:"-"`
}

func TestRanges(t *testing.T) {
	tb, err := Of(reflect.TypeFor[sample]())
	require.NoError(t, err)
	var paths []string
	for _, f := range tb.Fields() {
		paths = append(paths, f.Path)
	}
	require.Equal(t, []string{"n", "f", "s", "w", "l", "inner", "inner.x"}, paths)
	n, _ := tb.Lookup("n")
	require.Equal(t, "0 (off) or 2..1024", n.Allowed())
	for _, tc := range []struct {
		edit func(*sample)
		want string
	}{
		{func(s *sample) {}, ""},
		{func(s *sample) { s.N = 1 }, "n = 1, allowed 0 (off) or 2..1024"},
		{func(s *sample) { s.F = 0.2 }, "f = 0.2, allowed 0..0.1"},
		{func(s *sample) { s.S = 10 }, "s = 0, allowed at least 1KiB"},
		{func(s *sample) { s.W = "bogus" }, `w = "bogus", allowed fold or direct`},
		{func(s *sample) { s.L = []int64{3, 10} }, "l[1] = 10, allowed 1..9"},
		{func(s *sample) { s.Inner.X = 6 }, "inner.x = 6, allowed at most 5"},
	} {
		s := sample{S: 2048, L: []int64{1}}
		tc.edit(&s)
		err := tb.Check(&s, "")
		if tc.want == "" {
			require.NoError(t, err)
			continue
		}
		require.EqualError(t, err, tc.want)
	}
	var s sample
	require.Equal(t, "inner.x", PathOf(&s, &s.Inner.X))
	require.Equal(t, "inner", PathOf(&s, &s.Inner))
	_, err = ParseRange("1..x", reflect.TypeFor[int]())
	require.Error(t, err)
}
