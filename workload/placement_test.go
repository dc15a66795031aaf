package workload

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
)

// placedJob returns the generator of a 4 KiB randrw job over 64 MiB with
// the given options, its placement checked against the drive's
// identifiers pids.
func placedJob(t *testing.T, pids []uint16, opts ...string) *Generator {
	t.Helper()
	j := NewJob("p")
	all := append([]string{"rw", "randrw", "bs", "4k", "number_ios", "4000"}, opts...)
	for i := 0; i+1 < len(all); i += 2 {
		require.NoError(t, j.Set(all[i], all[i+1]), all[i])
	}
	require.NoError(t, j.Resolve(64<<20))
	require.NoError(t, j.CheckPlacement(pids))
	return NewGenerator(j)
}

// TestPlacementDirectives checks the directive each request carries, as
// fio's dp_fill_dspec_data gives it: every write the placement directive
// with the job's identifiers in turn (roundrobin) or at random, reads
// none; and the job's offsets are the same as without placement.
func TestPlacementDirectives(t *testing.T) {
	pids := reportedPIDs(8)
	cases := map[string]struct {
		opts []string
		want []uint16 // roundrobin: the identifiers in this order
		dir  blockio.DirectiveType
	}{
		"no placement":        {dir: blockio.NoDirective},
		"fdp_pli, roundrobin": {opts: []string{"fdp", "1", "fdp_pli", "4,5,1"}, want: []uint16{104, 105, 101}, dir: blockio.DirectivePlacement},
		"all, roundrobin":     {opts: []string{"dataplacement", "fdp"}, want: pids, dir: blockio.DirectivePlacement},
		"plids, random":       {opts: []string{"fdp", "1", "plids", "0-3", "plid_select", "random"}, dir: blockio.DirectivePlacement},
		"streams":             {opts: []string{"dataplacement", "streams", "plids", "7,3"}, want: []uint16{7, 3}, dir: blockio.DirectiveStreams},
	}
	plain := placedJob(t, pids)
	var offsets []int64
	var it Item
	for plain.Next(&it) {
		offsets = append(offsets, it.Offset)
	}
	for name, c := range cases {
		g := placedJob(t, pids, c.opts...)
		seen := map[uint16]int{}
		writes, i := 0, 0
		for g.Next(&it) {
			require.Equal(t, offsets[i], it.Offset, "%s: I/O %d: the offsets do not depend on placement", name, i)
			i++
			if it.Op != blockio.Write {
				require.Equal(t, blockio.NoDirective, it.Directive, "%s: a read carries no directive", name)
				require.Zero(t, it.DSpec, name)
				continue
			}
			require.Equal(t, c.dir, it.Directive, name)
			if c.want != nil {
				require.Equal(t, c.want[writes%len(c.want)], it.DSpec, "%s: write %d", name, writes)
			}
			seen[it.DSpec]++
			writes++
		}
		require.Len(t, offsets, i, name)
		require.Positive(t, writes, name)
		if name == "plids, random" {
			require.Len(t, seen, 4, "every identifier drawn")
			for id, n := range seen {
				require.Contains(t, pids[:4], id)
				require.InDelta(t, float64(writes)/4, float64(n), float64(writes)/8, "identifier %d drawn about as often as the others", id)
			}
		}
	}
}

// plid_select=scheme places each write by its offset, as fio's dp_scheme
// file gives it: the first range holding the offset, 0 outside them all;
// the file's lines are read up to the first that is not one.
func TestPlacementScheme(t *testing.T) {
	file := "0, 16777216, 3\n8388608, 33554432, 5\n16777216,33554432,6\nnot a range\n40000000,50000000,7\n"
	read := func(name string) ([]byte, error) {
		require.Equal(t, "scheme.txt", name)
		return []byte(file), nil
	}
	j := NewJob("s")
	for _, kv := range [][2]string{{"rw", "randwrite"}, {"bs", "4k"}, {"number_ios", "3000"}, {"fdp", "1"}, {"plid_select", "scheme"}, {"dp_scheme", "scheme.txt"}} {
		require.NoError(t, j.Set(kv[0], kv[1]))
	}
	require.NoError(t, j.Resolve(64<<20))
	require.ErrorContains(t, j.CheckPlacement(reportedPIDs(8)), "not read")
	require.NoError(t, j.ReadPlacementScheme(read))
	require.Len(t, j.Placement.SchemeRanges, 3, "up to the line that is not a range")
	require.NoError(t, j.CheckPlacement(reportedPIDs(8)))
	g := NewGenerator(j)
	var it Item
	seen := map[uint16]bool{}
	for g.Next(&it) {
		want := uint16(0)
		switch {
		case it.Offset < 16<<20:
			want = 3
		case it.Offset < 32<<20:
			want = 5 // the first range holding it, not the third
		}
		require.Equal(t, blockio.DirectivePlacement, it.Directive)
		require.Equal(t, want, it.DSpec, "write at %d", it.Offset)
		seen[want] = true
	}
	require.Len(t, seen, 3)

	none := NewJob("s")
	require.NoError(t, none.Set("fdp", "1"))
	require.NoError(t, none.Set("plid_select", "scheme"))
	require.ErrorContains(t, none.ReadPlacementScheme(read), "needs dp_scheme")
}
