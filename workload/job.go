package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/internal/units"
)

// ErrOption is wrapped by every job option error.
var ErrOption = errors.New("invalid job option")

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

// BlockSize is one entry of a bssplit: a size and its share in percent.
type BlockSize struct {
	Bytes   int64
	Percent float64
}

// amount is a size that may be a percentage of the drive.
type amount struct {
	bytes   int64
	percent float64 // > 0 when given as N%
	set     bool
}

func parseAmount(s string) (amount, error) {
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v <= 0 || v > 100 {
			return amount{}, fmt.Errorf("%q: a percentage must be in (0, 100]", s)
		}
		return amount{percent: v, set: true}, nil
	}
	b, err := units.ParseSize(s, false)
	if err != nil {
		return amount{}, err
	}
	return amount{bytes: b, set: true}, nil
}

func (a amount) resolve(capacity int64) int64 {
	if a.percent > 0 {
		// fio rounds percentages of the device down to whole 4 KiB blocks.
		return int64(float64(capacity)*a.percent/100) / 4096 * 4096
	}
	return a.bytes
}

// Job is a fio-style job: what to issue, where, how much and how deep.
// Set fills it from options; Resolve checks it against a drive.
type Job struct {
	Name         string
	Pattern      Pattern
	BS           []BlockSize // one entry with 100 % unless bssplit is set
	IODepth      int
	size         amount
	offset       amount
	ioSize       amount
	RuntimeNs    int64 // 0: no limit
	RampNs       int64 // excluded from statistics
	TimeBased    bool
	NumberIOs    int64
	RWMixRead    int
	rwmixWrite   int // rwmixwrite as given, to check it against rwmixread
	Distribution Distribution
	RandSeed     uint64
	NoRandomMap  bool
	// Data is the content of written data: how compressible and how
	// repetitive (fio's buffer_compress_percentage, dedupe_percentage;
	// data=NAME sets a named pattern, see DataPatterns).
	Data blockio.Data
	// CompressChunk is fio's buffer_compress_chunk: the size of the
	// compressible and incompressible runs within a buffer (default 512).
	CompressChunk int64
	// PercentageRandom is the share of I/Os at random offsets in a
	// random pattern, the rest continuing sequentially (fio's
	// percentage_random; default 100).
	PercentageRandom int
	// ClampToDrive shrinks a size that runs past the drive to the drive's
	// end instead of rejecting it (scenarios use it: an 8 GB Iometer span
	// on a smaller drive covers the whole drive).
	ClampToDrive bool
	// RateIOPS caps the job at this many I/Os per second (fio's
	// rate_iops): requests are issued at that pace, open loop.
	RateIOPS int
	// RateBytes caps the job at this many bytes per second (fio's rate),
	// issued at that pace, open loop.
	RateBytes int64
	// Poisson spaces rate-limited requests with exponential gaps of the
	// same mean (fio's rate_process=poisson) instead of evenly.
	Poisson bool
	// Loops runs the job this many times over its range (fio's loops;
	// 0 and 1 mean once).
	Loops int
	// Files is fio's nrfiles: the job's range is that many files of
	// FileSize bytes laid end to end (filesize; by default size/nrfiles),
	// and a sequential pattern keeps a position in each, taking the file
	// of each I/O as FileService says (file_service_type).
	Files       int
	FileSize    int64
	FileService FileService
	fileSize    amount
	fillDevice  bool // fill_device: the range runs to the drive's end
	// ThinkNs pauses the job after every ThinkBlocks I/Os have completed
	// (fio's thinktime, thinktime_blocks; default one block).
	ThinkNs     int64
	ThinkBlocks int
	// SteadyState stops the job early once it is steady (fio's
	// steadystate, ss_dur, ss_ramp).
	SteadyState SteadyState
	// Clone is the job's number among the clones numjobs makes (0 for
	// the first); offset_increment moves each clone's range by it.
	Clone           int
	offsetIncrement amount
	// StartDelayNs holds the job back this long after its group starts
	// (fio's startdelay; a range is resolved to a time in it).
	StartDelayNs int64
	startDelayHi int64
	// BlockAlign makes random offsets multiples of it (fio's blockalign;
	// 0: the smallest block size).
	BlockAlign int64
	// Skip is the bytes a sequential pattern skips after each I/O (fio's
	// rw=write:4k; negative runs backwards, rw=read:-8k).
	Skip int64
	// RandomEvery makes a random pattern take a new random offset only
	// every this many I/Os, continuing sequentially between (fio's
	// rw=randread:8).
	RandomEvery int

	// Resolved against a capacity:
	Offset, Size, IOSize int64
	set                  map[string]bool
}

