package sweep

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, src string) *Sweep {
	t.Helper()
	s, err := Parse("study.yaml", []byte(src))
	require.NoError(t, err)
	return s
}

func TestParseAxesRangesAndZip(t *testing.T) {
	s := parse(t, `
drive: generic-mlc-small
options: {rw: randwrite, bs: 4k}
axes:
  op: [7, 12, 25, 28]
  iodepth: {from: 1, to: 32, times: 2}
  rwmixread: {from: 0, to: 100, step: 50}
  capacity: [8GiB, 4GiB, 2GiB]
zip: [[rwmixread, capacity]]
repeat: 2
seed: 9
`)
	assert.Equal(t, []string{"7", "12", "25", "28"}, s.Axes[0].Values)
	assert.Equal(t, []string{"1", "2", "4", "8", "16", "32"}, s.Axes[1].Values)
	assert.Equal(t, []string{"0", "50", "100"}, s.Axes[2].Values)
	assert.Equal(t, []string{"op", "iodepth", "rwmixread", "capacity", "rep"}, s.AxisNames())
	// 4 × 6 × 3 (zipped: one dimension) × 2 repetitions.
	assert.Equal(t, 4*6*3*2, s.NumPoints())
	ps, err := s.Points()
	require.NoError(t, err)
	require.Len(t, ps, s.NumPoints())
	// Zipped axes advance together; repetitions vary fastest.
	for _, p := range ps {
		mix, _ := Coords(p.Coords).Get("rwmixread")
		capa, _ := Coords(p.Coords).Get("capacity")
		assert.Equal(t, map[string]string{"0": "8GiB", "50": "4GiB", "100": "2GiB"}[mix], capa)
		assert.Equal(t, p.Index%2, p.Rep)
	}
	assert.Equal(t, "op=7 iodepth=1 rwmixread=0 capacity=8GiB rep=1", ps[1].Label())
	assert.Equal(t, "op=12 iodepth=1 rwmixread=0 capacity=8GiB rep=0", ps[6*3*2].Label())
}

func TestPointsAreStableAndSeedsFollowCoordinates(t *testing.T) {
	src := `
drive: generic-mlc-small
options: {rw: randwrite, runtime: 1}
axes:
  op: [7, 28]
  iodepth: [1, 32]
seed: 3
`
	a, err := parse(t, src).Points()
	require.NoError(t, err)
	b, err := parse(t, src).Points()
	require.NoError(t, err)
	assert.Equal(t, a, b, "the same study gives the same points")
	seeds := map[uint64]bool{}
	for _, p := range a {
		seeds[p.Seed] = true
		assert.Contains(t, p.Args, "--randseed="+itoa(p.Seed))
	}
	assert.Len(t, seeds, len(a), "every point has a seed of its own")
	// A point's seed depends on its coordinates, not on its number: a
	// study with the axes' values in another order gives each
	// coordinate the same seed.
	c, err := parse(t, strings.Replace(src, "op: [7, 28]", "op: [28, 7]", 1)).Points()
	require.NoError(t, err)
	byLabel := map[string]uint64{}
	for _, p := range a {
		byLabel[p.Label()] = p.Seed
	}
	for _, p := range c {
		assert.Equal(t, byLabel[p.Label()], p.Seed, p.Label())
	}
	// Another study seed gives other seeds.
	d, err := parse(t, strings.Replace(src, "seed: 3", "seed: 4", 1)).Points()
	require.NoError(t, err)
	assert.NotEqual(t, a[0].Seed, d[0].Seed)
}

