package workload

import (
	"errors"
	"fmt"
	"sort"

	"github.com/ftlsim/ftlsim/blockio"
)

// ErrOption is wrapped by every job option error.
var ErrOption = errors.New("invalid job option")

// ErrPastEnd is wrapped, with ErrOption, by Job.Resolve's error for a job
// whose start offset is at or past the end of the drive: fio, on a block
// device, does not start such a job ("you need to specify valid
// offset=") and runs the others of its file.
var ErrPastEnd = errors.New("past the end of")

// Pattern is fio's rw= value.
type Pattern uint8

// Patterns.
const (
	SeqRead Pattern = iota
	SeqWrite
	SeqTrim
	RandRead
	RandWrite
	RandTrim
	SeqRW
	RandRW
	TrimWrite
)

var patternNames = map[string]Pattern{
	"read": SeqRead, "write": SeqWrite, "trim": SeqTrim, "randread": RandRead, "randwrite": RandWrite,
	"randtrim": RandTrim, "rw": SeqRW, "readwrite": SeqRW, "randrw": RandRW, "trimwrite": TrimWrite,
}

// String returns fio's name for the pattern.
func (p Pattern) String() string {
	for k, v := range patternNames {
		if v == p && k != "readwrite" {
			return k
		}
	}
	return fmt.Sprintf("Pattern(%d)", int(p))
}

// Random reports whether offsets are random.
func (p Pattern) Random() bool {
	return p == RandRead || p == RandWrite || p == RandTrim || p == RandRW
}

// Writes reports whether the pattern writes (fio's td_write).
func (p Pattern) Writes() bool {
	return p == SeqWrite || p == RandWrite || p == SeqRW || p == RandRW || p == TrimWrite
}

// BlockSize is one entry of a bssplit: a size and its share in percent.
type BlockSize struct {
	Bytes   int64
	Percent float64
}

// Job is a fio-style job: what to issue, where, how much and how deep.
// Set fills it from options; Resolve checks it against a drive. Build one
// with NewJob: the zero Job has no block size, and Resolve and
// NewGenerator refuse it. A Job is not safe for concurrent use while Set
// or Resolve changes it; a resolved job may be read by several
// goroutines (each with its own Generator). Its
// fields are grouped by concern, as fio's HOWTO groups its options; the
// groups are embedded, so j.BS names j.Blocks.BS.
type Job struct {
	Name         string
	Access       // what it issues: the pattern, mix and random offsets
	Blocks       // the block sizes and their alignment
	Target       // where: the byte range, files and zones
	Timing       // when and for how long: runtime, ramp, start delay, counts
	Pacing       // how fast: queue depth, rate limits, think time
	Durability   // flushes, FUA and power cuts
	Content      // what written data holds
	Verification // reading back what was written
	Reporting    // which latency percentiles are reported
	// SteadyState stops the job early once it is steady (fio's
	// steadystate, ss_dur, ss_ramp).
	SteadyState  SteadyState
	Coordination // the job among its clones and its group

	// Notes are what Resolve changed as fio would, with fio's warning
	// (time_based with no runtime, for one): for the user to read.
	Notes []string
	set   map[string]bool
}

// Access is what a job issues (fio's "I/O type" options): the pattern,
// the read/write mix and how random offsets are drawn.
type Access struct {
	Pattern Pattern
	// Skip is the bytes a sequential pattern skips after each I/O (fio's
	// rw=write:4k; negative runs backwards, rw=read:-8k).
	Skip int64
	// RandomEvery makes a random pattern take a new random offset only
	// every this many I/Os, continuing sequentially between (fio's
	// rw=randread:8).
	RandomEvery int
	RWMixRead   int
	rwmixWrite  int // rwmixwrite as given, to check it against rwmixread
	// Distribution is how random offsets spread over the range (fio's
	// random_distribution).
	Distribution Distribution
	// SequenceStride moves a sequence distribution on by its length after
	// each pass (fio's random_sequence_stride); the job ends when the
	// sequence passes the end of its range.
	SequenceStride bool
	// PercentageRandom is the share of I/Os at random offsets in a
	// random pattern, the rest continuing sequentially (fio's
	// percentage_random; default 100).
	PercentageRandom int
	RandSeed         uint64
	NoRandomMap      bool
	// LFSR visits each block once a pass even with NoRandomMap (fio's
	// random_generator=lfsr, a full-period generator).
	LFSR bool
	// NumRange is the ranges each TRIM command carries, each a block at
	// the next offset of the pattern (fio's num_range; 0 and 1: one).
	NumRange int
	// SPRandom, when set, places the job's writes by fio's sprandom (see
	// SPRandom); set by sprandom=1, its spr_ options kept meanwhile.
	SPRandom   *SPRandom
	sprPending SPRandom // spr_ options given before sprandom=1
}

