package cli

import (
	"fmt"
	"math"
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
	grownBad   int     // timing.grown_bad_permille (-1: the part's)
	progFail   int     // timing.program_fail_permille (-1: the part's)
	factoryBad int     // timing.bad_block_permille (-1: the part's)
	reclaim    int     // firmware.read_reclaim_reads (-1: the drive's)
	eccBits    int     // firmware.ecc_bits (0: the drive's)
}

// parseFaults parses the value of --faults.
func parseFaults(v string) (faults, error) {
	f := faults{given: true, grownBad: -1, progFail: -1, factoryBad: -1, reclaim: -1}
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
		return f, usage("--faults: empty, allowed comma-separated KEY=VALUE (on, wear, age, rber_scale, grown_bad_permille, program_fail_permille, bad_block_permille, read_reclaim, ecc_bits)")
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
			x, perr := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
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
			x, perr := strconv.ParseFloat(val, 64)
			if perr != nil || math.IsNaN(x) || x < 0.001 || x > 1000 {
				return f, bad(key, val, "a number 0.001..1000")
			}
			f.rberScale, f.readErrors = x, true
		case "grown_bad_permille":
			f.grownBad, err = integer(key, val, 0, 999)
		case "program_fail_permille":
			f.progFail, err = integer(key, val, 0, 999)
		case "bad_block_permille":
			f.factoryBad, err = integer(key, val, 0, 100)
		case "read_reclaim":
			f.reclaim, err = integer(key, val, 0, 1e9)
			f.readErrors = true
		case "ecc_bits":
			f.eccBits, err = integer(key, val, 1, 1000)
			f.readErrors = true
		default:
			return f, usage("--faults: unknown key %q, allowed on, wear, age, rber_scale, grown_bad_permille, program_fail_permille, bad_block_permille, read_reclaim, ecc_bits", key)
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
		x, err := strconv.ParseFloat(n, 64)
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
	t, fw, rel := &cfg.NAND.Timing, &cfg.Firmware, &cfg.NAND.Reliability
	if f.grownBad >= 0 {
		t.GrownBadPermille = f.grownBad
	}
	if f.progFail >= 0 {
		t.ProgramFailPermille = f.progFail
	}
	if f.factoryBad >= 0 {
		t.BadBlockPermille = f.factoryBad
	}
	if !f.readErrors {
		return nil
	}
	if !rel.Enabled() {
		return usage("--faults: drive %s has no read-error model (its NAND part's reliability.rated_rber is 0); allowed on it only grown_bad_permille, program_fail_permille and bad_block_permille", cfg.Name)
	}
	fw.ReadErrors = true
	if s := f.rberScale; s > 0 {
		for _, x := range []*float64{&rel.FreshRBER, &rel.RatedRBER, &rel.RetentionRBER, &rel.DisturbRBER} {
			*x = min(0.1, *x*s)
		}
	}
	if f.reclaim >= 0 {
		fw.ReadReclaimReads = f.reclaim
	}
	if f.eccBits > 0 {
		fw.ECCBits = f.eccBits
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
