package trace

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ftlsim/ftlsim/blockio"
)

// Format names a trace format.
type Format string

// Formats.
const (
	MSR      Format = "msr"
	SPC      Format = "spc"
	DiskSim  Format = "disksim"
	Heimdall Format = "heimdall"
	Blkparse Format = "blkparse"
	IOLog    Format = "iolog"
)

// Formats lists the formats Open reads.
func Formats() []Format { return []Format{MSR, SPC, DiskSim, Heimdall, Blkparse, IOLog} }

// ParseFormat checks a format name ("mqsim" and "ssdsim" are DiskSim).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case MSR, SPC, DiskSim, Heimdall, Blkparse, IOLog:
		return f, nil
	case "mqsim", "ssdsim", "ascii":
		return DiskSim, nil
	case "fio":
		return IOLog, nil
	}
	return "", fmt.Errorf("trace format %q: allowed msr, spc, disksim (mqsim, ssdsim), heimdall, blkparse, iolog", s)
}

// Record is one request of a trace.
type Record struct {
	TimeNs int64 // from the first record
	Device int
	Offset int64 // bytes
	Length int64 // bytes
	Op     blockio.Op
	Line   int // line in the file
}

// ParseError is a malformed line.
type ParseError struct {
	File   string
	Line   int
	Field  string
	Value  string
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s %q: %s", e.File, e.Line, e.Field, e.Value, e.Reason)
}

// ErrFormat is returned when no format fits a file.
var ErrFormat = errors.New("unrecognised trace format")

// ErrTruncated is wrapped by the error of a compressed trace that ends
// before its compressed stream does (a download or copy cut short).
var ErrTruncated = errors.New("the compressed file is cut short")

// ErrCorrupt is wrapped by the error of a compressed trace whose data
// does not decompress (a damaged file).
var ErrCorrupt = errors.New("the compressed file is damaged")

// StreamError is a compressed trace that could not be read to its end:
// cut short (ErrTruncated) or damaged (ErrCorrupt), after Records records
// had been read.
type StreamError struct {
	File    string
	Records int64
	Kind    error // ErrTruncated or ErrCorrupt
	Err     error // what the decompressor said
}

// Error names the file, what went wrong and how many records were read.
func (e *StreamError) Error() string {
	if e.Kind == ErrTruncated {
		return fmt.Sprintf("%s: %v (%v after %d records)", e.File, e.Kind, e.Err, e.Records)
	}
	return fmt.Sprintf("%s: %v (%v, after %d records)", e.File, e.Kind, e.Err, e.Records)
}

// Unwrap returns the kind and the decompressor's error.
func (e *StreamError) Unwrap() []error { return []error{e.Kind, e.Err} }

// streamErr wraps err, a decompressor's, as a StreamError, or returns nil
// when it is not one.
func streamErr(file string, records int64, err error) error {
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &StreamError{File: file, Records: records, Kind: ErrTruncated, Err: err}
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, &ce):
		return &StreamError{File: file, Records: records, Kind: ErrCorrupt, Err: err}
	}
	return nil
}

// failedReader remembers the first error, other than io.EOF, that its
// reader returned: the line it cut short is not a record.
type failedReader struct {
	r   io.Reader
	err error
}

func (f *failedReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF && f.err == nil {
		f.err = err
	}
	return n, err
}

// scanLines splits lines as bufio.ScanLines does, except that the last
// piece of a stream that failed is the error, not a line.
func (f *failedReader) scanLines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && f.err != nil && bytes.IndexByte(data, '\n') < 0 {
		return 0, nil, f.err
	}
	return bufio.ScanLines(data, atEOF)
}

// maxLine bounds one line; a longer one is an error, not a memory blow-up.
const maxLine = 1 << 20

// Reader streams a trace's records.
type Reader struct {
	name    string
	format  Format
	sc      *bufio.Scanner
	line    int
	parse   func(r *Reader, fields []string, rec *Record) (bool, error)
	t0      int64 // first timestamp, in the format's unit
	haveT0  bool
	last    int64    // latest time returned, ns
	ver     int      // iolog version
	clock   int64    // iolog version 2: the time its wait lines have added up to, ns
	fields  []string // reused
	close   func() error
	done    bool
	src     *failedReader
	records int64 // records returned
}

// Name is the file name used in errors.
func (r *Reader) Name() string { return r.name }

// Format is the format being read.
func (r *Reader) Format() Format { return r.format }

// Close releases the file.
func (r *Reader) Close() error {
	if r.close != nil {
		return r.close()
	}
	return nil
}

