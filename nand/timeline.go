package nand

// PageKind is the speed class of a page within its block.
type PageKind uint8

// Page kinds. MLC parts interleave fast lower (LSB) and slow upper (MSB)
// pages; TLC adds a centre page between them.
const (
	LSB PageKind = iota
	CSB
	MSB
)

// Kind returns the speed class of page p: SLC pages are all LSB; MLC
// pages alternate LSB (even) and MSB (odd); TLC pages cycle LSB, CSB, MSB.
// Real parts pair pages in a staggered order; the alternation keeps the
// same mix of fast and slow pages, which is what sets throughput.
func (t Timing) Kind(page int) PageKind {
	switch t.Cell {
	case MLC:
		if page%2 == 1 {
			return MSB
		}
	case TLC:
		return PageKind(page % 3)
	}
	return LSB
}

// WordLinePages returns the pages that share a word line (Kind lays
// them out in order): 1 on SLC, 2 on MLC, 3 on TLC. An interrupted
// program of a later page of a word line can destroy the pages
// programmed on it before.
func (t Timing) WordLinePages() int {
	switch t.Cell {
	case MLC:
		return 2
	case TLC:
		return 3
	}
	return 1
}

// ProgNs returns tPROG of page p.
func (t Timing) ProgNs(page int) int64 {
	switch t.Kind(page) {
	case MSB:
		return t.ProgMSBNs
	case CSB:
		return (t.ProgLSBNs + t.ProgMSBNs) / 2
	}
	return t.ProgLSBNs
}

// TransferNs returns the bus time to move n bytes.
func (t Timing) TransferNs(n int) int64 {
	return (int64(n)*1000 + t.BusMBps - 1) / t.BusMBps
}

// Channel occupancy is kept as a fluid reservation calendar: future time is
// cut into slots of 1<<slotShift ns, and each slot records how many of its
// nanoseconds are already taken by transfers. A transfer that wants to start
// at time s takes the free nanoseconds of the slots from s on until it has
// all it needs. Unlike a single busy-until mark, this lets a transfer for an
// idle die use the bus while another die's queued operation waits for its
// array, which is how a real channel interleaves its dies.
const (
	slotShift = 14 // 16.4 µs slots: a page transfer spans a handful
	slotNs    = 1 << slotShift
	ringBits  = 18 // 2^18 slots ≈ 4.3 s of look-ahead per channel
	ringSize  = 1 << ringBits
	ringMask  = ringSize - 1
)

// Calendar books a serial resource — a bus or a link — as a fluid
// reservation calendar (see above): a booking that wants to start at time
// at takes the free nanoseconds of the slots from at on, so a later
// booking for an earlier time fills the gap before an earlier booking
// for a later time. The zero value is not ready; use NewCalendar.
type Calendar struct {
	cal   []uint16
	base  int64 // first slot held
	busy  int64 // total booked ns
	queue bool  // bookings beyond the look-ahead queue (NewQueueCalendar)
	over  int64 // when the latest booking beyond the look-ahead ends
}

// NewCalendar returns an empty calendar. A booking that reaches beyond
// its look-ahead takes the time there as free: right for a bus, which
// the dies' queues may book far ahead one die after another while it is
// mostly idle.
func NewCalendar() *Calendar { return &Calendar{cal: make([]uint16, ringSize)} }

// NewQueueCalendar returns an empty calendar whose bookings beyond the
// look-ahead queue one after another: right for an engine booked in about
// the order of time whose backlog may grow longer than the look-ahead.
func NewQueueCalendar() *Calendar {
	return &Calendar{cal: make([]uint16, ringSize), queue: true}
}

// Busy returns the total time booked.
func (c *Calendar) Busy() int64 { return c.busy }

// Reset empties the calendar.
func (c *Calendar) Reset() {
	clear(c.cal)
	c.base, c.busy, c.over = 0, 0, 0
}

