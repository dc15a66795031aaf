package nand

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/ftlsim/ftlsim/internal/fields"
)

// Reliability is a NAND part's raw bit-error model: how many of the bits
// a read senses come out wrong, as a function of the block's wear (its
// erase count against Timing.RatedCycles), the time since it was
// programmed (retention) and the reads since its last erase (read
// disturb). The controller's ECC corrects what it can (package
// controller); what it cannot is an uncorrectable read.
//
// The raw bit-error rate (RBER) of a read is
//
//	base(e) = FreshRBER + (RatedRBER − FreshRBER)·(e/RatedCycles)^WearExponent
//	RBER    = base(e) + base(e)/RatedRBER · (RetentionRBER·L(t) + DisturbRBER·r/DisturbReads)
//
// for e erases, t ns since the block was programmed and r reads since it
// was erased, where L(t) = ln(1 + t/RetentionHour)/ln(1 + RetentionYear/
// RetentionHour) grows with the logarithm of time and is 1 after a year.
// Retention and read disturb are scaled by the wear term (1 at the rated
// cycles): worn oxide leaks charge faster and is disturbed more easily
// (Cai et al. 2012 and 2015 measure both growing with P/E cycles). At
// RatedCycles, with no retention and no reads, the RBER is RatedRBER.
//
// Read retry (the part's read-retry table of shifted read reference
// voltages) lets the controller sense a page again, up to RetrySteps
// times: each step divides the shift part of the RBER — the retention and
// read-disturb terms, errors of threshold voltages that drifted past a
// read reference — by RetryGain, moving the references after them; the
// wear part, distributions widened by worn oxide, remains (Cai et al.
// 2015 recover retention errors by reading at the shifted optimum).
//
// The zero value is no model: every read is correct.
type Reliability struct {
	// FreshRBER is the RBER of a block never cycled, read right after
	// programming.
	FreshRBER float64 `yaml:"fresh_rber,omitempty" json:"fresh_rber,omitempty" layer:"part" unit:"bit errors/bit" range:"0..0.1" doc:"RBER of a block never cycled, read right after programming; at most rated_rber"`
	// RatedRBER is the RBER at Timing.RatedCycles, read right after
	// programming; 0 turns the model off.
	RatedRBER float64 `yaml:"rated_rber,omitempty" json:"rated_rber,omitempty" layer:"part" unit:"bit errors/bit" range:"0..0.1" default:"0: no error model" doc:"RBER at the rated cycles, read right after programming"`
	// WearExponent is the power of the wear term (0 means 1: linear).
	WearExponent float64 `yaml:"wear_exponent,omitempty" json:"wear_exponent,omitempty" layer:"part" range:"0..10" default:"0 means 1 (linear)" doc:"power of the wear term"`
	// RetentionRBER is the RBER a year of retention adds at the rated
	// cycles.
	RetentionRBER float64 `yaml:"retention_rber,omitempty" json:"retention_rber,omitempty" layer:"part" unit:"bit errors/bit" range:"0..0.1" doc:"RBER a year of retention adds at the rated cycles"`
	// DisturbRBER is the RBER DisturbReads reads since the block's erase
	// add at the rated cycles (read disturb grows linearly with reads).
	DisturbRBER float64 `yaml:"read_disturb_rber,omitempty" json:"read_disturb_rber,omitempty" layer:"part" unit:"bit errors/bit" range:"0..0.1" doc:"RBER 100,000 reads since the erase add at the rated cycles"`
	// RetrySteps is the read-retry steps the part offers (0: none).
	RetrySteps int `yaml:"read_retry_steps,omitempty" json:"read_retry_steps,omitempty" layer:"part" range:"0..64" default:"0: none" doc:"read-retry steps the part offers"`
	// RetryGain is what each read-retry step divides the shift part
	// (retention and read disturb) of the RBER by (0 means 2).
	RetryGain float64 `yaml:"read_retry_gain,omitempty" json:"read_retry_gain,omitempty" layer:"part" range:"0|1..100" default:"0 means 2" doc:"what each read-retry step divides the retention and read-disturb RBER by"`
}

