package workload

// The options of what a job's data holds, how it is checked and what is
// reported: fio's "Buffers and memory", "Verification", "Measurements
// and reporting" and "Steady state".

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

var contentOptions = []Option{
	{Name: "buffer_compress_percentage", Kind: KindInt, Min: 0, Max: 100, Field: "Content.Data", WorkloadOnly: true,
		Help: "percent of written data a compressor removes", set: setPercent(func(j *Job) *uint8 { return &j.Data.CompressPct })},
	{Name: "buffer_compress_chunk", Kind: KindSize, Field: "Content.CompressChunk", WorkloadOnly: true,
		Help: "size of the compressible runs (default 512)", set: func(j *Job, v string) error {
			b, err := units.ParseSize(v, false)
			if err != nil || b < 1 {
				return fmt.Errorf("%q: must be a positive size", v)
			}
			j.CompressChunk = b
			return nil
		}},
	{Name: "dedupe_percentage", Kind: KindInt, Min: 0, Max: 100, Field: "Content.Data", WorkloadOnly: true,
		Help: "percent of written blocks that repeat earlier ones", set: setPercent(func(j *Job) *uint8 { return &j.Data.DedupePct })},
	{Name: "dedupe_mode", Kind: KindChoice, Values: "repeat|working_set", WorkloadOnly: true,
		Help: "repeat or working_set: which earlier data a deduplicated buffer repeats (the drive stores a repeat alike either way)",
		set: func(j *Job, v string) error {
			switch strings.ToLower(v) {
			case "repeat", "working_set":
				return nil
			}
			return fmt.Errorf("%q: allowed repeat, working_set", v)
		}},
	{Name: "dedupe_working_set_percentage", Kind: KindInt, Min: 0, Max: 100, WorkloadOnly: true,
		Help: "share of the range deduplicated buffers come from (as dedupe_mode)", set: func(j *Job, v string) error {
			var p int
			return setInt(&p, v, 0, 100)
		}},
	{Name: "dedupe_global", Kind: KindFlag, Values: "0|1",
		Help: "deduplicate across jobs (the drive stores a repeat alike either way)", set: func(j *Job, v string) error {
			var p int
			return setInt(&p, v, 0, 1)
		}},
	{Name: "buffer_pattern", Kind: KindText, Values: "a string or 0x… bytes", Field: "Content.Data", WorkloadOnly: true,
		Help: "written data repeats this pattern (a string or 0x… bytes): compressible", set: func(j *Job, v string) error {
			if t := strings.TrimSpace(v); t == "" {
				return fmt.Errorf("empty pattern")
			} else if h, ok := strings.CutPrefix(strings.ToLower(t), "0x"); ok {
				if h == "" || strings.Trim(h, "0123456789abcdef") != "" {
					return fmt.Errorf("%q: 0x must be followed by hex digits", v)
				}
			}
			// A short pattern repeated over a buffer compresses to almost
			// nothing; buffer_compress_percentage, if set, still applies.
			j.Data.CompressPct = 99
			return nil
		}},
	{Name: "data", Kind: KindChoice, Values: strings.Join(DataPatternNames(), "|"), Field: "Content.Data", WorkloadOnly: true,
		Help: "named data pattern: " + strings.Join(DataPatternNames(), ", "), set: func(j *Job, v string) error {
			d, ok := dataPatterns[v]
			if !ok {
				return fmt.Errorf("%q: allowed %s", v, strings.Join(DataPatternNames(), ", "))
			}
			j.Data = d.Data
			return nil
		}},
}

// setPercent sets a percentage of the written data, 0..100.
func setPercent(field func(j *Job) *uint8) func(j *Job, v string) error {
	return func(j *Job, v string) error {
		var n int
		if err := setInt(&n, v, 0, 100); err != nil {
			return err
		}
		*field(j) = uint8(n)
		return nil
	}
}