func TestKeysAreClassified(t *testing.T) {
	s := parse(t, `
drive: generic-mlc-small
scenario: consistency
options: {time: 10s, capacity: 8GiB}
axes:
  gc_policy: [greedy, fifo]
  nand.geometry.dies: [4, 8]
  op: [7]
`)
	ps, err := s.Points()
	require.NoError(t, err)
	p := ps[len(ps)-1]
	assert.Equal(t, "scenario", p.Args[0])
	assert.Equal(t, "consistency", p.Args[1])
	assert.Contains(t, p.Args, "--time=10s")
	assert.Contains(t, p.Args, "--capacity=8GiB")
	assert.Contains(t, p.Args, "--op=7")
	// gc_policy is a field of the description: the point's own file.
	require.NotEmpty(t, p.DriveFile)
	assert.Contains(t, string(p.Drive), "gc_policy: fifo")
	assert.Contains(t, string(p.Drive), "dies_per_target: 2") // 4 channels × 1 target × 2 = 8 dies
	assert.Contains(t, p.Args, "--drive="+p.DriveFile)
	assert.Equal(t, []string{"--drive=/out/" + p.DriveFile}, p.Command("/out")[2:3])
	// Points sharing a description share its file.
	assert.Equal(t, ps[0].DriveFile, ps[0].DriveFile)
}

func TestStudyErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"no drive", "axes: {op: [7]}", "drive: missing"},
		{"unknown field", "drive: generic-mlc-small\naxis: {op: [7]}", "field axis not found"},
		{"unknown scenario", "drive: generic-mlc-small\nscenario: nope", `unknown scenario nope (scenarios: access-patterns, `},
		{"empty axis", "drive: generic-mlc-small\naxes: {op: []}", "no values"},
		{"bad range", "drive: generic-mlc-small\naxes: {op: {from: 5, to: 1, step: 1}}", "to ≥ from"},
		{"zip lengths", "drive: generic-mlc-small\naxes: {op: [7, 28], iodepth: [1]}\nzip: [[op, iodepth]]", "need as many"},
		{"zip unknown", "drive: generic-mlc-small\naxes: {op: [7]}\nzip: [[op, bs]]", `"bs" is not an axis`},
		{"rep reserved", "drive: generic-mlc-small\naxes: {rep: [1]}", "reserved"},
		{"too many", "drive: generic-mlc-small\naxes: {a: {from: 1, to: 1000, step: 1}, b: {from: 1, to: 1000, step: 1}, c: {from: 1, to: 10, step: 1}}", "more than 1000000 points"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("study.yaml", []byte(tc.src))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrStudy)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "study.yaml")
		})
	}
}

func TestPointErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown key", "drive: generic-mlc-small\naxes: {nosuch: [1]}", `"nosuch" is neither a job option`},
		{"unknown drive field", "drive: generic-mlc-small\naxes: {firmware.nosuch: [1]}", "nosuch"},
		{"dies not a multiple", "drive: generic-mlc-small\naxes: {nand.geometry.dies: [6]}", "multiple of nand.geometry.channels"},
		{"ambiguous leaf", "drive: generic-mlc-small\naxes: {command_ns: [1]}", "several drive fields"},
		{"job option in scenario", "drive: generic-mlc-small\nscenario: fill\naxes: {iodepth: [1]}", "parameter of scenario fill"},
		{"unknown drive", "drive: no-such-drive\naxes: {op: [1]}", "no-such-drive"},
		// Ranges come from the table of description fields: an axis out
		// of range is refused before anything runs, naming its line.
		{"axis out of range", "drive: generic-mlc-small\naxes:\n  channels: [4, 100]", "point 1 (channels=100): nand.geometry.channels = 100, allowed 1..64"},
		{"axis not whole", "drive: generic-mlc-small\naxes: {gc_low_water: [2.5]}", "firmware.gc_low_water = 2.5: not a whole number, allowed 0..1048576"},
		{"bad size", "drive: generic-mlc-small\naxes: {write_buffer: [64MB0]}", "firmware.write_buffer = 64MB0"},
		{"dies per target out of range", "drive: generic-mlc-small\naxes: {dies: [256]}", "nand.geometry.dies_per_target = 64, allowed 1..16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("study.yaml", []byte(tc.src))
			require.NoError(t, err)
			_, err = s.Points()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrStudy)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A field the base description leaves out (at its default) is an axis by
// its name all the same: the table, not the base's text, says what the
// drive's fields are.
func TestAxisOnFieldTheBaseLeavesOut(t *testing.T) {
	s := parse(t, "drive: generic-mlc-small\naxes: {gc_streams: [0, 2]}")
	ps, err := s.Points()
	require.NoError(t, err)
	require.Len(t, ps, 2)
	assert.Contains(t, string(ps[1].Drive), "gc_streams: 2")
}

