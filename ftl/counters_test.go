package ftl

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCountersAreAllInt64: Add and Sub treat Counters as a run of int64
// values, which holds only while every field (nested ones included) is an
// int64 count.
func TestCountersAreAllInt64(t *testing.T) {
	var check func(rt reflect.Type, path string)
	check = func(rt reflect.Type, path string) {
		switch rt.Kind() {
		case reflect.Int64:
		case reflect.Struct:
			for i := range rt.NumField() {
				check(rt.Field(i).Type, path+"."+rt.Field(i).Name)
			}
		case reflect.Array:
			check(rt.Elem(), path+"[]")
		default:
			t.Errorf("%s is a %s: Counters must hold only int64 counts", path, rt)
		}
	}
	check(reflect.TypeOf(Counters{}), "Counters")
	require.Equal(t, nCounters*8, int(reflect.TypeOf(Counters{}).Size()))
}

// distinct returns counters whose every int64 is a distinct value base+i.
func distinct(base int64) Counters {
	var c Counters
	for i := range c.words() {
		c.words()[i] = base + int64(i)
	}
	return c
}

func TestCountersAddSub(t *testing.T) {
	a, b := distinct(1000), distinct(7)
	sum := a.Add(b)
	for i, v := range sum.words() {
		require.Equal(t, a.words()[i]+b.words()[i], v, "word %d", i)
	}
	require.Equal(t, a, sum.Sub(b))
	require.Equal(t, Counters{}, a.Sub(a))
}

// TestCountersJSONNamesEveryField: every field has its own JSON name, so
// the drive's JSON carries each counter under a name that says what it
// counts; flash operations appear by cause name.
func TestCountersJSONNamesEveryField(t *testing.T) {
	rt := reflect.TypeOf(Counters{})
	seen := map[string]bool{}
	for i := range rt.NumField() {
		tag := rt.Field(i).Tag.Get("json")
		require.NotEmpty(t, tag, rt.Field(i).Name)
		require.False(t, seen[tag], "duplicate JSON name %s", tag)
		seen[tag] = true
	}
	c := distinct(1)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	flash := m["flash"].(map[string]any)
	require.Len(t, flash, int(NumCauses))
	for cause := range NumCauses {
		got := flash[cause.String()].(map[string]any)
		require.Equal(t, float64(c.Flash[cause].ReadPages), got["read_pages"], cause.String())
		require.Equal(t, float64(c.Flash[cause].EraseBlocks), got["erase_blocks"], cause.String())
	}
}

// TestCountOps: each kind of operation lands in its cause's counts.
func TestCountOps(t *testing.T) {
	var c Counters
	c.Count(&Op{Kind: OpRead, Cause: CauseGC, Planes: 2, Units: 5})
	c.Count(&Op{Kind: OpTransfer, Cause: CauseHost, Planes: 1, Units: 1})
	c.Count(&Op{Kind: OpProgram, Cause: CauseParity, Planes: 2})
	c.Count(&Op{Kind: OpErase, Cause: CauseMap, Planes: 4})
	c.Count(&Op{Kind: OpMoved, Cause: CauseGC, LBA: 9})
	require.Equal(t, FlashCounts{ReadPages: 2, ReadUnits: 5}, c.Flash[CauseGC])
	require.Equal(t, FlashCounts{ReadUnits: 1}, c.Flash[CauseHost])
	require.Equal(t, FlashCounts{ProgramPages: 2}, c.Flash[CauseParity])
	require.Equal(t, FlashCounts{EraseBlocks: 4}, c.Flash[CauseMap])
	require.Equal(t, int64(1), c.MovedUnits)
	require.Equal(t, FlashCounts{ReadPages: 2, ReadUnits: 6, ProgramPages: 2, EraseBlocks: 4}, c.Flash.Total())
}
