package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/ftl"
)

// fakeCommand stands in for cli.Main: a report whose IOPS are op × 100 +
// iodepth (so tables can be checked against the coordinates), and a
// snapshot file for --save_state.
type fakeCommand struct {
	mu       sync.Mutex
	calls    []string
	prepares int
	loads    int
	fail     string // a run whose command line contains this fails
}

func (f *fakeCommand) main(ctx context.Context, args []string, _ *ftl.Registry, stdout, stderr io.Writer) int {
	f.mu.Lock()
	f.calls = append(f.calls, strings.Join(args, " "))
	f.mu.Unlock()
	if ctx.Err() != nil {
		return exitInterrupted
	}
	if f.fail != "" && strings.Contains(strings.Join(args, " "), f.fail) {
		fmt.Fprintln(stderr, "ftlsim: the point failed on purpose")
		return 1
	}
	opt := map[string]string{}
	for _, a := range args {
		k, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		opt[k] = v
	}
	if file := opt["save_state"]; file != "" {
		f.mu.Lock()
		f.prepares++
		f.mu.Unlock()
		if err := os.WriteFile(file, []byte("state"), 0o644); err != nil {
			return 1
		}
		if _, ok := opt["prepare_only"]; ok {
			return 0
		}
	}
	if file := opt["load_state"]; file != "" {
		if _, err := os.Stat(file); err != nil {
			fmt.Fprintf(stderr, "ftlsim: --load_state=%s: %v\n", file, err)
			return 2
		}
		f.mu.Lock()
		f.loads++
		f.mu.Unlock()
	}
	op, _ := strconv.ParseFloat(opt["op"], 64)
	qd, _ := strconv.ParseFloat(opt["iodepth"], 64)
	fmt.Fprintf(stdout, `{"jobs":[{"jobname":"j","write":{"iops":%g,"bw_bytes":4096,"clat_ns":{"mean":1000,"percentile":{"99.000000":5000}}},"device":{"write_amplification":1.5}}]}`, op*100+qd)
	return 0
}

func (f *fakeCommand) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

const gridStudy = `
drive: generic-mlc-small
options: {rw: randwrite, runtime: 1}
axes:
  op: [7, 12, 25, 28]
  iodepth: [1, 4, 32]
seed: 1
`

