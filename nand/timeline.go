package nand

import "fmt"

// PageKind is the type of a page: its position on its word line, which
// sets how fast it reads and programs.
type PageKind uint8

// Page kinds, in the order a word line's pages are programmed: lower
// (LSB), middle (CSB), upper (MSB) and top (TSB). SLC pages are all
// lower pages; MLC word lines hold a lower and an upper page; TLC ones a
// lower, a middle and an upper page; QLC ones all four.
const (
	LSB PageKind = iota
	CSB
	MSB
	TSB
)

// String returns "lower", "middle", "upper" or "top".
func (k PageKind) String() string {
	switch k {
	case LSB:
		return "lower"
	case CSB:
		return "middle"
	case MSB:
		return "upper"
	case TSB:
		return "top"
	}
	return fmt.Sprintf("PageKind(%d)", int(k))
}

// WordLinePages returns the pages that share a word line, the bits per
// cell: 1 on SLC, 2 on MLC, 3 on TLC, 4 on QLC. Pages are laid out word
// line after word line (PageType). An interrupted program of a later
// page of a word line can destroy the pages programmed on it before (and
// on a one-shot part, none of its pages is stored until its last is
// programmed).
func (t Timing) WordLinePages() int { return min(max(t.Cell.Bits(), 1), 4) }

// PageType returns the position of page p on its word line: 0 for the
// lower page up to WordLinePages()-1 for the last. Real parts pair pages
// in a staggered order; laying word lines out one after another keeps
// the same mix of fast and slow pages, which is what sets throughput.
func (t Timing) PageType(page int) int { return page % t.WordLinePages() }

// Kind returns the kind of page p: SLC pages are all LSB; MLC pages
// alternate LSB (even) and MSB (odd); TLC pages cycle LSB, CSB, MSB and
// QLC pages LSB, CSB, MSB, TSB.
func (t Timing) Kind(page int) PageKind {
	k := PageKind(t.PageType(page))
	if t.Cell == MLC && k == 1 {
		return MSB
	}
	return k
}

// ReadNsOf returns tR of page p (of a page whose type is not known when
// p < 0): ReadNsByPage's time for its type, or ReadNs.
func (t Timing) ReadNsOf(page int) int64 {
	if page < 0 || len(t.ReadNsByPage) == 0 {
		return t.ReadNs
	}
	return t.ReadNsByPage[t.PageType(page)]
}

// ProgNs returns the array time of programming page p on a multi-pass
// part: ProgNsByPage's time for its type or, without it, ProgLSBNs for a
// lower page, ProgMSBNs for the last page of a word line and evenly
// spaced times between (on TLC the middle page takes their mean). On a
// one-shot part the pages before the last of a word line take none and
// the last takes ProgWordLineNs; Timeline.ProgNs also counts a block's
// last page as the last of its word line.
func (t Timing) ProgNs(page int) int64 { return t.progNs(t.PageType(page)) }

// progNs returns the array time of programming a page of type k.
func (t Timing) progNs(k int) int64 {
	wl := t.WordLinePages()
	switch {
	case t.Program == OneShot && k < wl-1:
		return 0
	case t.Program == OneShot:
		return t.ProgWordLineNs
	case len(t.ProgNsByPage) > 0:
		return t.ProgNsByPage[k]
	case k == 0:
		return t.ProgLSBNs
	case k == wl-1:
		return t.ProgMSBNs
	case wl == 3:
		return (t.ProgLSBNs + t.ProgMSBNs) / 2
	}
	return t.ProgLSBNs + (t.ProgMSBNs-t.ProgLSBNs)*int64(k)/int64(wl-1)
}

// WordLineProgNs returns the array time of programming one whole word
// line: ProgWordLineNs on a one-shot part, the sum of its pages' times on
// a multi-pass one.
func (t Timing) WordLineProgNs() int64 {
	var n int64
	for k := range t.WordLinePages() {
		n += t.progNs(k)
	}
	return n
}

// TransferNs returns the bus time to move n bytes.
func (t Timing) TransferNs(n int) int64 {
	return (int64(n)*1000 + t.BusMBps - 1) / t.BusMBps
}

