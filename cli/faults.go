package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// faults is the fault injection --faults asks for: the read-error model
// of the drive's NAND part turned on, and conditions that make faults
// show in a short run.
type faults struct {
	given      bool
	readErrors bool    // turn on the NAND part's error model
	wear       float64 // share of the rated cycles used before the run
	ageNs      int64   // retention added before each measured job
	rberScale  float64 // multiplies every RBER of the model (0: 1)
	// set holds the value each of faultFields is given (-1: the drive's).
	set [len(faultFields)]int
}

// faultField is a --faults key that sets a drive-description field to an
// integer: the key is the field's name in the table of description fields
// unless key says otherwise.
type faultField struct {
	field      func(c *controller.Config) *int
	key        string // "": the field's name
	lo, hi     int
	readErrors bool // the key turns the read-error model on
}

// faultFields are the --faults keys that set description fields.
var faultFields = [...]faultField{
	{field: func(c *controller.Config) *int { return &c.NAND.Timing.GrownBadPermille }, lo: 0, hi: 999},
	{field: func(c *controller.Config) *int { return &c.NAND.Timing.ProgramFailPermille }, lo: 0, hi: 999},
	{field: func(c *controller.Config) *int { return &c.NAND.Timing.BadBlockPermille }, lo: 0, hi: 100},
	{field: func(c *controller.Config) *int { return &c.Firmware.ReadReclaimReads }, key: "read_reclaim", lo: 0, hi: 1e9, readErrors: true},
	{field: func(c *controller.Config) *int { return &c.Firmware.ECCBits }, lo: 1, hi: 1000, readErrors: true},
}

// name is ff's --faults key.
func (ff faultField) name() string {
	if ff.key != "" {
		return ff.key
	}
	var c controller.Config
	p := c.FieldPath(ff.field(&c))
	return p[strings.LastIndexByte(p, '.')+1:]
}

// faultKeys lists every --faults key.
func faultKeys() string {
	keys := []string{"on", "wear", "age", "rber_scale"}
	for _, ff := range faultFields {
		keys = append(keys, ff.name())
	}
	return strings.Join(keys, ", ")
}

// newFaults is a --faults given with nothing set yet.
func newFaults() faults {
	f := faults{given: true}
	for i := range f.set {
		f.set[i] = -1
	}
	return f
}

// parseFaults parses the value of --faults.
func parseFaults(v string) (faults, error) {
	f := newFaults()
	bad := func(key, val, allowed string) error {
		return usage("--faults: %s=%s: allowed %s", key, val, allowed)
	}
	integer := func(key, val string, lo, hi int) (int, error) {
		n, err := strconv.Atoi(val)
		if err != nil || n < lo || n > hi {
			return 0, bad(key, val, fmt.Sprintf("an integer %d..%d", lo, hi))
		}
		return n, nil
	}
	if strings.TrimSpace(v) == "" {
		return f, usage("--faults: empty, allowed comma-separated KEY=VALUE (%s)", faultKeys())
	}
	for _, kv := range strings.Split(v, ",") {
		key, val, hasVal := strings.Cut(strings.TrimSpace(kv), "=")
		var err error
		switch key {
		case "on":
			if hasVal {
				return f, bad(key, val, "no value (on)")
			}
			f.readErrors = true
		case "wear":
			x, perr := units.ParseFloat(strings.TrimSuffix(val, "%"))
			if strings.HasSuffix(val, "%") {
				x /= 100
			}
			if perr != nil || math.IsNaN(x) || x < 0 || x > 10 {
				return f, bad(key, val, "a share of the rated cycles 0..10, or a percentage 0%..1000%")
			}
			f.wear, f.readErrors = x, true
		case "age":
			ns, perr := parseAge(val)
			if perr != nil || ns < 0 || ns > 100*year {
				return f, bad(key, val, "a time 0..100y (with unit s, m, h, d or y)")
			}
			f.ageNs, f.readErrors = ns, true
		case "rber_scale":
			x, perr := units.ParseFloat(val)
			if perr != nil || math.IsNaN(x) || x < 0.001 || x > 1000 {
				return f, bad(key, val, "a number 0.001..1000")
			}
			f.rberScale, f.readErrors = x, true
		default:
			i := slices.IndexFunc(faultFields[:], func(ff faultField) bool { return ff.name() == key })
			if i < 0 {
				return f, usage("--faults: unknown key %q, allowed %s", key, faultKeys())
			}
			ff := faultFields[i]
			f.set[i], err = integer(key, val, ff.lo, ff.hi)
			f.readErrors = f.readErrors || ff.readErrors
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

const year = 365 * 86400 * int64(1e9)

// parseAge parses a time as units.ParseDuration does, or in years (y).
func parseAge(v string) (int64, error) {
	if n, ok := strings.CutSuffix(v, "y"); ok {
		x, err := units.ParseFloat(n)
		if err != nil || math.IsNaN(x) || x < 0 || x > 100 {
			return 0, fmt.Errorf("%w: time %q", units.ErrSyntax, v)
		}
		return int64(x * float64(year)), nil
	}
	return units.ParseDuration(v)
}

// apply changes drive description cfg (before it is built) as f asks.
func (f faults) apply(cfg *controller.Config) error {
	if !f.given {
		return nil
	}
	rel := &cfg.NAND.Reliability
	for i, ff := range faultFields {
		if v := f.set[i]; v >= 0 && !ff.readErrors {
			*ff.field(cfg) = v
		}
	}
	if !f.readErrors {
		return nil
	}
	if !rel.Enabled() {
		var only []string
		for _, ff := range faultFields {
			if !ff.readErrors {
				only = append(only, ff.name())
			}
		}
		return usage("--faults: drive %s has no read-error model (its NAND part's %s is 0); allowed on it only %s", cfg.Name, cfg.FieldPath(&rel.RatedRBER), strings.Join(only, ", "))
	}
	cfg.Firmware.ReadErrors = true
	if s := f.rberScale; s > 0 {
		for _, x := range []*float64{&rel.FreshRBER, &rel.RatedRBER, &rel.RetentionRBER, &rel.DisturbRBER} {
			*x = min(0.1, *x*s)
		}
	}
	for i, ff := range faultFields {
		if v := f.set[i]; v >= 0 && ff.readErrors {
			*ff.field(cfg) = v
		}
	}
	return nil
}

// built prepares the drive just built: it pre-wears it.
func (f faults) built(c *controller.Controller) error {
	if f.wear > 0 {
		return c.PreWear(f.wear)
	}
	return nil
}

// bake ages the data of engine e's drive before a measured job.
func (f faults) bake(e *sim.Engine) error {
	if f.ageNs > 0 {
		return e.Controller().Bake(f.ageNs)
	}
	return nil
}

// bakeSteps puts a bake before every measured step of a scenario.
func (f faults) bakeSteps(steps []workload.Step) []workload.Step {
	if f.ageNs <= 0 {
		return steps
	}
	var out []workload.Step
	for _, s := range steps {
		if s.Kind == workload.RunJob && s.Label != "" {
			out = append(out, workload.Step{Kind: workload.Bake, BakeNs: f.ageNs})
		}
		out = append(out, s)
	}
	return out
}
