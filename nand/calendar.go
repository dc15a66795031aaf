package nand

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
	top   int64 // one past the latest slot ever booked: the slots from it on are empty
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
	c.base, c.top, c.busy, c.over = 0, 0, 0, 0
}

// Advance forgets the time before now: no booking will start earlier.
// It clears only the slots that may hold bookings, so that a long idle
// gap costs no more than a short one.
func (c *Calendar) Advance(now int64) {
	s := now >> slotShift
	if s <= c.base {
		return
	}
	end := min(s, c.top, c.base+ringSize) // slots [base, end) may be booked
	switch lo, hi := c.base&ringMask, end&ringMask; {
	case end <= c.base:
	case end-c.base == ringSize:
		clear(c.cal)
	case lo < hi:
		clear(c.cal[lo:hi])
	default:
		clear(c.cal[lo:])
		clear(c.cal[:hi])
	}
	c.base = s
}

// Book takes n ns starting no earlier than at and returns when they end.
func (c *Calendar) Book(at, n int64) int64 {
	c.busy += n
	base := c.base
	if at < base<<slotShift {
		at = base << slotShift
	}
	if n <= 0 {
		return at
	}
	cal := c.cal[:ringSize]
	s := at >> slotShift
	off := at - s<<slotShift
	end, top := base+ringSize, c.top
	for ; s < end && s < top; s++ {
		i := s & ringMask
		used := int64(cal[i])
		st := max(used, off)
		off = 0
		if st >= slotNs {
			continue
		}
		if st+n <= slotNs {
			cal[i] = uint16(used + n)
			return s<<slotShift + st + n
		}
		cal[i] = uint16(used + slotNs - st)
		n -= slotNs - st
	}
	if s < end {
		// The slots from s on hold nothing (s ≥ top): the booking takes
		// them one after another.
		if off+n <= slotNs {
			cal[s&ringMask] = uint16(n)
			c.top = s + 1
			return s<<slotShift + off + n
		}
		cal[s&ringMask] = uint16(slotNs - off)
		n -= slotNs - off
		off = 0
		for s++; n > slotNs && s < end; s++ {
			cal[s&ringMask] = slotNs
			n -= slotNs
		}
		if s < end {
			cal[s&ringMask] = uint16(n)
			c.top = s + 1
			return s<<slotShift + n
		}
	}
	// Beyond the look-ahead the calendar keeps no slots: the resource is
	// taken as free there, or what is booked there queues behind what was
	// booked there before.
	c.top = max(top, s)
	if !c.queue {
		return s<<slotShift + off + n
	}
	c.over = max(s<<slotShift+off, c.over) + n
	return c.over
}
