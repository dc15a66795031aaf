package ftl

// The reports: what the caller that carries out the FTL's work (Ready)
// tells it of what happened, and the device changes the FTL makes for it.
// The FTL is the only writer of its nand.Device; see "The contract" in
// the package documentation.

// ReportProgrammed tells the FTL that program op, an OpProgram of the
// current Ready, finished at t. The device keeps t as the blocks' program
// time (nand.Device.SetProgramTime), from which the caller reckons the
// retention age of their data. t is the caller's clock: the FTL passes
// it on and never reads it. Other kinds of operation are ignored.
func (f *FTL) ReportProgrammed(op *Op, t int64) {
	if op.Kind == OpProgram {
		f.dev.SetProgramTime(int(op.Block), int(op.Planes), t)
	}
}

// ReportSensed tells the FTL that the caller sensed the page of op, an
// OpRead (or, for a read-retry step, an OpTransfer whose data needed the
// page sensed again): the device counts it on the page's blocks for read
// disturb (nand.Device.NoteRead). Other kinds of operation are ignored.
func (f *FTL) ReportSensed(op *Op) {
	if op.Kind == OpRead || op.Kind == OpTransfer {
		f.dev.NoteRead(int(op.Block), int(op.Planes))
	}
}

// ReportUnreadable tells the FTL that the read at index i of the current
// Ready's operations, one by which the FTL moved data (Cause.Moves),
// could not be decoded: the units moved out of its page — the OpMoved
// entries after it, up to the next such read (recorded with
// Config.RecordMoves) — are lost. Reads of them fail (Location.Lost)
// until the host writes or trims them. It returns how many units were
// not lost already (counted in Counters.UnreadableUnits); an index
// outside the Ready's operations names none.
func (f *FTL) ReportUnreadable(i int) int {
	if i < 0 || i >= len(f.ops) {
		return 0
	}
	n := 0
	for _, op := range f.ops[i+1:] {
		if op.Kind == OpRead && op.Cause.Moves() {
			break
		}
		if op.Kind == OpMoved && f.markLost(op.LBA) {
			n++
		}
	}
	return n
}

// ReportLost tells the FTL that the caller could not read the rest of
// logical unit lba to merge a partial host write into it and wrote the
// unit regardless: its data is lost, as ReportUnreadable's are. It
// reports whether the unit was not lost already.
func (f *FTL) ReportLost(lba int64) bool {
	if lba < 0 || lba >= int64(len(f.l2p)) {
		return false
	}
	return f.markLost(lba)
}

// markLost marks logical unit lba lost and counts it; it reports whether
// it was not already.
func (f *FTL) markLost(lba int64) bool {
	if f.lost == nil {
		f.lost = make([]uint64, (len(f.l2p)+63)/64)
	}
	if f.isLost(lba) {
		return false
	}
	f.lost[lba>>6] |= 1 << (lba & 63)
	f.cnt.UnreadableUnits++
	return true
}

// isLost reports whether logical unit lba's data was lost.
func (f *FTL) isLost(lba int64) bool {
	return f.lost != nil && f.lost[lba>>6]&(1<<(lba&63)) != 0
}

// found forgets that the n logical units from lba were lost: the host
// wrote or trimmed them.
func (f *FTL) found(lba, n int64) {
	for i := lba; i < lba+n; i++ {
		f.lost[i>>6] &^= 1 << (i & 63)
	}
}

// PreWear raises every block's erase count to at least erases, as if
// the drive had been written that much before (nand.Device.PreWear).
func (f *FTL) PreWear(erases int) error { return f.dev.PreWear(erases) }

// AddWear adds erases to every block's erase count without erasing
// anything (nand.Device.AddWear): an accelerated endurance run stands
// for the passes it does not simulate with it.
func (f *FTL) AddWear(erases int) error { return f.dev.AddWear(erases) }

// Bake ages the data every programmed block holds by ns of the caller's
// clock, as a drive left unpowered does (nand.Device.Bake): the FTL
// passes ns on to the device, as it does ReportProgrammed's times.
func (f *FTL) Bake(ns int64) { f.dev.Bake(ns) }
