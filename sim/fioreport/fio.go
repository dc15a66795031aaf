package fioreport

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/sim"
)

// Version is reported as "fio version" in JSON output.
const Version = "ftlsim-1"

// Report is fio's --output-format=json document. Field names and units
// follow fio (bandwidth in KiB/s, runtimes in ms, latencies in ns).
// Timestamp, TimestampMS and Time are when the report was made, as fio
// writes them; NewReport leaves them zero (a report is a pure function of
// its results) and Stamp sets them.
type Report struct {
	Version       string            `json:"fio version"`
	Timestamp     int64             `json:"timestamp"`
	TimestampMS   int64             `json:"timestamp_ms"`
	Time          string            `json:"time"`
	GlobalOptions map[string]string `json:"global options"`
	Jobs          []Job             `json:"jobs"`
	DiskUtil      []DiskUtil        `json:"disk_util"`
	// Namespaces sums the jobs of each namespace, on a drive of several
	// (ftlsim's; absent on a drive of one).
	Namespaces []NamespaceSum `json:"namespaces,omitempty"`
	// Interrupted is set when a run was stopped before its end (a
	// command's SIGINT or SIGTERM, Engine.Stop): the jobs' figures are
	// those of the I/Os done until then.
	Interrupted bool `json:"interrupted,omitempty"`
}

// The errnos fio reports for a job whose verification failed, and for
// one that missed its minimum rate.
const (
	eilseq = 84
	eio    = 5
)

// Job is one job of a Report, with ftlsim's device and geometry
// objects added.
type Job struct {
	JobName         string             `json:"jobname"`
	GroupID         int                `json:"groupid"`
	Error           int                `json:"error"`
	Eta             int                `json:"eta"`
	Elapsed         int64              `json:"elapsed"`
	JobOptions      map[string]string  `json:"job options"`
	Read            Dir                `json:"read"`
	Write           Dir                `json:"write"`
	Trim            Dir                `json:"trim"`
	Sync            Sync               `json:"sync"`
	JobRuntime      int64              `json:"job_runtime"`
	UsrCPU          float64            `json:"usr_cpu"`
	SysCPU          float64            `json:"sys_cpu"`
	Ctx             int64              `json:"ctx"`
	Majf            int64              `json:"majf"`
	Minf            int64              `json:"minf"`
	IODepthLevel    map[string]float64 `json:"iodepth_level"`
	IODepthSubmit   map[string]float64 `json:"iodepth_submit"`
	IODepthComplete map[string]float64 `json:"iodepth_complete"`
	LatencyNs       map[string]float64 `json:"latency_ns"`
	LatencyUs       map[string]float64 `json:"latency_us"`
	LatencyMs       map[string]float64 `json:"latency_ms"`
	LatencyDepth    int                `json:"latency_depth"`
	LatencyTarget   int64              `json:"latency_target"`
	LatencyPct      float64            `json:"latency_percentile"`
	LatencyWindow   int64              `json:"latency_window"`
	// Desc is the job's description= option, as fio adds it when set.
	Desc     string   `json:"desc,omitempty"`
	Device   Device   `json:"device"`
	Geometry Geometry `json:"geometry"`
	// Verify is ftlsim's account of the job's verify phase (absent
	// without one); a mismatch also sets Error to EILSEQ (84), as fio
	// does when verification fails.
	Verify *sim.VerifyStats `json:"verify,omitempty"`
	// Namespace is the namespace the job ran on, on a drive of several
	// (ftlsim's; absent on a drive of one).
	Namespace int `json:"namespace,omitempty"`
	// ZoneResets is fio's zone_resets: the zones a zonemode=zbd job
	// reset that held data (absent for other jobs, as in fio).
	ZoneResets *int64 `json:"zone_resets,omitempty"`

	// PowerLoss is ftlsim's account of the power cuts during the job;
	// AbortedIOs the commands they failed.
	PowerLoss  []controller.PowerLossReport `json:"power_loss,omitempty"`
	AbortedIOs int64                        `json:"aborted_ios,omitempty"`

	disk        diskCounts   // what the job did to the drive, for disk_util
	interrupted bool         // Result.Interrupted, for the report's interrupted
	Power       Power        `json:"power"`
	Series      Series       `json:"series"`
	SteadyState *SteadyState `json:"steadystate,omitempty"`
	// TotalErr is the reads that failed with a medium error (EIO, also in
	// Error), as fio counts them with continue_on_error.
	TotalErr int64 `json:"total_err,omitempty"`
}

