package ftl

import (
	"errors"
	"fmt"
)

// ErrConfig is wrapped by every configuration validation error.
var ErrConfig = errors.New("invalid ftl configuration")

// FieldError is a Config value out of its allowed range, named by its Go
// field (a drive description's loader names it by its own field instead:
// the controller maps GCLowWater to firmware.gc_low_water). It wraps
// ErrConfig.
type FieldError struct {
	Field   string // the Config field ("GCLowWater"; "UserUnits" for the capacity)
	Value   string // its value, as stated
	Allowed string // what is allowed ("1..8")
	Why     string // what bounds it, or "" ("half the groups of a die")
}

func (e *FieldError) Error() string {
	msg := fmt.Sprintf("%v: %s = %s, allowed %s", ErrConfig, e.Field, e.Value, e.Allowed)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg
}

// Unwrap returns ErrConfig.
func (e *FieldError) Unwrap() error { return ErrConfig }

// fieldErr is a FieldError of an integer value.
func fieldErr[T ~int | ~int64](field string, v T, allowed, why string) error {
	return &FieldError{Field: field, Value: fmt.Sprint(v), Allowed: allowed, Why: why}
}

// ErrRange is returned for a logical unit outside the user space.
var ErrRange = errors.New("ftl: logical unit out of range")

// Config sets the FTL's policies and its share of the device.
type Config struct {
	// UserUnits is the number of logical mapping units the host sees.
	UserUnits int64
	// GCLowWater is the number of free groups per die at or below which
	// foreground garbage collection runs before a new host group opens.
	// At least 1: GC itself may need one free group. Default 1.
	GCLowWater int
	// GCRestoreTo is the number of free groups per die that a blocking
	// collection restores once it starts: firmware that defers cleanup
	// lets free space run low, then cleans many groups at once while the
	// host waits. Default (and minimum) GCLowWater+1.
	GCRestoreTo int
	// GCPaceWater turns on paced garbage collection: at or below this many
	// free groups a die cleans its victim a little after every host page
	// it takes, instead of all at once at GCLowWater. 0 turns pacing off.
	GCPaceWater int
	// GCPacePercent is how fast paced collection cleans, in percent of the
	// rate that frees space exactly as fast as the host takes it (v/(U−v)
	// units moved per host unit written, for v valid units of U in the
	// victim). 100 (the default) keeps a die's free space level, so the
	// host sees a steady share of the drive; above 100 the die cleans
	// ahead, stops once it is above GCPaceWater and lets the host run
	// free until it is back, so stretches of cleaning alternate with
	// bursts of host writes; below 100 the die falls behind until it
	// reaches GCLowWater, where blocking collection takes over. Allowed
	// 1..10000.
	GCPacePercent int
	// SafeErase erases a cleaned victim only once the units moved out of
	// it are programmed: until then they wait in the die's GC page, in
	// controller memory, and a power cut would lose the only copy of data
	// at rest. On MLC, TLC and QLC flash it also waits until the word lines
	// those units went to are complete (an interrupted program of a
	// word line's later page destroys its earlier pages), and Flush pads
	// the word lines it leaves half programmed: flushed data survives
	// any power cut. Off, the victim is erased as soon as its last unit
	// has moved (unsafe on power loss). Collection's thresholds count
	// waiting victims as free; a die that needs a group with none free
	// programs its GC page padded and closes its word lines.
	SafeErase bool
	// Handles is the number of reclaim unit handles (NVMe FDP) writes may
	// name (WriteHandle): each has its own write point, and no group holds
	// the data of two handles as written. 0: no placement. At most
	// MaxHandles; not with an SLC cache, and with SafeErase only
	// initially isolated ones (PersistentHandles 0).
	Handles int
	// PersistentHandles is how many of the handles, the first ones, are
	// persistently isolated: collection moves their data only into groups
	// holding the same handle's data. The others are initially isolated:
	// their moved data may share groups. 0..Handles.
	PersistentHandles int
	// GCHighWater is the number of free groups per die that background
	// collection restores while the host is idle. Default 2*GCLowWater+2.
	GCHighWater int
	// Victim picks the groups garbage collection cleans. Default Greedy.
	Victim VictimPolicy
	// StaticWLSpread turns on static wear levelling: when the erase counts
	// of one die's groups differ by more than this, the least-worn full
	// group is moved so that its block returns to use. 0 turns it off.
	StaticWLSpread int
	// UnitSlots is the number of device units (slots) one logical unit
	// spans when stored uncompressed. With 1 (the default) a logical unit
	// is one device unit; a compressing controller uses smaller device
	// units so that a logical unit compressed to n slots (WriteSlots)
	// takes only n. Counters of flash work (ProgramUnits, GCCopiedUnits,
	// PaddedUnits, valid counts) are then in slots.
	UnitSlots int
	// ReservedGroups is the number of groups per die held out of use, for
	// data the FTL does not place itself (e.g. die-level parity). They
	// stay erased and never hold user data.
	ReservedGroups int
	// Reserve says how the thresholds above are sized: ReserveFixed (the
	// zero value) keeps them as given on every die; ReserveSpare scales
	// them down on dies whose spare area is too small for them (see
	// SpareBudget), so that the spare they hold does not grow with the
	// dies of a drive of fixed capacity. Config and SpareBudget report
	// them as collection runs them.
	Reserve ReserveMode
	// Seed seeds the random source of randomised victim policies.
	Seed uint64
	// RecordOps keeps every flash operation in the op log (FTL.Ready) for
	// the caller to carry out and time (FTL.Advance). Without it operations
	// are only counted, so an FTL used on its own holds no log.
	RecordOps bool
	// RecordMoves adds an OpMoved entry to the op log for every logical
	// unit garbage collection or wear levelling moves, for a controller
	// that keeps only part of its mapping table in memory, or that
	// reports moves it could not read (ReportUnreadable finds the units
	// moved out of a page by them).
	RecordMoves bool
	// KeepErased keeps what each erased group held until ForgetErased, so
	// that a power cut before the erase really ran (PowerCut.Unerased)
	// finds it still there. A controller that models power loss sets it.
	KeepErased bool
	// SLCStaticGroups and SLCDynamicGroups turn on an SLC cache (the
	// device's part must have an SLC mode): host writes go to groups
	// written in SLC mode, one bit per cell, fast, while the cache has
	// room, and the FTL later folds what they hold into native groups.
	// SLCStaticGroups is the groups per die the cache may always use,
	// taken out of the spare area (the user capacity must leave room
	// for them); SLCDynamicGroups is the most groups per die it may use
	// beyond those, borrowed from free space: a die lends a free group
	// only while enough stay free to fold everything the cache holds and
	// keep GCHighWater, so the dynamic region shrinks as the drive
	// fills. Both 0: no cache.
	SLCStaticGroups  int
	SLCDynamicGroups int
	// SLCDynamicReserve is the free groups per die the dynamic region
	// never borrows, beyond those it keeps to fold itself: firmware that
	// keeps part of the free space for itself shrinks the cache to its
	// static region well before the drive is full. 0: none.
	SLCDynamicReserve int
	// SLCDirect: once the cache is full, host writes go straight to
	// native groups. Otherwise (the default) the host keeps writing in
	// SLC mode — every unit is programmed twice — and the die folds its
	// oldest SLC group a little after each host page once the cache has
	// one group of room left (a whole group while the host waits when it
	// has none).
	SLCDirect bool
}

