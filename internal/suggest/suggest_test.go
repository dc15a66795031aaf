package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"iodepth", "iodepth", 0},
		{"iodepht", "iodepth", 1}, // a swap of neighbours is one edit
		{"iodepth", "iodept", 1},
		{"consistencyy", "consistency", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no character edited twice
		{"größe", "grösse", 2},
	} {
		assert.Equal(t, c.want, Distance(c.a, c.b), "%q → %q", c.a, c.b)
		assert.Equal(t, c.want, Distance(c.b, c.a), "%q → %q", c.b, c.a)
	}
}

func TestClosest(t *testing.T) {
	known := []string{"iodepth", "io_size", "bs", "bsrange", "bssplit", "rw", "rwmixread", "rwmixwrite", "runtime", "ramp_time"}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"iodepht", []string{"iodepth"}},
		{"IODEPTH", []string{"iodepth"}},
		{"rwmixred", []string{"rwmixread"}},
		{"rwmix", nil},               // two edits from nothing known within a third of 5
		{"bw", []string{"bs", "rw"}}, // ties are all given, sorted
		{"xyzzy", nil},
		{"", nil},
	} {
		assert.Equal(t, c.want, Closest(c.name, known), c.name)
	}
}

func TestDidYouMean(t *testing.T) {
	known := []string{"aa", "ab", "ac", "ad"}
	assert.Equal(t, " (did you mean --iodepth?)", DidYouMean("iodepht", []string{"iodepth", "size"}, "--"))
	assert.Equal(t, " (did you mean aa, ab or ac?)", DidYouMean("ax", known, ""), "at most three")
	assert.Equal(t, " (did you mean bs or rw?)", DidYouMean("bw", []string{"rw", "bs"}, ""))
	assert.Equal(t, "", DidYouMean("qqqqqqq", known, "--"))
}