// NewJob returns a job with fio's defaults: rw=read, bs=4k, iodepth=1,
// size=100%, rwmixread=50, random_distribution=random, randseed=0x89 (fio's
// default seed for repeatable runs is the job's randseed).
func NewJob(name string) *Job {
	return &Job{
		Name: name, Pattern: SeqRead, BS: []BlockSize{{4096, 100}}, IODepth: 1,
		RWMixRead: 50, RandSeed: 0x89, PercentageRandom: 100, CompressChunk: 512,
	}
}

// option is one job option ftlsim understands.
type option struct {
	help string
	set  func(j *Job, v string) error
}

var options = map[string]option{
	"name": {"job name", func(j *Job, v string) error { j.Name = v; return nil }},
	"rw": {"read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite; :N after a sequential pattern skips N bytes after each I/O (negative: backwards), after a random one takes a new random offset every N I/Os", func(j *Job, v string) error {
		name, mod, hasMod := strings.Cut(v, ":")
		p, ok := patternNames[strings.ToLower(strings.TrimSpace(name))]
		if !ok {
			return fmt.Errorf("%q: allowed read, write, trim, randread, randwrite, randtrim, rw, randrw, trimwrite", v)
		}
		j.Pattern, j.Skip, j.RandomEvery = p, 0, 0
		if !hasMod {
			return nil
		}
		mod = strings.TrimSpace(mod)
		if p.Random() {
			n, err := strconv.Atoi(mod)
			if err != nil || n < 1 {
				return fmt.Errorf("%q: after a random pattern, :N is the number of I/Os per random offset, a positive integer", v)
			}
			j.RandomEvery = n
			return nil
		}
		neg := strings.HasPrefix(mod, "-")
		b, err := units.ParseSize(strings.TrimPrefix(mod, "-"), false)
		if err != nil {
			return fmt.Errorf("%q: after a sequential pattern, :N is the bytes to skip after each I/O: %w", v, err)
		}
		if neg {
			b = -b
		}
		j.Skip = b
		return nil
	}},
	"readwrite": {"same as rw", nil},
	"bs": {"block size (4k, 128k, …)", func(j *Job, v string) error {
		// fio's bs=r,w,t: ftlsim uses one size for every direction.
		if strings.Contains(v, ",") {
			parts := strings.Split(v, ",")
			for _, p := range parts[1:] {
				if p != "" && p != parts[0] {
					return fmt.Errorf("%q: per-direction block sizes are not supported; use one size or bssplit", v)
				}
			}
			v = parts[0]
		}
		if lo, hi, ok := strings.Cut(v, "-"); ok {
			bs, err := bsRange(lo, hi)
			if err == nil {
				j.BS = bs
			}
			return err
		}
		b, err := units.ParseSize(v, false)
		if err != nil {
			return err
		}
		j.BS = []BlockSize{{b, 100}}
		return nil
	}},
	"blocksize":       {"same as bs", nil},
	"blocksize_range": {"same as bsrange", nil},
	"timeout":         {"same as runtime", nil},
	"bsrange": {"block sizes from lo to hi: 4k-64k (as bs=4k-64k)", func(j *Job, v string) error {
		v, _, _ = strings.Cut(v, ",") // fio's per-direction ranges: the first applies
		lo, hi, ok := strings.Cut(v, "-")
		if !ok {
			return fmt.Errorf("%q: want lo-hi, e.g. 4k-64k", v)
		}
		bs, err := bsRange(lo, hi)
		if err == nil {
			j.BS = bs
		}
		return err
	}},
	"nrfiles": {"files the job's range is split into (each a region of filesize bytes)", func(j *Job, v string) error { return setInt(&j.Files, v, 1, 1<<20) }},
	"filesize": {"bytes of each file (default size/nrfiles); with no size, size = nrfiles × filesize", func(j *Job, v string) (err error) {
		v, _, _ = strings.Cut(v, "-") // fio's filesize range: the low end
		j.fileSize, err = parseAmount(v)
		return
	}},
	"file_service_type": {"roundrobin (the default), sequential or random: which file each I/O goes to", func(j *Job, v string) error {
		name, _, _ := strings.Cut(strings.ToLower(v), ":")
		switch name {
		case "roundrobin":
			j.FileService = FileRoundRobin
		case "sequential":
			j.FileService = FileSequential
		case "random":
			j.FileService = FileRandom
		default:
			return fmt.Errorf("%q: allowed roundrobin, sequential, random", v)
		}
		return nil
	}},
	"blockalign": {"random offsets are multiples of this (default the smallest block size)", func(j *Job, v string) error {
		v, _, _ = strings.Cut(v, ",") // fio's per-direction alignments: the first applies
		b, err := units.ParseSize(v, false)
		if err != nil || b <= 0 || b%512 != 0 {
			return fmt.Errorf("%q: want a positive multiple of 512 bytes", v)
		}
		j.BlockAlign = b
		return nil
	}},
	"ba": {"same as blockalign", nil},
	"offset_increment": {"each numjobs clone's offset moves this much further (bytes or N%)", func(j *Job, v string) (err error) {
		j.offsetIncrement, err = parseAmount(v)
		return
	}},
	"dedupe_mode": {"repeat or working_set: which earlier data a deduplicated buffer repeats (the drive stores a repeat alike either way)", func(j *Job, v string) error {
		switch strings.ToLower(v) {
		case "repeat", "working_set":
			return nil
		}
		return fmt.Errorf("%q: allowed repeat, working_set", v)
	}},
	"dedupe_working_set_percentage": {"share of the range deduplicated buffers come from (as dedupe_mode)", func(j *Job, v string) error {
		var p int
		return setInt(&p, v, 0, 100)
	}},
	"dedupe_global": {"deduplicate across jobs (the drive stores a repeat alike either way)", func(j *Job, v string) error {
		var p int
		return setInt(&p, v, 0, 1)
	}},
	"fill_device": {"write to the end of the drive from offset, whatever size says", func(j *Job, v string) error {
		var b int
		if err := setInt(&b, v, 0, 1); err != nil {
			return err
		}
		j.fillDevice = b == 1
		return nil
	}},
	"steadystate": {"iops|bw|lat[_slope]:LIMIT[%]: stop once steady over ss_dur (fio's criteria; lat in ns)", func(j *Job, v string) error {
		name, lim, ok := strings.Cut(strings.ToLower(strings.TrimSpace(v)), ":")
		c := j.SteadyState
		switch name {
		case "iops", "iops_slope", "bw", "bw_slope", "lat", "lat_slope":
			c.Bandwidth, c.Latency, c.Slope = strings.HasPrefix(name, "bw"), strings.HasPrefix(name, "lat"), strings.HasSuffix(name, "_slope")
		default:
			return fmt.Errorf("%q: allowed iops, iops_slope, bw, bw_slope, lat, lat_slope, each :LIMIT or :LIMIT%%", v)
		}
		if !ok {
			return fmt.Errorf("%q: want a limit, e.g. %s:1%%", v, name)
		}
		c.Percent = strings.HasSuffix(lim, "%")
		x, err := strconv.ParseFloat(strings.TrimSuffix(lim, "%"), 64)
		if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%q: the limit must be a non-negative number, or a percentage", v)
		}
		c.Limit = x
		j.SteadyState = c
		return nil
	}},
	"steadystate_duration": {"the window steadystate is judged over (fio's ss_dur)", func(j *Job, v string) (err error) {
		j.SteadyState.DurationNs, err = units.ParseDuration(v)
		return
	}},
	"steadystate_ramp_time": {"time before steadystate starts collecting (fio's ss_ramp)", func(j *Job, v string) (err error) {
		j.SteadyState.RampNs, err = units.ParseDuration(v)
		return
	}},
	"steadystate_check_interval": {"how often steadystate takes a sample, each the average since the last (fio's ss_interval; default 1s)", func(j *Job, v string) (err error) {
		d, err := units.ParseDuration(v)
		if err == nil && d < 1e9 {
			err = fmt.Errorf("%q: at least 1s (the series interval)", v)
		}
		j.SteadyState.CheckNs = d
		return err
	}},
	"ss_interval": {"same as steadystate_check_interval", nil},
	"ss":          {"same as steadystate", nil},
	"ss_dur":      {"same as steadystate_duration", nil},
	"ss_ramp":     {"same as steadystate_ramp_time", nil},
	"thinktime": {"pause after I/Os complete before issuing more (microseconds, or with a unit)", func(j *Job, v string) (err error) {
		j.ThinkNs, err = microseconds(v)
		return
	}},
	"thinktime_blocks": {"I/Os issued between think times (default 1: at most one in flight)", func(j *Job, v string) error { return setInt(&j.ThinkBlocks, v, 1, 65536) }},
	"thinktime_spin": {"part of thinktime the host spins (the drive sees the same pause)", func(j *Job, v string) error {
		_, err := microseconds(v)
		return err
	}},
	"startdelay": {"hold the job back this long after its group starts (a range lo-hi: a time in it, drawn from randseed)", func(j *Job, v string) error {
		lo, hi, isRange := strings.Cut(v, "-")
		a, err := units.ParseDuration(lo)
		if err != nil {
			return err
		}
		j.StartDelayNs, j.startDelayHi = a, a
		if isRange {
			b, err := units.ParseDuration(hi)
			if err != nil || b < a {
				return fmt.Errorf("%q: want a time or a range lo-hi with lo <= hi", v)
			}
			j.startDelayHi = b
		}
		return nil
	}},
	"zonemode": {"none (zoned modes are refused: the simulated drives are conventional)", func(j *Job, v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "none":
			return nil
		case "zbd":
			return fmt.Errorf("%q: the simulated drives are conventional, not zoned block devices; allowed none", v)
		}
		return fmt.Errorf("%q: only none is supported (strided zones are not modelled yet)", v)
	}},
	"loops": {"run the job this many times over its range", func(j *Job, v string) error { return setInt(&j.Loops, v, 1, 1_000_000) }},
	"rate": {"bytes per second (10m: 10 MiB/s), issued at that pace", func(j *Job, v string) error {
		v, _, _ = strings.Cut(v, ",") // fio's per-direction rates: the first applies to all
		b, err := units.ParseSize(v, false)
		if err != nil || b <= 0 {
			return fmt.Errorf("%q: want a positive rate in bytes per second", v)
		}
		j.RateBytes = b
		return nil
	}},
	"rate_process": {"linear (evenly spaced) or poisson (exponential gaps)", func(j *Job, v string) error {
		switch strings.ToLower(v) {
		case "linear":
			j.Poisson = false
		case "poisson":
			j.Poisson = true
		default:
			return fmt.Errorf("%q: allowed linear, poisson", v)
		}
		return nil
	}},
	"buffer_pattern": {"written data repeats this pattern (a string or 0x… bytes): compressible", func(j *Job, v string) error {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("empty pattern")
		}
		// A short pattern repeated over a buffer compresses to almost
		// nothing; buffer_compress_percentage, if set, still applies.
		j.Data.CompressPct = 99
		return nil
	}},
	"bssplit": {"size/percent pairs: 4k/10:64k/50:32k/40", func(j *Job, v string) error {
		bs, err := ParseBSSplit(v)
		if err == nil {
			j.BS = bs
		}
		return err
	}},
	"iodepth": {"outstanding I/Os (1-65536)", func(j *Job, v string) error { return setInt(&j.IODepth, v, 1, 65536) }},
	"size":    {"bytes or N% of the drive", func(j *Job, v string) (err error) { j.size, err = parseAmount(v); return }},
	"offset": {"start of the range: bytes or N%", func(j *Job, v string) (err error) {
		if t := strings.TrimSpace(v); t == "0" || t == "0%" {
			j.offset = amount{set: true}
			return nil
		}
		j.offset, err = parseAmount(v)
		return
	}},
	"io_size": {"bytes to transfer (default size)", func(j *Job, v string) (err error) { j.ioSize, err = parseAmount(v); return }},
	"runtime": {"time limit (s, or with ms/m/h)", func(j *Job, v string) (err error) {
		j.RuntimeNs, err = units.ParseDuration(v)
		return
	}},
	"ramp_time": {"time excluded from statistics", func(j *Job, v string) (err error) {
		j.RampNs, err = units.ParseDuration(v)
		return
	}},
	"time_based": {"run for runtime, wrapping around", func(j *Job, v string) error { return setBool(&j.TimeBased, v) }},
	"number_ios": {"stop after this many I/Os", func(j *Job, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("%q: must be a positive integer", v)
		}
		j.NumberIOs = n
		return nil
	}},
	"rwmixread": {"percent reads in mixed patterns", func(j *Job, v string) error {
		if err := setInt(&j.RWMixRead, v, 0, 100); err != nil {
			return err
		}
		if j.set["rwmixwrite"] && j.RWMixRead+j.rwmixWrite != 100 {
			return fmt.Errorf("%d with rwmixwrite=%d: the two must add up to 100", j.RWMixRead, j.rwmixWrite)
		}
		return nil
	}},
	"rwmixwrite": {"percent writes in mixed patterns", func(j *Job, v string) error {
		if err := setInt(&j.rwmixWrite, v, 0, 100); err != nil {
			return err
		}
		if j.set["rwmixread"] && j.RWMixRead+j.rwmixWrite != 100 {
			return fmt.Errorf("%d with rwmixread=%d: the two must add up to 100", j.rwmixWrite, j.RWMixRead)
		}
		j.RWMixRead = 100 - j.rwmixWrite
		return nil
	}},
	"random_distribution": {"random, zipf:θ, pareto:h, normal:dev, zoned:a/r:…", func(j *Job, v string) (err error) {
		j.Distribution, err = ParseDistribution(v)
		return
	}},
	"randseed": {"seed of the random offsets", func(j *Job, v string) error {
		n, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return fmt.Errorf("%q: must be an unsigned integer", v)
		}
		j.RandSeed = n
		return nil
	}},
	"norandommap": {"do not visit every block once per pass", func(j *Job, v string) error { return setBool(&j.NoRandomMap, v) }},
	"buffer_compress_percentage": {"percent of written data a compressor removes", func(j *Job, v string) error {
		var n int
		if err := setInt(&n, v, 0, 100); err != nil {
			return err
		}
		j.Data.CompressPct = uint8(n)
		return nil
	}},
	"buffer_compress_chunk": {"size of the compressible runs (default 512)", func(j *Job, v string) error {
		b, err := units.ParseSize(v, false)
		if err != nil || b < 1 {
			return fmt.Errorf("%q: must be a positive size", v)
		}
		j.CompressChunk = b
		return nil
	}},
	"dedupe_percentage": {"percent of written blocks that repeat earlier ones", func(j *Job, v string) error {
		var n int
		if err := setInt(&n, v, 0, 100); err != nil {
			return err
		}
		j.Data.DedupePct = uint8(n)
		return nil
	}},
	"data": {"named data pattern: " + strings.Join(DataPatternNames(), ", "), func(j *Job, v string) error {
		d, ok := dataPatterns[v]
		if !ok {
			return fmt.Errorf("%q: allowed %s", v, strings.Join(DataPatternNames(), ", "))
		}
		j.Data = d.Data
		return nil
	}},
	"percentage_random": {"percent of I/Os at random offsets (the rest sequential)", func(j *Job, v string) error {
		return setInt(&j.PercentageRandom, v, 0, 100)
	}},
	"rate_iops": {"issue at most this many I/Os per second", func(j *Job, v string) error { return setInt(&j.RateIOPS, v, 1, 10_000_000) }},
}

