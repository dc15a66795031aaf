package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// WriteTree makes the folders and writes each file whole, replacing what
// was there; a file that cannot be written stops it with an error.
func TestWriteTree(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old"), 0o644))
	require.NoError(t, WriteTree(dir, map[string][]byte{"a.txt": []byte("new"), "sub/deeper/b.txt": []byte("b")}))
	for name, want := range map[string]string{"a.txt": "new", "sub/deeper/b.txt": "b"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		require.Equal(t, want, string(got))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	require.Error(t, WriteTree(dir, map[string][]byte{"file/c.txt": []byte("c")}), "a file where a folder must be")
}