var verifyOptions = []Option{
	{Name: "verify", Kind: KindChoice, Values: "none|md5|crc64|crc32c|crc32|crc16|crc7|xxhash|sha1|sha256|sha512|sha3-*|meta|pattern|null", Field: "Verification.Verify",
		Help: "read back what the job wrote once its writes are done, and check that each block holds its last write (any fio method: md5, crc32c, …; none: off)",
		set: func(j *Job, v string) error {
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
	{Name: "verify_write_sequence", Kind: KindBool, Values: "0|1", Field: "Verification.VerifyAnyWrite",
		Help: "0: verify accepts any write of the block, not only the job's last (for jobs that overwrite each other's blocks; default 1)",
		set: func(j *Job, v string) error {
			var on bool
			if err := setBool(&on, v); err != nil {
				return err
			}
			j.VerifyAnyWrite = !on
			return nil
		}},
	{Name: "do_verify", Kind: KindBool, Values: "0|1", Field: "Verification.noVerifyPhase",
		Help: "0: no verify phase even with verify set (default 1)", set: func(j *Job, v string) error {
			var on bool
			if err := setBool(&on, v); err != nil {
				return err
			}
			j.noVerifyPhase = !on
			return nil
		}},
}

var reportingOptions = []Option{
	{Name: "percentile_list", Kind: KindList, Values: "P:P:… (at most 20, each in (0, 100])", Field: "Reporting.PercentileList", WorkloadOnly: true,
		Help: "the latency percentiles reported, colon-separated (99:99.9:99.99; at most 20)", set: func(j *Job, v string) error {
			var ps []float64
			for _, f := range strings.Split(v, ":") {
				p, err := units.ParseFloat(strings.TrimSpace(f))
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
	{Name: "clat_percentiles", Kind: KindBool, Values: "0|1", Field: "Reporting.NoClatPercentiles", WorkloadOnly: true,
		Help: "0: no completion-latency percentiles (default 1)", set: func(j *Job, v string) error {
			var on bool
			err := setBool(&on, v)
			j.NoClatPercentiles = !on
			return err
		}},
	{Name: "lat_percentiles", Kind: KindBool, Values: "0|1", Field: "Reporting.LatPercentiles", WorkloadOnly: true,
		Help: "1: percentiles of total latency instead of completion latency", boolField: func(j *Job) *bool { return &j.LatPercentiles }},
	logName("write_iops_log", "iops", func(l *Logs) *string { return &l.IOPS }),
	logName("write_bw_log", "bw", func(l *Logs) *string { return &l.BW }),
	logName("write_lat_log", "lat, clat and slat", func(l *Logs) *string { return &l.Lat }),
	logName("write_hist_log", "clat_hist", func(l *Logs) *string { return &l.Hist }),
	{Name: "log_avg_msec", Kind: KindInt, Values: "0..86400000 ms", Field: "Reporting.Logs", WorkloadOnly: true,
		Help: "average the job's log entries over this many ms (0: one per I/O)", set: func(j *Job, v string) error {
			ms, err := logMillis(v, 0)
			j.Logs.AvgMsec, j.Logs.AvgSet = ms, err == nil
			return err
		}},
	{Name: "log_hist_msec", Kind: KindInt, Values: "1..86400000 ms", Field: "Reporting.Logs", WorkloadOnly: true,
		Help: "interval of the job's histogram log, in ms", set: func(j *Job, v string) error {
			ms, err := logMillis(v, 1)
			j.Logs.HistMsec, j.Logs.HistSet = ms, err == nil
			return err
		}},
	{Name: "log_offset", Kind: KindBool, Values: "0|1", Field: "Reporting.Logs", WorkloadOnly: true,
		Help: "1: the job's log lines carry each I/O's offset", set: func(j *Job, v string) error {
			err := setBool(&j.Logs.Offset, v)
			j.Logs.OffsetSet = err == nil
			return err
		}},
}

// logName is a log option: the log's name prefix (NAME_KIND.N.log).
func logName(name, kind string, field func(*Logs) *string) Option {
	return Option{Name: name, Kind: KindText, Values: "NAME", Field: "Reporting.Logs", WorkloadOnly: true,
		Help: "write NAME_" + strings.ReplaceAll(kind, ", ", ", NAME_") + " logs of the job (NAME_KIND.N.log, N its place in the file)",
		set: func(j *Job, v string) error {
			if strings.TrimSpace(v) == "" {
				// fio: with no name given, the job's (JOBNAME_KIND.N.log).
				*field(&j.Logs) = JobNameLog
				return nil
			}
			if strings.HasSuffix(v, "/") {
				return fmt.Errorf("%q: want a name", v)
			}
			*field(&j.Logs) = v
			return nil
		}}
}

// JobNameLog is the name a log option given no value holds: the log is
// named after its job, as fio names it (Logs.Prefix).
const JobNameLog = "\x00job"

// Prefix is the name prefix of a log of the job named job: name as the
// option gave it, or the job's name for JobNameLog.
func (l Logs) Prefix(name, job string) string {
	if name == JobNameLog {
		return job
	}
	return name
}

// logMillis reads a log interval in ms, at least lo.
func logMillis(v string, lo int64) (int64, error) {
	ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || ms < lo || ms > 86400000 {
		return 0, fmt.Errorf("%q: want a whole number of ms in %d..86400000", v, lo)
	}
	return ms, nil
}

var steadyStateOptions = []Option{
	{Name: "steadystate", Aliases: []string{"ss"}, Kind: KindText, Values: "iops|bw|lat[_slope]:LIMIT[%]", Field: "SteadyState", WorkloadOnly: true,
		Help: "iops|bw|lat[_slope]:LIMIT[%]: stop once steady over ss_dur (fio's criteria; lat in ns)", set: setSteadyState},
	{Name: "steadystate_duration", Aliases: []string{"ss_dur"}, Kind: KindTime, Field: "SteadyState.DurationNs", WorkloadOnly: true,
		Help: "the window steadystate is judged over (fio's ss_dur)", set: func(j *Job, v string) (err error) {
			j.SteadyState.DurationNs, err = units.ParseDuration(v)
			return
		}},
	{Name: "steadystate_ramp_time", Aliases: []string{"ss_ramp"}, Kind: KindTime, Field: "SteadyState.RampNs", WorkloadOnly: true,
		Help: "time before steadystate starts collecting (fio's ss_ramp)", set: func(j *Job, v string) (err error) {
			j.SteadyState.RampNs, err = units.ParseDuration(v)
			return
		}},
	{Name: "steadystate_check_interval", Aliases: []string{"ss_interval"}, Kind: KindTime, Values: "a time of at least 1s", Field: "SteadyState.CheckNs", WorkloadOnly: true,
		Help: "how often steadystate takes a sample, each the average since the last (fio's ss_interval; default 1s)", set: func(j *Job, v string) (err error) {
			d, err := units.ParseDuration(v)
			if err == nil && d < 1e9 {
				err = fmt.Errorf("%q: at least 1s (the series interval)", v)
			}
			j.SteadyState.CheckNs = d
			return err
		}},
}

// setSteadyState is steadystate=: a criterion and its limit.
func setSteadyState(j *Job, v string) error {
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
	x, err := units.ParseFloat(strings.TrimSuffix(lim, "%"))
	if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("%q: the limit must be a non-negative number, or a percentage", v)
	}
	c.Limit = x
	j.SteadyState = c
	return nil
}
