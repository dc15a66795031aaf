package controller

import (
	"fmt"

	"github.com/ftlsim/ftlsim/ftl"
)

// The FTL's write points and reserve as a drive description sets them
// (Firmware.GCReserve), and the warning Resolve gives when they hold
// too much of the spare area.

// The values of Firmware.GCReserve.
const (
	// ReserveFixed: every die keeps the gc_* free-group thresholds as
	// given, whatever its size (ftl.ReserveFixed).
	ReserveFixed = "fixed"
	// ReserveSpare: the thresholds are sized from the spare area,
	// scaled down on dies too small for them (ftl.ReserveSpare).
	ReserveSpare = "spare"
)

// The values of Firmware.HostDies.
const (
	// HostDiesEarliest: each new host page goes to the die whose queued
	// work ends first (dynamic allocation).
	HostDiesEarliest = "earliest"
	// HostDiesRotate: new host pages go to the dies in turn, each waiting
	// for its die (static allocation).
	HostDiesRotate = "rotate"
)

// defaultReserve is what a description that leaves gc_reserve out gets.
const defaultReserve = ReserveFixed

// reserveMode is the FTL's reserve mode for Firmware.GCReserve.
func (f *Firmware) reserveMode() ftl.ReserveMode {
	mode := f.GCReserve
	if mode == "" {
		mode = defaultReserve
	}
	if mode == ReserveFixed {
		return ftl.ReserveFixed
	}
	return ftl.ReserveSpare
}

// Warning is something about a drive that is allowed but that its user
// should know before trusting its figures. Resolve returns them for the
// caller to show; nothing is printed.
type Warning struct {
	// Field is the description field it is about ("" for the drive as
	// a whole).
	Field string
	// Message says what, and what it does to the results.
	Message string
}

// String returns the warning as one line.
func (w Warning) String() string {
	if w.Field == "" {
		return w.Message
	}
	return w.Field + ": " + w.Message
}

// SpareBudget returns how the drive's translation layer spends its spare
// area (ftl.SpareBudget): the write points, the reserve and the
// thresholds collection runs at. The description must resolve.
func (c Config) SpareBudget() (ftl.SpareBudget, error) {
	r, err := c.Resolve()
	if err != nil {
		return ftl.SpareBudget{}, err
	}
	return r.Config.spareBudget()
}

func (c *Config) spareBudget() (ftl.SpareBudget, error) {
	fc, err := c.FTLConfig()
	if err != nil {
		return ftl.SpareBudget{}, err
	}
	b, err := fc.SpareBudget(c.DeviceConfig().Geometry)
	if err != nil {
		return b, c.ftlError(err)
	}
	return b, nil
}

// spareWarnings returns the warning of a resolved drive whose write
// points and reserve hold more than ftl.HeldShareLimit of its spare
// area. A drive the translation layer refuses gets none here: Check and
// New report it.
func (c *Config) spareWarnings() []Warning {
	b, err := c.spareBudget()
	if err != nil {
		return nil
	}
	return c.budgetWarnings(b)
}

// budgetWarnings is the warning for budget b of drive c, if any.
func (c *Config) budgetWarnings(b ftl.SpareBudget) []Warning {
	msg := b.Warning()
	if msg == "" {
		return nil
	}
	hint := "more spare (op_percent) or fewer, larger dies"
	if b.Mode == ftl.ReserveFixed {
		hint += fmt.Sprintf(", or %s: %s", c.FieldPath(&c.Firmware.GCReserve), ReserveSpare)
	}
	return []Warning{{Message: fmt.Sprintf("%s: %s, on %d dies of %d blocks a plane (%s)",
		c.Name, msg, b.Dies, c.NAND.Geometry.BlocksPerPlane, hint)}}
}

// Warnings returns what Resolve would warn of for the drive as built,
// its factory bad blocks taken out of the spare: its write points and
// reserve holding more than a quarter of the spare area.
func (c *Controller) Warnings() []Warning {
	return c.cfg.budgetWarnings(c.FTL().SpareBudget())
}