// Options returns the names of the job options Set accepts.
func Options() []string {
	var n []string
	for k := range options {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// OptionHelp returns a one-line description of option name.
func OptionHelp(name string) string { return options[name].help }

// IsFlag reports whether option name is a switch that takes no value.
func IsFlag(name string) bool {
	return name == "time_based" || name == "norandommap" || name == "fill_device" || name == "dedupe_global"
}

var aliases = map[string]string{"readwrite": "rw", "blocksize": "bs", "timeout": "runtime", "blocksize_range": "bsrange", "ba": "blockalign", "ss": "steadystate", "ss_dur": "steadystate_duration", "ss_ramp": "steadystate_ramp_time", "ss_interval": "steadystate_check_interval"}

// Set sets one option by its fio name; an unknown name is an error.
func (j *Job) Set(name, value string) error {
	if a, ok := aliases[name]; ok {
		name = a
	}
	o, ok := options[name]
	if !ok {
		return fmt.Errorf("%w: unknown option %q", ErrOption, name)
	}
	if err := o.set(j, value); err != nil {
		return fmt.Errorf("%w: %s=%s: %w", ErrOption, name, value, err)
	}
	if j.set == nil {
		j.set = map[string]bool{}
	}
	j.set[name] = true
	return nil
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

// microseconds parses a time whose bare numbers are microseconds (fio's
// thinktime) or that carries a unit.
func microseconds(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("%q: must not be negative", v)
		}
		return n * 1000, nil
	}
	return units.ParseDuration(v)
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

// QueueDepth is the closed-loop depth the job runs at: its iodepth, or 0
// (open loop, requests at their times) when rate_iops or rate paces it.
func (j *Job) QueueDepth() int {
	if j.RateIOPS > 0 || j.RateBytes > 0 {
		return 0
	}
	return j.IODepth
}

// IsSet reports whether option name was given.
func (j *Job) IsSet(name string) bool { return j.set[name] }

func setInt(dst *int, v string, lo, hi int) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return fmt.Errorf("%q: must be an integer in %d..%d", v, lo, hi)
	}
	*dst = n
	return nil
}