func runStudy(t *testing.T, src string, o Options) (Stats, error) {
	t.Helper()
	s := parse(t, src)
	if o.Version == "" {
		o.Version = "test"
	}
	return Run(context.Background(), s, o)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestRunWritesResultsAndTable(t *testing.T) {
	dir := t.TempDir()
	var f fakeCommand
	st, err := runStudy(t, gridStudy, Options{Out: dir, Jobs: 3, Main: f.main})
	require.NoError(t, err)
	assert.Equal(t, Stats{Points: 12, Selected: 12, Ran: 12}, st)
	tab, err := ReadResults(filepath.Join(dir, TableJSONL))
	require.NoError(t, err)
	require.Len(t, tab, 12)
	for i, r := range tab {
		assert.Equal(t, i, r.Point)
		op, _ := r.Coords.Get("op")
		qd, _ := r.Coords.Get("iodepth")
		o, _ := strconv.ParseFloat(op, 64)
		q, _ := strconv.ParseFloat(qd, 64)
		assert.Equal(t, o*100+q, r.Metrics["write_iops"])
		assert.Equal(t, 5.0, r.Metrics["write_lat_p99_us"])
		assert.FileExists(t, filepath.Join(dir, r.Output))
	}
	csv := readFile(t, filepath.Join(dir, TableCSV))
	assert.True(t, strings.HasPrefix(csv, "point,op,iodepth,seed,erases,iops,power_w,wa,write_iops,"), csv)
	assert.Equal(t, 13, strings.Count(csv, "\n"))
	// A second run without --resume refuses the directory.
	_, err = runStudy(t, gridStudy, Options{Out: dir, Main: f.main})
	assert.ErrorContains(t, err, "--resume")
	// Another study refuses it too.
	_, err = runStudy(t, strings.Replace(gridStudy, "seed: 1", "seed: 2", 1), Options{Out: dir, Resume: true, Main: f.main})
	assert.ErrorContains(t, err, "another study file")
}

func TestShardsMergeToTheWholeTable(t *testing.T) {
	whole := t.TempDir()
	var f fakeCommand
	_, err := runStudy(t, gridStudy, Options{Out: whole, Jobs: 2, Main: f.main})
	require.NoError(t, err)
	var dirs []string
	for i := range 5 {
		d := t.TempDir()
		st, err := runStudy(t, gridStudy, Options{Out: d, Jobs: 2, Shard: i, Shards: 5, Main: f.main})
		require.NoError(t, err)
		assert.Equal(t, []int{3, 3, 2, 2, 2}[i], st.Selected)
		assert.NoFileExists(t, filepath.Join(d, TableCSV), "a shard alone writes no table")
		dirs = append(dirs, d)
	}
	out := t.TempDir()
	m, err := MergeDirs(dirs, out)
	require.NoError(t, err)
	assert.Empty(t, m.Missing)
	for _, name := range []string{TableCSV, TableJSONL} {
		assert.Equal(t, readFile(t, filepath.Join(whole, name)), readFile(t, filepath.Join(out, name)), name)
	}
	// A shard missing: the merge says which points.
	m, err = MergeDirs(dirs[:4], t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, []int{4, 9}, m.Missing)
}

func TestMergeRefusesMixedStudiesAndVersions(t *testing.T) {
	var f fakeCommand
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	_, err := runStudy(t, gridStudy, Options{Out: a, Shard: 0, Shards: 2, Main: f.main})
	require.NoError(t, err)
	_, err = runStudy(t, strings.Replace(gridStudy, "seed: 1", "seed: 5", 1), Options{Out: b, Shard: 1, Shards: 2, Main: f.main})
	require.NoError(t, err)
	_, err = MergeDirs([]string{a, b}, t.TempDir())
	assert.ErrorContains(t, err, "different study files")
	_, err = runStudy(t, gridStudy, Options{Out: c, Shard: 1, Shards: 2, Version: "other", Main: f.main})
	require.NoError(t, err)
	_, err = MergeDirs([]string{a, c}, t.TempDir())
	assert.ErrorContains(t, err, "different ftlsim versions")
}

func TestResumeRunsOnlyMissingPoints(t *testing.T) {
	dir := t.TempDir()
	var f fakeCommand
	ctx, cancel := context.WithCancel(context.Background())
	var finished atomic.Int32
	stopAfter := func(ctx2 context.Context, args []string, reg *ftl.Registry, stdout, stderr io.Writer) int {
		st := f.main(ctx2, args, reg, stdout, stderr)
		if finished.Add(1) == 5 {
			cancel() // killed midway
		}
		return st
	}
	s := parse(t, gridStudy)
	_, err := Run(ctx, s, Options{Out: dir, Jobs: 1, Main: stopAfter, Version: "test"})
	require.ErrorIs(t, err, ErrInterrupted)
	done, err := ReadResults(filepath.Join(dir, ResultsFile(0, 1)))
	require.NoError(t, err)
	require.Len(t, done, 5)
	// A line cut short by the kill is ignored.
	fh, err := os.OpenFile(filepath.Join(dir, ResultsFile(0, 1)), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fh.WriteString(`{"point":7,"coo`)
	require.NoError(t, err)
	require.NoError(t, fh.Close())

	var g fakeCommand
	st, err := runStudy(t, gridStudy, Options{Out: dir, Jobs: 2, Resume: true, Main: g.main})
	require.NoError(t, err)
	assert.Equal(t, 5, st.Skipped)
	assert.Equal(t, 7, st.Ran)
	assert.Equal(t, 7, g.count(), "only the missing points run")
	tab, err := ReadResults(filepath.Join(dir, TableJSONL))
	require.NoError(t, err)
	assert.Len(t, tab, 12)
	// Results of another version are run again.
	var h fakeCommand
	st, err = runStudy(t, gridStudy, Options{Out: dir, Resume: true, Version: "newer", Main: h.main})
	require.NoError(t, err)
	assert.Equal(t, 12, st.Ran)
}

func TestFailedPointsAreReportedAndRetried(t *testing.T) {
	dir := t.TempDir()
	f := fakeCommand{fail: "--op=12 "}
	st, err := runStudy(t, gridStudy, Options{Out: dir, Jobs: 2, Main: f.main})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "3 of 12 points failed; the first, point 3 (op=12 iodepth=1)")
	assert.Contains(t, err.Error(), "failed on purpose")
	assert.Equal(t, 9, st.Ran)
	var g fakeCommand
	st, err = runStudy(t, gridStudy, Options{Out: dir, Resume: true, Main: g.main})
	require.NoError(t, err)
	assert.Equal(t, 3, st.Ran)
}

func TestForkedPointsShareOneSnapshot(t *testing.T) {
	src := `
drive: generic-mlc-small
options: {precondition: fill, rw: randwrite, runtime: 1}
axes:
  op: [7, 28]
  iodepth: [1, 4, 32]
`
	dir := t.TempDir()
	var f fakeCommand
	st, err := runStudy(t, src, Options{Out: dir, Jobs: 2, Main: f.main})
	require.NoError(t, err)
	assert.Equal(t, 2, st.Prepared, "one fill per drive")
	assert.Equal(t, 2, f.prepares)
	assert.Equal(t, 6, f.loads)
	ents, err := os.ReadDir(filepath.Join(dir, "states"))
	require.NoError(t, err)
	assert.Empty(t, ents, "snapshots are removed once their points are done")
	// Kept on request.
	dir2 := t.TempDir()
	_, err = runStudy(t, src, Options{Out: dir2, Jobs: 2, KeepStates: true, Main: f.main})
	require.NoError(t, err)
	ents, err = os.ReadDir(filepath.Join(dir2, "states"))
	require.NoError(t, err)
	assert.Len(t, ents, 2)
}

func TestMemoryBudgetLimitsConcurrency(t *testing.T) {
	dir := t.TempDir()
	var running, most atomic.Int32
	var f fakeCommand
	slow := func(ctx context.Context, args []string, reg *ftl.Registry, stdout, stderr io.Writer) int {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		defer running.Add(-1)
		return f.main(ctx, args, reg, stdout, stderr)
	}
	// Points of 3 units in a budget of 7: two at a time, though -j is 8.
	_, err := runStudy(t, gridStudy, Options{Out: dir, Jobs: 8, MemoryBytes: 7, Main: slow,
		Memory: func([]string, *ftl.Registry) (int64, error) { return 3, nil }})
	require.NoError(t, err)
	assert.LessOrEqual(t, most.Load(), int32(2))
	// A point bigger than the budget still runs, alone.
	_, err = runStudy(t, gridStudy, Options{Out: t.TempDir(), Jobs: 8, MemoryBytes: 2, Main: slow,
		Memory: func([]string, *ftl.Registry) (int64, error) { return 3, nil }})
	require.NoError(t, err)
	// A bad command fails the study before anything runs.
	var g fakeCommand
	_, err = runStudy(t, gridStudy, Options{Out: t.TempDir(), Main: g.main,
		Memory: func([]string, *ftl.Registry) (int64, error) { return 0, fmt.Errorf("--iodepth: bad") }})
	assert.ErrorContains(t, err, "point 0 (op=7 iodepth=1): --iodepth: bad")
	assert.Zero(t, g.count())
}