func TestForkGroups(t *testing.T) {
	s := parse(t, `
drive: generic-mlc-small
options: {precondition: fill, rw: randwrite, runtime: 1, time_based: 1, size: 50%}
axes:
  iodepth: [1, 32]
  bs: [4k, 64k]
  op: [7, 28]
`)
	ps, err := s.Points()
	require.NoError(t, err)
	groups := map[string][]int{}
	for _, p := range ps {
		require.NotEmpty(t, p.Group, "a point with a precondition and a workload axis forks")
		groups[p.Group] = append(groups[p.Group], p.Index)
		assert.Contains(t, p.Args, "--load_state="+p.StateFile)
		assert.Contains(t, p.Prepare, "--save_state="+p.StateFile)
		assert.Contains(t, p.Prepare, "--prepare_only")
		assert.Contains(t, p.Prepare, "--precondition=fill")
		assert.Contains(t, p.Prepare, "--size=50%", "the prepared range is the job's")
		assert.NotContains(t, strings.Join(p.Prepare, " "), "iodepth", "workload options do not change the drive")
	}
	// One group per spare-area value: op changes the drive.
	assert.Len(t, groups, 2)
	for _, g := range groups {
		assert.Len(t, g, 4)
	}
	// Sharded runs prepare snapshots of their own.
	q := ps[0].inShard(1, 3)
	assert.Contains(t, q.StateFile, "-1-of-3.state")
	assert.Contains(t, q.Args, "--load_state="+q.StateFile)
	assert.Contains(t, q.Prepare, "--save_state="+q.StateFile)
	assert.NotEqual(t, ps[0].StateFile, q.StateFile)
	// fork: false turns it off; so does a group of one.
	off, err := parse(t, strings.Replace(`
drive: generic-mlc-small
fork: false
options: {precondition: fill, rw: randwrite}
axes: {iodepth: [1, 32]}`, "\t", "", -1)).Points()
	require.NoError(t, err)
	one, err := parse(t, "drive: generic-mlc-small\noptions: {precondition: fill}\naxes: {op: [7, 28]}").Points()
	require.NoError(t, err)
	for _, p := range append(off, one...) {
		assert.Empty(t, p.Group)
		assert.NotContains(t, strings.Join(p.Args, " "), "load_state")
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name   string
		env    func(string) string
		shards int
		want   Shard
		err    string
	}{
		{"none", env(), 0, Shard{0, 1, ""}, ""},
		{"slurm", env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "3"), 0, Shard{2, 3, "Slurm"}, ""},
		{"slurm from 1", env("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_COUNT", "3"), 0, Shard{0, 3, "Slurm"}, ""},
		{"slurm step", env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_STEP", "2", "SLURM_ARRAY_TASK_COUNT", "3"), 0, Shard{2, 3, "Slurm"}, ""},
		{"slurm without count", env("SLURM_ARRAY_TASK_ID", "0"), 0, Shard{}, "SLURM_ARRAY_TASK_COUNT is not"},
		{"slurm beyond", env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "3"), 0, Shard{}, "is not one of the 3 tasks"},
		{"slurm bad", env("SLURM_ARRAY_TASK_ID", "x", "SLURM_ARRAY_TASK_COUNT", "3"), 0, Shard{}, "whole number"},
		{"kubernetes", env("JOB_COMPLETION_INDEX", "1"), 3, Shard{1, 3, "Kubernetes"}, ""},
		{"kubernetes without shards", env("JOB_COMPLETION_INDEX", "1"), 0, Shard{}, "gives no shards"},
		{"kubernetes beyond", env("JOB_COMPLETION_INDEX", "3"), 3, Shard{}, "allows 0..2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ShardFromEnv(tc.env, tc.shards)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	s, err := ParseShard("1/3")
	require.NoError(t, err)
	assert.Equal(t, Shard{1, 3, "--shard"}, s)
	for _, bad := range []string{"3/3", "-1/3", "1", "a/b", "0/0"} {
		_, err := ParseShard(bad)
		assert.ErrorIs(t, err, ErrStudy, bad)
	}
}

func itoa(v uint64) string { return formatNumber(float64(v)) }