func setBool(dst *bool, v string) error {
	switch strings.ToLower(v) {
	case "", "1", "true", "yes", "on":
		*dst = true
	case "0", "false", "no", "off":
		*dst = false
	default:
		return fmt.Errorf("%q: must be 0 or 1", v)
	}
	return nil
}

// ParseBSSplit parses fio's bssplit: size/percent pairs separated by
// colons. Percentages left out share what remains; the total must be 100.
func ParseBSSplit(s string) ([]BlockSize, error) {
	if strings.Contains(s, ",") {
		return nil, fmt.Errorf("%q: per-direction splits are not supported; give one list", s)
	}
	var out []BlockSize
	var sum float64
	blank := 0
	for _, p := range strings.Split(s, ":") {
		sz, pc, hasPC := strings.Cut(p, "/")
		b, err := units.ParseSize(sz, false)
		if err != nil {
			return nil, err
		}
		bs := BlockSize{Bytes: b, Percent: -1}
		if hasPC && pc != "" {
			v, err := strconv.ParseFloat(pc, 64)
			if err != nil || v < 0 || v > 100 {
				return nil, fmt.Errorf("%q: percentage %q must be in 0..100", s, pc)
			}
			bs.Percent = v
			sum += v
		} else {
			blank++
		}
		out = append(out, bs)
	}
	if sum > 100+1e-9 || (blank == 0 && sum < 100-1e-9) {
		return nil, fmt.Errorf("%q: percentages sum to %g, must be 100", s, sum)
	}
	for i := range out {
		if out[i].Percent < 0 {
			out[i].Percent = (100 - sum) / float64(blank)
		}
	}
	return out, nil
}