func (c *Config) setDefaults() {
	if c.GCLowWater == 0 {
		c.GCLowWater = 1
	}
	if c.GCHighWater == 0 {
		c.GCHighWater = 2*c.GCLowWater + 2
	}
	if c.GCRestoreTo == 0 {
		c.GCRestoreTo = c.GCLowWater + 1
	}
	if c.GCPacePercent == 0 {
		c.GCPacePercent = 100
	}
	if c.UnitSlots == 0 {
		c.UnitSlots = 1
	}
	if c.Victim == nil {
		c.Victim = Greedy{}
	}
}

// Stream is the source of a write: host data or data moved by the FTL.
type Stream uint8

// Streams. Each equals the Cause of the same name.
const (
	HostStream Stream = iota // host writes and reads
	GCStream                 // garbage collection
	WLStream                 // static wear levelling
	// FoldStream is the SLC cache's folding: units moved from SLC-mode
	// groups into native ones (it equals CauseFold).
	FoldStream = Stream(CauseFold)
)

// String returns "host", "gc", "wl" or "fold".
func (s Stream) String() string {
	switch s {
	case HostStream:
		return "host"
	case GCStream:
		return "gc"
	case WLStream:
		return "wl"
	case FoldStream:
		return "fold"
	}
	return fmt.Sprintf("Stream(%d)", int(s))
}

// AnyDie, passed as the die of a host write (WriteOn), lets the FTL
// choose the die a new host page goes to: the dies in turn.
const AnyDie = -1
