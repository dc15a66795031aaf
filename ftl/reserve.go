package ftl

import (
	"fmt"
	"math"

	"github.com/ftlsim/ftlsim/nand"
)

// Write points and the reserve: what of the spare area the FTL holds for
// itself. See "Write points and the reserve" in the package
// documentation.

// ReserveMode says how the free groups garbage collection keeps on each
// die (GCLowWater, GCRestoreTo, GCPaceWater, GCHighWater) are sized.
type ReserveMode uint8

// Reserve modes.
const (
	// ReserveFixed keeps the thresholds as given on every die, whatever
	// its size: at a fixed capacity the spare they hold grows with the
	// dies, and on dies of a few dozen groups they can take all of it.
	ReserveFixed ReserveMode = iota
	// ReserveSpare sizes the reserve from the spare area, as firmware
	// sizes its thresholds from the over-provisioned blocks (Linux pblk:
	// GC and rate-limit thresholds from the spare and total blocks;
	// Agrawal et al. 2008: reserve and free-block thresholds as
	// percentages): when the write points and the reserve would hold
	// more than HeldShareLimit of a die's spare, the four thresholds are
	// scaled down together until they do not, never below what
	// collection needs to work (one free group, two to restore, pacing
	// above blocking collection).
	ReserveSpare
)

// String returns "fixed" or "spare".
func (m ReserveMode) String() string {
	switch m {
	case ReserveFixed:
		return "fixed"
	case ReserveSpare:
		return "spare"
	}
	return fmt.Sprintf("ReserveMode(%d)", int(m))
}

// HeldShareLimit is the share of the spare area the write points and the
// reserve may hold before a drive is flagged (SpareBudget.Warning), and
// the share ReserveSpare sizes the reserve to.
const HeldShareLimit = 0.25

// safeFree is the free groups a die keeps really free with SafeErase
// (realFreeNeeded).
const safeFree = 3

// SpareBudget is how a drive's spare area is spent, per die (a mean over
// the dies): the groups beyond the die's share of the user data, what
// the write points and the reserve hold of them, and the thresholds
// collection runs at once sized (Config.Reserve).
//
// The write points are one host and one GC stripe: an open group on
// every die for each, which the die programs its part of the stripe
// into. An open group holds on average half a group unwritten, so the
// two cost one group a die. The reserve is the free groups collection
// keeps under sustained writes: the pace water with paced collection,
// else halfway between GCLowWater and GCRestoreTo, and with SafeErase
// at least the three groups a die keeps really free.
type SpareBudget struct {
	Dies int
	// UserGroups is the groups the user data takes, uncompressed, and
	// SpareGroups the usable groups beyond them (the static SLC cache
	// and groups held out of use not counted), per die.
	UserGroups, SpareGroups float64
	// OpenGroups and ReserveGroups are what the write points and the
	// reserve hold, per die.
	OpenGroups, ReserveGroups float64
	// The thresholds as collection runs them: as given, or scaled down
	// (Scaled) under ReserveSpare.
	GCLowWater, GCRestoreTo, GCPaceWater, GCHighWater int
	Scaled                                            bool
	Mode                                              ReserveMode
}

// Held is the groups per die the write points and the reserve hold.
func (b SpareBudget) Held() float64 { return b.OpenGroups + b.ReserveGroups }

// HeldShare is the share of the spare the write points and the reserve
// hold (above 1 when they need more than there is).
func (b SpareBudget) HeldShare() float64 {
	if b.SpareGroups <= 0 {
		return math.Inf(1)
	}
	return b.Held() / b.SpareGroups
}

// SparePercent is the spare area in percent of the user data.
func (b SpareBudget) SparePercent() float64 { return 100 * b.SpareGroups / b.UserGroups }

// EffectivePercent is the spare area left to collection, the write
// points and the reserve taken out, in percent of the user data: the
// spare the analytic models of garbage collection see (Stats.HeldShare
// measures it).
func (b SpareBudget) EffectivePercent() float64 {
	return 100 * (b.SpareGroups - b.Held()) / b.UserGroups
}