// Blocks are a job's block sizes (fio's "Block size" options).
type Blocks struct {
	BS []BlockSize // one entry with 100 % unless bssplit is set
	// BSDir overrides BS for writes [1] and trims [2] (fio's bs=r,w,t and
	// bssplit=r,w,t); nil entries take BS.
	BSDir [3][]BlockSize
	// BlockAlign makes random offsets multiples of it (fio's blockalign;
	// 0: the smallest block size).
	BlockAlign int64
}

// Target is where a job reads and writes (fio's "Target file/device"
// and "I/O size" options): its byte range, files and zones, as given
// and, once resolved against a drive, in bytes.
type Target struct {
	size            amount
	offset          amount
	ioSize          amount
	offsetIncrement amount // offset_increment: each clone's range moves by it
	fileSize        amount
	fillDevice      bool // fill_device: the range runs to the drive's end
	// Files is fio's nrfiles: the job's range is that many files of
	// FileSize bytes laid end to end (filesize; by default size/nrfiles),
	// and a sequential pattern keeps a position in each, taking the file
	// of each I/O as FileService says (file_service_type).
	Files       int
	FileSize    int64
	FileService FileService
	// ClampToDrive shrinks a size that runs past the drive to the drive's
	// end instead of rejecting it (scenarios use it: an 8 GB Iometer span
	// on a smaller drive covers the whole drive).
	ClampToDrive bool
	// Strided is fio's zonemode=strided: the job's I/O stays in a zone of
	// ZoneRange bytes (default ZoneSize) until ZoneSize bytes have been
	// transferred, then moves ZoneRange+ZoneSkip on, wrapping to the
	// range's start past its end.
	Strided                       bool
	ZoneSize, ZoneRange, ZoneSkip int64
	// ZBD is how a zonemode=zbd job uses a zoned drive; Placement the
	// placement identifiers its writes carry (FDP).
	ZBD       ZBD
	Placement Placement
	// FileSet is the job's files as fio names them, and the region of the
	// drive they take once laid out (LayOutFiles).
	FileSet FileSet
	// LBA is the LBA format of the namespace: with an extended one, the
	// job's offsets, sizes and block sizes count each block's metadata
	// with its data (Resolve checks them against LBA.Block, and the
	// engine converts them to the drive's data bytes).
	LBA LBAFormat

	// Resolved against a capacity (within the region of the job's files,
	// when laid out):
	Offset, Size, IOSize int64
}

// Timing is when a job runs and what ends it (fio's "Time related
// parameters", with number_ios and loops).
type Timing struct {
	RuntimeNs int64 // 0: no limit
	RampNs    int64 // excluded from statistics
	TimeBased bool
	NumberIOs int64
	// Loops runs the job this many times over its range (fio's loops;
	// 0 and 1 mean once).
	Loops int
	// StartDelayNs holds the job back this long after its group starts
	// (fio's startdelay; a range is resolved to a time in it).
	StartDelayNs int64
	startDelayHi int64
}

// Pacing is how fast a job issues (fio's "I/O depth" and "I/O rate"
// options).
type Pacing struct {
	IODepth int
	// RateIOPS caps the job at this many I/Os per second (fio's
	// rate_iops): requests are issued no faster than that pace, and
	// never more than IODepth at once (a ceiling; a slower drive sets
	// the pace).
	RateIOPS int
	// RateBytes caps the job at this many bytes per second (fio's rate),
	// as RateIOPS does.
	RateBytes int64
	// Poisson spaces rate-limited requests with exponential gaps of the
	// same mean (fio's rate_process=poisson) instead of evenly.
	Poisson bool
	// RateMinBytes and RateMinIOPS fail the job, which then stops, when
	// its bandwidth or IOPS over a RateCycleNs window (default 1 s) fall
	// below them (fio's rate_min, rate_iops_min, ratecycle).
	RateMinBytes int64
	RateMinIOPS  int
	RateCycleNs  int64
	// ThinkNs pauses the job after every ThinkBlocks I/Os have completed
	// (fio's thinktime, thinktime_blocks; default one block).
	ThinkNs     int64
	ThinkBlocks int
}