// Sync is fio's sync object: the FLUSH commands a job issued (fsync,
// fdatasync, sync, end_fsync) and their latency.
type Sync struct {
	LatNs    Lat   `json:"lat_ns"`
	TotalIOs int64 `json:"total_ios"`
}

// Lat is fio's latency summary object.
type Lat struct {
	Min        int64        `json:"min"`
	Max        int64        `json:"max"`
	Mean       float64      `json:"mean"`
	Stddev     float64      `json:"stddev"`
	N          int64        `json:"N"`
	Percentile NumericKeyed `json:"percentile,omitempty"`
	// Bins is fio's json+ latency distribution: the count of each bin,
	// keyed by its latency in ns (only with JobPlusOf).
	Bins NumericKeyed `json:"bins,omitempty"`
}

// Dir is one direction (read, write or trim) of a job.
type Dir struct {
	IOBytes     int64   `json:"io_bytes"`
	IOKBytes    int64   `json:"io_kbytes"`
	BWBytes     int64   `json:"bw_bytes"`
	BW          int64   `json:"bw"`
	IOPS        float64 `json:"iops"`
	Runtime     int64   `json:"runtime"`
	TotalIOs    int64   `json:"total_ios"`
	ShortIOs    int64   `json:"short_ios"`
	DropIOs     int64   `json:"drop_ios"`
	SlatNs      Lat     `json:"slat_ns"`
	ClatNs      Lat     `json:"clat_ns"`
	LatNs       Lat     `json:"lat_ns"`
	BWMin       int64   `json:"bw_min"`
	BWMax       int64   `json:"bw_max"`
	BWAgg       float64 `json:"bw_agg"`
	BWMean      float64 `json:"bw_mean"`
	BWDev       float64 `json:"bw_dev"`
	BWSamples   int     `json:"bw_samples"`
	IOPSMin     int64   `json:"iops_min"`
	IOPSMax     int64   `json:"iops_max"`
	IOPSMean    float64 `json:"iops_mean"`
	IOPSStddev  float64 `json:"iops_stddev"`
	IOPSSamples int     `json:"iops_samples"`
}

// Device is ftlsim's account of the flash activity of a job: every
// counter of the drive (ftl.Counters, under its own JSON names, with the
// flash operations by cause in "flash"), the figures derived from them,
// and levels at the job's end.
type Device struct {
	ftl.Counters
	WriteAmplification float64 `json:"write_amplification"`
	NANDWriteBytes     int64   `json:"nand_write_bytes"`
	NANDReadBytes      int64   `json:"nand_read_bytes"`
	ReadAheadBytes     int64   `json:"readahead_read_bytes"`
	Erases             int64   `json:"erases"`
	FreeBlocksMin      int     `json:"free_blocks_min"`
	FreeBlocksEnd      int     `json:"free_blocks_end"`
	BusyNs             int64   `json:"busy_ns"`
	AvgServiceNs       float64 `json:"avg_service_ns"`
	EraseCountMin      int     `json:"erase_count_min"`
	EraseCountMax      int     `json:"erase_count_max"`
	EraseCountMean     float64 `json:"erase_count_mean"`
	LifeUsed           float64 `json:"life_used"`
	EffectiveAlpha     float64 `json:"effective_alpha"`
	CompressionRatio   float64 `json:"compression_ratio"`
	ParityBytes        int64   `json:"parity_bytes"`
	MapReads           int64   `json:"map_reads"`
	MapWrites          int64   `json:"map_writes"`
	UBER               float64 `json:"uber"`
	FlashUBER          float64 `json:"flash_uber"`
	// Zones is a zoned drive's zone management during the job (absent
	// on a conventional drive).
	Zones *sim.ZoneStats `json:"zones,omitempty"`
	// FDP is an FDP drive's FDP statistics log during the job (absent
	// otherwise).
	FDP *sim.FDPStats `json:"fdp,omitempty"`
}

