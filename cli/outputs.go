package cli

import (
	"io"

	"github.com/ftlsim/ftlsim/internal/atomicfile"
)

// outputs are the files a run writes — the report (--output), fio's logs,
// the histogram and device logs — and where its report goes. The files
// are written whole or not at all: each is created (its path checked)
// before the run, filled as it goes, and put in place together once the
// run has succeeded (atomicfile.Set), so that a run that fails leaves
// every existing file as it was.
type outputs struct {
	set    atomicfile.Set
	report io.Writer // the report: --output's file, or stdout
}

// newOutputs opens the report's destination: --output's file, or stdout.
func newOutputs(o *options, stdout io.Writer) (*outputs, error) {
	w := &outputs{report: stdout}
	if o.output != "" {
		f, err := w.set.Create(o.output)
		if err != nil {
			return nil, usage("--output=%s: %w", o.output, err)
		}
		w.report = f
	}
	return w, nil
}

// create starts writing a file of the run; option names the option that
// asked for it, for the error.
func (w *outputs) create(option, path string) (*atomicfile.File, error) {
	f, err := w.set.Create(path)
	if err != nil {
		return nil, usage("--%s: %w", option, err)
	}
	return f, nil
}

// check makes sure that path can be written, before a run whose output
// goes there: its directory exists and takes a new file.
func check(option, path string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return usage("--%s: %w", option, err)
	}
	f.Abort()
	return nil
}

// commit puts every file in place, or, if any write failed, none; it
// returns the first error.
func (w *outputs) commit() error { return w.set.Commit() }

// abort drops the files not yet in place: the run failed.
func (w *outputs) abort() { w.set.Abort() }

// checkedWriter keeps the first error of the writes to w (the command's
// stdout), so that a report written with fmt.Fprintf to a full disk or a
// closed pipe is an error rather than silently cut short.
type checkedWriter struct {
	w   io.Writer
	err error
}

// Write writes p to the underlying writer; after an error it writes
// nothing and returns that error.
func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}