// Advance forgets the time before now: no booking will start earlier.
func (c *Calendar) Advance(now int64) {
	s := now >> slotShift
	if s <= c.base {
		return
	}
	if s-c.base >= ringSize {
		clear(c.cal)
		c.base = s
		return
	}
	lo, hi := c.base&ringMask, s&ringMask
	if lo < hi {
		clear(c.cal[lo:hi])
	} else {
		clear(c.cal[lo:])
		clear(c.cal[:hi])
	}
	c.base = s
}

// Book takes n ns starting no earlier than at and returns when they end.
func (c *Calendar) Book(at, n int64) int64 {
	c.busy += n
	if at < c.base<<slotShift {
		at = c.base << slotShift
	}
	cal := c.cal
	s := at >> slotShift
	off := at - s<<slotShift
	for n > 0 {
		if s-c.base >= ringSize {
			// Beyond the look-ahead the calendar keeps no slots: the
			// resource is taken as free there, or what is booked there
			// queues behind what was booked there before.
			if !c.queue {
				return s<<slotShift + off + n
			}
			c.over = max(s<<slotShift+off, c.over) + n
			return c.over
		}
		used := int64(cal[s&ringMask])
		free := slotNs - max(used, off)
		if free > 0 {
			take := min(free, n)
			cal[s&ringMask] = uint16(used + take)
			n -= take
			if n == 0 {
				return s<<slotShift + max(used, off) + take
			}
		}
		s++
		off = 0
	}
	return at
}

// Timeline tracks when every die and channel is busy. Dies are serial: an
// operation on a die starts when the die finishes its previous one. Channel
// transfers interleave on the bus calendar. Reservations are made in
// non-decreasing order of their earliest start time per die; the calendar
// forgets time before the latest Advance.
type Timeline struct {
	t        Timing
	g        Geometry
	dieFree  []int64
	readFree []int64 // when the die's suspending reads finish
	dieBusy  []int64 // accumulated array+transfer busy ns, per die
	chans    []*Calendar
	pageXfer int64 // bus time of one page with its spare bytes
}

// NewTimeline builds an idle timeline for the given configuration.
func NewTimeline(cfg Config) *Timeline {
	g := cfg.Geometry
	tl := &Timeline{
		t:        cfg.Timing,
		g:        g,
		dieFree:  make([]int64, g.Dies()),
		readFree: make([]int64, g.Dies()),
		dieBusy:  make([]int64, g.Dies()),
		chans:    make([]*Calendar, g.Channels),
		pageXfer: cfg.Timing.TransferNs(g.PageBytes + g.SpareBytes),
	}
	for i := range tl.chans {
		tl.chans[i] = NewCalendar()
	}
	return tl
}

// Reset makes every die and channel idle at time 0 and clears the busy
// accounting.
func (tl *Timeline) Reset() {
	clear(tl.dieFree)
	clear(tl.readFree)
	clear(tl.dieBusy)
	for _, c := range tl.chans {
		c.Reset()
	}
}

// Advance tells the timeline that no reservation will start before now,
// so calendar slots before it can be reused.
func (tl *Timeline) Advance(now int64) {
	for _, c := range tl.chans {
		c.Advance(now)
	}
}

// MemoryBytes is the memory held by the timeline.
func (tl *Timeline) MemoryBytes() int64 {
	return int64(len(tl.chans))*ringSize*2 + int64(len(tl.dieFree))*16
}

// ChannelOf returns the channel of die d.
func (tl *Timeline) ChannelOf(die int) int { return die % tl.g.Channels }

// DieFree returns the time die d finishes its queued work.
func (tl *Timeline) DieFree(die int) int64 { return tl.dieFree[die] }

// DieBusy returns the total time die d has spent busy.
func (tl *Timeline) DieBusy(die int) int64 { return tl.dieBusy[die] }

// ChannelBusy returns the total time channel c has spent transferring.
func (tl *Timeline) ChannelBusy(c int) int64 { return tl.chans[c].Busy() }