// Power is ftlsim's account of a job's power.
type Power struct {
	AverageW           float64 `json:"average_w"`
	PeakW              float64 `json:"peak_w"`
	IdleW              float64 `json:"idle_w"`
	EnergyJ            float64 `json:"energy_j"`
	JoulesPerGBWritten float64 `json:"joules_per_gb_written"`
}

// Series is the per-interval series, column by column. A series of
// more than MaxSeries intervals is left out: Intervals says how many it
// has and Note where to find them.
type Series struct {
	IntervalMs         int64     `json:"interval_ms"`
	Intervals          int       `json:"intervals,omitempty"`
	Note               string    `json:"note,omitempty"`
	TimeMs             []int64   `json:"time_ms"`
	IOPS               []float64 `json:"iops"`
	MBps               []float64 `json:"mbps"`
	MeanLatencyNs      []float64 `json:"mean_latency_ns"`
	WriteAmplification []float64 `json:"write_amplification"`
	FreeBlocks         []int     `json:"free_blocks"`
	GCCopiedUnits      []int64   `json:"gc_copied_units"`
	Erases             []int64   `json:"erases"`
	PowerW             []float64 `json:"power_w"`
}

// latOf is fio's latency object of l, with its percentiles when pct and
// there are samples (fio writes none for a direction without I/O).
func latOf(l sim.LatencyStats, pct bool) Lat {
	f := Lat{Min: l.Min, Max: l.Max, Mean: round(l.Mean), Stddev: round(l.Stdev), N: l.N}
	if pct && l.N > 0 {
		f.Percentile = make(NumericKeyed, len(l.Percentiles))
		for p, v := range l.Percentiles {
			f.Percentile[strconv.FormatFloat(p, 'f', 6, 64)] = v
		}
	}
	return f
}

// round keeps JSON numbers short and stable.
func round(x float64) float64 { return math.Round(x*1000) / 1000 }

// sample is a value taken count times (a run of like intervals).
type sample struct {
	x     float64
	count int
}

// samples is the number of samples xs stands for.
func samples(xs []sample) int {
	n := 0
	for _, s := range xs {
		n += s.count
	}
	return n
}

// meanStd returns the minimum, maximum, mean and sample standard
// deviation of samples xs, each taken its count times. The sums take a
// value once per time it was taken up to a run of 1<<16, so that they
// come out as they would from a list of every value; beyond (an idle gap
// of days), the rest of a run is added at once.
func meanStd(xs []sample) (mn, mx, mean, std float64) {
	n := samples(xs)
	if n == 0 {
		return 0, 0, 0, 0
	}
	mn, mx = xs[0].x, xs[0].x
	each := func(s sample, f func(float64)) {
		k := min(s.count, 1<<16)
		for range k {
			f(s.x)
		}
		if rest := s.count - k; rest > 0 {
			f(s.x * float64(rest))
		}
	}
	for _, s := range xs {
		mn, mx = min(mn, s.x), max(mx, s.x)
		each(s, func(x float64) { mean += x })
	}
	mean /= float64(n)
	for _, s := range xs {
		d := (s.x - mean) * (s.x - mean)
		k := min(s.count, 1<<16)
		for range k {
			std += d
		}
		if rest := s.count - k; rest > 0 {
			std += d * float64(rest)
		}
	}
	if n > 1 {
		std = math.Sqrt(std / float64(n-1))
	}
	return
}

