package workload

// The options of what a job issues and where: fio's "I/O type",
// "Block size", "Target file/device" and "I/O size".

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

var accessOptions = []Option{
	{Name: "rw", Aliases: []string{"readwrite"}, Kind: KindChoice, Field: "Access.Pattern", WorkloadOnly: true,
		Values: "read|write|trim|randread|randwrite|randtrim|rw|randrw|trimwrite[:N]",
		Help:   "read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite; :N after a sequential pattern skips N bytes after each I/O (negative: backwards), after a random one takes a new random offset every N I/Os",
		set:    setPattern},
	{Name: "rwmixread", Kind: KindInt, Values: "0..100", Field: "Access.RWMixRead", WorkloadOnly: true,
		Help: "percent reads in mixed patterns", set: func(j *Job, v string) error {
			if err := setInt(&j.RWMixRead, v, 0, 100); err != nil {
				return err
			}
			if j.set["rwmixwrite"] && j.RWMixRead+j.rwmixWrite != 100 {
				return fmt.Errorf("%d with rwmixwrite=%d: the two must add up to 100", j.RWMixRead, j.rwmixWrite)
			}
			return nil
		}},
	{Name: "rwmixwrite", Kind: KindInt, Values: "0..100", Field: "Access.RWMixRead", WorkloadOnly: true,
		Help: "percent writes in mixed patterns", set: func(j *Job, v string) error {
			if err := setInt(&j.rwmixWrite, v, 0, 100); err != nil {
				return err
			}
			if j.set["rwmixread"] && j.RWMixRead+j.rwmixWrite != 100 {
				return fmt.Errorf("%d with rwmixread=%d: the two must add up to 100", j.rwmixWrite, j.RWMixRead)
			}
			j.RWMixRead = 100 - j.rwmixWrite
			return nil
		}},
	{Name: "random_distribution", Kind: KindText, Field: "Access.Distribution", WorkloadOnly: true,
		Values: "random|zipf:θ|pareto:h|normal:dev|zoned:a/r:…|sequence:b,b,…",
		Help:   "random, zipf:θ, pareto:h, normal:dev, zoned:a/r:…, sequence:b,b,…",
		set: func(j *Job, v string) (err error) {
			j.Distribution, err = ParseDistribution(v)
			return
		}},
	{Name: "random_sequence_stride", Kind: KindBool, Values: "0|1", Field: "Access.SequenceStride", WorkloadOnly: true,
		Help:      "with random_distribution=sequence: each pass of the sequence moves on by its length (0: the same blocks each pass)",
		boolField: func(j *Job) *bool { return &j.SequenceStride }},
	{Name: "percentage_random", Kind: KindInt, Min: 0, Max: 100, Field: "Access.PercentageRandom", WorkloadOnly: true,
		Help:     "percent of I/Os at random offsets (the rest sequential)",
		intField: func(j *Job) *int { return &j.PercentageRandom }},
	{Name: "randseed", Kind: KindInt, Values: "an unsigned 64-bit integer", Field: "Access.RandSeed", WorkloadOnly: true,
		Help: "seed of the random offsets", set: func(j *Job, v string) error {
			n, err := strconv.ParseUint(v, 0, 64)
			if err != nil {
				return fmt.Errorf("%q: must be an unsigned integer", v)
			}
			j.RandSeed = n
			return nil
		}},
	{Name: "randrepeat", Kind: KindBool, Values: "0|1", WorkloadOnly: true, Field: "Notes",
		Help: "1: the same offsets every run (default; ftlsim always repeats: randseed picks other ones)",
		set: func(j *Job, v string) error {
			var on bool
			if err := setBool(&on, v); err != nil {
				return err
			}
			if !on {
				j.Notes = append(j.Notes, "randrepeat=0: fio would seed from the clock; ftlsim runs repeat exactly (set randseed for other offsets)")
			}
			return nil
		}},
	{Name: "norandommap", Kind: KindFlag, Values: "0|1", Field: "Access.NoRandomMap", WorkloadOnly: true,
		Help: "do not visit every block once per pass", boolField: func(j *Job) *bool { return &j.NoRandomMap }},
	{Name: "random_generator", Kind: KindChoice, Values: "tausworthe|tausworthe64|lfsr", Field: "Access.LFSR", WorkloadOnly: true,
		Help: "tausworthe, tausworthe64 or lfsr; lfsr visits each block once a pass even with norandommap, as fio's full-period LFSR does",
		set: func(j *Job, v string) error {
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
	{Name: "num_range", Kind: KindInt, Min: 1, Max: 256, Field: "Access.NumRange", WorkloadOnly: true,
		Help: "ranges per TRIM command (1..256), each a block at the next offset", intField: func(j *Job) *int { return &j.NumRange }},
	{Name: "sprandom", Kind: KindBool, Values: "0|1", Field: "Access.SPRandom",
		Help: "precondition for random writes in one pass over the physical capacity, leaving the valid-data distribution of steady state (fio's SPRandom; rw=randwrite)",
		set: func(j *Job, v string) error {
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
	{Name: "spr_op", Kind: KindText, Values: "a number in (0, 1)", Field: "Access.sprPending",
		Help: "sprandom: the drive's over-provisioning ratio, in (0, 1) (default 0.15)", set: func(j *Job, v string) error {
			x, err := units.ParseFloat(strings.TrimSpace(v))
			if err != nil || !(x > 0 && x < 1) {
				return fmt.Errorf("%q: must be a number in (0, 1)", v)
			}
			j.sprOptions().OP = x
			return nil
		}},
	{Name: "spr_num_regions", Kind: KindInt, Min: 1, Max: 1 << 20, Field: "Access.sprPending",
		Help: "sprandom: the regions the physical capacity is written in (default 100)", set: func(j *Job, v string) error {
			return setInt(&j.sprOptions().Regions, v, 1, 1<<20)
		}},
	{Name: "spr_cs", Kind: KindSize, Field: "Access.sprPending",
		Help: "sprandom: the drive's write cache in bytes; rewrites are deferred a region (default 0)", set: func(j *Job, v string) error {
			return setSize(&j.sprOptions().CacheBytes, v)
		}},
}

// setPattern is rw=: a pattern, with :N a skip or a random stride.
func setPattern(j *Job, v string) error {
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
}

var blockOptions = []Option{
	{Name: "bs", Aliases: []string{"blocksize"}, Kind: KindSize, Values: "SIZE|LO-HI|R,W[,T]", Field: "Blocks.BS", WorkloadOnly: true,
		Help: "block size (4k, 128k, …; lo-hi: a range; r,w[,t]: per direction)", set: func(j *Job, v string) error {
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
	{Name: "bsrange", Aliases: []string{"blocksize_range"}, Kind: KindSize, Values: "LO-HI[,LO-HI[,LO-HI]]", Field: "Blocks.BS", WorkloadOnly: true,
		Help: "block sizes from lo to hi: 4k-64k (as bs=4k-64k; r,w[,t]: per direction)", set: func(j *Job, v string) error {
			return j.setSizes(v, func(p string) ([]BlockSize, error) {
				lo, hi, ok := strings.Cut(p, "-")
				if !ok {
					return nil, fmt.Errorf("%q: want lo-hi, e.g. 4k-64k", p)
				}
				return bsRange(lo, hi)
			})
		}},
	{Name: "bssplit", Kind: KindList, Values: "SIZE/PCT:SIZE/PCT…[,W-LIST[,T-LIST]]", Field: "Blocks.BS", WorkloadOnly: true,
		Help: "size/percent pairs: 4k/10:64k/50:32k/40 (r,w[,t]: per direction)", set: func(j *Job, v string) error {
			return j.setSizes(v, ParseBSSplit)
		}},
	{Name: "blockalign", Aliases: []string{"ba"}, Kind: KindSize, Values: "a positive multiple of 512 bytes", Field: "Blocks.BlockAlign", WorkloadOnly: true,
		Help: "random offsets are multiples of this (default the smallest block size)", set: func(j *Job, v string) error {
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
}

var targetOptions = []Option{
	{Name: "size", Kind: KindSize, Values: "SIZE|N%", Field: "Target.size",
		Help: "bytes or N% of the drive", set: func(j *Job, v string) (err error) { j.size, err = parseAmount(v); return }},
	{Name: "offset", Kind: KindSize, Values: "SIZE|N%", Field: "Target.offset",
		Help: "start of the range: bytes or N%", set: func(j *Job, v string) (err error) {
			if t := strings.TrimSpace(v); t == "0" || t == "0%" {
				j.offset = amount{set: true}
				return nil
			}
			j.offset, err = parseAmount(v)
			return
		}},
	{Name: "io_size", Kind: KindSize, Values: "SIZE|N%", Field: "Target.ioSize", WorkloadOnly: true,
		Help: "bytes to transfer (default size)", set: func(j *Job, v string) (err error) { j.ioSize, err = parseAmount(v); return }},
	{Name: "offset_increment", Kind: KindSize, Values: "SIZE|N%", Field: "Target.offsetIncrement",
		Help: "each numjobs clone's offset moves this much further (bytes or N%)", set: func(j *Job, v string) (err error) {
			j.offsetIncrement, err = parseAmount(v)
			return
		}},
	{Name: "fill_device", Kind: KindFlag, Values: "0|1", Field: "Target.fillDevice",
		Help: "write to the end of the drive from offset, whatever size says", set: func(j *Job, v string) error {
			var b int
			if err := setInt(&b, v, 0, 1); err != nil {
				return err
			}
			j.fillDevice = b == 1
			return nil
		}},
	{Name: "nrfiles", Kind: KindInt, Min: 1, Max: 1 << 20, Field: "Target.Files",
		Help: "files the job's range is split into (each a region of filesize bytes); the job is on files of its own, as fio's",
		set: func(j *Job, v string) error {
			j.FileSet.filesSet = true
			return setInt(&j.Files, v, 1, 1<<20)
		}},
	{Name: "filesize", Kind: KindSize, Values: "SIZE|N%[-HI]", Field: "Target.fileSize",
		Help: "bytes of each file (default size/nrfiles); with no size, size = nrfiles × filesize", set: func(j *Job, v string) (err error) {
			v, _, _ = strings.Cut(v, "-") // fio's filesize range: the low end
			j.FileSet.filesSet = true
			j.fileSize, err = parseAmount(v)
			return
		}},
	{Name: "file_service_type", Kind: KindChoice, Values: "roundrobin|sequential|random", Field: "Target.FileService",
		Help: "roundrobin (the default), sequential or random: which file each I/O goes to", set: func(j *Job, v string) error {
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
	{Name: "zonemode", Kind: KindChoice, Values: "none|strided|zbd", Field: "Target.Strided",
		Help: "none; strided: I/O in zones of zonerange bytes, zonesize bytes each, then zoneskip bytes on; zbd: a zoned drive's zones, written sequentially at their write pointers (needs a zoned drive)",
		set: func(j *Job, v string) error {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "none":
				j.Strided, j.ZBD.On = false, false
			case "strided":
				j.Strided, j.ZBD.On = true, false
			case "zbd":
				j.Strided, j.ZBD.On = false, true
			default:
				return fmt.Errorf("%q: allowed none, strided, zbd", v)
			}
			return nil
		}},
	{Name: "zonesize", Kind: KindSize, Field: "Target.ZoneSize",
		Help: "zonemode=strided: bytes transferred in a zone before moving on (setting it alone selects strided, as in fio)",
		set: func(j *Job, v string) error {
			if err := setPositiveSize(&j.ZoneSize, v); err != nil {
				return err
			}
			if !j.set["zonemode"] {
				j.Strided = true
			}
			if j.ZBD.On {
				j.Strided = false // zbd: the device's zone size, checked against it
			}
			return nil
		}},
	{Name: "zonerange", Kind: KindSize, Field: "Target.ZoneRange",
		Help: "zonemode=strided: the size of a zone (default zonesize)", set: func(j *Job, v string) error { return setPositiveSize(&j.ZoneRange, v) }},
	{Name: "zoneskip", Kind: KindSize, Field: "Target.ZoneSkip",
		Help: "zonemode=strided: bytes skipped after each zone", set: func(j *Job, v string) error { return setSize(&j.ZoneSkip, v) }},
}
