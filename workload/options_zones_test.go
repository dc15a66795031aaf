package workload

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckZones checks zonemode=zbd jobs against a drive's zones as
// fio's zbd.c does (its messages quoted in the HOWTO and zbd.c): the
// zone size must match the device's, zoneskip be whole zones,
// max_open_zones default to and stay within the device's limit unless
// ignore_zone_limits, and job_max_open_zones need a global limit.
func TestCheckZones(t *testing.T) {
	zn := &ZoneLayout{ZoneBytes: 256 << 20, CapacityBytes: 200 << 20, Zones: 64, MaxOpen: 14, MaxActive: 14}
	cases := []struct {
		opts    [][2]string
		layout  *ZoneLayout
		err     string
		maxOpen int
	}{
		{opts: [][2]string{{"zonemode", "zbd"}}, layout: nil, err: "conventional"},
		{opts: [][2]string{{"zonemode", "zbd"}}, layout: zn, maxOpen: 14},
		{opts: [][2]string{{"zonesize", "256m"}, {"zonemode", "zbd"}, {"max_open_zones", "8"}}, layout: zn, maxOpen: 8},
		{opts: [][2]string{{"zonemode", "zbd"}, {"zonesize", "128m"}}, layout: zn, err: "does not match the device zone size"},
		{opts: [][2]string{{"zonemode", "zbd"}, {"zoneskip", "4k"}}, layout: zn, err: "multiple of the zone size"},
		{opts: [][2]string{{"zonemode", "zbd"}, {"max_open_zones", "32"}}, layout: zn, err: "larger than the device's 14"},
		{opts: [][2]string{{"zonemode", "zbd"}, {"max_open_zones", "32"}, {"ignore_zone_limits", "1"}}, layout: zn, maxOpen: 32},
		{opts: [][2]string{{"zonemode", "zbd"}, {"max_open_zones", "0"}}, layout: zn, maxOpen: 14},
		{opts: [][2]string{{"zonemode", "zbd"}, {"job_max_open_zones", "2"}}, layout: &ZoneLayout{ZoneBytes: 1 << 20, Zones: 8}, err: "without a global open zones limit"},
		{opts: [][2]string{{"zonemode", "zbd"}, {"job_max_open_zones", "2"}}, layout: zn, maxOpen: 14},
		{opts: [][2]string{{"zonemode", "strided"}, {"zonesize", "1m"}}, layout: nil},
	}
	for _, c := range cases {
		j := NewJob("z")
		for _, kv := range c.opts {
			require.NoError(t, j.Set(kv[0], kv[1]), kv)
		}
		err := j.CheckZones(c.layout)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, "%v", c.opts)
			require.ErrorIs(t, err, ErrOption)
			continue
		}
		require.NoError(t, err, "%v", c.opts)
		require.Equal(t, c.maxOpen, j.ZBD.MaxOpenZones, "%v", c.opts)
	}
}

// reportedPIDs returns n placement identifiers that are not their indices
// (100, 101, …), to tell the two apart.
func reportedPIDs(n int) []uint16 {
	out := make([]uint16, n)
	for i := range out {
		out[i] = uint16(100 + i)
	}
	return out
}

// TestCheckPlacement checks fio's placement identifiers against the
// drive's, as fio's dataplacement.c does: plids index those the drive
// reports, indices past them are fio's error; none given takes them all
// (at most 128); a drive without FDP runs the job without them, noting
// it; streams take the plids themselves and need them.
func TestCheckPlacement(t *testing.T) {
	j := NewJob("p")
	require.NoError(t, j.Set("fdp", "1"))
	require.NoError(t, j.Set("fdp_pli", "4,5"))
	require.NoError(t, j.CheckPlacement(reportedPIDs(8)))
	require.Equal(t, []int{4, 5}, j.Placement.IDs)
	require.Equal(t, []uint16{104, 105}, j.Placement.PIDs, "the identifiers the drive reports at those indices")
	require.NoError(t, j.CheckPlacement(reportedPIDs(8)), "checked again, the same")
	require.Equal(t, []uint16{104, 105}, j.Placement.PIDs)
	require.ErrorContains(t, j.CheckPlacement(reportedPIDs(5)), "PID index 5 must be smaller than 5")

	all := NewJob("p")
	require.NoError(t, all.Set("dataplacement", "fdp"))
	require.NoError(t, all.CheckPlacement(reportedPIDs(300)))
	require.Nil(t, all.Placement.IDs)
	require.Equal(t, reportedPIDs(128), all.Placement.PIDs)

	none := NewJob("p")
	require.NoError(t, none.Set("fdp", "1"))
	require.NoError(t, none.CheckPlacement(nil))
	require.Equal(t, PlacementNone, none.Placement.Mode)
	require.Nil(t, none.Placement.PIDs)
	require.NotEmpty(t, none.Notes)

	streams := NewJob("p")
	require.NoError(t, streams.Set("dataplacement", "streams"))
	require.ErrorContains(t, streams.CheckPlacement(nil), "stream IDs must be provided")
	require.NoError(t, streams.Set("plids", "3,9"))
	require.NoError(t, streams.CheckPlacement(nil))
	require.Equal(t, []uint16{3, 9}, streams.Placement.PIDs)

	_, err := parseIndexList("0-200", 128)
	require.ErrorContains(t, err, "at most 128")
	ids, err := parseIndexList("1,2-4,6", 128)
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 3, 4, 6}, ids)
}

// TestZoneUnits: fio's sizes in zones (offset=524z, size=8z) are whole
// zones of the drive's zone size, and an error without one.
func TestZoneUnits(t *testing.T) {
	l := &ZoneLayout{ZoneBytes: 1 << 20, CapacityBytes: 1 << 20, Zones: 64}
	j := NewJob("z")
	for _, kv := range [][2]string{{"zonemode", "zbd"}, {"offset", "4z"}, {"size", "8z"}} {
		require.NoError(t, j.Set(kv[0], kv[1]))
	}
	require.NoError(t, j.CheckZones(l))
	require.NoError(t, j.Resolve(64<<20))
	require.Equal(t, int64(4<<20), j.Offset)
	require.Equal(t, int64(8<<20), j.Size)

	k := NewJob("z")
	require.NoError(t, k.Set("size", "8z"))
	require.ErrorContains(t, k.Resolve(64<<20), "sizes in zones need the zone size")
	require.Error(t, k.Set("size", "1.5z"))
}