// Open opens a trace file, gzip-compressed or not, in format f ("" to
// detect it).
func Open(file string, f Format) (*Reader, error) {
	fh, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(file, fh, f)
	if err != nil {
		fh.Close()
		return nil, err
	}
	inner := r.close
	r.close = func() error {
		if inner != nil {
			inner()
		}
		return fh.Close()
	}
	return r, nil
}

// NewReader reads a trace from in; name is used in errors.
func NewReader(name string, in io.Reader, f Format) (*Reader, error) {
	src := &failedReader{r: in}
	br := bufio.NewReaderSize(src, 1<<16)
	var closeFn func() error
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			if se := streamErr(name, 0, err); se != nil {
				return nil, se
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		closeFn = zr.Close
		src = &failedReader{r: zr}
		br = bufio.NewReaderSize(src, 1<<16)
	}
	if f == "" {
		head, err := br.Peek(8192)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			// A stream that fails early: detect from its whole lines.
			head = head[:bytes.LastIndexByte(head, '\n')+1]
		}
		d, derr := Detect(head)
		if derr != nil {
			if se := streamErr(name, 0, src.err); se != nil {
				return nil, se
			}
			return nil, fmt.Errorf("%s: %w (give --format)", name, derr)
		}
		f = d
	}
	r := &Reader{name: name, format: f, close: closeFn, src: src}
	switch f {
	case MSR:
		r.parse = parseMSR
	case SPC:
		r.parse = parseSPC
	case DiskSim:
		r.parse = parseDiskSim
	case Heimdall:
		r.parse = parseHeimdall
	case Blkparse:
		r.parse = parseBlkparse
	case IOLog:
		r.parse = parseIOLog
	default:
		return nil, fmt.Errorf("%s: %w: %q", name, ErrFormat, f)
	}
	r.sc = bufio.NewScanner(br)
	r.sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	r.sc.Split(src.scanLines)
	return r, nil
}

// Next reads the next record; it returns io.EOF at the end.
func (r *Reader) Next(rec *Record) error {
	for !r.done && r.sc.Scan() {
		r.line++
		line := r.sc.Bytes()
		if t := bytes.TrimSpace(line); len(t) == 0 || t[0] == '#' {
			continue
		}
		r.fields = splitFields(r.fields[:0], string(line), r.format)
		ok, err := r.parse(r, r.fields, rec)
		if err != nil {
			return err
		}
		if ok {
			rec.Line = r.line
			r.records++
			return nil
		}
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &ParseError{File: r.name, Line: r.line + 1, Field: "line", Value: "…", Reason: fmt.Sprintf("longer than %d bytes", maxLine)}
		}
		if se := streamErr(r.name, r.records, err); se != nil {
			return se
		}
		return fmt.Errorf("%s: %w", r.name, err)
	}
	return io.EOF
}

// splitFields splits CSV formats on commas and the others on white space.
func splitFields(dst []string, line string, f Format) []string {
	if f == MSR || f == SPC {
		for {
			i := strings.IndexByte(line, ',')
			if i < 0 {
				return append(dst, strings.TrimSpace(line))
			}
			dst = append(dst, strings.TrimSpace(line[:i]))
			line = line[i+1:]
		}
	}
	return append(dst, strings.Fields(line)...)
}

// Detect guesses a format from the first bytes of a trace.
func Detect(head []byte) (Format, error) {
	lines := strings.Split(string(head), "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		if i == len(lines)-1 && len(head) >= 8192 {
			break // possibly cut short
		}
		switch {
		case strings.HasPrefix(l, "fio version"):
			return IOLog, nil
		case strings.Count(l, ",") >= 6:
			f := strings.Split(l, ",")
			if t := strings.ToLower(strings.TrimSpace(f[3])); t == "read" || t == "write" {
				return MSR, nil
			}
		case strings.Count(l, ",") >= 4:
			f := strings.Split(l, ",")
			if t := strings.ToLower(strings.TrimSpace(f[3])); t == "r" || t == "w" {
				return SPC, nil
			}
		default:
			f := strings.Fields(l)
			if len(f) >= 8 && strings.Contains(f[0], ",") && f[6] != "" {
				return Blkparse, nil
			}
			if len(f) == 5 {
				if strings.Contains(f[0], ".") {
					return Heimdall, nil
				}
				return DiskSim, nil
			}
		}
		return "", fmt.Errorf("%w: first record %q", ErrFormat, l)
	}
	return "", fmt.Errorf("%w: no records", ErrFormat)
}