// bsRange is fio's bsrange=lo-hi: sizes drawn between lo and hi in
// multiples of lo (fio aligns a drawn size down to the smallest size),
// each equally likely here.
func bsRange(lo, hi string) ([]BlockSize, error) {
	a, err := units.ParseSize(strings.TrimSpace(lo), false)
	if err != nil {
		return nil, err
	}
	b, err := units.ParseSize(strings.TrimSpace(hi), false)
	if err != nil {
		return nil, err
	}
	if a <= 0 || b < a {
		return nil, fmt.Errorf("%s-%s: want 0 < lo <= hi", lo, hi)
	}
	n := b / a
	if n > 4096 {
		return nil, fmt.Errorf("%s-%s: at most 4096 sizes (multiples of lo)", lo, hi)
	}
	out := make([]BlockSize, 0, n)
	for k := int64(1); k <= n; k++ {
		out = append(out, BlockSize{Bytes: k * a, Percent: 100 / float64(n)})
	}
	return out, nil
}

// Resolve checks the job against a drive of capacity bytes and fixes its
// byte range. Errors name the option and the allowed range.
func (j *Job) Resolve(capacity int64) error {
	minBS := int64(0)
	for _, b := range j.BS {
		if b.Bytes <= 0 || b.Bytes%512 != 0 {
			return fmt.Errorf("%w: bs=%d: block sizes must be positive multiples of 512", ErrOption, b.Bytes)
		}
		if b.Bytes > 64<<20 {
			return fmt.Errorf("%w: bs=%d: at most 64 MiB", ErrOption, b.Bytes)
		}
		if minBS == 0 || b.Bytes < minBS {
			minBS = b.Bytes
		}
	}
	j.Offset = j.offset.resolve(capacity)
	if j.offsetIncrement.set {
		j.Offset += int64(j.Clone) * j.offsetIncrement.resolve(capacity)
	}
	if j.Offset%512 != 0 {
		return fmt.Errorf("%w: offset=%d: must be a multiple of 512", ErrOption, j.Offset)
	}
	if j.Offset >= capacity {
		return fmt.Errorf("%w: offset=%d: past the end of the %d-byte drive", ErrOption, j.Offset, capacity)
	}
	files := int64(max(j.Files, 1))
	switch {
	case j.fillDevice:
		j.Size = capacity - j.Offset
	case j.size.set:
		j.Size = j.size.resolve(capacity)
	case j.fileSize.set:
		j.Size = files * j.fileSize.resolve(capacity)
	default:
		j.Size = capacity - j.Offset
	}
	j.FileSize = j.Size / files
	if j.fileSize.set {
		j.FileSize = min(j.fileSize.resolve(capacity), j.FileSize)
	}
	j.FileSize = j.FileSize / 512 * 512
	if j.ClampToDrive && j.Offset+j.Size > capacity {
		j.Size = capacity - j.Offset
	}
	if j.Size%512 != 0 {
		return fmt.Errorf("%w: size=%d: must be a multiple of 512", ErrOption, j.Size)
	}
	if j.Size < minBS || j.Offset+j.Size > capacity {
		return fmt.Errorf("%w: size=%d at offset=%d: must hold one block and end within the %d-byte drive", ErrOption, j.Size, j.Offset, capacity)
	}
	for _, b := range j.BS {
		if b.Bytes > j.Size {
			return fmt.Errorf("%w: bs=%d: larger than size=%d", ErrOption, b.Bytes, j.Size)
		}
		if j.Files > 1 && b.Bytes > j.FileSize {
			return fmt.Errorf("%w: bs=%d: larger than each of the nrfiles=%d files (%d bytes)", ErrOption, b.Bytes, j.Files, j.FileSize)
		}
	}
	if j.startDelayHi > j.StartDelayNs {
		// fio draws a time in the range; here from the job's seed, so a
		// run repeats.
		r := rand.New(rand.NewPCG(j.RandSeed, 0x9e3779b97f4a7c15))
		j.StartDelayNs += r.Int64N(j.startDelayHi - j.StartDelayNs + 1)
		j.startDelayHi = j.StartDelayNs
	}
	if j.BlockAlign > j.Size {
		return fmt.Errorf("%w: blockalign=%d: larger than size=%d", ErrOption, j.BlockAlign, j.Size)
	}
	j.IOSize = j.Size
	if j.ioSize.set {
		j.IOSize = j.ioSize.resolve(capacity)
		if j.IOSize <= 0 {
			return fmt.Errorf("%w: io_size=%d: must be positive", ErrOption, j.IOSize)
		}
	}
	if j.Loops > 1 {
		j.IOSize *= int64(j.Loops)
	}
	if j.RateBytes > 0 && j.RateIOPS > 0 {
		return fmt.Errorf("%w: rate and rate_iops: give one", ErrOption)
	}
	if j.TimeBased && j.RuntimeNs <= 0 {
		return fmt.Errorf("%w: time_based needs runtime > 0", ErrOption)
	}
	if j.RampNs < 0 || (j.RuntimeNs > 0 && j.RampNs >= j.RuntimeNs) {
		return fmt.Errorf("%w: ramp_time=%dns: must be shorter than runtime", ErrOption, j.RampNs)
	}
	return nil
}

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