// The fixed scales of the model.
const (
	// DisturbReads is the read count DisturbRBER is given for.
	DisturbReads = 100_000
	// RetentionHour and RetentionYear set the retention term's time scale
	// (ns): it grows with ln(1 + t/RetentionHour) and is 1 after a year.
	RetentionHour = int64(3600e9)
	RetentionYear = 365 * 24 * RetentionHour
)

// Enabled reports whether the model is on (RatedRBER > 0).
func (r Reliability) Enabled() bool { return r.RatedRBER > 0 }

// Validate reports the first field that is out of range.
func (r Reliability) Validate() error {
	section := sectionPath(func(c *Config) any { return &c.Reliability })
	if err := fields.MustOf(reflect.TypeFor[Reliability]()).Check(&r, section); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	name := func(ptr any) string { return section + fields.PathOf(&r, ptr) }
	if !r.Enabled() {
		if r != (Reliability{}) {
			return fmt.Errorf("%w: %s = 0 turns the error model off; set it (allowed above 0 up to 0.1) or leave the other %s fields out",
				ErrConfig, name(&r.RatedRBER), strings.TrimSuffix(section, "."))
		}
		return nil
	}
	if r.FreshRBER > r.RatedRBER {
		return fmt.Errorf("%w: %s = %g, allowed 0..%s (%g)", ErrConfig, name(&r.FreshRBER), r.FreshRBER, fields.PathOf(&r, &r.RatedRBER), r.RatedRBER)
	}
	return nil
}

// Exponent is WearExponent with its default (1).
func (r Reliability) Exponent() float64 {
	if r.WearExponent == 0 {
		return 1
	}
	return r.WearExponent
}

// Gain is RetryGain with its default (2).
func (r Reliability) Gain() float64 {
	if r.RetryGain == 0 {
		return 2
	}
	return r.RetryGain
}

// retentionNorm is ln(1 + RetentionYear/RetentionHour) = ln 8761
// (TestRetentionNorm checks it).
const retentionNorm = 9.078065332666364

// RetentionFactor is L(t): the share of RetentionRBER that t ns of
// retention add (0 at t ≤ 0, 1 after a year, growing with ln t).
func RetentionFactor(ageNs int64) float64 {
	if ageNs <= 0 {
		return 0
	}
	return math.Log1p(float64(ageNs)/float64(RetentionHour)) / retentionNorm
}

// RBER returns the raw bit-error rate of a read of a block erased erases
// times of a part rated for ratedCycles, ageNs after it was programmed,
// reads reads after its erase (see Reliability). It is 0 when the model is
// off and at most 0.5.
func (r Reliability) RBER(ratedCycles, erases int, ageNs int64, reads uint32) float64 {
	wear, shift := r.Parts(ratedCycles, erases, ageNs, reads)
	return min(0.5, wear+shift)
}

// Parts returns RBER's two parts: the wear term base(e) and the shift
// terms (retention and read disturb, scaled by wear) that read retry
// reduces.
func (r Reliability) Parts(ratedCycles, erases int, ageNs int64, reads uint32) (wear, shift float64) {
	if !r.Enabled() {
		return 0, 0
	}
	w := float64(erases) / float64(ratedCycles)
	var base float64
	switch e := r.Exponent(); e {
	case 1:
		base = r.FreshRBER + (r.RatedRBER-r.FreshRBER)*w
	case 2:
		base = r.FreshRBER + (r.RatedRBER-r.FreshRBER)*w*w
	default:
		base = r.FreshRBER + (r.RatedRBER-r.FreshRBER)*math.Pow(w, e)
	}
	extra := 0.0
	if r.RetentionRBER > 0 {
		extra += r.RetentionRBER * RetentionFactor(ageNs)
	}
	if r.DisturbRBER > 0 {
		extra += r.DisturbRBER * float64(reads) / DisturbReads
	}
	return base, base / r.RatedRBER * extra
}
