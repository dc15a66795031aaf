package snapshot

import (
	"bufio"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// FormatVersion is the version of the file format Write writes and Open
// reads.
const FormatVersion = 1

const (
	magic      = "FTLSIMSS"
	endMark    = "SSEND\x00\x00\n"
	maxHeader  = 64 << 10
	prefixLen  = int64(len(magic) + 4 + 4)
	trailerLen = int64(8 + 8 + 4 + len(endMark))
)

// Compression of a file's payload.
const (
	None  = "none"  // the codec's stream as it is
	Flate = "flate" // compress/flate at BestSpeed
)

// Errors of Open. Each is wrapped with the detail.
var (
	// ErrNotSnapshot: the file does not start with the magic, or its
	// header is malformed.
	ErrNotSnapshot = errors.New("not an ftlsim snapshot")
	// ErrVersion: the file is of a format version this build does not
	// read.
	ErrVersion = errors.New("unknown snapshot format version")
	// ErrTruncated: the file is shorter than its lengths say, or lacks
	// its end mark.
	ErrTruncated = errors.New("truncated")
	// ErrChecksum: the file's content does not match its CRC-32C.
	ErrChecksum = errors.New("checksum mismatch: the file is corrupt")
)

// Header says what a snapshot file holds; it is stored as JSON.
type Header struct {
	// Program is the build that wrote the file (cli.Version).
	Program string `json:"program"`
	// Drive is the drive as the command named it (--drive);
	// Description is everything that describes it (the resolved
	// description and the options that change the drive), and DriveKey
	// its SHA-256 (hex).
	Drive       string `json:"drive"`
	Description string `json:"description"`
	DriveKey    string `json:"drive_key"`
	// Preparation is what was run on the drive before it was saved, in
	// the command's words (the precondition, the range it covered), and
	// PreparationKey a SHA-256 (hex) of it. Precondition is the
	// precondition alone, as workload.ParsePrecondition reads it.
	Preparation    string `json:"preparation"`
	PreparationKey string `json:"preparation_key"`
	Precondition   string `json:"precondition"`
	// PrepNs is the simulated time the preparation took.
	PrepNs int64 `json:"prep_ns"`
	// Compression is the payload's: None or Flate.
	Compression string `json:"compression"`
}

// Write writes a snapshot file to w: h, then the payload that state
// writes (the codec's stream; it returns the stream's length, as Encode
// does), compressed as h.Compression says, then the trailer. It returns
// the bytes written.
func Write(w io.Writer, h Header, state func(io.Writer) (int64, error)) (int64, error) {
	if h.Compression != None && h.Compression != Flate {
		return 0, fmt.Errorf("snapshot: compression %q, allowed %s or %s", h.Compression, None, Flate)
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	if len(hj) > maxHeader {
		return 0, fmt.Errorf("snapshot: header of %d bytes, at most %d", len(hj), maxHeader)
	}
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	out := &countWriter{w: io.MultiWriter(w, crc)}
	var pre [prefixLen]byte
	copy(pre[:], magic)
	binary.LittleEndian.PutUint32(pre[len(magic):], FormatVersion)
	binary.LittleEndian.PutUint32(pre[len(magic)+4:], uint32(len(hj)))
	out.Write(pre[:])
	out.Write(hj)
	if out.n != prefixLen+int64(len(hj)) {
		return out.n, fmt.Errorf("snapshot: writing the header: %w", io.ErrShortWrite)
	}
	start := out.n
	payload := io.Writer(out)
	var fw *flate.Writer
	if h.Compression == Flate {
		fw, _ = flate.NewWriter(out, flate.BestSpeed)
		payload = fw
	}
	raw, err := state(payload)
	if err != nil {
		return out.n, err
	}
	if fw != nil {
		if err := fw.Close(); err != nil {
			return out.n, err
		}
	}
	var tr [trailerLen]byte
	binary.LittleEndian.PutUint64(tr[0:], uint64(out.n-start))
	binary.LittleEndian.PutUint64(tr[8:], uint64(raw))
	binary.LittleEndian.PutUint32(tr[16:], crc.Sum32())
	copy(tr[20:], endMark)
	n, err := w.Write(tr[:])
	return out.n + int64(n), err
}

// File is a snapshot file whose header and checksum Open has checked.
type File struct {
	Header Header
	r      io.ReaderAt
	start  int64 // the payload's offset
	stored int64 // the payload's bytes in the file
	raw    int64 // the codec stream's bytes
}

// Open reads the header of the snapshot file r (size bytes) and checks
// the file: its magic, version, header, trailer and checksum (which
// reads the whole file once). The payload is not decoded: Restore does
// that.
func Open(r io.ReaderAt, size int64) (*File, error) {
	var pre [prefixLen]byte
	n, err := r.ReadAt(pre[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if m := min(n, len(magic)); string(pre[:m]) != magic[:m] {
		return nil, fmt.Errorf("%w (it does not start with %q)", ErrNotSnapshot, magic)
	}
	if int64(n) < prefixLen {
		return nil, fmt.Errorf("%w: %d bytes, not even a header", ErrTruncated, n)
	}
	if v := binary.LittleEndian.Uint32(pre[len(magic):]); v != FormatVersion {
		return nil, fmt.Errorf("%w %d: this build reads version %d; save the state again with this build", ErrVersion, v, FormatVersion)
	}
	hl := int64(binary.LittleEndian.Uint32(pre[len(magic)+4:]))
	if hl > maxHeader {
		return nil, fmt.Errorf("%w: header length %d, at most %d", ErrNotSnapshot, hl, maxHeader)
	}
	if size < prefixLen+trailerLen+hl {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its header and trailer", ErrTruncated, size)
	}
	var tr [trailerLen]byte
	if _, err := r.ReadAt(tr[:], size-trailerLen); err != nil {
		return nil, err
	}
	if string(tr[20:]) != endMark {
		return nil, fmt.Errorf("%w: no end mark (the file was cut short, or is corrupt)", ErrTruncated)
	}
	f := &File{r: r, start: prefixLen + hl}
	stored, raw := binary.LittleEndian.Uint64(tr[0:]), binary.LittleEndian.Uint64(tr[8:])
	if stored != uint64(size-trailerLen-f.start) {
		return nil, fmt.Errorf("%w: the payload should be %d bytes, the file holds %d", ErrTruncated, stored, size-trailerLen-f.start)
	}
	if raw > 1<<50 {
		return nil, fmt.Errorf("%w: state length %d", ErrChecksum, raw)
	}
	f.stored, f.raw = int64(stored), int64(raw)
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	if _, err := io.Copy(crc, io.NewSectionReader(r, 0, size-trailerLen)); err != nil {
		return nil, err
	}
	if want, got := binary.LittleEndian.Uint32(tr[16:]), crc.Sum32(); want != got {
		return nil, fmt.Errorf("%w (CRC-32C %08x, the trailer says %08x)", ErrChecksum, got, want)
	}
	dec := json.NewDecoder(io.NewSectionReader(r, prefixLen, hl))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f.Header); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrNotSnapshot, err)
	}
	if c := f.Header.Compression; c != None && c != Flate {
		return nil, fmt.Errorf("%w: compression %q", ErrNotSnapshot, c)
	}
	return f, nil
}

// Size returns the payload's bytes in the file and the codec stream's.
func (f *File) Size() (stored, raw int64) { return f.stored, f.raw }

// State returns a reader of the codec's stream (decompressed) and its
// length, for Decode; the caller closes it.
func (f *File) State() (io.ReadCloser, int64) {
	r := io.NewSectionReader(f.r, f.start, f.stored)
	if f.Header.Compression == Flate {
		return flate.NewReader(bufio.NewReaderSize(r, 1<<16)), f.raw
	}
	return io.NopCloser(r), f.raw
}

// Restore decodes the payload into root, as Decode does.
func (f *File) Restore(root any) error {
	r, n := f.State()
	defer r.Close()
	return Decode(r, n, root)
}
