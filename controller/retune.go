package controller

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/ftlsim/ftlsim/internal/fields"
	"github.com/ftlsim/ftlsim/nand"
)

// A saved drive state (sim.Engine.SaveState) holds the description it was
// built from, and a state can be loaded only into a drive of that
// description. A few values may differ, because they decide nothing in a
// state between runs: the drive loaded takes them up from the load on
// (Controller.Retune). Which, is read from the table of fields:
//
//   - timing: a cost or a rate of the firmware or of the controller
//     silicon (layer firmware or controller, unit ns, MB/s or operations)
//     that the FTL does not see (no ftl tag). The FTL decides where data
//     goes and never when; these values say only when. The state keeps
//     the times its preparation booked (its clock, when each die and
//     engine is next free), and from the load on the drive runs at the
//     new costs.
//   - collection: the FTL values that act only once a collection has
//     begun (gc_restore_to: how much a blocking collection restores;
//     gc_pace_percent: how fast paced collection cleans), when the state's
//     drive has never collected (ftl.FTL.Collected): until then they have
//     decided nothing. The values that decide when collection begins
//     (gc_low_water, gc_pace_water, gc_high_water) must be the same.
//   - trim: the values that act only on a TRIM (trim_backlog: how much
//     trimmed space the firmware records), when the state's drive has
//     never been sent one: until then they have decided nothing.
//
// Every other value (the flash, its timing, the geometry, the capacity,
// the placement and collection policies, the board) shapes the state and
// must be the same.

// StateClass says whether a drive state may be loaded into a drive whose
// description holds another value of a field.
type StateClass uint8

// The classes of fields.
const (
	// StateFixed fields shape the state: they must be the same.
	StateFixed StateClass = iota
	// StateTiming fields may differ (a firmware or controller cost or
	// rate).
	StateTiming
	// StateCollection fields may differ when the state's drive has never
	// collected.
	StateCollection
	// StateTrim fields may differ when the state's drive has never been
	// sent a TRIM.
	StateTrim
)

// String names the class.
func (k StateClass) String() string {
	switch k {
	case StateTiming:
		return "timing"
	case StateCollection:
		return "collection"
	case StateTrim:
		return "trim"
	}
	return "fixed"
}

// timingUnits are the units of costs, rates and concurrency.
var timingUnits = map[string]bool{"ns": true, "MB/s": true, "operations": true}

// collectionFTL are the ftl.Config fields that act only once a
// collection has begun (ftl.FTL.Retune).
var collectionFTL = map[string]bool{"GCRestoreTo": true, "GCPacePercent": true}

// trimOnly are the fields read only when a TRIM arrives (controller
// trimRange).
var trimOnly = map[string]bool{"firmware.trim_backlog": true}

// StateClass returns the field's class.
func (f Field) StateClass() StateClass {
	switch {
	case f.Section:
		return StateFixed
	case collectionFTL[f.FTL]:
		return StateCollection
	case trimOnly[f.Path]:
		return StateTrim
	case f.FTL == "" && (f.Layer == LayerFirmware || f.Layer == LayerController) && timingUnits[f.Unit]:
		return StateTiming
	}
	return StateFixed
}

// FieldChange is a field whose value differs between two descriptions.
type FieldChange struct {
	Field    Field
	From, To string // the values, as a description writes them
}

func (d FieldChange) String() string { return fmt.Sprintf("%s: %s → %s", d.Field.Path, d.From, d.To) }

// Changes returns the fields whose values differ from a to b, in the
// table's order; the seed is left out (a state brings its random state
// along).
func Changes(a, b Config) []FieldChange {
	a.Seed, b.Seed = 0, 0
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	var out []FieldChange
	for _, f := range table.rows {
		if f.Section {
			continue
		}
		x, y := va.FieldByIndex(f.f.Index), vb.FieldByIndex(f.f.Index)
		if !reflect.DeepEqual(x.Interface(), y.Interface()) {
			out = append(out, FieldChange{Field: f, From: fields.Text(x), To: fields.Text(y)})
		}
	}
	return out
}

// Retune gives c, a drive between runs (one whose state was just loaded),
// the values of cfg, which must be c's description but for fields of
// class StateTiming, of class StateCollection when c's FTL has never
// collected, and of class StateTrim when c has never been sent a TRIM. The description is resolved first. Any other difference is
// refused with an error naming the fields, and c is then unchanged. now
// is the drive's time (the engine's clock).
func (c *Controller) Retune(cfg Config, now int64) error {
	r, err := cfg.Resolve()
	if err != nil {
		return err
	}
	cfg = r.Config
	cfg.Seed = c.cfg.Seed
	changes := Changes(c.cfg, cfg)
	if len(changes) == 0 {
		return nil
	}
	var fixed, coll, trim []string
	for _, d := range changes {
		switch d.Field.StateClass() {
		case StateFixed:
			fixed = append(fixed, d.String())
		case StateCollection:
			coll = append(coll, d.String())
		case StateTrim:
			trim = append(trim, d.String())
		}
	}
	if len(fixed) > 0 {
		return fmt.Errorf("%w: %s: %s (only costs and rates may differ: fields of layer firmware or controller in ns, MB/s or operations)",
			ErrConfig, plural(len(fixed), "value shapes", "values shape")+" the drive's state", strings.Join(fixed[:min(3, len(fixed))], "; "))
	}
	if len(trim) > 0 && c.Trimmed() {
		return fmt.Errorf("%w: %s: the drive has been sent a TRIM, and these values shaped its state", ErrConfig, strings.Join(trim, "; "))
	}
	if len(coll) > 0 {
		if c.ftl.Collected() {
			return fmt.Errorf("%w: %s: the drive has collected, and these values shaped its state", ErrConfig, strings.Join(coll, "; "))
		}
		fc, err := cfg.FTLConfig()
		if err != nil {
			return err
		}
		cur := c.ftl.Config() // what New derived from other fields
		fc.RecordOps, fc.RecordMoves = cur.RecordOps, cur.RecordMoves
		if err := c.ftl.Retune(fc); err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	old := c.cfg
	c.cfg = cfg
	fw := cfg.Firmware
	if fw.GCStreams != old.Firmware.GCStreams || (fw.ECCMBps > 0) != (old.Firmware.ECCMBps > 0) {
		c.gc.retune(cfg.NAND.Geometry.Dies(), fw.GCStreams, fw.ECCMBps, now)
	}
	if c.stripe != nil {
		c.stripe.work = fw.StripeNs
	}
	return nil
}

// retune resizes the GC streams to streams (each free once every stream
// was) and turns the ECC engine's calendar on or off for eccMBps, at time
// now.
func (p *gcPath) retune(dies, streams int, eccMBps, now int64) {
	free := int64(0)
	for _, t := range p.streams {
		free = max(free, t)
	}
	p.streams = nil
	if streams > 0 {
		p.streams = make([]int64, min(streams, dies))
		for i := range p.streams {
			p.streams[i] = free
		}
	}
	switch {
	case eccMBps <= 0:
		p.ecc = nil
	case p.ecc == nil:
		p.ecc = nand.NewQueueCalendar()
		p.ecc.Advance(now)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "a " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Trimmed reports whether the drive has been sent a TRIM since it was
// built (a state brings its drive's history along).
func (c *Controller) Trimmed() bool { return c.cnt.HostTrimBytes > 0 }
