// Package atomicfile writes files whole or not at all.
//
// A File collects what is written to it in a temporary file in its
// destination's directory and replaces the destination only on Commit,
// with a rename: until then an existing file keeps its content, and a run
// that fails leaves it as it was. A destination that exists and is not a
// regular file (a terminal, a pipe, /dev/null, /dev/full) cannot be
// replaced; it is written directly.
//
// A File remembers the first error of its writes, so that callers may
// write with fmt.Fprintf and check once: Commit returns that error and
// then replaces nothing. A Set commits several files together. Neither is
// safe for concurrent use.
//
// A process killed while writing leaves its temporary file behind (a
// hidden ".NAME.tmp…" beside the destination); the next Create of the
// same destination removes it, on systems with file locks, where each
// writer holds its temporary file locked while it is open.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is a file being written; see the package documentation.
type File struct {
	path string   // as given, for messages
	dest string   // the destination, symbolic links followed
	f    *os.File // the temporary file, or the destination when direct
	w    *bufio.Writer
	mode fs.FileMode // the temporary file's mode once committed
	// direct: the destination is not a regular file and is written in
	// place.
	direct bool
	err    error // the first error
	state  state
}

// state is where a File is in its life.
type state uint8

const (
	writing  state = iota
	finished       // flushed to disk and closed, not yet in place
	placed         // renamed over the destination (or written directly)
	dropped        // aborted or failed: the temporary file is removed
)

// Create starts writing the file at path. Its directory must exist and be
// writable (the temporary file is made there now, so that a path that
// cannot be written fails before any work). A new file gets mode 0644; a
// replaced one keeps its mode.
func Create(path string) (*File, error) {
	dest, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new file; a dangling link is replaced by the file.
		dest = path
	case err != nil:
		return nil, fmt.Errorf("writing %s: %w", path, cause(err))
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(dest); err == nil {
		switch {
		case st.IsDir():
			return nil, fmt.Errorf("writing %s: is a directory", path)
		case !st.Mode().IsRegular():
			f, err := os.OpenFile(dest, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("writing %s: %w", path, cause(err))
			}
			return &File{path: path, dest: dest, f: f, w: bufio.NewWriterSize(f, 64<<10), direct: true}, nil
		}
		mode = st.Mode().Perm()
	}
	removeStale(dest)
	f, err := os.CreateTemp(filepath.Dir(dest), tempPrefix(dest)+"*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, cause(err)) // CreateTemp's path is the temporary file's, not the user's
	}
	hold(f)
	return &File{path: path, dest: dest, f: f, w: bufio.NewWriterSize(f, 64<<10), mode: mode}, nil
}

// tempPrefix is how the names of dest's temporary files begin.
func tempPrefix(dest string) string { return "." + filepath.Base(dest) + ".tmp" }

// removeStale removes the temporary files of dest that a process killed
// while writing it left behind (SIGKILL, a crash, the power): those no
// live writer holds (each holds its own locked while it is open; on
// systems without file locks none is taken for stale).
func removeStale(dest string) {
	ents, err := os.ReadDir(filepath.Dir(dest))
	if err != nil {
		return
	}
	pre := tempPrefix(dest)
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, pre) && e.Type().IsRegular() {
			if p := filepath.Join(filepath.Dir(dest), n); stale(p) {
				os.Remove(p)
			}
		}
	}
}

// Name returns the path the file was created with.
func (f *File) Name() string { return f.path }

// Write writes p to the file. After an error every write fails with it;
// Commit reports it.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.state != writing {
		return 0, fmt.Errorf("writing %s: %w", f.path, os.ErrClosed)
	}
	n, err := f.w.Write(p)
	if err != nil {
		f.err = fmt.Errorf("writing %s: %w", f.path, cause(err))
		return n, f.err
	}
	return n, nil
}

// WriteString writes s to the file, as Write does.
func (f *File) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// Err returns the first error the file met, or nil.
func (f *File) Err() error { return f.err }

// Commit flushes the file to disk and puts it in place of the
// destination. If a write failed, or flushing does, nothing is replaced
// and the error is returned. Commit again returns the same; Commit after
// Abort does nothing.
func (f *File) Commit() error {
	if err := f.finish(); err != nil {
		return err
	}
	return f.place()
}

// Close flushes the file to disk and closes its descriptor without
// putting it in place: Commit (of the file or its Set) does that later.
// It returns the first error the file met, and then the file is dropped.
func (f *File) Close() error { return f.finish() }

// finish flushes the file to disk and closes it, ready to be put in
// place; on an error it drops it.
func (f *File) finish() error {
	if f.state != writing {
		return f.err
	}
	err := f.err
	if err == nil {
		err = f.w.Flush()
	}
	if err == nil && !f.direct {
		err = f.f.Sync()
	}
	if e := f.f.Close(); e != nil && err == nil {
		err = e
	}
	if err == nil && !f.direct {
		err = os.Chmod(f.f.Name(), f.mode)
	}
	if err != nil {
		if f.err == nil {
			f.err = fmt.Errorf("writing %s: %w", f.path, cause(err))
		}
		f.remove()
		return f.err
	}
	f.state = finished
	return nil
}

// place renames a finished file over its destination.
func (f *File) place() error {
	if f.state != finished {
		return f.err
	}
	if !f.direct {
		if err := os.Rename(f.f.Name(), f.dest); err != nil {
			f.err = fmt.Errorf("writing %s: %w", f.path, cause(err))
			f.remove()
			return f.err
		}
	}
	f.state = placed
	return nil
}

// Abort drops what was written: the destination is left as it was (a
// destination written directly keeps what reached it). Abort after
// Commit or Abort does nothing.
func (f *File) Abort() {
	switch f.state {
	case writing:
		f.f.Close()
		f.remove()
	case finished:
		f.remove()
	}
}

// remove deletes the temporary file and marks the file dropped.
func (f *File) remove() {
	if !f.direct {
		os.Remove(f.f.Name())
	}
	f.state = dropped
}

// WriteFile writes data to the file at path whole, as Create and Commit
// do.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	f.Write(data) // an error is kept, and Commit returns it
	return f.Commit()
}

// Set is files written together: Commit puts them all in place, Abort
// drops them all. The zero Set is empty and ready.
type Set struct {
	files []*File
}

// Create starts writing a file of the set, as the package's Create does.
func (s *Set) Create(path string) (*File, error) {
	f, err := Create(path)
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, f)
	return f, nil
}

// Err returns the first error the set's files met, or nil.
func (s *Set) Err() error {
	for _, f := range s.files {
		if f.err != nil {
			return f.err
		}
	}
	return nil
}

// Commit puts every file of the set in place, in the order they were
// created. Every file is first flushed to disk; if any write or flush
// failed, none is put in place, every file is dropped and the first error
// returned. Only a rename failing part way (the directory removed under
// the run) leaves the earlier files in place.
func (s *Set) Commit() error {
	for _, f := range s.files {
		f.finish()
	}
	if err := s.Err(); err != nil {
		s.Abort()
		return err
	}
	for _, f := range s.files {
		if err := f.place(); err != nil {
			s.Abort()
			return err
		}
	}
	return nil
}

// Abort drops every file of the set not yet in place.
func (s *Set) Abort() {
	for _, f := range s.files {
		f.Abort()
	}
}

// cause is the reason an operation on a file failed, without the
// operation and the path (the temporary file's, or the one the message
// already names): "no space left on device".
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
