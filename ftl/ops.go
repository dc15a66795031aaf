package ftl

import "fmt"

// OpKind is what a flash operation does.
type OpKind uint8

// Flash operations.
const (
	// OpRead senses a page of one or more planes into the die's register
	// and moves Units device units of it out to the controller.
	OpRead OpKind = iota
	// OpTransfer moves Units more device units out of the page the
	// previous OpRead of the same run sensed: no array read.
	OpTransfer
	// OpProgram programs a page on Planes planes of a group.
	OpProgram
	// OpErase erases the blocks of a group on Planes planes (of Units
	// consecutive groups when Units > 1: a secure erase records one entry
	// per die).
	OpErase
	// OpMoved records that garbage collection or wear levelling moved
	// logical unit LBA (recorded only with Config.RecordMoves): no flash
	// work, but a controller that keeps part of its mapping table off
	// chip must load and change the unit's entry.
	OpMoved
	// OpVictim records that garbage collection or wear levelling chose
	// the group at Block (its first plane's block) on Die to clean: no
	// flash work, but firmware time spent choosing it.
	OpVictim
)

// String returns "read", "transfer", "program", "erase", "moved" or
// "victim".
func (k OpKind) String() string {
	switch k {
	case OpRead:
		return "read"
	case OpTransfer:
		return "transfer"
	case OpProgram:
		return "program"
	case OpErase:
		return "erase"
	case OpMoved:
		return "moved"
	case OpVictim:
		return "victim"
	}
	return fmt.Sprintf("OpKind(%d)", int(k))
}

// Cause says why a flash operation happens.
type Cause uint8

// Causes of flash operations. The first three equal the Streams of the
// same names.
const (
	CauseHost      Cause = iota // host writes and reads
	CauseGC                     // garbage collection
	CauseWL                     // static wear levelling
	CauseRMW                    // reads merging a partial-unit host write
	CauseReadAhead              // reads ahead of a sequential host stream
	CauseMap                    // mapping pages of a partly cached mapping table
	CauseParity                 // die-level parity (RAISE)
	CauseFold                   // folding the SLC cache into native blocks
	NumCauses                   // the number of causes
)

var causeNames = [NumCauses]string{"host", "gc", "wl", "rmw", "readahead", "map", "parity", "fold"}

// String returns the cause's name: host, gc, wl, rmw, readahead, map,
// parity or fold.
func (c Cause) String() string {
	if c < NumCauses {
		return causeNames[c]
	}
	return fmt.Sprintf("Cause(%d)", int(c))
}

// Moves reports whether c is the FTL moving data of its own: garbage
// collection, wear levelling or folding the SLC cache. Its reads are of
// a victim's pages (ReportUnreadable), its programs of the copies.
func (c Cause) Moves() bool { return c == CauseGC || c == CauseWL || c == CauseFold }

// Op is one flash operation the FTL (or a controller's own firmware
// mechanism) decided on. It says what happens and where; the controller
// that drains the log decides when.
type Op struct {
	LBA    int64  // OpMoved: the logical unit moved
	Die    int32  // die
	Block  int32  // physical block (reads: the plane read; others: the group's first plane)
	Page   int32  // page within the block
	Units  int32  // reads: device units moved out; programs: units that came from the host write buffer; erases: consecutive groups erased (0 means 1)
	Kind   OpKind // what the operation does
	Cause  Cause  // why it happens
	Planes uint8  // planes it spans (multi-plane operations)
	// SLC: the block is in SLC mode (an SLC cache's): reads, programs
	// and erases take the part's SLC-mode times.
	SLC bool
	// Prog orders an erase after the programs holding the newer copies of
	// the data it destroys (Config.SafeErase; 0 without it). On a program
	// of the host stage: its number, and whether it leaves its group with
	// no word line half programmed. On an erase: the host program after
	// whose rest it may start (0: none) — that program and every host
	// program numbered before it must have ended, and so must the
	// programs that completed their word lines.
	Prog ProgTag
}

// ProgTag numbers a host program for the ordering of erases (Op.Prog):
// bits 1–31 hold the number of the program (counting from 1, modulo
// 2^31); bit 0, on a program, is set when its group has no word line half
// programmed after it (every host program of its group since the last
// such one is at rest once this one ends), and, on an erase, is set when
// it waits for a program at all.
type ProgTag uint32

// progTag returns the tag of host program n with bit 0 set to flag.
func progTag(n uint64, flag bool) ProgTag {
	t := ProgTag(n<<1) &^ 1
	if flag {
		t |= 1
	}
	return t
}

// N returns the program's number modulo 2^31.
func (t ProgTag) N() uint32 { return uint32(t >> 1) }

// Rests reports whether the program completes its group's word line (on
// an erase: whether the erase waits for a program).
func (t ProgTag) Rests() bool { return t&1 != 0 }

// String describes the operation, for tests and traces.
func (o Op) String() string {
	switch o.Kind {
	case OpMoved:
		return fmt.Sprintf("moved lba=%d", o.LBA)
	case OpErase, OpVictim:
		return fmt.Sprintf("%s %s die=%d block=%d planes=%d", o.Kind, o.Cause, o.Die, o.Block, o.Planes)
	}
	if o.SLC {
		return fmt.Sprintf("%s %s die=%d block=%d page=%d planes=%d units=%d slc", o.Kind, o.Cause, o.Die, o.Block, o.Page, o.Planes, o.Units)
	}
	return fmt.Sprintf("%s %s die=%d block=%d page=%d planes=%d units=%d", o.Kind, o.Cause, o.Die, o.Block, o.Page, o.Planes, o.Units)
}

// ReadRun is the page a run of unit reads last sensed: a later unit of the
// same page needs only its transfer (OpTransfer), not another array read.
// The zero value starts a new run; a nil *ReadRun makes every read sense
// its page.
type ReadRun struct {
	block, page int32
	open        bool
}

// Ready is the flash work the FTL has decided since the last Advance,
// for the caller to carry out: the shape of etcd-io/raft's Ready. The FTL
// has already applied each operation to its own state and to the device
// (a programmed page holds its data, an erased group is free); Ready says
// what happened and where, and the caller decides when.
type Ready struct {
	// Ops are the operations in the order the FTL decided them (empty
	// unless Config.RecordOps). A caller books them in that order: a
	// group's pages are programmed in page order, and a victim is erased
	// after its pages were read.
	Ops []Op
}

// Ready returns the flash work decided since the last Advance. Its slice
// is the FTL's own, valid until the next call that changes the FTL other
// than a report (ReportProgrammed, ReportSensed, ReportUnreadable).
func (f *FTL) Ready() Ready { return Ready{Ops: f.ops} }

// Advance tells the FTL that the caller has carried out the work of the
// last Ready: the log is emptied, its storage kept for reuse.
func (f *FTL) Advance() { f.ops = f.ops[:0] }

// record counts op and, with Config.RecordOps, appends it to the log.
func (f *FTL) record(op Op) {
	f.cnt.Count(&op)
	if f.cfg.RecordOps {
		f.ops = append(f.ops, op)
	}
}