// Timeline tracks when every die and channel is busy. Dies are serial: an
// operation on a die starts when the die finishes its previous one. Channel
// transfers interleave on the bus calendar. Reservations are made in
// non-decreasing order of their earliest start time per die; the calendar
// forgets time before the latest Advance.
type Timeline struct {
	// Read on every operation, kept together.
	dieFree  []int64
	readFree []int64 // when the die's suspending reads finish
	dieBusy  []int64 // accumulated array+transfer busy ns, per die
	chans    []*Calendar
	chanOf   []int32 // per die: its channel (die mod channels, without a division)
	// Timing.PlaneNs, ReadNs, EraseNs
	planeNs, readNs, eraseNs int64
	bus                      busCosts // each operation's bus costs (Interface, or BusMBps and CommandNs)
	pageXfer                 int64    // bus time of one page with its spare bytes
	// Per page type (position on the word line): tR and the array time
	// of a program (Timing.ReadNsOf, Timing.ProgNs), looked up by
	// page % wl — page & wlMask when wl is a power of two (wlMask -1
	// otherwise). readOne: every page reads in ReadNs. closePage is the
	// block's last page on a one-shot part, which programs its word line
	// however few pages it holds (-1 otherwise).
	wl        int
	wlMask    int
	closePage int
	readOne   bool
	readPg    [4]int64
	progPg    [4]int64
	// tR, tPROG and tBERS of a block in SLC mode (Timing.SLCMode; zero
	// when the part has none).
	slcRead, slcProg, slcErase int64
	// suspendLimit is the most reads in a row that may suspend a die's
	// pending work (0: no limit); suspends counts them, per die (see
	// SetSuspendLimit).
	suspendLimit int32
	suspends     []int32
	// With cache program (Interface.Cache and CBSYNs, on a multi-pass
	// part), regFree is when each die's cache register takes the next
	// page's data: once the page before has moved into the data register
	// and its array program has begun. nil without it.
	regFree []int64
	// ops remembers when each die's queued operations end, for reads
	// sent before them (SetReadFirst); nil: off.
	ops *opEnds
	// early finds the die whose queued work ends first (EarliestDie).
	early earliest
	// now is the latest time Advance was told: no booking starts before
	// it (each channel's calendar catches up when it is booked).
	now int64
}

// SetSuspendLimit bounds read suspension: at most n reads in a row may
// suspend a die's pending program or erase work (ReadSuspending); the
// next waits for that work to finish, as firmware that guarantees
// programs progress does. 0: no limit.
func (tl *Timeline) SetSuspendLimit(n int) {
	tl.suspendLimit = int32(n)
	if n > 0 && tl.suspends == nil {
		tl.suspends = make([]int32, len(tl.dieFree))
	}
}

// NewTimeline builds an idle timeline for the given configuration.
func NewTimeline(cfg Config) *Timeline {
	g := cfg.Geometry
	tm := cfg.Timing
	tl := &Timeline{
		dieFree:   make([]int64, g.Dies()),
		readFree:  make([]int64, g.Dies()),
		dieBusy:   make([]int64, g.Dies()),
		chans:     make([]*Calendar, g.Channels),
		planeNs:   tm.PlaneNs,
		readNs:    tm.ReadNs,
		eraseNs:   tm.EraseNs,
		bus:       newBusCosts(cfg),
		wl:        tm.WordLinePages(),
		wlMask:    -1,
		closePage: -1,
		readOne:   len(tm.ReadNsByPage) == 0,
		early:     newEarliest(g.Dies()),
	}
	tl.chanOf = make([]int32, g.Dies())
	for d := range tl.chanOf {
		tl.chanOf[d] = int32(d % g.Channels)
	}
	tl.pageXfer = tl.bus.transferNs(g.PageBytes + g.SpareBytes)
	if tl.bus.cbsy > 0 && tm.Program == MultiPass {
		tl.regFree = make([]int64, g.Dies())
	}
	if tl.wl&(tl.wl-1) == 0 {
		tl.wlMask = tl.wl - 1
	}
	for k := range tl.wl {
		tl.readPg[k] = tm.ReadNsOf(k)
		tl.progPg[k] = tm.progNs(k)
	}
	if tm.Program == OneShot {
		tl.closePage = g.PagesPerBlock - 1
	}
	if slc, ok := tm.SLCMode(); ok {
		tl.slcRead, tl.slcProg, tl.slcErase = slc.ReadNs, slc.ProgLSBNs, slc.EraseNs
	}
	for i := range tl.chans {
		tl.chans[i] = NewCalendar()
	}
	return tl
}

