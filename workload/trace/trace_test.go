package trace_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
	"github.com/ftlsim/ftlsim/workload/trace"
)

// tracesDir is the project's shared folder of public traces, beside the
// repository.
var tracesDir = filepath.Join("..", "..", "..", "shared", "traces")

type expect struct {
	file   string
	format trace.Format
	read   float64 // read share from the traces' README
}

var sharedTraces = []expect{
	{"ssdsim_fin1/example.ascii", trace.DiskSim, 0.41},
	{"mqsim/tpcc-small.trace", trace.DiskSim, 0.63},
	{"mqsim/wsrch-small.trace", trace.DiskSim, 1.00},
	{"msr_cau/rsrch_1.csv", trace.MSR, 0.00},
	{"msr_cau/wdev_1.csv", trace.MSR, 0.00},
	{"msr_cau/wdev_3.csv", trace.MSR, 0.016}, // the README's "~0 %": 11 reads of 682
	{"heimdall_msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", trace.Heimdall, -1},
	{"heimdall_msr/msr.cut.per_10k.rw_20_80.105.trace", trace.Heimdall, 0.20},
	{"heimdall_msr/msr.cut.per_10k.rw_40_60.1370.trace", trace.Heimdall, 0.41},
}

// naive counts a trace's records, reads and bytes by plain string
// splitting, independently of the package's parsers.
func naive(t *testing.T, path string, f trace.Format) (records, reads, bytes int64) {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var fields []string
		var size int64
		var read bool
		switch f {
		case trace.MSR:
			fields = strings.Split(line, ",")
			size, _ = strconv.ParseInt(fields[5], 10, 64)
			read = fields[3] == "Read"
		case trace.DiskSim:
			fields = strings.Fields(line)
			size, _ = strconv.ParseInt(fields[3], 10, 64)
			size *= 512
			read = fields[4] == "1"
		case trace.Heimdall:
			fields = strings.Fields(line)
			size, _ = strconv.ParseInt(fields[3], 10, 64)
			read = fields[4] == "1"
		}
		if size == 0 {
			continue
		}
		records++
		bytes += size
		if read {
			reads++
		}
	}
	return
}

func requireTraces(t *testing.T) {
	if _, err := os.Stat(tracesDir); err != nil {
		t.Skipf("the shared traces are not beside the repository (%v)", err)
	}
}

func TestSharedTracesParseAndSummarise(t *testing.T) {
	requireTraces(t)
	for _, e := range sharedTraces {
		t.Run(e.file, func(t *testing.T) {
			path := filepath.Join(tracesDir, e.file)
			r, err := trace.Open(path, "")
			require.NoError(t, err)
			defer r.Close()
			require.Equal(t, e.format, r.Format(), "detected format")
			src, err := trace.NewSource(r, trace.MapOptions{Capacity: 1 << 40})
			require.NoError(t, err)
			var it workload.Item
			last := int64(-1)
			for src.Next(&it) {
				require.GreaterOrEqual(t, it.At, last, "records in time order")
				last = it.At
			}
			require.NoError(t, src.Err())
			s := src.Summary()
			records, reads, bytes := naive(t, path, e.format)
			require.Equal(t, records, s.Records)
			require.Equal(t, reads, s.Reads)
			require.Equal(t, bytes, s.ReadBytes+s.WriteBytes)
			if e.read >= 0 {
				require.InDelta(t, e.read, s.ReadShare(), 0.01)
			}
			t.Logf("%d records, %.0f%% reads, %.1f MiB, %d devices, %.1f s", s.Records, 100*s.ReadShare(),
				float64(bytes)/(1<<20), s.Devices, float64(s.DurationNs)/1e9)
		})
	}
}

func smallDrive(t *testing.T) *controller.Controller {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	d, err := controller.New(cfg)
	require.NoError(t, err)
	return d
}

