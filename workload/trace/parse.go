package trace

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/internal/units"
)

func (r *Reader) fail(field, value, reason string) error {
	return &ParseError{File: r.name, Line: r.line, Field: field, Value: value, Reason: reason}
}

func (r *Reader) need(fields []string, n int, layout string) error {
	if len(fields) < n {
		return r.fail("record", strings.Join(fields, " "), "want "+layout)
	}
	return nil
}

func (r *Reader) uint(field, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, r.fail(field, v, "must be a non-negative integer")
	}
	return n, nil
}

// maxTraceBytes bounds every offset and size a trace gives (1 EiB): sums
// of two stay far inside int64, and no drive is near it.
const maxTraceBytes = 1 << 60

// maxTraceNs bounds every time a trace gives, from its first record (about
// 73 years): later arithmetic on times cannot overflow.
const maxTraceNs = math.MaxInt64 / 4

// bytes reads a count of units of unit bytes (1: bytes, 512: sectors) and
// returns it in bytes, refusing a value whose bytes would pass
// maxTraceBytes rather than letting it wrap.
func (r *Reader) bytes(field, v string, unit int64) (int64, error) {
	n, err := r.uint(field, v)
	if err != nil {
		return 0, err
	}
	if n > maxTraceBytes/unit {
		return 0, r.fail(field, v, fmt.Sprintf("must be at most %d (%d bytes)", maxTraceBytes/unit, int64(maxTraceBytes)))
	}
	return n * unit, nil
}

// time reads a non-negative, finite time in units of unitNs and returns
// it in nanoseconds, refusing one past maxTraceNs.
func (r *Reader) time(field, v string, unitNs float64) (int64, error) {
	x, err := units.ParseFloat(v)
	if err != nil || x < 0 || x*unitNs > maxTraceNs {
		return 0, r.fail(field, v, fmt.Sprintf("must be a number from 0 to %g", maxTraceNs/unitNs))
	}
	return int64(x * unitNs), nil
}

// since converts a timestamp t in units of unitNs to ns from the first
// record. Traces may step back a little (MSR records by completion); such
// records keep the latest time seen, so replay stays in order. A time
// more than maxTraceNs after the first is refused (field and v name it).
func (r *Reader) since(field, v string, t int64, unitNs float64) (int64, error) {
	if !r.haveT0 {
		r.t0, r.haveT0 = t, true
	}
	d := float64(t-r.t0) * unitNs
	if d > maxTraceNs {
		return 0, r.fail(field, v, fmt.Sprintf("is more than %d ns after the first record's time", int64(maxTraceNs)))
	}
	ns := int64(d)
	if ns < r.last {
		return r.last, nil
	}
	r.last = ns
	return ns, nil
}

func readWrite(r *Reader, field, v string, read, write string) (blockio.Op, error) {
	switch strings.ToLower(v) {
	case read:
		return blockio.Read, nil
	case write:
		return blockio.Write, nil
	}
	return 0, r.fail(field, v, "must be "+read+" or "+write)
}

const msrLayout = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"

func parseMSR(r *Reader, f []string, rec *Record) (bool, error) {
	if err := r.need(f, 6, msrLayout); err != nil {
		return false, err
	}
	ts, err := r.uint("Timestamp", f[0])
	if err != nil {
		return false, err
	}
	dev, err := r.uint("DiskNumber", f[2])
	if err != nil {
		return false, err
	}
	if rec.Op, err = readWrite(r, "Type", f[3], "read", "write"); err != nil {
		return false, err
	}
	if rec.Offset, err = r.bytes("Offset", f[4], 1); err != nil {
		return false, err
	}
	if rec.Length, err = r.bytes("Size", f[5], 1); err != nil {
		return false, err
	}
	rec.Device = int(dev)
	rec.TimeNs, err = r.since("Timestamp", f[0], ts, 100)
	return err == nil, err
}

