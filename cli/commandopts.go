package cli

// What the command's own options (internal/cmdline) set.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/workload"
	"github.com/ftlsim/ftlsim/workload/trace"
)

// commandSetters set each of the command's own options; a test checks
// that they and cmdline's table name the same options.
var commandSetters = map[string]setter{
	"drive": text(func(o *options) *string { return &o.drive }, func(o *options, _ string) error {
		o.driveGiven = true
		return nil
	}),
	"capacity": text(func(o *options) *string { return &o.capacity }, checkCapacity),
	"op":       text(func(o *options) *string { return &o.op }, nil),
	"gc": text(func(o *options) *string { return &o.gc }, func(o *options, v string) error {
		_, err := o.policies.Parse(v)
		return err
	}),
	"faults": func(o *options, _, v string) (err error) {
		o.faults, err = parseFaults(v)
		return err
	},
	"precondition": func(o *options, _, v string) error {
		p, err := workload.ParsePrecondition(v)
		if err != nil {
			return err
		}
		o.precondition, o.preconditionGiven = p, true
		return nil
	},
	"save_state": text(func(o *options) *string { return &o.saveState }, nil),
	"load_state": text(func(o *options) *string { return &o.loadState }, nil),
	"prepare_only": func(o *options, _, v string) (err error) {
		if o.prepareOnly, err = strconv.ParseBool(v); err != nil {
			return usage("--prepare_only=%s: allowed true or false", v)
		}
		return nil
	},
	"output-format":    text(func(o *options) *string { return &o.format }, checkFormat),
	"output":           text(func(o *options) *string { return &o.output }, nil),
	"max_memory":       text(func(o *options) *string { return &o.maxMemory }, checkMaxMemory),
	"compact_map":      zeroOrOne(func(o *options) *bool { return &o.compactMap }),
	"write_iops_log":   text(func(o *options) *string { return &o.iopsLog }, nil),
	"write_bw_log":     text(func(o *options) *string { return &o.bwLog }, nil),
	"write_lat_log":    text(func(o *options) *string { return &o.latLog }, nil),
	"write_hist_log":   text(func(o *options) *string { return &o.histLog }, nil),
	"write_device_log": text(func(o *options) *string { return &o.deviceLog }, nil),
	"log_offset":       zeroOrOne(func(o *options) *bool { return &o.logOffset }),
	"log_avg_msec":     millis(func(o *options) *int64 { return &o.logAvgMsec }, 0),
	"log_hist_msec":    millis(func(o *options) *int64 { return &o.logHistMsec }, 1),
	"device_log_msec":  millis(func(o *options) *int64 { return &o.intervalMsec }, 1),
	"lba_format": func(o *options, _, v string) (err error) {
		o.lbaFormat, err = workload.ParseLBAFormat(v)
		o.lbaFormatGiven = err == nil
		return err
	},
	"numjobs": func(o *options, _, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 64 {
			return usage("--numjobs=%s: must be an integer in 1..64", v)
		}
		o.numjobs = n
		return nil
	},
	"group_reporting": func(o *options, _, v string) error {
		switch strings.ToLower(v) {
		case "", "1", "true", "yes", "on":
			o.groupReporting = true
		case "0", "false", "no", "off":
			o.groupReporting = false
		default:
			return usage("--group_reporting=%s: must be 0 or 1", v)
		}
		return nil
	},
	"format": func(o *options, _, v string) (err error) {
		if o.traceFormat, err = trace.ParseFormat(v); err != nil {
			return usage("--format=%s: %w", v, err)
		}
		return nil
	},
	"speedup": func(o *options, _, v string) error {
		x, err := units.ParseFloat(v)
		if err != nil || x <= 0 || x > 1e9 || math.IsNaN(x) {
			return usage("--speedup=%s: must be a number above 0", v)
		}
		o.speedup = x
		return nil
	},
	"devices": text(func(o *options) *string { return &o.devices }, nil),
	"beyond":  text(func(o *options) *string { return &o.beyond }, nil),
	"section": func(o *options, _, v string) error {
		o.sections = append(o.sections, v)
		return nil
	},
	// A scenario's --randseed seeds the drive and is mixed into each of
	// the scenario's jobs' seeds.
	"randseed": func(o *options, _, v string) error {
		o.given["randseed"] = v
		o.seedGiven = true
		return o.job.Set("randseed", v)
	},
}

// text sets the string field of o that field returns, once check (when
// not nil) accepts the value.
func text(field func(o *options) *string, check func(o *options, v string) error) setter {
	return func(o *options, name, v string) error {
		if check != nil {
			if err := check(o, v); err != nil {
				return usage("--%s=%s: %w", name, v, err)
			}
		}
		*field(o) = v
		return nil
	}
}

// millis sets an interval in milliseconds, from lo to 10⁹.
func millis(field func(o *options) *int64, lo int64) setter {
	return func(o *options, name, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < lo || n > 1e9 {
			return usage("--%s=%s: must be an integer from %d to 1000000000", name, v, lo)
		}
		*field(o) = n
		return nil
	}
}

func checkCapacity(_ *options, v string) error {
	_, err := units.ParseSize(v, true)
	return err
}

func checkFormat(_ *options, v string) error {
	if v != "normal" && v != "json" && v != "json+" && v != "terse" {
		return errors.New("allowed normal, json, json+, terse")
	}
	return nil
}

func checkMaxMemory(_ *options, v string) error {
	if b, err := units.ParseSize(v, true); err != nil || b <= 0 {
		return fmt.Errorf("%w: allowed a positive size such as 8GiB or 16GB", units.ErrSyntax)
	}
	return nil
}

// zeroOrOne is the setter of a switch given as 0 or 1 (fio's way), into
// the field field returns.
func zeroOrOne(field func(o *options) *bool) setter {
	return func(o *options, name, v string) error {
		switch v {
		case "0", "1":
			*field(o) = v == "1"
			return nil
		}
		return usage("--%s=%s: allowed 0 or 1", name, v)
	}
}
