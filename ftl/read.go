package ftl

import (
	"fmt"
	"unsafe"

	"github.com/ftlsim/ftlsim/internal/prefetch"
	"github.com/ftlsim/ftlsim/nand"
)

// Location describes where a logical unit's data is.
type Location struct {
	Mapped   bool // the unit holds data
	Buffered bool // the data waits in controller memory, not yet programmed
	Die      int
	Block    int // physical block
	Page     int
	Units    int    // device units the data takes (fewer than UnitSlots when compressed)
	Token    uint32 // payload token (0 when the device does not track data)
	// Lost: the data could not be read when the FTL moved it, or when the
	// host's last write of part of it was merged (ReportUnreadable,
	// ReportLost); a read of it fails until the host writes or trims it.
	Lost bool
}

// Read reads logical unit lba for the host: it records the flash read
// (one array read, or only a transfer when run has the page sensed
// already) and counts the unit as read by the host. See ReadFor.
func (f *FTL) Read(lba int64) (Location, error) { return f.ReadFor(lba, CauseHost, nil) }

// ReadFor reads logical unit lba for cause (CauseHost counts a host
// read; CauseRMW and CauseReadAhead are the controller's own reads). A
// mapped unit on flash costs an OpRead of its page, or an OpTransfer when
// run (which may be nil) last sensed that page; a unit still in a stage
// (Buffered) or unmapped costs no flash work.
func (f *FTL) ReadFor(lba int64, cause Cause, run *ReadRun) (Location, error) {
	loc, err := f.Lookup(lba)
	if err != nil {
		return loc, err
	}
	if cause == CauseHost {
		f.cnt.HostReadUnits++
		if !loc.Mapped {
			f.cnt.UnwrittenReadUnits++
		}
	}
	if !loc.Mapped || loc.Buffered {
		return loc, nil
	}
	op := Op{Kind: OpRead, Cause: cause, Die: int32(loc.Die), Block: int32(loc.Block), Page: int32(loc.Page), Units: int32(loc.Units), Planes: 1, SLC: f.dev.IsSLC(loc.Block)}
	if run != nil {
		if run.open && run.block == op.Block && run.page == op.Page {
			op.Kind = OpTransfer
		}
		run.block, run.page, run.open = op.Block, op.Page, true
	}
	f.record(op)
	return loc, nil
}

// CountHostRead counts n logical units the host read that the controller
// served from its own memory (read-ahead): no flash work.
func (f *FTL) CountHostRead(n int64) { f.cnt.HostReadUnits += n }

// Lookup reports where logical unit lba's data is, without counting a read.
func (f *FTL) Lookup(lba int64) (Location, error) {
	if lba < 0 || lba >= int64(len(f.l2p)) {
		return Location{}, fmt.Errorf("%w: read unit %d, user space has %d", ErrRange, lba, len(f.l2p))
	}
	u := f.l2p.at(lba)
	if u == Unmapped {
		return Location{}, nil
	}
	n := 1
	if f.size != nil {
		n = int(f.size[lba])
	}
	lost := f.isLost(lba)
	if s := f.stageOf(u); s != nil {
		return Location{Mapped: true, Buffered: true, Units: n, Token: s.data[f.slot(u)], Lost: lost}, nil
	}
	pb, page := f.dev.Locate(int64(u))
	tag, tok, err := f.dev.Read(int64(u))
	if err != nil {
		return Location{}, err
	}
	if tag != nand.NoTag && int64(tag) != lba { // (a device without tags: NoTag)
		return Location{}, fmt.Errorf("ftl: unit %d maps to physical unit %d tagged %d", lba, u, tag)
	}
	return Location{Mapped: true, Die: f.dev.DieOfBlock(pb), Block: pb, Page: page, Units: n, Token: tok, Lost: lost}, nil
}

// PrefetchMapping hints that logical unit lba will be written or read
// soon: it starts loading lba's mapping entry. Call PrefetchLocation for
// the same unit a little later, once the entry has arrived. Hints never
// change results.
func (f *FTL) PrefetchMapping(lba int64) {
	if lba >= 0 && lba < int64(len(f.l2p)) {
		prefetch.Load(unsafe.Pointer(&f.l2p[lba]))
		if f.size != nil {
			prefetch.Load(unsafe.Pointer(&f.size[lba]))
		}
	}
}

// PrefetchLocation hints that the physical unit lba maps to will be
// needed soon, for a read or (read false) for an overwrite (see
// PrefetchMapping).
//
// Before an overwrite it also touches the entry for writing, changing
// nothing (an OR with zero): a page of the table the drive has never
// written (a new table is left to the kernel's zero pages) is then
// faulted in once, as written, where reading the entry first would map
// it read-only and the store after would fault it in again (the
// sequential fill of a large drive: a third of its page faults).
func (f *FTL) PrefetchLocation(lba int64, read bool) {
	if lba >= 0 && lba < int64(len(f.l2p)) {
		if !read {
			prefetch.Touch(&f.l2p[lba])
		}
		if u := f.l2p.at(lba); u != Unmapped {
			f.dev.PrefetchUnit(int64(u), read)
		}
	}
}

// Mapped reports whether logical unit lba holds data, without reading it.
func (f *FTL) Mapped(lba int64) bool { return f.l2p.at(lba) != Unmapped }
