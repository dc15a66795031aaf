package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyStudy is a small grid over drive fields, command options and a
// scenario parameter: a second of simulated consistency on a 2 GiB drive.
const tinyStudy = `
name: tiny
drive: generic-mlc-small
scenario: consistency
options: {capacity: 2GiB, time: 12s}
axes:
  op: [15, 28]
  nand.geometry.dies: [4, 8]
  gc_policy: [greedy, cost-benefit]
seed: 7
shards: 3
`

func writeStudy(t *testing.T, src string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "study.yaml")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	return file
}

func readTable(t *testing.T, dir string) (csv, jsonl string) {
	t.Helper()
	c, err := os.ReadFile(filepath.Join(dir, "table.csv"))
	require.NoError(t, err)
	j, err := os.ReadFile(filepath.Join(dir, "table.jsonl"))
	require.NoError(t, err)
	return string(c), string(j)
}

// The same table whichever way the study is split: whole at -j 2,
// three shards by --shard merged, a Slurm array's tasks in one directory,
// a Kubernetes Indexed Job's pods.
func TestSweepShardsGiveTheWholeTable(t *testing.T) {
	study := writeStudy(t, tinyStudy)
	whole := t.TempDir()
	code, out, errs := runCmd(t, "sweep", study, "-j", "2", "--out="+whole)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "sweep tiny: 8 points: 8 run, 0 with results already, 0 failed")
	wantCSV, wantJSON := readTable(t, whole)
	assert.Equal(t, 9, strings.Count(wantCSV, "\n"))
	assert.Contains(t, wantCSV, "point,op,nand.geometry.dies,gc_policy,seed,")
	assert.Contains(t, wantCSV, "steady_iops")

	var dirs []string
	for i := range 3 {
		d := t.TempDir()
		code, _, errs := runCmd(t, "sweep", study, "-j", "1", "--shard="+[]string{"0/3", "1/3", "2/3"}[i], "--out="+d)
		require.Equal(t, 0, code, errs)
		dirs = append(dirs, d)
	}
	merged := t.TempDir()
	code, out, errs = runCmd(t, append(append([]string{"sweep", "merge"}, dirs...), "--out="+merged)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "8 of 8 points")
	csv, jl := readTable(t, merged)
	assert.Equal(t, wantCSV, csv)
	assert.Equal(t, wantJSON, jl)

	shared := t.TempDir()
	for id := 1; id <= 3; id++ { // --array=1-3
		t.Setenv("SLURM_ARRAY_TASK_ID", string(rune('0'+id)))
		t.Setenv("SLURM_ARRAY_TASK_MIN", "1")
		t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
		code, _, errs := runCmd(t, "sweep", study, "--out="+shared)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, errs, "(from Slurm)")
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	code, _, errs = runCmd(t, "sweep", "merge", shared)
	require.Equal(t, 0, code, errs)
	csv, jl = readTable(t, shared)
	assert.Equal(t, wantCSV, csv)
	assert.Equal(t, wantJSON, jl)

	pods := t.TempDir()
	for i := range 3 {
		t.Setenv("JOB_COMPLETION_INDEX", string(rune('0'+i)))
		code, _, errs := runCmd(t, "sweep", study, "--out="+pods)
		require.Equal(t, 0, code, errs)
	}
	code, _, errs = runCmd(t, "sweep", "merge", pods)
	require.Equal(t, 0, code, errs)
	csv, _ = readTable(t, pods)
	assert.Equal(t, wantCSV, csv)

	// The charts.
	code, out, errs = runCmd(t, "sweep", "plot", whole)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "steady_iops")
	code, _, errs = runCmd(t, "sweep", "plot", whole, "--metric=wa", "--x=op", "--series=gc_policy", "--facet=nand.geometry.dies", "--out="+filepath.Join(whole, "wa.png"))
	require.Equal(t, 0, code, errs)
	assert.FileExists(t, filepath.Join(whole, "wa.png"))
}

