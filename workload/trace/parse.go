package trace

import (
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/blockio"
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

func (r *Reader) float(field, v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x < 0 || x > 1e15 {
		return 0, r.fail(field, v, "must be a non-negative number")
	}
	return x, nil
}

// since converts a timestamp t in units of unitNs to ns from the first
// record. Traces may step back a little (MSR records by completion); such
// records keep the latest time seen, so replay stays in order.
func (r *Reader) since(t int64, unitNs float64) int64 {
	if !r.haveT0 {
		r.t0, r.haveT0 = t, true
	}
	ns := int64(float64(t-r.t0) * unitNs)
	if ns < r.last {
		return r.last
	}
	r.last = ns
	return ns
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
	if rec.Offset, err = r.uint("Offset", f[4]); err != nil {
		return false, err
	}
	if rec.Length, err = r.uint("Size", f[5]); err != nil {
		return false, err
	}
	rec.TimeNs, rec.Device = r.since(ts, 100), int(dev)
	return true, nil
}

func parseSPC(r *Reader, f []string, rec *Record) (bool, error) {
	if err := r.need(f, 5, "ASU,LBA,Size,Opcode,Timestamp"); err != nil {
		return false, err
	}
	asu, err := r.uint("ASU", f[0])
	if err != nil {
		return false, err
	}
	lba, err := r.uint("LBA", f[1])
	if err != nil {
		return false, err
	}
	if rec.Length, err = r.uint("Size", f[2]); err != nil {
		return false, err
	}
	if rec.Op, err = readWrite(r, "Opcode", f[3], "r", "w"); err != nil {
		return false, err
	}
	ts, err := r.float("Timestamp", f[4])
	if err != nil {
		return false, err
	}
	rec.TimeNs, rec.Device, rec.Offset = r.since(int64(ts*1e9), 1), int(asu), lba*512
	return true, nil
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
	lba, err := r.uint("lba", f[2])
	if err != nil {
		return false, err
	}
	n, err := r.uint("size", f[3])
	if err != nil {
		return false, err
	}
	if rec.Op, err = op01(r, "op", f[4]); err != nil {
		return false, err
	}
	rec.TimeNs, rec.Device, rec.Offset, rec.Length = r.since(ts, 1), int(dev), lba*512, n*512
	return true, nil
}

func parseHeimdall(r *Reader, f []string, rec *Record) (bool, error) {
	if err := r.need(f, 5, "time_ms device offset_bytes size_bytes op"); err != nil {
		return false, err
	}
	ms, err := r.float("time", f[0])
	if err != nil {
		return false, err
	}
	dev, err := r.uint("device", f[1])
	if err != nil {
		return false, err
	}
	if rec.Offset, err = r.uint("offset", f[2]); err != nil {
		return false, err
	}
	if rec.Length, err = r.uint("size", f[3]); err != nil {
		return false, err
	}
	if rec.Op, err = op01(r, "op", f[4]); err != nil {
		return false, err
	}
	rec.TimeNs, rec.Device = r.since(int64(ms*1e6), 1), int(dev)
	return true, nil
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
	ts, err := r.float("time", f[3])
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
	sector, err := r.uint("sector", f[7])
	if err != nil {
		return false, err
	}
	n, err := r.uint("sectors", f[9])
	if err != nil {
		return false, err
	}
	rec.TimeNs, rec.Device, rec.Offset, rec.Length = r.since(int64(ts*1e9), 1), int(maj<<20|mnr), sector*512, n*512
	return true, nil
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
	var us float64
	if r.ver == 3 {
		if len(f) == 0 {
			return false, nil
		}
		var err error
		if us, err = r.float("timestamp", f[0]); err != nil {
			return false, err
		}
		f = f[1:]
	} else if len(f) >= 3 && f[1] == "wait" {
		w, err := r.float("wait", f[2])
		if err != nil {
			return false, err
		}
		r.clock += int64(w * 1e3)
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
		if r.ver == 3 {
			rec.TimeNs = r.since(int64(us*1e3), 1)
		} else {
			rec.TimeNs = r.clock
		}
		return true, nil
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
	if rec.Offset, err = r.uint("offset", f[2]); err != nil {
		return false, err
	}
	if rec.Length, err = r.uint("length", f[3]); err != nil {
		return false, err
	}
	rec.Device = 0
	if r.ver == 3 {
		rec.TimeNs = r.since(int64(us*1e3), 1)
	} else {
		rec.TimeNs = r.clock
	}
	return true, nil
}
