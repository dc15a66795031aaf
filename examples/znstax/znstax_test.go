package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The store on 16 GiB of the ZNS preset's flash: with a write point per
// active zone, or each writer's zones on dies of their own, resets free
// whole blocks and nothing is copied
// (WA at most 1.01), so the zoned drive writes faster than the
// conventional one of the same capacity, whose blocks mix the writers'
// data of different lifetimes; 28 % spare copies less than 7 % and holds
// less.
func TestCompare(t *testing.T) {
	ds, err := Compare(16<<30, 4)
	require.NoError(t, err)
	by := map[string]Drive{}
	for _, d := range ds {
		by[d.Name] = d
		t.Logf("%+v", d)
	}
	zns, c7, c28 := by["ZNS, a writer's zones on 8 dies"], by["conventional, 7 % spare"], by["conventional, 28 % spare"]
	require.NotZero(t, zns.CapacityBytes)
	assert.LessOrEqual(t, zns.WA, 1.01)
	// The preset's zones, striped over every die, keep apart with a
	// write point each, and interleave with one.
	p, one := by["ZNS preset (zones over all dies)"], by["the preset with one write point"]
	assert.LessOrEqual(t, p.WA, 1.01)
	assert.Greater(t, p.WriteMBps, c7.WriteMBps)
	assert.Greater(t, one.WA, 1.2)
	assert.Greater(t, c7.WA, 1.2)
	assert.Less(t, c28.WA, c7.WA)
	assert.Greater(t, zns.WriteMBps, c7.WriteMBps)
	assert.Equal(t, c7.CapacityBytes, zns.CapacityBytes, "on 16 GiB the 7 % spare is what the zoned drive keeps too")
	assert.Less(t, c28.CapacityBytes, c7.CapacityBytes)
	for _, d := range ds {
		assert.False(t, d.Cut, d.Name)
		assert.Positive(t, d.Resets, d.Name)
	}
	var out bytes.Buffer
	require.NoError(t, report(&out, 16<<30, 4, ds))
	assert.Contains(t, out.String(), "conventional, 28 % spare")
}
