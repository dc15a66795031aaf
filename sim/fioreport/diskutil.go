package fioreport

import "math"

// DiskUtil is fio's disk_util entry, for the simulated drive: the reads
// and writes it completed (trims are not counted, as Linux counts them
// apart), in 512-byte sectors, the milliseconds they spent in the drive,
// and the share of the run the drive was busy. The drive merges nothing.
type DiskUtil struct {
	Name         string  `json:"name"`
	ReadIOs      int64   `json:"read_ios"`
	WriteIOs     int64   `json:"write_ios"`
	ReadSectors  int64   `json:"read_sectors"`
	WriteSectors int64   `json:"write_sectors"`
	ReadMerges   int64   `json:"read_merges"`
	WriteMerges  int64   `json:"write_merges"`
	ReadTicks    int64   `json:"read_ticks"`
	WriteTicks   int64   `json:"write_ticks"`
	InQueue      int64   `json:"in_queue"`
	Util         float64 `json:"util"`
}

// diskCounts is one job's share of disk_util. Busy and span are the
// job's group's (all jobs of a group share the drive).
type diskCounts struct {
	ios, sectors   [2]int64
	ticks          [2]float64 // ms
	busyNs, spanNs int64
}

// DiskUtil sums the jobs' counts into the drive's disk_util entry: I/Os,
// sectors and ticks add up; busy time and elapsed time add up over the
// groups, each group counted once.
func SumDiskUtil(name string, jobs ...Job) DiskUtil {
	d := DiskUtil{Name: name}
	var ticks [2]float64
	busy, span := map[int]int64{}, map[int]int64{}
	for _, j := range jobs {
		c := j.disk
		d.ReadIOs += c.ios[0]
		d.WriteIOs += c.ios[1]
		d.ReadSectors += c.sectors[0]
		d.WriteSectors += c.sectors[1]
		ticks[0] += c.ticks[0]
		ticks[1] += c.ticks[1]
		busy[j.GroupID] = max(busy[j.GroupID], c.busyNs)
		span[j.GroupID] = max(span[j.GroupID], c.spanNs)
	}
	d.ReadTicks, d.WriteTicks = int64(ticks[0]+0.5), int64(ticks[1]+0.5)
	d.InQueue = d.ReadTicks + d.WriteTicks
	var b, s int64
	for g := range busy {
		b += busy[g]
		s += span[g]
	}
	if s > 0 {
		d.Util = min(100, math.Round(10000*float64(b)/float64(s))/100)
	}
	return d
}
