package workload

// The options of when a job runs, how fast it issues and what it asks
// the drive to keep: fio's "Time related parameters", "I/O depth",
// "I/O rate" and the sync options of "I/O type".

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

var timingOptions = []Option{
	{Name: "runtime", Aliases: []string{"timeout"}, Kind: KindTime, Field: "Timing.RuntimeNs", WorkloadOnly: true,
		Help: "time limit (s, or with ms/m/h)", set: func(j *Job, v string) (err error) {
			j.RuntimeNs, err = units.ParseDuration(v)
			return
		}},
	{Name: "time_based", Kind: KindFlag, Values: "0|1", Field: "Timing.TimeBased", WorkloadOnly: true,
		Help: "run for runtime, wrapping around", boolField: func(j *Job) *bool { return &j.TimeBased }},
	{Name: "ramp_time", Kind: KindTime, Field: "Timing.RampNs", WorkloadOnly: true,
		Help: "time excluded from statistics", set: func(j *Job, v string) (err error) {
			j.RampNs, err = units.ParseDuration(v)
			return
		}},
	{Name: "startdelay", Kind: KindTime, Values: "TIME|LO-HI", Field: "Timing.StartDelayNs", WorkloadOnly: true,
		Help: "hold the job back this long after its group starts (a range lo-hi: a time in it, drawn from randseed)",
		set: func(j *Job, v string) error {
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
	{Name: "number_ios", Kind: KindInt, Values: "a positive integer", Field: "Timing.NumberIOs", WorkloadOnly: true,
		Help: "stop after this many I/Os", set: func(j *Job, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return fmt.Errorf("%q: must be a positive integer", v)
			}
			j.NumberIOs = n
			return nil
		}},
	{Name: "loops", Kind: KindInt, Min: 1, Max: 1_000_000, Field: "Timing.Loops", WorkloadOnly: true,
		Help: "run the job this many times over its range", intField: func(j *Job) *int { return &j.Loops }},
}

var pacingOptions = []Option{
	{Name: "iodepth", Kind: KindInt, Min: 1, Max: 65536, Field: "Pacing.IODepth", WorkloadOnly: true,
		Help: "outstanding I/Os (1-65536)", intField: func(j *Job) *int { return &j.IODepth }},
	{Name: "rate_iops", Kind: KindInt, Min: 1, Max: 10_000_000, Field: "Pacing.RateIOPS", WorkloadOnly: true,
		Help: "issue at most this many I/Os per second", intField: func(j *Job) *int { return &j.RateIOPS }},
	{Name: "rate", Kind: KindSize, Values: "bytes per second", Field: "Pacing.RateBytes", WorkloadOnly: true,
		Help: "bytes per second (10m: 10 MiB/s), issued at that pace", set: func(j *Job, v string) error {
			return setRate(&j.RateBytes, "rate", v)
		}},
	{Name: "rate_process", Kind: KindChoice, Values: "linear|poisson", Field: "Pacing.Poisson", WorkloadOnly: true,
		Help: "linear (evenly spaced) or poisson (exponential gaps)", set: func(j *Job, v string) error {
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
	{Name: "rate_min", Aliases: []string{"ratemin"}, Kind: KindSize, Values: "bytes per second", Field: "Pacing.RateMinBytes", WorkloadOnly: true,
		Help: "the job fails, and stops, when a ratecycle's bandwidth falls below this (bytes per second)", set: func(j *Job, v string) error {
			return setRate(&j.RateMinBytes, "rate_min", v)
		}},
	{Name: "rate_iops_min", Kind: KindInt, Min: 1, Max: 100_000_000, Field: "Pacing.RateMinIOPS", WorkloadOnly: true,
		Help: "the job fails, and stops, when a ratecycle's IOPS fall below this", set: func(j *Job, v string) error {
			v, err := oneForAll("rate_iops_min", v)
			if err != nil {
				return err
			}
			return setInt(&j.RateMinIOPS, v, 1, 100_000_000)
		}},
	{Name: "ratecycle", Kind: KindInt, Min: 1, Max: 3_600_000, Field: "Pacing.RateCycleNs", WorkloadOnly: true,
		Help: "the window rate_min and rate_iops_min are checked over, in ms (default 1000)", set: func(j *Job, v string) error {
			var ms int
			if err := setInt(&ms, v, 1, 3_600_000); err != nil {
				return err
			}
			j.RateCycleNs = int64(ms) * 1e6
			return nil
		}},
	{Name: "thinktime", Kind: KindTime, Values: "microseconds, or a time with its unit", Field: "Pacing.ThinkNs", WorkloadOnly: true,
		Help: "pause after I/Os complete before issuing more (microseconds, or with a unit)", set: func(j *Job, v string) (err error) {
			j.ThinkNs, err = microseconds(v)
			return
		}},
	{Name: "thinktime_blocks", Kind: KindInt, Min: 1, Max: 65536, Field: "Pacing.ThinkBlocks", WorkloadOnly: true,
		Help: "I/Os issued between think times (default 1: at most one in flight)", intField: func(j *Job) *int { return &j.ThinkBlocks }},
	{Name: "thinktime_spin", Kind: KindTime, Values: "microseconds, or a time with its unit", WorkloadOnly: true,
		Help: "part of thinktime the host spins (the drive sees the same pause)", set: func(j *Job, v string) error {
			_, err := microseconds(v)
			return err
		}},
}

// setRate sets a rate in bytes per second, one for every direction.
func setRate(dst *int64, name, v string) error {
	v, err := oneForAll(name, v)
	if err != nil {
		return err
	}
	b, err := units.ParseSize(v, false)
	if err != nil || b <= 0 {
		return fmt.Errorf("%q: want a positive rate in bytes per second", v)
	}
	*dst = b
	return nil
}

var durabilityOptions = []Option{
	{Name: "fsync", Kind: KindInt, Min: 0, Max: 1 << 30, Field: "Durability.FsyncEvery", WorkloadOnly: true,
		Help: "issue a FLUSH after every N writes (the write buffer's data then on flash)", intField: func(j *Job) *int { return &j.FsyncEvery }},
	{Name: "fdatasync", Kind: KindInt, Min: 0, Max: 1 << 30, Field: "Durability.FsyncEvery", WorkloadOnly: true,
		Help: "same as fsync for a drive (a FLUSH after every N writes)", intField: func(j *Job) *int { return &j.FsyncEvery }},
	{Name: "sync", Kind: KindChoice, Values: "0|1|none|sync|dsync", Field: "Durability.FsyncEvery", WorkloadOnly: true,
		Help: "1, sync or dsync: every write is followed by a FLUSH (none or 0: not)", set: func(j *Job, v string) error {
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
	{Name: "end_fsync", Kind: KindBool, Values: "0|1", Field: "Durability.EndFsync", WorkloadOnly: true,
		Help: "issue a FLUSH when the job ends", boolField: func(j *Job) *bool { return &j.EndFsync }},
	{Name: "writefua", Kind: KindFlag, Values: "0|1", Field: "Durability.WriteFUA", WorkloadOnly: true,
		Help: "writes with Force Unit Access: each completes once its data is on flash", boolField: func(j *Job) *bool { return &j.WriteFUA }},
	{Name: "readfua", Kind: KindFlag, Values: "0|1", Field: "Durability.ReadFUA", WorkloadOnly: true,
		Help: "reads with Force Unit Access: buffered data they cover is committed to flash first", boolField: func(j *Job) *bool { return &j.ReadFUA }},
	{Name: "power_loss", Kind: KindList, Values: "TIME[,TIME…]", Field: "Durability.PowerLossNs",
		Help: "ftlsim: cut the drive's power at these times from the start (comma-separated: 10s,1m); the drive mounts again and the job goes on",
		set: func(j *Job, v string) error {
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
}