// TestSharedTracesReplay replays every shared trace on a drive, open loop
// at the recorded times (sped up for the week-long MSR volumes).
func TestSharedTracesReplay(t *testing.T) {
	requireTraces(t)
	for _, e := range sharedTraces {
		t.Run(e.file, func(t *testing.T) {
			d := smallDrive(t)
			r, err := trace.Open(filepath.Join(tracesDir, e.file), "")
			require.NoError(t, err)
			defer r.Close()
			src, err := trace.NewSource(r, trace.MapOptions{Capacity: d.CapacityBytes(), Devices: "merge", Beyond: "wrap"})
			require.NoError(t, err)
			eng := sim.New(d)
			eng.SecureErase()
			res, err := eng.Run(src, sim.Options{Name: e.file, TimeScale: 100})
			require.NoError(t, err)
			s := src.Summary()
			require.Equal(t, s.Records, res.Read.IOs+res.Write.IOs+res.Trim.IOs)
			require.Equal(t, s.Reads, res.Read.IOs)
			// The firmware takes one command at a time, so the drive is
			// busy for at least its command time per request; the service
			// times add up to at least the busy time (Little's law).
			fw := d.Config().Firmware
			cmd := fw.CommandNs
			for _, c := range []int64{fw.ReadCommandNs, fw.WriteCommandNs} {
				if c > 0 {
					cmd = min(cmd, c)
				}
			}
			n := res.Read.IOs + res.Write.IOs + res.Trim.IOs
			require.GreaterOrEqual(t, res.BusyNs, n*cmd)
			require.GreaterOrEqual(t, res.AvgServiceNs*float64(n), float64(res.BusyNs)*(1-1e-9))
			require.LessOrEqual(t, res.BusyNs, res.EndNs-res.StartNs)
		})
	}
}

func TestRejectBeyondDrive(t *testing.T) {
	r, err := trace.NewReader("t.ascii", strings.NewReader("0 0 8 8 0\n10 0 100000 8 0\n"), trace.DiskSim)
	require.NoError(t, err)
	src, err := trace.NewSource(r, trace.MapOptions{Capacity: 1 << 20, Beyond: "reject"})
	require.NoError(t, err)
	var it workload.Item
	require.True(t, src.Next(&it))
	require.False(t, src.Next(&it))
	require.ErrorContains(t, src.Err(), "t.ascii:2")
	require.ErrorContains(t, src.Err(), "past the drive")

	r, _ = trace.NewReader("t.ascii", strings.NewReader("0 0 2040 16 0\n"), trace.DiskSim)
	src, _ = trace.NewSource(r, trace.MapOptions{Capacity: 1 << 20})
	require.True(t, src.Next(&it))
	require.LessOrEqual(t, it.Offset+it.Length, int64(1<<20))
	require.Equal(t, int64(1), src.Summary().Wrapped)
}

func TestPartitionDevices(t *testing.T) {
	r, _ := trace.NewReader("t", strings.NewReader("0 0 0 8 0\n1 1 0 8 0\n2 3 0 8 0\n"), trace.DiskSim)
	src, err := trace.NewSource(r, trace.MapOptions{Capacity: 8 << 20, Devices: "partition:4"})
	require.NoError(t, err)
	var offs []int64
	var it workload.Item
	for src.Next(&it) {
		offs = append(offs, it.Offset)
	}
	require.Equal(t, []int64{0, 2 << 20, 6 << 20}, offs)
	_, err = trace.NewSource(r, trace.MapOptions{Capacity: 8 << 20, Devices: "partition:x"})
	require.Error(t, err)
	_, err = trace.NewSource(r, trace.MapOptions{Capacity: 8 << 20, Beyond: "bounce"})
	require.Error(t, err)
}