func parseSPC(r *Reader, f []string, rec *Record) (bool, error) {
	if err := r.need(f, 5, "ASU,LBA,Size,Opcode,Timestamp"); err != nil {
		return false, err
	}
	asu, err := r.uint("ASU", f[0])
	if err != nil {
		return false, err
	}
	if rec.Offset, err = r.bytes("LBA", f[1], 512); err != nil {
		return false, err
	}
	if rec.Length, err = r.bytes("Size", f[2], 1); err != nil {
		return false, err
	}
	if rec.Op, err = readWrite(r, "Opcode", f[3], "r", "w"); err != nil {
		return false, err
	}
	ts, err := r.time("Timestamp", f[4], 1e9)
	if err != nil {
		return false, err
	}
	rec.Device = int(asu)
	rec.TimeNs, err = r.since("Timestamp", f[4], ts, 1)
	return err == nil, err
}

func op01(r *Reader, field, v string) (blockio.Op, error) {
	switch v {
	case "1":
		return blockio.Read, nil
	case "0":
		return blockio.Write, nil
	}
	// DiskSim's flags field: bit 0 set means read.
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return 0, r.fail(field, v, "must be 1 (read) or 0 (write)")
	}
	if n&1 == 1 {
		return blockio.Read, nil
	}
	return blockio.Write, nil
}

func parseDiskSim(r *Reader, f []string, rec *Record) (bool, error) {
	if err := r.need(f, 5, "time_ns device lba_sectors size_sectors op"); err != nil {
		return false, err
	}
	ts, err := r.uint("time", f[0])
	if err != nil {
		return false, err
	}
	dev, err := r.uint("device", f[1])
	if err != nil {
		return false, err
	}
	if rec.Offset, err = r.bytes("lba", f[2], 512); err != nil {
		return false, err
	}
	if rec.Length, err = r.bytes("size", f[3], 512); err != nil {
		return false, err
	}
	if rec.Op, err = op01(r, "op", f[4]); err != nil {
		return false, err
	}
	rec.Device = int(dev)
	rec.TimeNs, err = r.since("time", f[0], ts, 1)
	return err == nil, err
}

func parseHeimdall(r *Reader, f []string, rec *Record) (bool, error) {
	if err := r.need(f, 5, "time_ms device offset_bytes size_bytes op"); err != nil {
		return false, err
	}
	ns, err := r.time("time", f[0], 1e6)
	if err != nil {
		return false, err
	}
	dev, err := r.uint("device", f[1])
	if err != nil {
		return false, err
	}
	if rec.Offset, err = r.bytes("offset", f[2], 1); err != nil {
		return false, err
	}
	if rec.Length, err = r.bytes("size", f[3], 1); err != nil {
		return false, err
	}
	if rec.Op, err = op01(r, "op", f[4]); err != nil {
		return false, err
	}
	rec.Device = int(dev)
	rec.TimeNs, err = r.since("time", f[0], ns, 1)
	return err == nil, err
}

// parseBlkparse reads "maj,min cpu seq sec.nsec pid action RWBS sector + n
// [cmd]" lines, replaying queue (Q) events.
func parseBlkparse(r *Reader, f []string, rec *Record) (bool, error) {
	if len(f) > 0 && (f[0] == "CPU" || strings.HasPrefix(f[0], "CPU") || f[0] == "Total" || strings.HasPrefix(f[0], "Reads") || f[0] == "Throughput") {
		r.done = true // the summary block
		return false, nil
	}
	if len(f) < 7 || !strings.Contains(f[0], ",") {
		return false, nil // not an event line (e.g. a message)
	}
	if f[5] != "Q" {
		return false, nil
	}
	if rwbs := f[6]; !strings.ContainsAny(rwbs, "RWD") {
		return false, nil // flushes and barriers carry no data
	}
	if len(f) < 10 || f[8] != "+" {
		return false, r.fail("record", strings.Join(f, " "), "want maj,min cpu seq time pid Q RWBS sector + sectors")
	}
	majmin := strings.SplitN(f[0], ",", 2)
	maj, err := r.uint("major", majmin[0])
	if err != nil {
		return false, err
	}
	mnr, err := r.uint("minor", majmin[1])
	if err != nil {
		return false, err
	}
	ts, err := r.time("time", f[3], 1e9)
	if err != nil {
		return false, err
	}
	switch rwbs := f[6]; {
	case strings.Contains(rwbs, "D"):
		rec.Op = blockio.Trim
	case strings.Contains(rwbs, "W"):
		rec.Op = blockio.Write
	case strings.Contains(rwbs, "R"):
		rec.Op = blockio.Read
	}
	if rec.Offset, err = r.bytes("sector", f[7], 512); err != nil {
		return false, err
	}
	if rec.Length, err = r.bytes("sectors", f[9], 512); err != nil {
		return false, err
	}
	if maj >= 1<<20 || mnr >= 1<<20 {
		return false, r.fail("device", f[0], "major and minor must be below 1048576")
	}
	rec.Device = int(maj<<20 | mnr)
	rec.TimeNs, err = r.since("time", f[3], ts, 1)
	return err == nil, err
}

