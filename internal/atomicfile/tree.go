package atomicfile

import (
	"os"
	"path/filepath"
	"sort"
)

// WriteTree writes files into dir, each whole (WriteFile), in the order
// of their names, making the folders they are in. Names are paths
// relative to dir, slash-separated.
func WriteTree(dir string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := WriteFile(path, files[n]); err != nil {
			return err
		}
	}
	return nil
}