// Durability is what a job asks of the drive to keep its data, and the
// power cuts it suffers.
type Durability struct {
	// FsyncEvery issues a FLUSH after every this many writes (fio's
	// fsync and fdatasync; sync=1 flushes after each write). EndFsync
	// issues one when the job ends (end_fsync).
	FsyncEvery int
	EndFsync   bool
	// WriteFUA and ReadFUA send writes and reads with Force Unit Access
	// (fio's writefua, readfua).
	WriteFUA, ReadFUA bool
	// PowerLossNs cuts the drive's power at these times from the job's
	// start (ftlsim's power_loss; the commands in flight fail, the drive
	// mounts again and the job goes on).
	PowerLossNs []int64
}

// Content is what a job's writes hold (fio's "Buffers and memory"
// options that shape the data).
type Content struct {
	// Data is the content of written data: how compressible and how
	// repetitive (fio's buffer_compress_percentage, dedupe_percentage;
	// data=NAME sets a named pattern, see DataPatterns).
	Data blockio.Data
	// CompressChunk is fio's buffer_compress_chunk: the size of the
	// compressible and incompressible runs within a buffer (default 512).
	CompressChunk int64
}

// Verification is a job's read-back of what it wrote (fio's
// "Verification" options).
type Verification struct {
	// Verify reads back, once the job's writes are done, every block it
	// wrote, and the engine checks that each holds the job's last write
	// there (fio's verify, with do_verify). A time-based job writes and
	// verifies in turn until its runtime ends, as fio's does; a job cut
	// short by its runtime does not verify. The blocks to check are kept
	// as extents, one per write at most.
	Verify        bool
	noVerifyPhase bool // do_verify=0
	// KeepData makes the job's writes rewrite the data the blocks hold
	// instead of new data (fio's ioengine=e4defrag: its writes move a
	// file's extents, the content unchanged); other jobs' verification
	// still finds their own writes there.
	KeepData bool
	// VerifyAnyWrite accepts any host write's data in a block read back,
	// not only the job's last (fio's verify_write_sequence=0, for jobs
	// that write each other's blocks).
	VerifyAnyWrite bool
}

// Reporting is which latency percentiles a job reports (fio's
// "Measurements and reporting" options that change the results).
type Reporting struct {
	// PercentileList is the latency percentiles to report (fio's
	// percentile_list; nil: fio's default list). LatPercentiles reports
	// them for total latency, NoClatPercentiles not for completion
	// latency (fio's lat_percentiles, clat_percentiles=0).
	PercentileList                    []float64
	LatPercentiles, NoClatPercentiles bool
	// Logs are the fio logs the job asks for in its job file.
	Logs Logs
}

// Logs are fio's per-job logs as a job file asks for them
// (write_iops_log=NAME writes NAME_iops.N.log for the file's N-th job,
// as fio does; write_bw_log, write_lat_log and write_hist_log alike),
// their averaging interval (log_avg_msec), the histogram log's interval
// (log_hist_msec) and whether entries carry offsets (log_offset). The
// run writes them; a field not set (Set false) takes the command line's.
type Logs struct {
	IOPS, BW, Lat, Hist string
	AvgMsec, HistMsec   int64
	Offset              bool
	// AvgSet, HistSet and OffsetSet say which of the last three the job
	// set.
	AvgSet, HistSet, OffsetSet bool
}

// Coordination is the job's place among the jobs that run with it (fio's
// "Threads, processes and job synchronization" options).
type Coordination struct {
	// Clone is the job's number among the clones numjobs makes (0 for
	// the first); offset_increment moves each clone's range by it.
	Clone int
	// ExitAll stops the other jobs of its group when this one finishes
	// (fio's exitall).
	ExitAll bool
	// Flow is the job's weight in the flow group FlowID (fio's flow,
	// flow_id): the group's jobs keep their I/O counts in the ratio of
	// their weights; 0: none. FlowGroup is the group, shared by its jobs
	// (JobFile.LayOutFlows).
	Flow, FlowID int
	FlowGroup    *FlowGroup
}

