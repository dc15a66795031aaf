// Package blockio defines the block-I/O requests a host sends a drive:
// the command (Op), the byte range it covers (Request) and a description
// of the content it writes (Data). It is a leaf package shared by the
// workload generators, the controller that executes requests and the
// event engine that carries them, so that none of those needs another
// for these types.
//
// Offsets and lengths are bytes; a drive requires multiples of 512 (the
// sector size).
package blockio

import "fmt"

// Op is a host command.
type Op uint8

// Host commands.
const (
	Read Op = iota
	Write
	Trim
	Flush
)

// String returns "read", "write", "trim" or "flush".
func (o Op) String() string {
	switch o {
	case Read:
		return "read"
	case Write:
		return "write"
	case Trim:
		return "trim"
	case Flush:
		return "flush"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Data describes the content of written data, as fio's buffer options
// do: CompressPct is the share a compressor removes
// (buffer_compress_percentage), DedupePct the share that repeats data
// written before (dedupe_percentage). A compressing controller stores each
// unit in the space its compressed size needs; others store data as it
// comes and ignore its content.
type Data struct {
	CompressPct uint8
	DedupePct   uint8
}

// Range is one extent of a multi-range command, in bytes.
type Range struct{ Offset, Length int64 }

// Request is one host command. Offset and Length are in bytes and must be
// multiples of 512 (the sector size); Flush ignores them.
type Request struct {
	Op     Op
	Offset int64
	Length int64
	Data   Data // content of written data
	// Ranges, when set on a TRIM, are the extents one command
	// deallocates (an NVMe Dataset Management command with several
	// ranges; fio's num_range). Offset is then the first one's and
	// Length their total.
	Ranges []Range
	// FUA is Force Unit Access: a write completes only once its data is
	// on flash, not in the write buffer; a read first commits buffered
	// data it covers to flash and reads it from there.
	FUA bool
	// KeepData, on a write, stores in each unit the data it already
	// holds (a defragmenter moving a file's extents rewrites the same
	// content): the flash work of a write, the content of none. Token
	// is then the data of units that hold none.
	KeepData bool
	// Token is an opaque payload stamp for written data (tests use it
	// to check that reads return the latest write).
	Token uint32
}