// transferNs returns the bus time to move n bytes (Timing.TransferNs
// without an interface model).
func (tl *Timeline) transferNs(n int) int64 { return tl.bus.transferNs(n) }

// settle records that die's queued work ends at done, after an operation
// that used its registers (a read, an erase, a copyback): a cache
// program's next data waits for it too.
func (tl *Timeline) settle(die int, done int64) {
	tl.dieFree[die] = done
	if tl.ops != nil {
		tl.ops.push(die, done)
	}
	tl.early.touch(die)
	if tl.regFree != nil {
		tl.regFree[die] = done
	}
}

// Reset makes every die and channel idle at time 0 and clears the busy
// accounting.
func (tl *Timeline) Reset() {
	clear(tl.dieFree)
	tl.early.reset(len(tl.dieFree))
	clear(tl.readFree)
	clear(tl.dieBusy)
	clear(tl.suspends)
	clear(tl.regFree)
	if tl.ops != nil {
		tl.ops.reset()
	}
	for _, c := range tl.chans {
		c.Reset()
	}
	tl.now = 0
}

// Advance tells the timeline that no reservation will start before now,
// so calendar slots before it can be reused. A channel's calendar forgets
// its past when it is next booked (transfer): the same slots are freed,
// and a channel not booked for a while costs nothing meanwhile.
func (tl *Timeline) Advance(now int64) { tl.now = max(tl.now, now) }

// MemoryBytes is the memory held by the timeline.
func (tl *Timeline) MemoryBytes() int64 {
	m := int64(len(tl.chans))*ringSize*2 + int64(len(tl.dieFree))*16 + int64(len(tl.regFree))*8 +
		int64(len(tl.dieFree))*(2*8+4+1)
	if tl.ops != nil {
		m += int64(len(tl.ops.end))*8 + int64(len(tl.ops.head))*8
	}
	return m
}

// ChannelOf returns the channel of die d.
func (tl *Timeline) ChannelOf(die int) int { return int(tl.chanOf[die]) }

// DieFree returns the time die d finishes its queued work.
func (tl *Timeline) DieFree(die int) int64 { return tl.dieFree[die] }

// DieBusy returns the total time die d has spent busy.
func (tl *Timeline) DieBusy(die int) int64 { return tl.dieBusy[die] }

// ChannelBusy returns the total time channel c has spent transferring.
func (tl *Timeline) ChannelBusy(c int) int64 { return tl.chans[c].Busy() }

// transfer books n ns on channel c starting no earlier than at and returns
// when the transfer ends.
func (tl *Timeline) transfer(c int, at, n int64) int64 {
	ch := tl.chans[c]
	ch.Advance(tl.now)
	return ch.Book(at, n)
}

// ReadNs returns tR of page p of a block (of a page whose type is not
// known when p < 0), as Timing.ReadNsOf.
func (tl *Timeline) ReadNs(page int) int64 {
	if page < 0 || tl.readOne {
		return tl.readNs
	}
	return tl.readPg[tl.pageType(page)]
}

// pageType returns the position of page p on its word line.
func (tl *Timeline) pageType(page int) int {
	if tl.wlMask >= 0 {
		return page & tl.wlMask
	}
	return page % tl.wl
}

// ProgNs returns the array time of a program of page p of a block, as
// Timing.ProgNs; on a one-shot part the block's last page programs its
// word line even when the block ends before the word line does.
func (tl *Timeline) ProgNs(page int) int64 {
	if page == tl.closePage {
		return tl.progPg[tl.wl-1]
	}
	return tl.progPg[tl.pageType(page)]
}

// Read books a multi-plane read of planes pages on die d, moving n bytes
// out over the channel, that may start at time at; it returns when the data
// has left the die. The page's type is not known: it takes Timing.ReadNs
// (ReadPage takes its page's time).
func (tl *Timeline) Read(die, planes, n int, at int64) int64 {
	return tl.read(die, tl.readNs, planes, n, at)
}

// ReadPage is Read of page p of its block: it takes the tR of p's page
// type (Timing.ReadNsOf).
func (tl *Timeline) ReadPage(die, page, planes, n int, at int64) int64 {
	return tl.read(die, tl.ReadNs(page), planes, n, at)
}

