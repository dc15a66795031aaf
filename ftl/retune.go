package ftl

import (
	"fmt"
	"reflect"
)

// Collected reports whether the FTL has ever cleaned a group: run garbage
// collection (foreground, paced or background), moved data for static
// wear levelling or folded its SLC cache. Until it has, the values that
// act only once collection has begun (Retune) have decided nothing in its
// state.
func (f *FTL) Collected() bool {
	c := f.cnt
	return c.GCRuns > 0 || c.GCCopiedUnits > 0 || c.WLCopiedUnits > 0 || c.FoldRuns > 0 || c.FoldedUnits > 0
}

// Retune gives an FTL that has never collected (Collected) cfg's values
// of the two fields that act only once a collection has begun: how many
// free groups a blocking collection restores (GCRestoreTo) and how fast
// paced collection cleans (GCPacePercent). Every other value of cfg,
// once defaults are set and the thresholds sized to the spare area as New
// sizes them, must be the FTL's own: the values that decide when a
// collection begins (GCLowWater, GCPaceWater, GCHighWater,
// StaticWLSpread) and where data goes shape the state. The FTL is
// unchanged when Retune returns an error.
func (f *FTL) Retune(cfg Config) error {
	cfg.setDefaults()
	g := *f // validation sizes g's thresholds, not f's
	g.cfg = cfg
	if err := g.validate(); err != nil {
		return err
	}
	if g.cfg.GCRestoreTo == f.cfg.GCRestoreTo && g.cfg.GCPacePercent == f.cfg.GCPacePercent {
		return nil
	}
	a, b := f.cfg, g.cfg
	a.GCRestoreTo, a.GCPacePercent = b.GCRestoreTo, b.GCPacePercent
	if !reflect.DeepEqual(a, b) {
		return fmt.Errorf("%w: Retune changes only GCRestoreTo and GCPacePercent; %s", ErrConfig, configDiff(a, b))
	}
	if f.Collected() {
		return fmt.Errorf("%w: GCRestoreTo %d→%d, GCPacePercent %d→%d: the FTL has collected, and these values shaped its state",
			ErrConfig, f.cfg.GCRestoreTo, g.cfg.GCRestoreTo, f.cfg.GCPacePercent, g.cfg.GCPacePercent)
	}
	f.cfg, f.budget, f.paceGain = g.cfg, g.budget, float64(g.cfg.GCPacePercent)/100
	return nil
}

// configDiff names the first field in which a and b differ.
func configDiff(a, b Config) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			return fmt.Sprintf("%s differs (%v, asked %v)", va.Type().Field(i).Name, va.Field(i).Interface(), vb.Field(i).Interface())
		}
	}
	return "no field differs"
}
