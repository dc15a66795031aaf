package sim

import (
	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// LatencyStats summarises latencies in ns.
type LatencyStats struct {
	Min, Max    int64
	Mean, Stdev float64
	N           int64
	// Percentiles maps each of the run's percentiles
	// (Options.Percentiles, by default DefaultPercentiles) to a latency.
	Percentiles map[float64]int64
	// Bins is the latency distribution: each non-empty histogram bin's
	// middle latency (ns) with its count, lowest first (fio's json+
	// bins).
	Bins []LatencyBin
}

// LatencyBin is one bin of a latency distribution.
type LatencyBin struct {
	Ns, Count int64
}

// DirStats are the statistics of one direction (read, write or trim).
type DirStats struct {
	IOs     int64
	Bytes   int64
	IOPS    float64
	BWBytes float64 // bytes per second
	Latency LatencyStats
}

// Interval is one point of the per-interval series.
type Interval struct {
	StartNs, EndNs int64 // from the start of the run
	ReadIOs        int64
	WriteIOs       int64
	TrimIOs        int64
	ReadBytes      int64
	WriteBytes     int64
	Bytes          int64 // read and written
	IOPS           float64
	MBps           float64 // 10^6 bytes per second
	MeanLatencyNs  float64
	// WriteAmplification is flash bytes programmed per byte the host
	// wrote during the interval (0 when the host wrote nothing). Writes of
	// less than a mapping unit count the whole unit programmed.
	WriteAmplification float64
	FreeBlocks         int     // physical blocks free at the end of the interval
	GCCopiedUnits      int64   // units moved by GC during the interval
	Erases             int64   // blocks erased during the interval
	BusyNs             int64   // time with a command outstanding
	PowerW             float64 // average power over the interval
}

// AddCounts adds o's I/O and byte counts to iv.
func (iv *Interval) AddCounts(o Interval) {
	iv.ReadIOs += o.ReadIOs
	iv.WriteIOs += o.WriteIOs
	iv.TrimIOs += o.TrimIOs
	iv.ReadBytes += o.ReadBytes
	iv.WriteBytes += o.WriteBytes
	iv.Bytes += o.Bytes
}

// PowerStats are a run's power figures, as the reviews read them from
// the drive's supply rail.
type PowerStats struct {
	AverageW float64 // energy over runtime
	PeakW    float64 // the highest interval average (the series' resolution)
	IdleW    float64 // the drive's idle power
	EnergyJ  float64
	// JoulesPerGBWritten is energy per 10^9 bytes the host wrote (0 when
	// it wrote nothing).
	JoulesPerGBWritten float64
}

// Device summarises the drive's flash activity over a run: how much each
// of the drive's counters grew (ftl.Counters, every field, carried as
// they are), figures derived from them and the geometry (derive), and
// levels at the run's end.
type Device struct {
	ftl.Counters

	// Sizes the derived figures use.
	PageBytes int64 // a physical page (one plane)
	SlotBytes int64 // a device unit: the mapping unit, or a compression slot

	// Derived from the counters.
	NANDWriteBytes int64 // pages programmed by every cause (data, padding, parity, mapping) × PageBytes
	// NANDReadBytes is the data moved out of the flash by every cause
	// (host reads, read-ahead, read-modify-write, GC and WL, mapping
	// pages): device units read × SlotBytes. A page sensed for one unit
	// counts that unit only; Flash[c].ReadPages counts the array reads.
	NANDReadBytes      int64
	ReadAheadBytes     int64   // of NANDReadBytes, what read-ahead read
	WriteAmplification float64 // NANDWriteBytes per host byte written (partial units count whole); 0 when the host wrote nothing
	Erases             int64   // blocks the FTL erased (host-caused, GC, WL; not parity or mapping regions)
	StoredBytes        int64   // host data as stored on flash, after compression
	ParityBytes        int64   // RAISE parity programmed
	MapReads           int64   // mapping pages read on mapping-cache misses
	MapWrites          int64   // changed mapping pages programmed on eviction
	// UBER is the uncorrectable bit error rate the host saw: logical
	// units it read that failed per bit it read (each failure one error,
	// as JEDEC counts them); FlashUBER is the flash reads ECC and read
	// retry could not correct (before any RAISE rebuild) per bit read
	// from the flash.
	UBER, FlashUBER float64

	// Levels.
	FreeBlocksMin  int // fewest free blocks at any time during the run
	FreeBlocksEnd  int
	Wear           nand.Wear
	EffectiveAlpha float64 // physical space able to hold data / user space (see ftl.Stats)
	// Zones is what zone management did during the run, on a zoned drive
	// (nil on a conventional one).
	Zones *ZoneStats
	// FDP is the FDP statistics log over the run, on an FDP drive (nil
	// otherwise).
	FDP *FDPStats
}

// ZoneStats is a zoned drive's zone management over a run.
type ZoneStats struct {
	// Resets counts resets of zones holding data; Finishes zones
	// finished by a command; AutoCloses implicitly opened zones the
	// drive closed to open another; Refused commands refused with an
	// NVMe zone status.
	Resets     int64 `json:"resets"`
	Finishes   int64 `json:"finishes"`
	AutoCloses int64 `json:"auto_closes"`
	Refused    int64 `json:"refused"`
}

// ftlErases is the blocks the FTL erased, leaving out the controller's
// parity and mapping regions.
func ftlErases(k *ftl.Counters) int64 {
	return k.Flash[ftl.CauseHost].EraseBlocks + k.Flash[ftl.CauseGC].EraseBlocks + k.Flash[ftl.CauseWL].EraseBlocks
}

// derive computes the derived figures from the counters and sizes.
func (d *Device) derive() {
	t := d.Flash.Total()
	d.NANDWriteBytes = t.ProgramPages * d.PageBytes
	d.NANDReadBytes = t.ReadUnits * d.SlotBytes
	d.ReadAheadBytes = d.Flash[ftl.CauseReadAhead].ReadUnits * d.SlotBytes
	d.WriteAmplification = 0
	if d.HostWriteBytes > 0 {
		d.WriteAmplification = float64(d.NANDWriteBytes) / float64(d.HostWriteBytes)
	}
	d.Erases = ftlErases(&d.Counters)
	d.StoredBytes = 0
	if d.HostRawSlots > 0 {
		// Each unit's share of the host's bytes, scaled by the slots it
		// took over the slots it would take whole.
		d.StoredBytes = int64(float64(d.HostWriteBytes) * float64(d.HostSlots) / float64(d.HostRawSlots))
	}
	d.ParityBytes = d.Flash[ftl.CauseParity].ProgramPages * d.PageBytes
	d.MapReads = d.Flash[ftl.CauseMap].ReadPages
	d.MapWrites = d.Flash[ftl.CauseMap].ProgramPages
	d.UBER, d.FlashUBER = 0, 0
	if d.HostReadBytes > 0 {
		d.UBER = float64(d.FailedReads) / (8 * float64(d.HostReadBytes))
	}
	if d.NANDReadBytes > 0 {
		d.FlashUBER = float64(d.UncorrectableReads) / (8 * float64(d.NANDReadBytes))
	}
	d.deriveFDP()
}

// Geometry describes the simulated drive.
type Geometry struct {
	Drive            string
	Channels         int
	Dies             int
	Planes           int
	Blocks           int // physical blocks
	PagesPerBlock    int
	PageBytes        int
	MappingUnitBytes int
	PhysicalBytes    int64
	UserBytes        int64
	OPPercent        float64 // (physical − user) / user, from the rounded geometry
	OpenBlocks       int     // blocks held open for host and GC writes
	ReserveBlocks    int     // free blocks GC keeps in reserve
	// EffectiveOPPercent is the spare area left to garbage collection
	// once the write points and the reserve are taken out, in percent of
	// the user data (ftl.SpareBudget.EffectivePercent); HeldSparePercent
	// is the share of the spare they hold, in percent. Warnings are the
	// drive's warnings (controller.Controller.Warnings), one line each.
	EffectiveOPPercent, HeldSparePercent float64
	Warnings                             []string
	// BadBlocks are the blocks that left the factory bad;
	// RetiredGroups the plane groups the FTL retired for them.
	BadBlocks, RetiredGroups int
	// GrownBadBlocks are the blocks gone bad since (failed erases and
	// programs).
	GrownBadBlocks int
}

// Result is everything a run measured.
type Result struct {
	Name              string
	StartNs, EndNs    int64 // engine time
	RuntimeNs         int64
	Read, Write, Trim DirStats
	// Sync is the FLUSH commands the job issued (fio's sync: fsync,
	// fdatasync, sync, end_fsync); they carry no data.
	Sync DirStats
	// Intervals is the per-interval series; runs of idle intervals are
	// stored once (see Series).
	Intervals    Series
	Device       Device
	Geometry     Geometry
	BusyNs       int64   // time with at least one command outstanding
	AvgServiceNs float64 // mean completion latency over all directions
	Power        PowerStats
	Issued       int64
	QueueDepth   int // the closed-loop depth (0: open loop)
	// LatencyBuckets counts completions (after ramp) by LatencyBucketsNs.
	LatencyBuckets []int64
	// DepthCounts counts submissions by the queue depth they made, by
	// DepthLevels.
	DepthCounts []int64
	// SteadyState is what steady-state detection found (nil without
	// Options.SteadyState).
	SteadyState *SteadyState
	// PowerLosses are the power cuts during the run (Options.PowerLossNs)
	// and what each did; AbortedIOs the commands they failed.
	PowerLosses []controller.PowerLossReport
	AbortedIOs  int64
	// RateMinFailed says how the run missed its minimum rate
	// (Options.MinBytesPerSec, MinIOPS) and stopped; empty when it did not.
	RateMinFailed string
	// RateNotReached says, when the run was paced (Options.Paced), that
	// the drive did not reach the rate asked for: a rate is a ceiling, and
	// the job ran at the drive's speed. Empty when it was reached.
	RateNotReached string
	// LatPercentiles and NoPercentiles say where fio's output puts the
	// percentiles: under total latency, or nowhere (Options).
	LatPercentiles, NoPercentiles bool
	// Verify is what the job's verify phase read back (fio's verify);
	// its reads are counted in Read too.
	Verify VerifyStats
	// ZBD: a zonemode=zbd job; ZoneResets: fio's zone_resets.
	ZBD        bool
	ZoneResets int64
	// Interrupted says that Engine.Stop cut the run short: the results
	// are those of the requests issued until then (all of them completed).
	Interrupted bool
	// IOErrors is the reads that completed with a medium error (data
	// neither ECC nor parity could recover: controller.ErrUncorrectable);
	// they count among the completed I/Os too.
	IOErrors int64
	// ZoneError is, when the drive refused one of the job's commands with
	// a zone status (which ended the job), fio's error lines for it, and
	// ZoneErrno the error Linux reports (EOVERFLOW for Too Many Active
	// Zones, ETOOMANYREFS for Too Many Open Zones, EIO for a write off
	// the write pointer or past the capacity).
	ZoneError string
	ZoneErrno int
}

type metrics struct {
	powerLosses   []controller.PowerLossReport
	aborted       int64
	ioErrors      int64
	zoneErr       string
	zoneErrno     int
	verify        VerifyStats
	rateMinFailed string
	c             *controller.Controller
	o             Options
	start         int64
	rampEnd       int64
	dir           [3]*latency
	issued        int64
	busy          int64
	busyAt        int64
	c0            ftl.Counters
	z0            ftl.ZoneCounters
	f0            controller.FDPCounters
	// current interval
	ivStart   int64
	iv        Interval
	ivLatSum  float64
	ivCounter ftl.Counters
	series    Series
	planes    int
	pageBytes float64
	busyNow   bool
	ivBusy    int64 // busy time at the start of the interval
	latBucket [nLatencyBuckets]int64
	depth     [nDepthLevels]int64
	ss        *steady  // nil without steady-state detection
	sync      *latency // FLUSH commands (fio's sync)
}

func (m *metrics) submitted(depth int) { m.depth[depthLevel(depth)]++ }

func newMetrics(c *controller.Controller, start int64, o Options) *metrics {
	m := &metrics{c: c, o: o, start: start, rampEnd: start + o.RampNs, planes: c.Config().NAND.Geometry.PlanesPerDie,
		pageBytes: float64(c.Config().NAND.Geometry.PageBytes)}
	for i := range m.dir {
		m.dir[i] = newLatency()
	}
	m.sync = newLatency()
	c.FTL().ResetStats()
	c.FTL().ResetFreeGroupsMin()
	m.c0 = c.Counters()
	m.z0 = c.ZoneCounters()
	m.f0, _ = c.FDPCounters()
	m.ivStart = start
	m.ivCounter = m.c0
	iv := o.IntervalNs
	if iv <= 0 {
		iv = Second
	}
	m.ss = newSteady(o.SteadyState, start, iv)
	return m
}

// busyFrom and busyTo mark the drive busy and idle again; a stream that
// starts late (Options.StartDelayNs) counts busy time from its start.
func (m *metrics) busyFrom(t int64) { m.busyAt, m.busyNow = max(t, m.start), true }
func (m *metrics) busyTo(t int64)   { m.busy += max(0, t-m.busyAt); m.busyNow = false }

// busyUntil is the busy time accumulated up to t.
func (m *metrics) busyUntil(t int64) int64 {
	if m.busyNow {
		return m.busy + max(0, t-m.busyAt)
	}
	return m.busy
}

func (m *metrics) complete(ev event) {
	m.advance(ev.at)
	lat := ev.at - ev.iss
	if ev.req.Op == blockio.Flush {
		// A FLUSH is fio's sync: its own statistics, no data, not an I/O
		// of the series.
		if ev.at >= m.rampEnd {
			m.sync.add(lat, 0)
		}
		return
	}
	op := ev.req.Op
	if op == blockio.ZoneAppend {
		op = blockio.Write // a write the drive places; zone management counts as trim (fio's zone reset)
	}
	if op == blockio.ZoneManage && ev.req.Length == 0 {
		return // a reset a zbd job makes before a write: fio's ioctl, not one of its I/Os
	}
	d := op.Dir()
	length, offset := ev.req.Length, ev.req.Offset
	if m.o.LBA.Extended() { // the bytes the host moved: data and metadata
		length, offset = m.o.LBA.HostBytes(length), m.o.LBA.HostBytes(offset)
	}
	if ev.at >= m.rampEnd {
		m.dir[d].add(lat, length)
	}
	switch op {
	case blockio.Read:
		m.iv.ReadIOs++
	case blockio.Write:
		m.iv.WriteIOs++
	default:
		m.iv.TrimIOs++
	}
	switch op {
	case blockio.Read:
		m.iv.ReadBytes += length
		m.iv.Bytes += length
	case blockio.Write:
		m.iv.WriteBytes += length
		m.iv.Bytes += length
	}
	if ev.at >= m.rampEnd {
		m.latBucket[latencyBucket(lat)]++
	}
	m.ivLatSum += float64(lat)
	if m.o.Hooks.OnComplete != nil {
		m.o.Hooks.OnComplete(Completion{Op: ev.req.Op, Offset: offset, Length: length,
			IssuedNs: ev.iss - m.start, DoneNs: ev.at - m.start})
	}
}

// advance closes the series intervals that end at or before t, the time
// of the event being taken. Every event before t has been taken, so the
// intervals after the one open now hold no I/O and see the drive's
// counters unchanged; once the drive's busy state is the same through
// them too, they are alike but for their times, and they are added in
// one step: an idle gap (or a command outstanding for hours) costs the
// same whatever its length.
func (m *metrics) advance(t int64) {
	l := m.o.IntervalNs
	for t >= m.ivStart+l {
		m.closeInterval(m.ivStart + l)
		// The drive's busy state is the same through the intervals
		// before t, or (busy since busyAt, after the interval open
		// now) through those that end by busyAt: all idle.
		lim := t
		if m.busyNow && m.busyAt > m.ivStart {
			lim = min(t, m.busyAt)
		}
		if lim >= m.ivStart+l {
			m.closeInterval(m.ivStart + l)
			last, _ := m.series.Last()
			m.repeat(last, (lim-m.ivStart)/l)
		}
	}
}

// repeat adds k intervals like last, the series' last, after it, as
// closeInterval would one by one.
func (m *metrics) repeat(last Interval, k int64) {
	if k <= 0 {
		return
	}
	l := m.o.IntervalNs
	next := last
	next.StartNs, next.EndNs = last.EndNs, last.EndNs+l
	m.series.AppendRun(next, int(k))
	m.ivStart += k * l
	m.ivBusy = m.busyUntil(m.ivStart)
	m.ss.observeRun(&next, next.EndNs+m.start, l, k)
	if m.o.Hooks.OnInterval != nil {
		iv := next
		d := (k - 1) * l
		iv.StartNs += d
		iv.EndNs += d
		m.o.Hooks.OnInterval(iv)
	}
}

func (m *metrics) closeInterval(end int64) {
	iv := m.iv
	iv.StartNs, iv.EndNs = m.ivStart-m.start, end-m.start
	secs := float64(end-m.ivStart) / 1e9
	n := iv.ReadIOs + iv.WriteIOs + iv.TrimIOs
	if secs > 0 {
		iv.IOPS = float64(n) / secs
		iv.MBps = float64(iv.Bytes) / secs / 1e6
	}
	if n > 0 {
		iv.MeanLatencyNs = m.ivLatSum / float64(n)
	}
	k := m.c.Counters()
	dk := k.Sub(m.ivCounter)
	if dk.HostWriteBytes > 0 {
		iv.WriteAmplification = float64(dk.Flash.Total().ProgramPages) * m.pageBytes / float64(dk.HostWriteBytes)
	}
	iv.FreeBlocks = m.c.FTL().FreeGroups() * m.planes
	iv.GCCopiedUnits = dk.GCCopiedUnits
	iv.Erases = ftlErases(&dk)
	b := m.busyUntil(end)
	iv.BusyNs = b - m.ivBusy
	m.ivBusy = b
	if span := end - m.ivStart; span > 0 {
		g := m.c.Config().NAND.Geometry
		iv.PowerW = m.c.Config().Power.EnergyJ(dk, g.PageBytes, int(m.c.SlotBytes()), iv.BusyNs, span) / (float64(span) / 1e9)
	}
	m.ivCounter = k
	if end-m.ivStart == m.o.IntervalNs || (m.o.IntervalNs <= 0 && end-m.ivStart == Second) {
		m.ss.observe(&iv, end, secs) // whole intervals only: not a run's last, partial one
	}
	m.series.Append(iv)
	if m.o.Hooks.OnInterval != nil {
		m.o.Hooks.OnInterval(iv)
	}
	m.ivStart = end
	m.iv = Interval{}
	m.ivLatSum = 0
}

func (m *metrics) finish(end int64) *Result {
	if end > m.ivStart {
		m.closeInterval(end)
	}
	measured := end - max(m.start, m.rampEnd)
	pcts := m.o.Percentiles
	if pcts == nil {
		pcts = defaultPercentiles[:]
	}
	r := &Result{
		Name: m.o.Name, StartNs: m.start, EndNs: end, RuntimeNs: measured,
		Read: m.dir[0].stats(measured, pcts), Write: m.dir[1].stats(measured, pcts), Trim: m.dir[2].stats(measured, pcts),
		Sync:           m.sync.stats(measured, pcts),
		LatPercentiles: m.o.LatPercentiles, NoPercentiles: m.o.NoPercentiles, RateMinFailed: m.rateMinFailed,
		PowerLosses: m.powerLosses, AbortedIOs: m.aborted, IOErrors: m.ioErrors, ZoneError: m.zoneErr, ZoneErrno: m.zoneErrno,
		Intervals: m.series, Geometry: GeometryOf(m.c), BusyNs: m.busy, Issued: m.issued, SteadyState: m.ss.result(), Verify: m.verify,
		// Copies: a slice of the metrics' arrays would keep the metrics,
		// and through them the whole drive, alive as long as the result.
		LatencyBuckets: append([]int64(nil), m.latBucket[:]...), DepthCounts: append([]int64(nil), m.depth[:]...),
		QueueDepth: m.o.QueueDepth,
	}
	var sum float64
	var n int64
	for _, d := range m.dir {
		sum += d.sum
		n += d.ios
	}
	if n > 0 {
		r.AvgServiceNs = sum / float64(n)
	}
	k := m.c.Counters()
	r.Device = Device{
		Counters:       k.Sub(m.c0),
		PageBytes:      int64(m.c.Config().NAND.Geometry.PageBytes),
		SlotBytes:      m.c.SlotBytes(),
		FreeBlocksMin:  m.c.FTL().FreeGroupsMin() * m.planes,
		FreeBlocksEnd:  m.c.FTL().FreeGroups() * m.planes,
		Wear:           m.c.Device().Wear(),
		EffectiveAlpha: m.c.FTL().Stats().EffectiveAlpha,
	}
	if _, ok := m.c.Zones(); ok {
		z := m.c.ZoneCounters()
		r.Device.Zones = &ZoneStats{Resets: z.Resets - m.z0.Resets, Finishes: z.Finishes - m.z0.Finishes,
			AutoCloses: z.AutoCloses - m.z0.AutoCloses, Refused: z.Refused - m.z0.Refused}
	}
	r.Device.FDP = fdpStats(m.c, m.f0)
	r.Device.derive()
	pw := m.c.Config().Power
	g := m.c.Config().NAND.Geometry
	span := end - m.start
	r.Power.EnergyJ = pw.EnergyJ(r.Device.Counters, g.PageBytes, int(r.Device.SlotBytes), m.busy, span)
	if span > 0 {
		r.Power.AverageW = r.Power.EnergyJ / (float64(span) / 1e9)
	}
	r.Power.IdleW = float64(pw.ControllerIdleMW+pw.DRAMIdleMW) / 1e3
	for iv := range m.series.Runs() {
		r.Power.PeakW = max(r.Power.PeakW, iv.PowerW)
	}
	if r.Device.HostWriteBytes > 0 {
		r.Power.JoulesPerGBWritten = r.Power.EnergyJ / (float64(r.Device.HostWriteBytes) / 1e9)
	}
	r.RateNotReached = rateNotReached(m.o, r)
	return r
}