func (tl *Timeline) read(die int, tR int64, planes, n int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	c := int(tl.chanOf[die])
	p := int64(planes)
	cmdEnd := tl.transfer(c, start, tl.bus.readCmdFixed+p*tl.bus.readCmdPlane)
	arrEnd := cmdEnd + tR + (p-1)*tl.planeNs
	done := tl.transfer(c, arrEnd, tl.bus.readOutFixed+(p-1)*tl.bus.readOutPlane+tl.transferNs(n))
	tl.dieBusy[die] += done - start
	tl.settle(die, done)
	return done
}

// ReadSuspending books a read that suspends the die's program or erase
// in progress (or jumps its queue of them). Reads still follow the die's
// earlier reads; if a program or erase is pending when the read may start,
// the read pays the suspend overhead suspendNs and that work finishes
// later by the read's whole time. A die with nothing pending reads as Read
// does. The page's type is not known (see ReadPageSuspending).
func (tl *Timeline) ReadSuspending(die, planes, n int, at, suspendNs int64) int64 {
	return tl.readSuspending(die, tl.readNs, planes, n, at, suspendNs)
}

// ReadPageSuspending is ReadSuspending of page p of its block: it takes
// the tR of p's page type.
func (tl *Timeline) ReadPageSuspending(die, page, planes, n int, at, suspendNs int64) int64 {
	return tl.readSuspending(die, tl.ReadNs(page), planes, n, at, suspendNs)
}

func (tl *Timeline) readSuspending(die int, tR int64, planes, n int, at, suspendNs int64) int64 {
	s := max(at, tl.readFree[die])
	if tl.dieFree[die] <= s || (tl.suspendLimit > 0 && tl.suspends[die] >= tl.suspendLimit) {
		// Nothing pending, or the pending work's turn: the read follows
		// it.
		done := tl.read(die, tR, planes, n, s)
		tl.readFree[die] = done
		if tl.suspends != nil {
			tl.suspends[die] = 0
		}
		return done
	}
	if tl.suspendLimit > 0 {
		tl.suspends[die]++
	}
	c := int(tl.chanOf[die])
	p := int64(planes)
	cmdEnd := tl.transfer(c, s+suspendNs, tl.bus.readCmdFixed+p*tl.bus.readCmdPlane)
	arrEnd := cmdEnd + tR + (p-1)*tl.planeNs
	done := tl.transfer(c, arrEnd, tl.bus.readOutFixed+(p-1)*tl.bus.readOutPlane+tl.transferNs(n))
	tl.dieBusy[die] += done - s
	tl.dieFree[die] += done - s
	tl.early.touch(die)
	if tl.regFree != nil {
		tl.regFree[die] = max(tl.regFree[die], done)
	}
	tl.readFree[die] = done
	return done
}

// OutputSuspending moves n more bytes of a page that ReadSuspending
// brought into the page register, delaying any pending program or erase
// by the transfer's time.
func (tl *Timeline) OutputSuspending(die, n int, at int64) int64 {
	s := max(at, tl.readFree[die])
	if tl.dieFree[die] <= s {
		done := tl.Output(die, n, s)
		tl.readFree[die] = done
		return done
	}
	done := tl.transfer(int(tl.chanOf[die]), s, tl.bus.outCmd+tl.transferNs(n))
	tl.dieBusy[die] += done - s
	tl.dieFree[die] += done - s
	tl.early.touch(die)
	if tl.regFree != nil {
		tl.regFree[die] = max(tl.regFree[die], done)
	}
	tl.readFree[die] = done
	return done
}

// Output books the transfer of n more bytes from the page register of die
// d, for data of a page that a previous Read brought out of the array.
func (tl *Timeline) Output(die, n int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	done := tl.transfer(int(tl.chanOf[die]), start, tl.bus.outCmd+tl.transferNs(n))
	tl.dieBusy[die] += done - start
	tl.settle(die, done)
	return done
}

// Program books a multi-plane program of page p on planes planes of die d
// whose data is ready at time at; it returns when the array has finished.
//
// On a multi-pass part every page takes its transfer and then its page
// type's tPROG (Timing.ProgNs). On a one-shot part the pages before the
// last of a word line only cross the bus into the die's latches: the die
// is busy for their transfer, and the program "ends" when the data is in
// the die; the word line's last page (or the block's last page) takes
// its transfer and then the word line's tPROG (Timing.ProgWordLineNs),
// for all its pages at once. The die stays free for other work between
// the loads of a word line (a controller that keeps each word line's
// data until it is whole sends them back to back).
func (tl *Timeline) Program(die, page, planes int, at int64) int64 {
	return tl.program(die, tl.ProgNs(page), planes, at)
}