// NewJob returns a job with fio's defaults: rw=read, bs=4k, iodepth=1,
// size=100%, rwmixread=50, random_distribution=random, randseed=0x89 (fio's
// default seed for repeatable runs is the job's randseed).
func NewJob(name string) *Job {
	return &Job{
		Name:    name,
		Access:  Access{Pattern: SeqRead, RWMixRead: 50, RandSeed: 0x89, PercentageRandom: 100},
		Blocks:  Blocks{BS: []BlockSize{{4096, 100}}},
		Pacing:  Pacing{IODepth: 1},
		Content: Content{CompressChunk: 512},
	}
}

// sprOptions returns the SPRandom options spr_ settings go to: the
// job's, once sprandom is on, else those kept for when it is.
func (j *Job) sprOptions() *SPRandom {
	if j.SPRandom != nil {
		return j.SPRandom
	}
	if j.sprPending.Regions == 0 {
		j.sprPending = SPRandom{OP: 0.15, Regions: 100}
	}
	return &j.sprPending
}

// SteadyState is fio's steady-state criterion (steadystate, or ss):
// the job stops once, over the last DurationNs (ss_dur) after RampNs
// (ss_ramp), its IOPS (or, with Bandwidth, bytes per second; with
// Latency, mean completion latency) stay within Limit of their mean —
// or, with Slope, their least-squares slope is within Limit per second.
// Limit is a percentage of the mean with Percent. No DurationNs: no
// detection.
type SteadyState struct {
	Bandwidth, Latency bool
	Slope              bool
	Limit              float64
	Percent            bool
	DurationNs, RampNs int64
	// CheckNs is how often a sample is taken, each the average since the
	// last (fio's ss_interval; 0: each series interval, 1 s).
	CheckNs int64
}

// Name is the criterion as fio names it: iops, bw or lat, with _slope.
func (s SteadyState) Name() string {
	n := "iops"
	switch {
	case s.Bandwidth:
		n = "bw"
	case s.Latency:
		n = "lat"
	}
	if s.Slope {
		n += "_slope"
	}
	return n
}

// FileService is fio's file_service_type: which file of a job's nrfiles
// each I/O goes to.
type FileService uint8

// File services.
const (
	FileRoundRobin FileService = iota // a different file each I/O, in turn (fio's default)
	FileSequential                    // each file to its end, then the next
	FileRandom                        // a file at random each I/O
)

// QueueDepth is the closed-loop depth the job runs at: its iodepth. A
// job paced by rate_iops or rate keeps it too (as fio does, it never has
// more than iodepth I/Os outstanding; the rate is a ceiling).
func (j *Job) QueueDepth() int { return j.IODepth }

// Sizes returns the block sizes of direction d (0 reads, 1 writes, 2
// trims).
func (j *Job) Sizes(d int) []BlockSize {
	if d > 0 && d < 3 && j.BSDir[d] != nil {
		return j.BSDir[d]
	}
	return j.BS
}

// IsSet reports whether option name was given.
func (j *Job) IsSet(name string) bool { return j.set[name] }

// DataPattern is a named kind of written data.
type DataPattern struct {
	Description string
	Data        blockio.Data
}

// dataPatterns are the patterns reviews write: Iometer's two (its
// "pseudo random" buffers repeat and compress well; "full random" does not
// compress at all) and typical mixes. The compressibility of the named
// mixes is an estimate of what a fast LZ-class compressor removes.
var dataPatterns = map[string]DataPattern{
	"full-random":   {"incompressible (Iometer full random, AS-SSD, media files already compressed)", blockio.Data{}},
	"pseudo-random": {"Iometer pseudo random: highly compressible buffers", blockio.Data{CompressPct: 85}},
	"os-install":    {"an operating system and application install (estimate: half compressible, some duplicate blocks)", blockio.Data{CompressPct: 50, DedupePct: 10}},
	"media":         {"photos, music and video files: already compressed", blockio.Data{CompressPct: 2}},
	"zeros":         {"zero-filled buffers", blockio.Data{CompressPct: 100}},
}

// DataPatternNames lists the named data patterns.
func DataPatternNames() []string {
	var n []string
	for k := range dataPatterns {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// DataPatterns returns the named data patterns.
func DataPatterns() map[string]DataPattern {
	out := make(map[string]DataPattern, len(dataPatterns))
	for k, v := range dataPatterns {
		out[k] = v
	}
	return out
}