func readAll(t *testing.T, name, text string, f trace.Format) ([]trace.Record, error) {
	r, err := trace.NewReader(name, strings.NewReader(text), f)
	if err != nil {
		return nil, err
	}
	var out []trace.Record
	for {
		var rec trace.Record
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

func TestFormats(t *testing.T) {
	spc := "0,303567,3584,w,0.000000\n1,55590,3072,r,0.026214\n"
	recs, err := readAll(t, "fin.spc", spc, "")
	require.NoError(t, err)
	require.Equal(t, []trace.Record{
		{TimeNs: 0, Device: 0, Offset: 303567 * 512, Length: 3584, Op: blockio.Write, Line: 1},
		{TimeNs: 26214000, Device: 1, Offset: 55590 * 512, Length: 3072, Op: blockio.Read, Line: 2},
	}, recs)

	blk := `  8,0    3        1     0.000000000  4162  Q   W 3680 + 8 [kworker/3:1]
  8,0    3        2     0.000002000  4162  G   W 3680 + 8 [kworker/3:1]
  8,0    1        3     0.001000000  4162  Q  RS 2048 + 16 [fio]
  8,0    1        4     0.002000000  4162  Q   D 4096 + 64 [fstrim]
  8,0    1        5     0.003000000  4162  Q  FN [fio]
CPU0 (8,0):
 Reads Queued:           1,        8KiB	 Writes Queued:           1,        4KiB
`
	recs, err = readAll(t, "blk.txt", blk, "")
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, blockio.Write, recs[0].Op)
	require.Equal(t, int64(3680*512), recs[0].Offset)
	require.Equal(t, blockio.Read, recs[1].Op)
	require.Equal(t, int64(16*512), recs[1].Length)
	require.Equal(t, int64(1e6), recs[1].TimeNs)
	require.Equal(t, blockio.Trim, recs[2].Op)

	// Version 3 times are microseconds since the start (fio's
	// utime_since_now): a line 2,000 µs after the first is 2 ms later.
	v3 := "fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n5000 /dev/sdb write 0 4096\n7000 /dev/sdb read 4096 8192\n9000 /dev/sdb trim 0 4096\n10000 /dev/sdb close\n"
	recs, err = readAll(t, "job.iolog", v3, "")
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, int64(2e6), recs[1].TimeNs)
	require.Equal(t, blockio.Trim, recs[2].Op)
	// Version 2: no times, but wait lines pause (microseconds).
	v2 := "fio version 2 iolog\n/dev/sdb add\n/dev/sdb read 0 4096\n/dev/sdb wait 1500\n/dev/sdb write 4096 4096\n"
	recs, err = readAll(t, "job.iolog", v2, trace.IOLog)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, []int64{0, 1_500_000}, []int64{recs[0].TimeNs, recs[1].TimeNs})
	_, err = readAll(t, "job.iolog", "fio version 3 iolog\n5 /dev/sdb wait 10\n", trace.IOLog)
	require.ErrorContains(t, err, "wait")
	// fsync and fdatasync lines are FLUSH commands.
	recs, err = readAll(t, "job.iolog", "fio version 3 iolog\n0 f write 0 4096\n2000 f sync\n3000 f datasync\n", trace.IOLog)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, []blockio.Op{blockio.Write, blockio.Flush, blockio.Flush}, []blockio.Op{recs[0].Op, recs[1].Op, recs[2].Op})
	require.Equal(t, int64(2e6), recs[1].TimeNs)

	msr := "128166372003061629,hm,1,Read,383496192,32768,18598\n128166372003061700,hm,1,Write,0,4096,1\n"
	recs, err = readAll(t, "hm.csv", msr, "")
	require.NoError(t, err)
	require.Equal(t, int64(71*100), recs[1].TimeNs)
}

func TestParseErrorsNameFileLineField(t *testing.T) {
	cases := []struct {
		f     trace.Format
		text  string
		line  int
		field string
	}{
		{trace.DiskSim, "0 0 8 8 0\n5 0 x 8 0\n", 2, "lba"},
		{trace.DiskSim, "0 0 8 8 7\n1 0 8 8 z\n", 2, "op"},
		{trace.DiskSim, "0 0 8\n", 1, "record"},
		{trace.MSR, "1,h,1,Erase,0,512,1\n", 1, "Type"},
		{trace.MSR, "1,h,1,Read,-5,512,1\n", 1, "Offset"},
		{trace.SPC, "0,1,512,w,0\n0,1,512,w,abc\n", 2, "Timestamp"},
		{trace.Heimdall, "0.5 0 4096 4096 0\n1.0 0 4096 nope 0\n", 2, "size"},
		{trace.IOLog, "fio version 9 iolog\n", 1, "header"},
		{trace.IOLog, "fio version 2 iolog\nf read 0\n", 2, "record"},
		{trace.IOLog, "fio version 2 iolog\nf spin 0 1\n", 2, "action"},
		{trace.Blkparse, "8,0 0 1 0.5 1 Q W 8 + x [a]\n", 1, "sectors"},
		// Extreme numbers: refused, not wrapped, vanished or NaN.
		{trace.SPC, "0,36028797018963968,512,w,0\n", 1, "LBA"},   // 2^55 sectors
		{trace.SPC, "0,9223372036854775807,512,w,0\n", 1, "LBA"}, // 2^63-1
		{trace.SPC, "0,1,512,w,0\n0,1,512,w,NaN\n", 2, "Timestamp"},
		{trace.SPC, "0,1,512,w,1e15\n", 1, "Timestamp"},
		{trace.DiskSim, "0 0 36028797018963968 8 0\n", 1, "lba"},
		{trace.DiskSim, "0 0 8 4611686018427387904 0\n", 1, "size"}, // 2^62 sectors
		{trace.DiskSim, "0 0 8 8 0\n9223372036854775807 0 8 8 0\n", 2, "time"},
		{trace.MSR, "0,h,1,Read,0,512,1\n9223372036854775807,h,1,Read,0,512,1\n", 2, "Timestamp"},
		{trace.MSR, "1,h,1,Read,2305843009213693953,512,1\n", 1, "Offset"},
		{trace.Heimdall, "nan 0 4096 4096 0\n", 1, "time"},
		{trace.Heimdall, "inf 0 4096 4096 0\n", 1, "time"},
		{trace.Blkparse, "8,0 0 1 NaN 1 Q W 8 + 8 [a]\n", 1, "time"},
		{trace.Blkparse, "8,0 0 1 0.5 1 Q W 36028797018963968 + 8 [a]\n", 1, "sector"},
		{trace.IOLog, "fio version 3 iolog\nNaN f write 0 4096\n", 2, "timestamp"},
		{trace.IOLog, "fio version 3 iolog\n1e300 f write 0 4096\n", 2, "timestamp"},
		{trace.IOLog, "fio version 2 iolog\nf wait nan\n", 2, "wait"},
		{trace.IOLog, "fio version 2 iolog\nf wait 2000000000000000\nf wait 2000000000000000\n", 3, "wait"},
		{trace.IOLog, "fio version 2 iolog\nf write 9223372036854775807 4096\n", 2, "offset"},
	}
	for _, c := range cases {
		_, err := readAll(t, "bad.trace", c.text, c.f)
		var pe *trace.ParseError
		require.ErrorAs(t, err, &pe, "%s %q", c.f, c.text)
		require.Equal(t, "bad.trace", pe.File)
		require.Equal(t, c.line, pe.Line, c.text)
		require.Equal(t, c.field, pe.Field, c.text)
		require.Contains(t, err.Error(), fmt.Sprintf("bad.trace:%d: %s", c.line, c.field))
	}
	_, err := trace.NewReader("x", strings.NewReader("hello world\n"), "")
	require.ErrorIs(t, err, trace.ErrFormat)
	_, err = trace.ParseFormat("pcap")
	require.Error(t, err)
}

func TestGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(zw, "%d 0 %d 8 %d\n", i*1000, i*8, i%2)
	}
	require.NoError(t, zw.Close())
	path := filepath.Join(t.TempDir(), "t.ascii.gz")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	r, err := trace.Open(path, "")
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, trace.DiskSim, r.Format())
	src, err := trace.NewSource(r, trace.MapOptions{Capacity: 1 << 30})
	require.NoError(t, err)
	var it workload.Item
	for src.Next(&it) {
	}
	require.NoError(t, src.Err())
	require.Equal(t, int64(1000), src.Summary().Records)
	require.Equal(t, int64(500), src.Summary().Reads)
}

// lines generates a DiskSim trace of n records without holding it.
type lines struct {
	n, i int
	buf  []byte
}

func (l *lines) Read(p []byte) (int, error) {
	for len(l.buf) < len(p) && l.i < l.n {
		l.buf = fmt.Appendf(l.buf, "%d %d %d %d %d\n", l.i*100, l.i%4, (l.i*7919)%1000000*8, 8, l.i%3%2)
		l.i++
	}
	if len(l.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

// TestStreamsInConstantMemory reads a trace of two million records (about
// 60 MB of text) and checks the heap stays small.
func TestStreamsInConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads two million records")
	}
	r, err := trace.NewReader("big", &lines{n: 2_000_000}, trace.DiskSim)
	require.NoError(t, err)
	src, err := trace.NewSource(r, trace.MapOptions{Capacity: 1 << 40})
	require.NoError(t, err)
	var it workload.Item
	var peak uint64
	var ms runtime.MemStats
	for i := 0; src.Next(&it); i++ {
		if i%200_000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	require.NoError(t, src.Err())
	require.Equal(t, int64(2_000_000), src.Summary().Records)
	require.Less(t, peak, uint64(64<<20), "heap in use while streaming")
}

func FuzzReaders(f *testing.F) {
	f.Add("0 0 8 8 0\n5 1 16 8 1\n", "disksim")
	f.Add("0.5 0 4096 4096 0\n", "heimdall")
	f.Add("128166372003061629,hm,1,Read,383496192,32768,18598\n", "msr")
	f.Add("0,303567,3584,w,0.000000\n", "spc")
	f.Add("  8,0 3 1 0.000000000 4162 Q W 3680 + 8 [k]\n", "blkparse")
	f.Add("fio version 3 iolog\n1 f write 0 4096\n", "iolog")
	// Extreme numbers, each next to the limit.
	f.Add("0,36028797018963967,512,w,1e14\n", "spc")
	f.Add("0 0 2251799813685247 2251799813685247 0\n", "disksim")
	f.Add("9e9 0 1152921504606846975 512 0\n", "heimdall")
	f.Add("fio version 2 iolog\nf wait 2305843009213693\nf write 0 4096\n", "iolog")
	f.Add("fio version 3 iolog\n2305843009213693 f write 1152921504606846464 512\n", "iolog")
	f.Fuzz(func(t *testing.T, text, format string) {
		fm, err := trace.ParseFormat(format)
		if err != nil {
			fm = ""
		}
		r, err := trace.NewReader("fuzz", bufio.NewReader(strings.NewReader(text)), fm)
		if err != nil {
			return
		}
		src, err := trace.NewSource(r, trace.MapOptions{Capacity: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		var it workload.Item
		for src.Next(&it) {
			if it.Offset < 0 || it.Length <= 0 || it.Offset+it.Length > 1<<30 || it.Offset%512 != 0 || it.Length%512 != 0 || it.At < 0 || it.At > math.MaxInt64/4 {
				t.Fatalf("bad request %+v", it)
			}
		}
	})
}

// TestRealFioIOLog reads the first 200 I/Os of a capture fio 3.33 wrote
// with --write_iolog (4 KiB random writes at --rate_iops=1000 on the null
// engine): they span the 0.2 s fio took to issue them.
func TestRealFioIOLog(t *testing.T) {
	b, err := os.ReadFile("testdata/fio-3.33-randwrite-1000iops.iolog")
	require.NoError(t, err)
	recs, err := readAll(t, "capture.iolog", string(b), "")
	require.NoError(t, err)
	require.Len(t, recs, 200)
	span := float64(recs[len(recs)-1].TimeNs-recs[0].TimeNs) / 1e9
	require.InEpsilon(t, 199.0/1000, span, 0.02, "1000 I/Os a second")
	for _, r := range recs {
		require.Equal(t, blockio.Write, r.Op)
		require.Equal(t, int64(4096), r.Length)
	}
}

// truncatedSamples are a few records of each format, repeated to fill
// a compressed file of several blocks.
var truncatedSamples = []struct {
	format       trace.Format
	header, line string
}{
	{trace.MSR, "", "128166372003061629,hm,1,Read,%d,4096,18598\n"},
	{trace.SPC, "", "0,%d,4096,w,0.000000\n"},
	{trace.DiskSim, "", "0 0 %d 8 1\n"},
	{trace.Heimdall, "", "0.5 0 %d 4096 0\n"},
	{trace.Blkparse, "", "  8,0    3        1     0.000000000  4162  Q   W %d + 8 [kworker/3:1]\n"},
	{trace.IOLog, "fio version 2 iolog\n", "/dev/sdb write %d 4096\n"},
}

// TestTruncatedGzip: a compressed trace cut short is reported as cut
// short, with the records read before, by every reader, detected or
// named, never as a malformed record; one whose checksum does not match
// its data as damaged.
func TestTruncatedGzip(t *testing.T) {
	for _, c := range truncatedSamples {
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.NoCompression) // the text stored: a cut lands mid-line
		require.NoError(t, err)
		_, _ = io.WriteString(zw, c.header)
		for i := 0; i < 20000; i++ {
			fmt.Fprintf(zw, c.line, i*8*4096/512)
		}
		require.NoError(t, zw.Close())
		whole := buf.Bytes()
		for _, format := range []trace.Format{"", c.format} {
			for _, cut := range []int{len(whole) / 2, len(whole) - 9, 3000, 30} {
				name := fmt.Sprintf("%s cut at %d of %d, format %q", c.format, cut, len(whole), format)
				_, err := readAll(t, "t.gz", string(whole[:cut]), format)
				require.ErrorIs(t, err, trace.ErrTruncated, name)
				require.ErrorIs(t, err, io.ErrUnexpectedEOF, name)
				var pe *trace.ParseError
				require.False(t, errors.As(err, &pe), "%s: %v", name, err)
				require.Regexp(t, `^t\.gz: the compressed file is cut short \(unexpected EOF after \d+ records\)$`, err.Error(), name)
			}
		}
		// The whole file reads; a damaged one is reported as damaged.
		recs, err := readAll(t, "t.gz", string(whole), c.format)
		require.NoError(t, err, c.format)
		require.Len(t, recs, 20000, c.format)
		var z bytes.Buffer
		zw, err = gzip.NewWriterLevel(&z, gzip.BestCompression)
		require.NoError(t, err)
		_, _ = zw.Write([]byte(c.header + strings.Repeat(fmt.Sprintf(c.line, 8), 20000)))
		require.NoError(t, zw.Close())
		bad := bytes.Clone(z.Bytes())
		bad[len(bad)-8] ^= 0x5a // the trailer's CRC-32: the data read does not match it
		_, err = readAll(t, "t.gz", string(bad), c.format)
		require.ErrorIs(t, err, trace.ErrCorrupt, c.format)
		require.ErrorContains(t, err, "t.gz: the compressed file is damaged", c.format)
	}
}