func dirOf(r *sim.Result, d sim.DirStats, dir int) Dir {
	ms := r.RuntimeNs / 1e6
	f := Dir{
		IOBytes: d.Bytes, IOKBytes: d.Bytes / 1024, BWBytes: int64(d.BWBytes), BW: int64(d.BWBytes / 1024),
		IOPS: round(d.IOPS), Runtime: ms, TotalIOs: d.IOs,
		ClatNs: latOf(d.Latency, !r.NoPercentiles && !r.LatPercentiles), LatNs: latOf(d.Latency, r.LatPercentiles),
		SlatNs: Lat{},
	}
	if d.IOs == 0 {
		f.Runtime = 0
	}
	// bw and iops statistics over the series' intervals, as fio computes
	// them over its bw/iops samples.
	var bws, iops []sample
	ramp := (r.EndNs - r.StartNs) - r.RuntimeNs
	for iv, count := range r.Intervals.Runs() {
		l := iv.EndNs - iv.StartNs
		if d.IOs == 0 || l <= 0 {
			continue
		}
		if iv.EndNs <= ramp {
			// The intervals of the run that end within the ramp.
			skip := int((ramp-iv.EndNs)/l) + 1
			if skip >= count {
				continue
			}
			count -= skip
		}
		secs := float64(l) / 1e9
		var n, b int64
		switch dir {
		case 0:
			n, b = iv.ReadIOs, iv.ReadBytes
		case 1:
			n, b = iv.WriteIOs, iv.WriteBytes
		default:
			n = iv.TrimIOs
		}
		bws = append(bws, sample{float64(b) / 1024 / secs, count})
		iops = append(iops, sample{float64(n) / secs, count})
	}
	mn, mx, mean, std := meanStd(bws)
	f.BWMin, f.BWMax, f.BWMean, f.BWDev, f.BWSamples = int64(mn), int64(mx), round(mean), round(std), samples(bws)
	if len(bws) > 0 {
		f.BWAgg = 100
	}
	mn, mx, mean, std = meanStd(iops)
	f.IOPSMin, f.IOPSMax, f.IOPSMean, f.IOPSStddev, f.IOPSSamples = int64(mn), int64(mx), round(mean), round(std), samples(iops)
	return f
}

// JobPlusOf is JobOf with fio's json+ additions: each direction's completion
// latency distribution (clat_ns bins), as fio's --output-format=json+
// writes it for tools such as fio_jsonplus_clat2csv.
func JobPlusOf(r *sim.Result, options map[string]string) Job {
	j := JobOf(r, options)
	for _, d := range []struct {
		dst *Lat
		src sim.LatencyStats
	}{{&j.Read.ClatNs, r.Read.Latency}, {&j.Write.ClatNs, r.Write.Latency}, {&j.Trim.ClatNs, r.Trim.Latency}} {
		if len(d.src.Bins) == 0 {
			continue
		}
		d.dst.Bins = make(map[string]int64, len(d.src.Bins))
		for _, b := range d.src.Bins {
			d.dst.Bins[strconv.FormatInt(b.Ns, 10)] += b.Count
		}
	}
	return j
}

