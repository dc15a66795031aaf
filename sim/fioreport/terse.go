package fioreport

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteTerse writes jobs in fio's terse format, version 3 (fio
// --output-format=terse): one line per job, fields separated by ";" — the
// read and write status (KiB, KiB/s, IOPS, runtime; submission,
// completion and total latency in µs; 20 completion-latency percentile
// fields; bandwidth statistics), CPU usage, the I/O depth and latency
// distributions and the drive's disk_util figures (disk is the drive's
// name). Every field comes from the job's fio JSON object.
func WriteTerse(w io.Writer, disk string, jobs ...Job) error {
	bw := bufio.NewWriter(w)
	d := SumDiskUtil(disk, jobs...)
	for _, j := range jobs {
		fmt.Fprintf(bw, "3;%s;%s;%d;%d", Version, j.JobName, j.GroupID, j.Error)
		for _, dir := range []Dir{j.Read, j.Write} {
			writeTerseDir(bw, dir)
		}
		fmt.Fprintf(bw, ";%f%%;%f%%;%d;%d;%d", j.UsrCPU, j.SysCPU, j.Ctx, j.Majf, j.Minf)
		for _, k := range []string{"1", "2", "4", "8", "16", "32", ">=64"} {
			fmt.Fprintf(bw, ";%3.1f%%", j.IODepthLevel[k])
		}
		// fio adds the latencies under 2 µs (its ns buckets) to the
		// first µs bucket.
		var ns float64
		for _, v := range j.LatencyNs {
			ns += v
		}
		for i, k := range []string{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"} {
			v := j.LatencyUs[k]
			if i == 0 {
				v += ns
			}
			fmt.Fprintf(bw, ";%3.2f%%", v)
		}
		for _, k := range []string{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"} {
			fmt.Fprintf(bw, ";%3.2f%%", j.LatencyMs[k])
		}
		fmt.Fprintf(bw, ";%s;%d;%d;%d;%d;%d;%d;%d;%3.2f%%\n", d.Name, d.ReadIOs, d.WriteIOs, d.ReadMerges, d.WriteMerges,
			d.ReadTicks, d.WriteTicks, d.InQueue, d.Util)
	}
	return bw.Flush()
}

// writeTerseDir writes one direction's fields of a terse line.
func writeTerseDir(w io.Writer, d Dir) {
	iops := int64(0)
	kibps := int64(0)
	if d.Runtime > 0 {
		kibps = 1000 * d.IOBytes / d.Runtime / 1024
		iops = 1000 * d.TotalIOs / d.Runtime
	}
	fmt.Fprintf(w, ";%d;%d;%d;%d", d.IOBytes>>10, kibps, iops, d.Runtime)
	lat := func(l Lat) {
		if l.N == 0 {
			fmt.Fprintf(w, ";%d;%d;%f;%f", 0, 0, 0.0, 0.0)
			return
		}
		fmt.Fprintf(w, ";%d;%d;%f;%f", l.Min/1000, l.Max/1000, l.Mean/1000, l.Stddev/1000)
	}
	lat(d.SlatNs)
	lat(d.ClatNs)
	pct := d.ClatNs.Percentile
	if d.LatNs.Percentile != nil { // lat_percentiles
		pct = d.LatNs.Percentile
	}
	keys := pct.keys()
	for i := range 20 {
		if i >= len(keys) || d.ClatNs.N == 0 {
			fmt.Fprint(w, ";0%=0")
			continue
		}
		p, _ := strconv.ParseFloat(keys[i], 64)
		fmt.Fprintf(w, ";%f%%=%d", p, pct[keys[i]]/1000)
	}
	lat(d.LatNs)
	if d.BWSamples > 0 {
		fmt.Fprintf(w, ";%d;%d;%f%%;%f;%f", d.BWMin, d.BWMax, d.BWAgg, d.BWMean, d.BWDev)
	} else {
		fmt.Fprintf(w, ";%d;%d;%f%%;%f;%f", 0, 0, 0.0, 0.0, 0.0)
	}
}
