package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// entries lists dir's names: no temporary file may stay behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestExistingFileKeptUntilCommit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keep.txt")
	require.NoError(t, os.WriteFile(p, []byte("old\n"), 0o600))
	f, err := Create(p)
	require.NoError(t, err)
	_, err = f.WriteString("new content\n")
	require.NoError(t, err)
	got, _ := os.ReadFile(p)
	require.Equal(t, "old\n", string(got), "not truncated while writing")
	f.Abort()
	got, _ = os.ReadFile(p)
	require.Equal(t, "old\n", string(got), "not changed by an abort")
	require.Equal(t, []string{"keep.txt"}, entries(t, dir))

	f, err = Create(p)
	require.NoError(t, err)
	_, err = f.WriteString("new content\n")
	require.NoError(t, err)
	require.NoError(t, f.Commit())
	require.NoError(t, f.Commit(), "a second commit does nothing")
	got, _ = os.ReadFile(p)
	require.Equal(t, "new content\n", string(got))
	st, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "a replaced file keeps its mode")
	require.Equal(t, []string{"keep.txt"}, entries(t, dir))
}

func TestNewFileMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.txt")
	require.NoError(t, WriteFile(p, []byte("x")))
	st, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

func TestUnwritablePathsFailAtCreate(t *testing.T) {
	dir := t.TempDir()
	_, err := Create(filepath.Join(dir, "no", "such", "dir", "x.log"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Contains(t, err.Error(), filepath.Join(dir, "no", "such", "dir", "x.log"), "names the path given")
	_, err = Create(dir)
	require.ErrorContains(t, err, "is a directory")
}

func TestSymlinkTargetReplaced(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	link := filepath.Join(dir, "link.txt")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	require.NoError(t, os.Symlink(target, link))
	require.NoError(t, WriteFile(link, []byte("new")))
	got, _ := os.ReadFile(target)
	require.Equal(t, "new", string(got))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeSymlink, "the link stays a link")
}

// A device is written in place; its write errors are errors.
func TestDeviceWrittenDirectly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /dev/full")
	}
	require.NoError(t, WriteFile("/dev/null", []byte("x")))
	f, err := Create("/dev/full")
	require.NoError(t, err)
	f.Write(make([]byte, 1<<20)) // more than the buffer: the write itself fails
	err = f.Commit()
	require.ErrorContains(t, err, "/dev/full")
	require.ErrorContains(t, err, "no space left")
	f, err = Create("/dev/full")
	require.NoError(t, err)
	f.WriteString("short") // fails when flushed
	require.ErrorContains(t, f.Commit(), "no space left")
}

// A set commits all its files or none.
func TestSetAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte("old a"), 0o644))
	var s Set
	fa, err := s.Create(a)
	require.NoError(t, err)
	fa.WriteString("new a")
	if runtime.GOOS == "linux" {
		ff, err := s.Create("/dev/full")
		require.NoError(t, err)
		ff.WriteString("x")
	}
	fb, err := s.Create(b)
	require.NoError(t, err)
	fb.WriteString("new b")
	if runtime.GOOS == "linux" {
		require.ErrorContains(t, s.Commit(), "no space left")
		got, _ := os.ReadFile(a)
		require.Equal(t, "old a", string(got), "no file committed when one failed")
		require.Equal(t, []string{"a"}, entries(t, dir))
		return
	}
	require.NoError(t, s.Commit())
}

func TestSetCommit(t *testing.T) {
	dir := t.TempDir()
	var s Set
	for _, n := range []string{"x", "y"} {
		f, err := s.Create(filepath.Join(dir, n))
		require.NoError(t, err)
		f.WriteString(n)
	}
	require.NoError(t, s.Commit())
	s.Abort() // after a commit: nothing to drop
	require.Equal(t, []string{"x", "y"}, entries(t, dir))
	got, _ := os.ReadFile(filepath.Join(dir, "y"))
	require.Equal(t, "y", string(got))
}

// A file closed early is put in place by its set's commit, or dropped by
// its abort.
func TestCloseThenCommit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	for _, commit := range []bool{false, true} {
		var s Set
		f, err := s.Create(p)
		require.NoError(t, err)
		f.WriteString("data")
		require.NoError(t, f.Close())
		_, err = f.WriteString("more")
		require.ErrorIs(t, err, os.ErrClosed)
		_, err = os.Stat(p)
		require.ErrorIs(t, err, os.ErrNotExist, "not in place before the commit")
		if !commit {
			s.Abort()
			require.Empty(t, entries(t, dir))
			continue
		}
		require.NoError(t, s.Commit())
		got, _ := os.ReadFile(p)
		require.Equal(t, "data", string(got))
	}
}

// TestStaleTemporaryFilesRemoved: a temporary file a killed writer left
// (no one holds it) is removed by the next Create of its destination; a
// live writer's is not.
func TestStaleTemporaryFilesRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no file locks: stale files are left")
	}
	dir := t.TempDir()
	dest := filepath.Join(dir, "out.json")
	left := filepath.Join(dir, ".out.json.tmp123456")
	require.NoError(t, os.WriteFile(left, []byte("half a result"), 0o600))
	other := filepath.Join(dir, ".other.json.tmp1")
	require.NoError(t, os.WriteFile(other, nil, 0o600))
	live, err := Create(dest)
	require.NoError(t, err)
	require.NoFileExists(t, left, "the killed run's file is removed")
	require.FileExists(t, other, "another destination's is not")
	next, err := Create(dest)
	require.NoError(t, err)
	require.FileExists(t, live.f.Name(), "a live writer's file stays")
	live.Write([]byte("a"))
	require.NoError(t, live.Commit())
	next.Abort()
	b, err := os.ReadFile(dest)
	require.NoError(t, err)
	require.Equal(t, "a", string(b))
}