// JobOf converts the result r to a fio job object; options are the job's
// options as given.
func JobOf(r *sim.Result, options map[string]string) Job {
	j := Job{
		JobName: r.Name, JobOptions: options,
		Read: dirOf(r, r.Read, 0), Write: dirOf(r, r.Write, 1), Trim: dirOf(r, r.Trim, 2),
		JobRuntime: r.RuntimeNs / 1e6, Elapsed: (r.EndNs - r.StartNs + 999_999_999) / 1e9,
		IODepthLevel: map[string]float64{}, LatencyNs: map[string]float64{},
		LatencyUs: map[string]float64{}, LatencyMs: map[string]float64{},
		LatencyPct: 100, LatencyDepth: r.QueueDepth, IODepthSubmit: map[string]float64{}, IODepthComplete: map[string]float64{},
		SteadyState: Steady(r.SteadyState),
		// fio's sync latency carries percentiles unless both completion
		// and total latency percentiles are off.
		Sync:        Sync{LatNs: latOf(r.Sync.Latency, !r.NoPercentiles), TotalIOs: r.Sync.IOs},
		Desc:        options["description"],
		interrupted: r.Interrupted,
	}
	j.disk = diskCounts{
		ios:     [2]int64{r.Read.IOs, r.Write.IOs},
		sectors: [2]int64{r.Read.Bytes / 512, r.Write.Bytes / 512},
		ticks:   [2]float64{float64(r.Read.IOs) * r.Read.Latency.Mean / 1e6, float64(r.Write.IOs) * r.Write.Latency.Mean / 1e6},
		busyNs:  r.BusyNs, spanNs: r.EndNs - r.StartNs,
	}
	if r.RateMinFailed != "" {
		j.Error = eio // fio's error for a minimum rate not met
	}
	j.PowerLoss, j.AbortedIOs = r.PowerLosses, r.AbortedIOs
	if r.IOErrors > 0 {
		j.Error, j.TotalErr = eio, r.IOErrors // fio's medium error, continue_on_error's count
	}
	if r.ZoneErrno != 0 {
		j.Error = r.ZoneErrno // the drive refused a zone command: fio's errno for the status
	}
	if r.ZBD {
		n := r.ZoneResets
		j.ZoneResets = &n
	}
	if r.Verify.Reads > 0 {
		v := r.Verify
		j.Verify = &v
		if v.Mismatches > 0 {
			j.Error = eilseq
		}
	}
	// The engine submits and completes one request at a time.
	for _, k := range []string{"0", "4", "8", "16", "32", "64", ">=64"} {
		j.IODepthSubmit[k], j.IODepthComplete[k] = 0, 0
	}
	if r.Issued > 0 {
		j.IODepthSubmit["4"], j.IODepthComplete["4"] = 100, 100
	}
	if j.JobOptions == nil {
		j.JobOptions = map[string]string{}
	}
	var subs int64
	for _, c := range r.DepthCounts {
		subs += c
	}
	levels := sim.DepthLevels()
	for i, lvl := range levels {
		key := strconv.Itoa(lvl)
		if i == len(levels)-1 {
			key = ">=64"
		}
		var n int64
		if i < len(r.DepthCounts) { // a combined result has none
			n = r.DepthCounts[i]
		}
		j.IODepthLevel[key] = pct(n, subs)
	}
	var done int64
	for _, c := range r.LatencyBuckets {
		done += c
	}
	edges := []string{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"}
	for i, c := range r.LatencyBuckets {
		v := pct(c, done)
		switch {
		case i < 10:
			j.LatencyNs[edges[i]] = v
		case i < 20:
			j.LatencyUs[edges[i-10]] = v
		case i < 30:
			j.LatencyMs[edges[i-20]] = v
		case i == 30:
			j.LatencyMs["2000"] = v
		default:
			j.LatencyMs[">=2000"] = v
		}
	}
	d, g := r.Device, r.Geometry
	j.Device = Device{
		Counters:           d.Counters,
		WriteAmplification: round(d.WriteAmplification), NANDWriteBytes: d.NANDWriteBytes, NANDReadBytes: d.NANDReadBytes,
		ReadAheadBytes: d.ReadAheadBytes, Erases: d.Erases, FreeBlocksMin: d.FreeBlocksMin, FreeBlocksEnd: d.FreeBlocksEnd,
		BusyNs: r.BusyNs, AvgServiceNs: round(r.AvgServiceNs),
		EraseCountMin: d.Wear.Min, EraseCountMax: d.Wear.Max, EraseCountMean: round(d.Wear.Mean),
		LifeUsed: math.Round(d.Wear.Life*1e6) / 1e6, EffectiveAlpha: math.Round(d.EffectiveAlpha*1e6) / 1e6,
		CompressionRatio: round(d.CompressionRatio()), ParityBytes: d.ParityBytes, MapReads: d.MapReads,
		MapWrites: d.MapWrites, UBER: d.UBER, FlashUBER: d.FlashUBER, Zones: d.Zones, FDP: d.FDP,
	}
	j.Geometry = Geometry{
		Drive: g.Drive, Channels: g.Channels, Dies: g.Dies, Planes: g.Planes, Blocks: g.Blocks,
		PagesPerBlock: g.PagesPerBlock, PageBytes: g.PageBytes, MappingUnitBytes: g.MappingUnitBytes,
		PhysicalBytes: g.PhysicalBytes, UserBytes: g.UserBytes, OPPercent: round(g.OPPercent),
		OpenBlocks: g.OpenBlocks, ReserveBlocks: g.ReserveBlocks, BadBlocks: g.BadBlocks, RetiredGroups: g.RetiredGroups,
		GrownBadBlocks: g.GrownBadBlocks, EffectiveOPPercent: round(g.EffectiveOPPercent),
		HeldSparePercent: round(g.HeldSparePercent), Warnings: g.Warnings,
	}
	pw := r.Power
	j.Power = Power{AverageW: round(pw.AverageW), PeakW: round(pw.PeakW), IdleW: round(pw.IdleW),
		EnergyJ: round(pw.EnergyJ), JoulesPerGBWritten: round(pw.JoulesPerGBWritten)}
	s := Series{}
	if r.Intervals.Len() > 0 {
		first := r.Intervals.At(0)
		s.IntervalMs = (first.EndNs - first.StartNs) / 1e6
	}
	ivs := r.Intervals
	if ivs.Len() > MaxSeries {
		s.Intervals = ivs.Len()
		s.Note = SeriesOmitted(ivs.Len())
		ivs = sim.Series{}
	}
	for _, iv := range ivs.All() {
		s.TimeMs = append(s.TimeMs, iv.EndNs/1e6)
		s.IOPS = append(s.IOPS, round(iv.IOPS))
		s.MBps = append(s.MBps, round(iv.MBps))
		s.MeanLatencyNs = append(s.MeanLatencyNs, round(iv.MeanLatencyNs))
		s.WriteAmplification = append(s.WriteAmplification, round(iv.WriteAmplification))
		s.FreeBlocks = append(s.FreeBlocks, iv.FreeBlocks)
		s.GCCopiedUnits = append(s.GCCopiedUnits, iv.GCCopiedUnits)
		s.Erases = append(s.Erases, iv.Erases)
		s.PowerW = append(s.PowerW, round(iv.PowerW))
	}
	j.Series = s
	return j
}

// SeriesOmitted is the note of a fio job object whose series of n
// intervals, more than MaxSeries, was left out.
func SeriesOmitted(n int) string {
	return fmt.Sprintf("the series has %d intervals, more than the %d the JSON holds: left out; the device log (--write_device_log) holds it", n, MaxSeries)
}

func pct(n, total int64) float64 {
	if total == 0 {
		return 0
	}
	return round(100 * float64(n) / float64(total))
}

// WriteJSON writes a fio-shaped JSON report of jobs, indented as fio
// indents it; "interrupted": true when a job's run was stopped early
// (Result.Interrupted).
func WriteJSON(w io.Writer, global map[string]string, jobs ...Job) error {
	return NewReport(global, jobs...).Write(w)
}

// NewReport assembles the fio JSON document of jobs: the global options
// (global["drive"] names the disk_util entry), the jobs, the drive's
// disk_util, and Interrupted when a job's run was stopped early.
func NewReport(global map[string]string, jobs ...Job) Report {
	if global == nil {
		global = map[string]string{}
	}
	name := global["drive"]
	if name == "" {
		name = "ftlsim"
	}
	rep := Report{Version: Version, GlobalOptions: global, Jobs: jobs, DiskUtil: []DiskUtil{SumDiskUtil(name, jobs...)}, Namespaces: SumNamespaces(jobs...)}
	for _, j := range jobs {
		rep.Interrupted = rep.Interrupted || j.interrupted
	}
	return rep
}

// Stamp sets the report's time fields to t, as fio sets them to the time
// it writes the report: seconds and milliseconds since the Unix epoch and
// the local time in C's ctime format.
func (r *Report) Stamp(t time.Time) {
	r.Timestamp, r.TimestampMS = t.Unix(), t.UnixMilli()
	r.Time = t.Format("Mon Jan _2 15:04:05 2006")
}

// Write writes the report as JSON, indented as fio indents it.
func (r Report) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// MaxSeries is the most series intervals a fio job object (JobOf,
// JobPlusOf) carries: ten hours at the default one-second interval. A
// longer series (a week-long trace replay has 600,000 intervals, 80 MB of
// JSON) is left out of the JSON with a note saying so; the device log
// (the command's --write_device_log, the review's CSV) holds it whole.
const MaxSeries = 36000