// Warning describes, when the write points and the reserve hold more
// than HeldShareLimit of the spare, what they hold; "" otherwise.
func (b SpareBudget) Warning() string {
	if b.HeldShare() <= HeldShareLimit {
		return ""
	}
	return fmt.Sprintf("write points and reserve hold %.0f %% of the spare area (%.1f of %.1f spare groups a die: %.1f in open groups, %.1f free for collection); %.2f %% of %.2f %% spare is left to garbage collection",
		100*b.HeldShare(), b.Held(), b.SpareGroups, b.OpenGroups, b.ReserveGroups, b.EffectivePercent(), b.SparePercent())
}

// reserveLevel is the free groups per die collection keeps under
// sustained writes at thresholds low, restore and pace.
func reserveLevel(low, restore, pace int, safe bool) float64 {
	lvl := float64(low+restore) / 2
	if pace > low {
		lvl = float64(pace)
	}
	if safe {
		lvl = max(lvl, safeFree)
	}
	return lvl
}

// SpareBudget returns how the FTL as built spends its spare area.
func (f *FTL) SpareBudget() SpareBudget { return f.budget }

// SpareBudget returns how an FTL of configuration c on a device of
// geometry g with no bad blocks would spend its spare area, the
// thresholds sized as New sizes them; it makes Validate's checks.
func (c Config) SpareBudget(g nand.Geometry) (SpareBudget, error) {
	c.setDefaults()
	f := lightFTL(c, g)
	if err := f.validate(); err != nil {
		return SpareBudget{}, err
	}
	return f.budget, nil
}

// sizeReserve works out the spare budget of the configuration and, under
// ReserveSpare, scales the thresholds of f.cfg to it.
func (f *FTL) sizeReserve() {
	c := &f.cfg
	usable := 0
	for d := 0; d < f.dies; d++ {
		usable += f.usableGroups(d)
	}
	dies := float64(f.dies)
	user := float64(c.UserUnits) * float64(c.UnitSlots) / float64(f.upg) / dies
	b := SpareBudget{Dies: f.dies, UserGroups: user, Mode: c.Reserve, OpenGroups: 1,
		SpareGroups: float64(usable)/dies - user - float64(c.SLCStaticGroups)}
	lvl := reserveLevel(c.GCLowWater, c.GCRestoreTo, c.GCPaceWater, c.SafeErase)
	if c.Reserve == ReserveSpare && b.OpenGroups+lvl > HeldShareLimit*b.SpareGroups {
		phi := max(HeldShareLimit*b.SpareGroups-b.OpenGroups, 0) / lvl
		// Rounded down (a hair above, so that whole products stay whole),
		// so that the reserve is at most its share.
		scale := func(v, floor int) int { return max(int(math.Floor(float64(v)*phi+1e-9)), floor) }
		low := scale(c.GCLowWater, 1)
		restore := scale(c.GCRestoreTo, low+1)
		pace := c.GCPaceWater
		switch {
		case pace > c.GCLowWater:
			pace = scale(pace, low+1) // pacing stays on, above blocking collection
		case pace > 0:
			pace = scale(pace, 1)
		}
		high := scale(c.GCHighWater, low)
		b.Scaled = low != c.GCLowWater || restore != c.GCRestoreTo || pace != c.GCPaceWater || high != c.GCHighWater
		c.GCLowWater, c.GCRestoreTo, c.GCPaceWater, c.GCHighWater = low, restore, pace, high
		lvl = reserveLevel(low, restore, pace, c.SafeErase)
	}
	b.ReserveGroups = lvl
	b.GCLowWater, b.GCRestoreTo, b.GCPaceWater, b.GCHighWater = c.GCLowWater, c.GCRestoreTo, c.GCPaceWater, c.GCHighWater
	f.budget = b
}