// parseIOLog reads fio's iolog: "fio version N iolog", then file actions
// (add, open, close) and I/O actions. Version 3 lines start with the time
// in microseconds since the start of the run (fio's utime_since_now);
// version 2 has no times, but "wait N" lines pause for N microseconds
// before the next I/O. sync and datasync lines are FLUSH commands.
func parseIOLog(r *Reader, f []string, rec *Record) (bool, error) {
	if r.ver == 0 {
		if len(f) == 4 && f[0] == "fio" && f[1] == "version" && f[3] == "iolog" && (f[2] == "2" || f[2] == "3") {
			r.ver = int(f[2][0] - '0')
			return false, nil
		}
		return false, r.fail("header", strings.Join(f, " "), `want "fio version 2 iolog" or "fio version 3 iolog"`)
	}
	var ns int64
	var tsv string // version 3: the line's time as written
	if r.ver == 3 {
		if len(f) == 0 {
			return false, nil
		}
		var err error
		if ns, err = r.time("timestamp", f[0], 1e3); err != nil {
			return false, err
		}
		tsv, f = f[0], f[1:]
	} else if len(f) >= 3 && f[1] == "wait" {
		w, err := r.time("wait", f[2], 1e3)
		if err != nil {
			return false, err
		}
		if w > maxTraceNs-r.clock {
			return false, r.fail("wait", f[2], fmt.Sprintf("takes the log's time past %d ns", int64(maxTraceNs)))
		}
		r.clock += w
		return false, nil
	}
	if len(f) < 2 {
		return false, r.fail("record", strings.Join(f, " "), "want [timestamp] filename action [offset length]")
	}
	switch f[1] {
	case "wait":
		return false, r.fail("action", f[1], "wait lines belong to version 2 iologs (version 3 lines carry their times)")
	case "sync", "datasync":
		// fio's fsync and fdatasync: a FLUSH of the drive.
		*rec = Record{Op: blockio.Flush, Line: rec.Line}
		if r.ver != 3 {
			rec.TimeNs = r.clock
			return true, nil
		}
		var err error
		rec.TimeNs, err = r.since("timestamp", tsv, ns, 1)
		return err == nil, err
	case "add", "open", "close":
		return false, nil
	case "read":
		rec.Op = blockio.Read
	case "write":
		rec.Op = blockio.Write
	case "trim":
		rec.Op = blockio.Trim
	default:
		return false, r.fail("action", f[1], "must be read, write, trim, sync, datasync, wait, add, open or close")
	}
	if len(f) < 4 {
		return false, r.fail("record", strings.Join(f, " "), "want filename action offset length")
	}
	var err error
	if rec.Offset, err = r.bytes("offset", f[2], 1); err != nil {
		return false, err
	}
	if rec.Length, err = r.bytes("length", f[3], 1); err != nil {
		return false, err
	}
	rec.Device = 0
	if r.ver != 3 {
		rec.TimeNs = r.clock
		return true, nil
	}
	rec.TimeNs, err = r.since("timestamp", tsv, ns, 1)
	return err == nil, err
}
