package ftl

import (
	"encoding/json"
	"unsafe"
)

// FlashCounts count the flash operations of one cause. Pages and blocks
// count each plane; units are device units (slots under compression).
type FlashCounts struct {
	ReadPages    int64 `json:"read_pages"`    // pages sensed by array reads
	ReadUnits    int64 `json:"read_units"`    // device units moved out of the flash
	ProgramPages int64 `json:"program_pages"` // pages programmed
	EraseBlocks  int64 `json:"erase_blocks"`  // blocks erased
}

// FlashByCause are flash operation counts indexed by Cause.
type FlashByCause [NumCauses]FlashCounts

// Total adds up every cause.
func (f *FlashByCause) Total() FlashCounts {
	var t FlashCounts
	for _, c := range f {
		t.ReadPages += c.ReadPages
		t.ReadUnits += c.ReadUnits
		t.ProgramPages += c.ProgramPages
		t.EraseBlocks += c.EraseBlocks
	}
	return t
}

// MarshalJSON writes the counts as an object keyed by cause name.
func (f FlashByCause) MarshalJSON() ([]byte, error) {
	m := make(map[string]FlashCounts, NumCauses)
	for c := range NumCauses {
		m[c.String()] = f[c]
	}
	return json.Marshal(m)
}

// Counters are a drive's cumulative totals, from the FTL up to the JSON
// output: one type for every layer. The FTL fills the logical-unit and
// flash-operation counts; the controller adds the host interface's and
// its firmware mechanisms'. Every field is an int64 count (a test checks),
// so Add and Sub cover all of them.
//
// Units are device units (the mapping unit, or a compression slot when
// Config.UnitSlots > 1) unless the name says logical units; pages and
// blocks count each plane.
type Counters struct {
	// Host interface (the controller).
	Commands       int64 `json:"commands"`         // host commands received
	HostReadBytes  int64 `json:"host_read_bytes"`  // bytes the host read
	HostWriteBytes int64 `json:"host_write_bytes"` // bytes the host wrote
	HostTrimBytes  int64 `json:"host_trim_bytes"`  // bytes the host trimmed
	// FUACommands is the reads and writes the host sent with Force Unit
	// Access: each waited for its data to be on flash.
	FUACommands int64 `json:"fua_commands"`

	// Logical units (the FTL).
	HostWriteUnits int64 `json:"host_write_units"` // logical units written by the host
	HostReadUnits  int64 `json:"host_read_units"`  // logical units read by the host
	// UnwrittenReadUnits is the logical units the host read that held no
	// data (never written, or trimmed): they cost no flash read.
	UnwrittenReadUnits int64 `json:"unwritten_read_units"`
	TrimUnits          int64 `json:"trim_units"` // mapped logical units discarded by TRIM
	// HostSlots is the device units the host's data took once stored
	// (after compression).
	HostSlots int64 `json:"host_slots"`
	// HostRawSlots is the device units the host's data would take
	// uncompressed (HostWriteUnits × Config.UnitSlots).
	HostRawSlots     int64 `json:"host_raw_slots"`
	ProgramUnits     int64 `json:"program_units"`      // device units the FTL programmed, padding included
	PaddedUnits      int64 `json:"padded_units"`       // device units programmed empty to complete a page
	GCCopiedUnits    int64 `json:"gc_copied_units"`    // device units moved by garbage collection
	WLCopiedUnits    int64 `json:"wl_copied_units"`    // device units moved by static wear levelling
	GCRuns           int64 `json:"gc_runs"`            // victims cleaned by garbage collection
	BackgroundGCRuns int64 `json:"background_gc_runs"` // of GCRuns, those run while the host was idle
	GCFallbacks      int64 `json:"gc_fallbacks"`       // victims chosen greedily because the policy's choices freed nothing
	// The SLC cache: host units written in SLC mode, device units folded
	// out of it into native groups, SLC groups folded, and of those the
	// ones folded while the host was idle.
	SLCHostUnits       int64 `json:"slc_host_units"`
	FoldedUnits        int64 `json:"folded_units"`
	FoldRuns           int64 `json:"fold_runs"`
	BackgroundFoldRuns int64 `json:"background_fold_runs"`
	DiscardedUnits     int64 `json:"discarded_units"`    // staged host logical units a secure erase dropped
	DiscardedSlots     int64 `json:"discarded_slots"`    // the device units those took
	DiscardedMoved     int64 `json:"discarded_moved"`    // staged GC/WL device units a secure erase dropped
	MovedUnits         int64 `json:"moved_units"`        // logical units GC and WL moved, recorded for the controller (Config.RecordMoves)
	DedupedUnits       int64 `json:"deduped_units"`      // logical units stored as a reference to earlier data
	RMWReads           int64 `json:"rmw_reads"`          // flash reads merging partial-unit writes
	BufferStallNs      int64 `json:"buffer_stall_ns"`    // time writes waited for write-buffer space
	TrimIgnoredBytes   int64 `json:"trim_ignored_bytes"` // TRIM ranges dropped because the firmware's backlog was full
	MapLookups         int64 `json:"map_lookups"`        // mapping-cache accesses
	MapMisses          int64 `json:"map_misses"`         // of those, misses
	// HMBHits and HMBMisses split the misses of a drive with a host
	// memory buffer: pages found there, and pages read from flash (or,
	// never written, not read at all).
	HMBHits   int64 `json:"hmb_hits"`
	HMBMisses int64 `json:"hmb_misses"`

	// GrownBadGroups is the plane groups retired because an erase failed
	// (nand.Timing.GrownBadPermille).
	GrownBadGroups int64 `json:"grown_bad_groups"`
	// ProgramFailures is the page programs that failed
	// (nand.Timing.ProgramFailPermille), FailedProgramUnits the units
	// those attempts took; each page was programmed again elsewhere.
	ProgramFailures    int64 `json:"program_failures"`
	FailedProgramUnits int64 `json:"failed_program_units"`

	// Power loss (FTL.PowerLoss, controller.PowerLoss): cuts, the
	// acknowledged logical units they lost (LostFlushedUnits of them
	// made durable by a flush, LostProgrammedUnits not flushed but
	// already on flash), the trimmed units that read data again, the
	// mapping entries rebuilt, the pages scanned to rebuild them, and
	// the time mounting took.
	PowerLosses         int64 `json:"power_losses"`
	LostUnits           int64 `json:"lost_units"`
	LostFlushedUnits    int64 `json:"lost_flushed_units"`
	LostProgrammedUnits int64 `json:"lost_programmed_units"`
	ResurrectedUnits    int64 `json:"resurrected_units"`
	RebuiltEntries      int64 `json:"rebuilt_entries"`
	MountScanPages      int64 `json:"mount_scan_pages"`
	MountNs             int64 `json:"mount_ns"`
	// Mapping checkpoints the firmware took (controller
	// Firmware.MapCheckpoint) and the mapping pages they programmed.
	MapCheckpoints  int64 `json:"map_checkpoints"`
	CheckpointPages int64 `json:"checkpoint_pages"`

	// Flash operations by cause (the FTL's, and the controller's parity
	// and mapping pages).
	Flash FlashByCause `json:"flash"`

	// Read errors (the controller's Firmware.ReadErrors). ReadRetries is
	// the read-retry steps (each a page sensed again), RetriedReads the
	// flash reads that needed at least one, UncorrectableReads those no
	// step made correctable. ParityRebuilds is, of those, the reads
	// rebuilt from RAISE parity; FailedReads the logical units the host
	// read that came back as errors; UnreadableUnits the logical units
	// whose data was lost because garbage collection (or a read-modify-
	// write) could not read it.
	ReadRetries        int64 `json:"read_retries"`
	RetriedReads       int64 `json:"retried_reads"`
	UncorrectableReads int64 `json:"uncorrectable_reads"`
	ParityRebuilds     int64 `json:"parity_rebuilds"`
	FailedReads        int64 `json:"failed_reads"`
	UnreadableUnits    int64 `json:"unreadable_units"`
	// ReclaimedGroups is the plane groups refreshed because their reads
	// since erase reached the firmware's read-reclaim threshold (Refresh;
	// counted in GCRuns too).
	ReclaimedGroups int64 `json:"reclaimed_groups"`
}