// A point's report is the command's own: the point's command line run by
// hand gives the same JSON.
func TestSweepPointIsItsCommandLine(t *testing.T) {
	study := writeStudy(t, tinyStudy)
	dir := t.TempDir()
	code, _, errs := runCmd(t, "sweep", study, "--out="+dir)
	require.Equal(t, 0, code, errs)
	code, list, errs := runCmd(t, "sweep", study, "--list")
	require.Equal(t, 0, code, errs)
	line := strings.Split(strings.TrimSpace(list), "\n")[5]
	fields := strings.Split(line, "\t")
	require.Len(t, fields, 3)
	args := strings.Fields(strings.TrimPrefix(fields[2], "ftlsim "))
	for i, a := range args {
		if strings.HasPrefix(a, "--drive=drives/") {
			args[i] = "--drive=" + filepath.Join(dir, strings.TrimPrefix(a, "--drive="))
		}
	}
	code, out, errs := runCmd(t, args...)
	require.Equal(t, 0, code, errs)
	want, err := os.ReadFile(filepath.Join(dir, "points", "000005.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), out)
}

func TestSweepBadInput(t *testing.T) {
	good := writeStudy(t, tinyStudy)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep"}, "takes one study file (got 0)"},
		{[]string{"sweep", "/no/such.yaml"}, "no such file"},
		{[]string{"sweep", writeStudy(t, "drive: generic-mlc-small\naxes: {nosuch: [1]}")}, `"nosuch" is neither`},
		{[]string{"sweep", writeStudy(t, "drive: generic-mlc-small\naxes: {iodepth: [0]}")}, "iodepth"},
		{[]string{"sweep", writeStudy(t, "drive: generic-mlc-small\noptions: {capacity: 2GiB}\naxes: {op: [7], dies: [8]}")}, "point 0 (op=7 dies=8): invalid drive description"},
		{[]string{"sweep", good, "--shard=3/3"}, "--shard=3/3"},
		{[]string{"sweep", good, "-j", "0"}, "-j 0"},
		{[]string{"sweep", good, "--bogus"}, "bogus"},
		{[]string{"sweep", "merge"}, "give the output directories"},
		{[]string{"sweep", "merge", t.TempDir()}, "not a sweep's output directory"},
		{[]string{"sweep", "plot", t.TempDir()}, "not a sweep's output directory"},
	} {
		out := t.TempDir()
		code, _, errs := runCmd(t, append(tc.args, "--out="+filepath.Join(out, "o"))...)
		assert.NoDirExists(t, filepath.Join(out, "o"), "nothing is written for bad input")
		assert.Equal(t, 2, code, "%v: %s", tc.args, errs)
		assert.Contains(t, errs, tc.want, tc.args)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
	}
}

const forkStudy = `
name: fork
drive: generic-mlc-small
options: {capacity: 2GiB, op: 28, precondition: fill, rw: randwrite, bs: 4k, runtime: 1, time_based: 1, norandommap: 1}
axes:
  iodepth: [1, 32]
  rwmixread: [0, 70]
  size: [100%, 50%]
seed: 11
`

// Points that differ only in their workload are forked from one filled
// drive a group; a forked point's report is its two command lines run by
// hand (prepare and save, then load and run), and shards that split a
// group give the same table.
func TestSweepForksPointsFromSnapshots(t *testing.T) {
	study := writeStudy(t, forkStudy)
	dir := t.TempDir()
	code, out, errs := runCmd(t, "sweep", study, "-j", "2", "--out="+dir)
	require.Equal(t, 0, code, errs)
	// --size changes what the fill covers: two groups of four.
	assert.Contains(t, out, "8 run, 0 with results already, 0 failed; 2 drives filled once for forked points")
	states, err := os.ReadDir(filepath.Join(dir, "states"))
	require.NoError(t, err)
	assert.Empty(t, states, "snapshots are removed once their points are done")

	code, list, errs := runCmd(t, "sweep", study, "--list")
	require.Equal(t, 0, code, errs)
	var prepare, point []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		f := strings.Split(line, "\t")
		if f[0] != "6" {
			continue
		}
		args := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(f[2], "prepare: "), "ftlsim "))
		for i, a := range args {
			if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(v, "states/") {
				args[i] = k + "=" + filepath.Join(dir, v)
			}
		}
		if strings.HasPrefix(f[2], "prepare: ") {
			prepare = args
		} else {
			point = args
		}
	}
	require.NotEmpty(t, prepare)
	require.NotEmpty(t, point)
	code, _, errs = runCmd(t, prepare...)
	require.Equal(t, 0, code, errs)
	code, got, errs := runCmd(t, point...)
	require.Equal(t, 0, code, errs)
	want, err := os.ReadFile(filepath.Join(dir, "points", "000006.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), got)

	wantCSV, _ := readTable(t, dir)
	shared := t.TempDir()
	for _, s := range []string{"0/3", "1/3", "2/3"} {
		code, _, errs := runCmd(t, "sweep", study, "--shard="+s, "--out="+shared)
		require.Equal(t, 0, code, errs)
	}
	code, _, errs = runCmd(t, "sweep", "merge", shared)
	require.Equal(t, 0, code, errs)
	csv, _ := readTable(t, shared)
	assert.Equal(t, wantCSV, csv)
}
