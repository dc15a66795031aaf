package trace

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/workload"
)

// MapOptions say how a trace's records land on a drive.
type MapOptions struct {
	// Capacity is the drive's user capacity in bytes.
	Capacity int64
	// Devices is "merge" (every device's offsets address the whole drive)
	// or "partition:N" (device d gets partition d mod N of N equal ones).
	Devices string
	// Beyond is "wrap" (a request ending past the drive or partition is
	// moved back into it: offset modulo the size, then shifted down so it
	// ends inside) or "reject" (the replay stops with an error).
	Beyond string
}

// Summary describes what a replay read from its trace.
type Summary struct {
	Records                          int64 // requests replayed
	Reads, Writes, Trims             int64
	Flushes                          int64 // FLUSH commands (fio iolog sync and datasync)
	ReadBytes, WriteBytes, TrimBytes int64
	Skipped                          int64 // zero-length records
	Wrapped                          int64 // requests moved back into the drive
	Devices                          int   // distinct device numbers
	MaxEndBytes                      int64 // highest offset+length before mapping
	DurationNs                       int64 // time of the last record
}

// ReadShare is the fraction of requests that read.
func (s Summary) ReadShare() float64 {
	if s.Records == 0 {
		return 0
	}
	return float64(s.Reads) / float64(s.Records)
}

// Source replays a trace on a drive; it implements workload.Source. After
// the replay, Err reports a malformed line or a rejected request.
type Source struct {
	r       *Reader
	o       MapOptions
	parts   int64
	part    int64
	wrap    bool
	err     error
	sum     Summary
	devSeen []uint64 // bitmap of device numbers below 65536
	rec     Record
}

// NewSource maps the records of r onto a drive.
func NewSource(r *Reader, o MapOptions) (*Source, error) {
	if o.Capacity < 512 {
		return nil, fmt.Errorf("trace: drive capacity %d bytes, need at least 512", o.Capacity)
	}
	s := &Source{r: r, o: o, parts: 1, devSeen: make([]uint64, 1024)}
	switch dv := strings.ToLower(o.Devices); {
	case dv == "" || dv == "merge":
	case strings.HasPrefix(dv, "partition:"):
		n, err := strconv.ParseInt(strings.TrimPrefix(dv, "partition:"), 10, 64)
		if err != nil || n < 1 || n > 4096 || o.Capacity/n < 1<<20 {
			return nil, fmt.Errorf("trace: devices=%s: N must be an integer from 1 to 4096 leaving at least 1 MiB per partition", o.Devices)
		}
		s.parts = n
	default:
		return nil, fmt.Errorf("trace: devices=%s: allowed merge, partition:N", o.Devices)
	}
	s.part = o.Capacity / s.parts / 512 * 512
	switch strings.ToLower(o.Beyond) {
	case "", "wrap":
		s.wrap = true
	case "reject":
	default:
		return nil, fmt.Errorf("trace: beyond=%s: allowed wrap, reject", o.Beyond)
	}
	return s, nil
}

// Summary returns what has been read so far.
func (s *Source) Summary() Summary { return s.sum }

// Err returns the error that ended the replay early, if any.
func (s *Source) Err() error { return s.err }

// Next implements workload.Source.
func (s *Source) Next(it *workload.Item) bool {
	for s.err == nil {
		rec := &s.rec
		if err := s.r.Next(rec); err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			return false
		}
		if rec.Op == blockio.Flush {
			s.sum.Records++
			s.sum.Flushes++
			s.sum.DurationNs = rec.TimeNs
			it.At, it.Request = rec.TimeNs, blockio.Request{Op: blockio.Flush}
			return true
		}
		if rec.Length == 0 {
			s.sum.Skipped++
			continue
		}
		if d := rec.Device; d >= 0 && d < 65536 && s.devSeen[d>>6]&(1<<(d&63)) == 0 {
			s.devSeen[d>>6] |= 1 << (d & 63)
			s.sum.Devices++
		}
		s.sum.MaxEndBytes = max(s.sum.MaxEndBytes, rec.Offset+rec.Length)
		// Whole sectors.
		off := rec.Offset / 512 * 512
		n := (rec.Offset+rec.Length+511)/512*512 - off
		base := int64(0)
		if s.parts > 1 {
			base = int64(rec.Device) % s.parts * s.part
		}
		if off+n > s.part {
			if !s.wrap {
				s.err = fmt.Errorf("%s:%d: offset %d + length %d ends past the drive's %d bytes (use beyond=wrap to fold it back)",
					s.r.name, rec.Line, rec.Offset, rec.Length, s.part)
				return false
			}
			s.sum.Wrapped++
			n = min(n, s.part)
			off %= s.part
			if off+n > s.part {
				off = s.part - n
			}
		}
		s.sum.Records++
		s.sum.DurationNs = rec.TimeNs
		switch rec.Op {
		case blockio.Read:
			s.sum.Reads++
			s.sum.ReadBytes += rec.Length
		case blockio.Write:
			s.sum.Writes++
			s.sum.WriteBytes += rec.Length
		case blockio.Trim:
			s.sum.Trims++
			s.sum.TrimBytes += rec.Length
		}
		it.At = rec.TimeNs
		it.Op, it.Offset, it.Length = rec.Op, base+off, n
		it.Token = uint32(s.sum.Records)
		return true
	}
	return false
}