// transfer books n ns on channel c starting no earlier than at and returns
// when the transfer ends.
func (tl *Timeline) transfer(c int, at, n int64) int64 { return tl.chans[c].Book(at, n) }

// Read books a multi-plane read of planes pages on die d, moving n bytes
// out over the channel, that may start at time at; it returns when the data
// has left the die.
func (tl *Timeline) Read(die, planes, n int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	c := die % tl.g.Channels
	cmdEnd := tl.transfer(c, start, tl.t.CommandNs)
	arrEnd := cmdEnd + tl.t.ReadNs + int64(planes-1)*tl.t.PlaneNs
	done := tl.transfer(c, arrEnd, tl.t.TransferNs(n))
	tl.dieBusy[die] += done - start
	tl.dieFree[die] = done
	return done
}

// ReadSuspending books a read that suspends the die's program or erase
// in progress (or jumps its queue of them). Reads still follow the die's
// earlier reads; if a program or erase is pending when the read may start,
// the read pays the suspend overhead suspendNs and that work finishes
// later by the read's whole time. A die with nothing pending reads as Read
// does.
func (tl *Timeline) ReadSuspending(die, planes, n int, at, suspendNs int64) int64 {
	s := max(at, tl.readFree[die])
	if tl.dieFree[die] <= s {
		done := tl.Read(die, planes, n, s)
		tl.readFree[die] = done
		return done
	}
	c := die % tl.g.Channels
	cmdEnd := tl.transfer(c, s+suspendNs, tl.t.CommandNs)
	arrEnd := cmdEnd + tl.t.ReadNs + int64(planes-1)*tl.t.PlaneNs
	done := tl.transfer(c, arrEnd, tl.t.TransferNs(n))
	tl.dieBusy[die] += done - s
	tl.dieFree[die] += done - s
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
	done := tl.transfer(die%tl.g.Channels, s, tl.t.TransferNs(n))
	tl.dieBusy[die] += done - s
	tl.dieFree[die] += done - s
	tl.readFree[die] = done
	return done
}

// Output books the transfer of n more bytes from the page register of die
// d, for data of a page that a previous Read brought out of the array.
func (tl *Timeline) Output(die, n int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	done := tl.transfer(die%tl.g.Channels, start, tl.t.TransferNs(n))
	tl.dieBusy[die] += done - start
	tl.dieFree[die] = done
	return done
}

// Program books a multi-plane program of page p on planes planes of die d
// whose data is ready at time at; it returns when the array has finished.
func (tl *Timeline) Program(die, page, planes int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	c := die % tl.g.Channels
	xEnd := tl.transfer(c, start, tl.t.CommandNs+int64(planes)*tl.pageXfer)
	done := xEnd + tl.t.ProgNs(page) + int64(planes-1)*tl.t.PlaneNs
	tl.dieBusy[die] += done - start
	tl.dieFree[die] = done
	return done
}

// CopybackProgram books a multi-plane program of page p on die d from
// data already in the die's page register (the copyback command): only
// the command crosses the channel. It returns when the array has
// finished.
func (tl *Timeline) CopybackProgram(die, page, planes int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	cmdEnd := tl.transfer(die%tl.g.Channels, start, tl.t.CommandNs)
	done := cmdEnd + tl.t.ProgNs(page) + int64(planes-1)*tl.t.PlaneNs
	tl.dieBusy[die] += done - start
	tl.dieFree[die] = done
	return done
}

// Erase books a multi-plane erase on die d that may start at time at; it
// returns when the erase has finished.
func (tl *Timeline) Erase(die, planes int, at int64) int64 {
	start := max(at, tl.dieFree[die])
	c := die % tl.g.Channels
	cmdEnd := tl.transfer(c, start, tl.t.CommandNs)
	done := cmdEnd + tl.t.EraseNs + int64(planes-1)*tl.t.PlaneNs
	tl.dieBusy[die] += done - start
	tl.dieFree[die] = done
	return done
}