// ProgramSLC is Program of a page of a block in SLC mode: every page
// takes its transfer and the part's SLC-mode tPROG.
func (tl *Timeline) ProgramSLC(die, planes int, at int64) int64 {
	return tl.program(die, tl.slcProg, planes, at)
}

// ReadSLC is ReadPage of a page of a block in SLC mode: it takes the
// part's SLC-mode tR.
func (tl *Timeline) ReadSLC(die, planes, n int, at int64) int64 {
	return tl.read(die, tl.slcRead, planes, n, at)
}

// ReadSLCSuspending is ReadPageSuspending of a page of a block in SLC
// mode.
func (tl *Timeline) ReadSLCSuspending(die, planes, n int, at, suspendNs int64) int64 {
	return tl.readSuspending(die, tl.slcRead, planes, n, at, suspendNs)
}

// EraseSLC is Erase of a block in SLC mode: it takes the part's
// SLC-mode tBERS.
func (tl *Timeline) EraseSLC(die, planes int, at int64) int64 {
	return tl.erase(die, tl.slcErase, planes, at)
}

func (tl *Timeline) program(die int, tProg int64, planes int, at int64) int64 {
	c := int(tl.chanOf[die])
	p := int64(planes)
	bus := tl.bus.progFixed + p*(tl.bus.progPlane+tl.pageXfer)
	if tl.regFree != nil && tProg > 0 {
		return tl.cacheProgram(die, c, tProg, p, bus, at)
	}
	start := max(at, tl.dieFree[die])
	xEnd := tl.transfer(c, start, bus)
	done := xEnd + (p-1)*tl.bus.dbsy
	if tProg > 0 {
		done += tProg + (p-1)*tl.planeNs
	}
	tl.dieBusy[die] += done - start
	tl.settle(die, done)
	return done
}

// cacheProgram books a cache program (80h, address, data, 15h) of a page
// of array time tProg on p planes of die, on channel c, whose bus cycles
// take bus: the data crosses the bus into the cache register as soon as
// the register is free — while the die's previous program is still in
// its array — and the array takes the page once it has finished the one
// before and the page has moved into the data register (tCBSY). The die's
// busy time counts its array and the bus time that did not overlap it.
func (tl *Timeline) cacheProgram(die, c int, tProg, p, bus, at int64) int64 {
	prev := tl.dieFree[die]
	start := max(at, tl.regFree[die])
	xEnd := tl.transfer(c, start, bus) + (p-1)*tl.bus.dbsy
	arr := max(xEnd, prev) + tl.bus.cbsy
	done := arr + tProg + (p-1)*tl.planeNs
	tl.dieBusy[die] += done - max(start, prev)
	tl.regFree[die] = arr
	tl.dieFree[die] = done
	if tl.ops != nil {
		tl.ops.push(die, done)
	}
	tl.early.touch(die)
	return done
}

// CopybackProgram books a multi-plane program of page p on die d from
// data already in the die's page register (the copyback command): only
// the command crosses the channel. It returns when the array has
// finished (on a one-shot part, as Program: a page before the last of
// its word line takes no array time).
func (tl *Timeline) CopybackProgram(die, page, planes int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	np := int64(planes)
	done := tl.transfer(int(tl.chanOf[die]), start, tl.bus.progFixed+np*tl.bus.copyPlane) + (np-1)*tl.bus.dbsy
	if p := tl.ProgNs(page); p > 0 {
		done += p + (np-1)*tl.planeNs
	}
	tl.dieBusy[die] += done - start
	tl.settle(die, done)
	return done
}

// Erase books a multi-plane erase on die d that may start at time at; it
// returns when the erase has finished.
func (tl *Timeline) Erase(die, planes int, at int64) int64 {
	return tl.erase(die, tl.eraseNs, planes, at)
}

func (tl *Timeline) erase(die int, tBERS int64, planes int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	c := int(tl.chanOf[die])
	p := int64(planes)
	cmdEnd := tl.transfer(c, start, tl.bus.eraseFixed+p*tl.bus.erasePlane)
	done := cmdEnd + tBERS + (p-1)*tl.planeNs
	tl.dieBusy[die] += done - start
	tl.settle(die, done)
	return done
}