const nCounters = int(unsafe.Sizeof(Counters{}) / 8)

// words views c as its int64 fields, in order. Valid because Counters
// holds only int64 values (TestCountersAreAllInt64).
func (c *Counters) words() *[nCounters]int64 { return (*[nCounters]int64)(unsafe.Pointer(c)) }

// Add returns c + o, field by field.
func (c Counters) Add(o Counters) Counters {
	a, b := c.words(), o.words()
	for i := range a {
		a[i] += b[i]
	}
	return c
}

// Sub returns c − o, field by field: the counts of a window when o was
// taken at its start.
func (c Counters) Sub(o Counters) Counters {
	a, b := c.words(), o.words()
	for i := range a {
		a[i] -= b[i]
	}
	return c
}

// Count adds flash operation op to the counts of its cause.
func (c *Counters) Count(op *Op) {
	f := &c.Flash[op.Cause]
	switch op.Kind {
	case OpRead:
		f.ReadPages += int64(op.Planes)
		f.ReadUnits += int64(op.Units)
	case OpTransfer:
		f.ReadUnits += int64(op.Units)
	case OpProgram:
		f.ProgramPages += int64(op.Planes)
	case OpErase:
		f.EraseBlocks += int64(op.Planes) * int64(max(op.Units, 1))
	case OpMoved:
		c.MovedUnits++
	}
}

// FTLWriteAmplification is device units the FTL programmed (host data,
// GC and WL copies, padding; not a controller's parity or mapping pages)
// per device unit the host wrote, counted uncompressed, leaving out host
// units a secure erase dropped from the write buffer before they reached
// flash (1 when nothing was written). With compression it falls below 1
// for compressible data.
func (c Counters) FTLWriteAmplification() float64 {
	if c.HostWriteUnits <= c.DiscardedUnits || c.HostRawSlots == 0 {
		return 1
	}
	perUnit := float64(c.HostRawSlots) / float64(c.HostWriteUnits)
	return float64(c.ProgramUnits) / (float64(c.HostWriteUnits-c.DiscardedUnits) * perUnit)
}

// CompressionRatio is the share of its uncompressed size the host's data
// took once stored (1 without compression, 0 before any write).
func (c Counters) CompressionRatio() float64 {
	if c.HostRawSlots == 0 {
		return 0
	}
	return float64(c.HostSlots) / float64(c.HostRawSlots)
}
