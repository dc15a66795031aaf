package workload

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

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
	"bs": {"block size (4k, 128k, …; lo-hi: a range; r,w[,t]: per direction)", func(j *Job, v string) error {
		return j.setSizes(v, func(p string) ([]BlockSize, error) {
			if lo, hi, ok := strings.Cut(p, "-"); ok {
				return bsRange(lo, hi)
			}
			b, err := units.ParseSize(p, false)
			if err != nil {
				return nil, err
			}
			return []BlockSize{{b, 100}}, nil
		})
	}},
	"blocksize":       {"same as bs", nil},
	"blocksize_range": {"same as bsrange", nil},
	"timeout":         {"same as runtime", nil},
	"bsrange": {"block sizes from lo to hi: 4k-64k (as bs=4k-64k; r,w[,t]: per direction)", func(j *Job, v string) error {
		return j.setSizes(v, func(p string) ([]BlockSize, error) {
			lo, hi, ok := strings.Cut(p, "-")
			if !ok {
				return nil, fmt.Errorf("%q: want lo-hi, e.g. 4k-64k", p)
			}
			return bsRange(lo, hi)
		})
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
		v, err := oneForAll("blockalign", v)
		if err != nil {
			return err
		}
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
	"fsync": {"issue a FLUSH after every N writes (the write buffer's data then on flash)", func(j *Job, v string) error {
		return setInt(&j.FsyncEvery, v, 0, 1<<30)
	}},
	"fdatasync": {"same as fsync for a drive (a FLUSH after every N writes)", func(j *Job, v string) error {
		return setInt(&j.FsyncEvery, v, 0, 1<<30)
	}},
	"sync": {"1, sync or dsync: every write is followed by a FLUSH (none or 0: not)", func(j *Job, v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "true", "sync", "dsync":
			j.FsyncEvery = 1
		case "0", "false", "none":
			j.FsyncEvery = 0
		default:
			return fmt.Errorf("%q: allowed 0, 1, none, sync, dsync", v)
		}
		return nil
	}},
	"end_fsync": {"issue a FLUSH when the job ends", func(j *Job, v string) error { return setBool(&j.EndFsync, v) }},
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
	"zonemode": {"none, or strided: I/O in zones of zonerange bytes, zonesize bytes each, then zoneskip bytes on (zbd is refused: the simulated drives are conventional)", func(j *Job, v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "none":
			j.Strided = false
			return nil
		case "strided":
			j.Strided = true
			return nil
		case "zbd":
			return fmt.Errorf("%q: the simulated drives are conventional, not zoned block devices; allowed none, strided", v)
		}
		return fmt.Errorf("%q: allowed none, strided", v)
	}},
	"zonesize": {"zonemode=strided: bytes transferred in a zone before moving on (setting it alone selects strided, as in fio)", func(j *Job, v string) error {
		if err := setPositiveSize(&j.ZoneSize, v); err != nil {
			return err
		}
		if !j.set["zonemode"] {
			j.Strided = true
		}
		return nil
	}},
	"zonerange": {"zonemode=strided: the size of a zone (default zonesize)", func(j *Job, v string) error { return setPositiveSize(&j.ZoneRange, v) }},
	"zoneskip":  {"zonemode=strided: bytes skipped after each zone", func(j *Job, v string) error { return setSize(&j.ZoneSkip, v) }},
	"loops":     {"run the job this many times over its range", func(j *Job, v string) error { return setInt(&j.Loops, v, 1, 1_000_000) }},
	"rate": {"bytes per second (10m: 10 MiB/s), issued at that pace", func(j *Job, v string) error {
		v, err := oneForAll("rate", v)
		if err != nil {
			return err
		}
		b, err := units.ParseSize(v, false)
		if err != nil || b <= 0 {
			return fmt.Errorf("%q: want a positive rate in bytes per second", v)
		}
		j.RateBytes = b
		return nil
	}},
	"rate_min": {"the job fails, and stops, when a ratecycle's bandwidth falls below this (bytes per second)", func(j *Job, v string) error {
		v, err := oneForAll("rate_min", v)
		if err != nil {
			return err
		}
		b, err := units.ParseSize(v, false)
		if err != nil || b <= 0 {
			return fmt.Errorf("%q: want a positive rate in bytes per second", v)
		}
		j.RateMinBytes = b
		return nil
	}},
	"rate_iops_min": {"the job fails, and stops, when a ratecycle's IOPS fall below this", func(j *Job, v string) error {
		v, err := oneForAll("rate_iops_min", v)
		if err != nil {
			return err
		}
		return setInt(&j.RateMinIOPS, v, 1, 100_000_000)
	}},
	"ratecycle": {"the window rate_min and rate_iops_min are checked over, in ms (default 1000)", func(j *Job, v string) error {
		var ms int
		if err := setInt(&ms, v, 1, 3_600_000); err != nil {
			return err
		}
		j.RateCycleNs = int64(ms) * 1e6
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
	"bssplit": {"size/percent pairs: 4k/10:64k/50:32k/40 (r,w[,t]: per direction)", func(j *Job, v string) error {
		return j.setSizes(v, ParseBSSplit)
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
	"verify": {"read back what the job wrote once its writes are done, and check that each block holds its last write (any fio method: md5, crc32c, …; none: off)", func(j *Job, v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "", "0", "none":
			j.Verify = false
			return nil
		case "md5", "crc64", "crc32c", "crc32c-intel", "crc32", "crc16", "crc7", "xxhash", "sha512", "sha256", "sha1",
			"sha3-224", "sha3-256", "sha3-384", "sha3-512", "meta", "pattern", "null", "1":
			j.Verify = true
			return nil
		}
		return fmt.Errorf("%q: allowed none or one of fio's methods (md5, crc64, crc32c, crc32, crc16, crc7, xxhash, sha1, sha256, sha512, sha3-*, meta, pattern, null)", v)
	}},
	"verify_write_sequence": {"0: verify accepts any write of the block, not only the job's last (for jobs that overwrite each other's blocks; default 1)", func(j *Job, v string) error {
		var on bool
		if err := setBool(&on, v); err != nil {
			return err
		}
		j.VerifyAnyWrite = !on
		return nil
	}},
	"do_verify": {"0: no verify phase even with verify set (default 1)", func(j *Job, v string) error {
		var on bool
		if err := setBool(&on, v); err != nil {
			return err
		}
		j.noVerifyPhase = !on
		return nil
	}},
	"sprandom": {"precondition for random writes in one pass over the physical capacity, leaving the valid-data distribution of steady state (fio's SPRandom; rw=randwrite)", func(j *Job, v string) error {
		var on bool
		if err := setBool(&on, v); err != nil {
			return err
		}
		if on && j.SPRandom == nil {
			o := *j.sprOptions()
			j.SPRandom = &o
		} else if !on {
			j.SPRandom = nil
		}
		return nil
	}},
	"spr_op": {"sprandom: the drive's over-provisioning ratio, in (0, 1) (default 0.15)", func(j *Job, v string) error {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(x > 0 && x < 1) {
			return fmt.Errorf("%q: must be a number in (0, 1)", v)
		}
		j.sprOptions().OP = x
		return nil
	}},
	"spr_num_regions": {"sprandom: the regions the physical capacity is written in (default 100)", func(j *Job, v string) error {
		return setInt(&j.sprOptions().Regions, v, 1, 1<<20)
	}},
	"spr_cs": {"sprandom: the drive's write cache in bytes; rewrites are deferred a region (default 0)", func(j *Job, v string) error {
		return setSize(&j.sprOptions().CacheBytes, v)
	}},
	"percentile_list": {"the latency percentiles reported, colon-separated (99:99.9:99.99; at most 20)", func(j *Job, v string) error {
		var ps []float64
		for _, f := range strings.Split(v, ":") {
			p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(p > 0 && p <= 100) {
				return fmt.Errorf("%q: each percentile must be a number in (0, 100]", f)
			}
			ps = append(ps, p)
		}
		if len(ps) > 20 {
			return fmt.Errorf("%d percentiles: at most 20", len(ps))
		}
		j.PercentileList = ps
		return nil
	}},
	"clat_percentiles": {"0: no completion-latency percentiles (default 1)", func(j *Job, v string) error {
		var on bool
		err := setBool(&on, v)
		j.NoClatPercentiles = !on
		return err
	}},
	"lat_percentiles": {"1: percentiles of total latency instead of completion latency", func(j *Job, v string) error {
		return setBool(&j.LatPercentiles, v)
	}},
	"power_loss": {"ftlsim: cut the drive's power at these times from the start (comma-separated: 10s,1m); the drive mounts again and the job goes on", func(j *Job, v string) error {
		var ts []int64
		for _, p := range strings.Split(v, ",") {
			ns, err := units.ParseDuration(strings.TrimSpace(p))
			if err != nil || ns <= 0 {
				return fmt.Errorf("%q: want positive times (10s, 500ms, 2m)", p)
			}
			if len(ts) > 0 && ns <= ts[len(ts)-1] {
				return fmt.Errorf("%q: times must increase", v)
			}
			ts = append(ts, ns)
		}
		j.PowerLossNs = ts
		return nil
	}},
	"exitall": {"when this job finishes, the others of its group stop", func(j *Job, v string) error { return setBool(&j.ExitAll, v) }},
	"random_generator": {"tausworthe, tausworthe64 or lfsr; lfsr visits each block once a pass even with norandommap, as fio's full-period LFSR does", func(j *Job, v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "tausworthe", "tausworthe64":
			j.LFSR = false
		case "lfsr":
			j.LFSR = true
		default:
			return fmt.Errorf("%q: allowed tausworthe, tausworthe64, lfsr", v)
		}
		return nil
	}},
	"randrepeat": {"1: the same offsets every run (default; ftlsim always repeats: randseed picks other ones)", func(j *Job, v string) error {
		var on bool
		if err := setBool(&on, v); err != nil {
			return err
		}
		if !on {
			j.Notes = append(j.Notes, "randrepeat=0: fio would seed from the clock; ftlsim runs repeat exactly (set randseed for other offsets)")
		}
		return nil
	}},
	"num_range": {"ranges per TRIM command (1..256), each a block at the next offset", func(j *Job, v string) error { return setInt(&j.NumRange, v, 1, 256) }},
	"writefua":  {"writes with Force Unit Access: each completes once its data is on flash", func(j *Job, v string) error { return setBool(&j.WriteFUA, v) }},
	"readfua":   {"reads with Force Unit Access: buffered data they cover is committed to flash first", func(j *Job, v string) error { return setBool(&j.ReadFUA, v) }},
	"random_sequence_stride": {"with random_distribution=sequence: each pass of the sequence moves on by its length (0: the same blocks each pass)", func(j *Job, v string) error {
		return setBool(&j.SequenceStride, v)
	}},
	"random_distribution": {"random, zipf:θ, pareto:h, normal:dev, zoned:a/r:…, sequence:b,b,…", func(j *Job, v string) (err error) {
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
	return name == "time_based" || name == "norandommap" || name == "fill_device" || name == "dedupe_global" ||
		name == "writefua" || name == "readfua" || name == "exitall"
}

var aliases = map[string]string{"ratemin": "rate_min", "readwrite": "rw", "blocksize": "bs", "timeout": "runtime", "blocksize_range": "bsrange", "ba": "blockalign", "ss": "steadystate", "ss_dur": "steadystate_duration", "ss_ramp": "steadystate_ramp_time", "ss_interval": "steadystate_check_interval"}

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
