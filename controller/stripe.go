package controller

// stripes paces the programs of host data by stripes across the dies of
// each channel (Firmware.ChannelStripe): the firmware sends a page to
// every die of a channel, one after another over the channel's bus, and
// starts the channel's next stripe once every program of this one has
// ended and it has done Firmware.StripeNs of work for it (the next
// stripe's addresses, its pages' metadata). The stripe of n dies then
// takes n data-ins, tPROG and the stripe's work: a channel with more
// dies waits longer for its last die, which is how die interleave on a
// channel scales less than linearly (a die's program time is shared by
// its channel's dies only when the bus is idle meanwhile).
type stripes struct {
	width []int   // programs of the current stripe, per channel
	start []int64 // when the current stripe may start, per channel
	end   []int64 // when its last program booked ends, per channel
	dies  int     // dies on each channel: a stripe's programs
	chans int
	work  int64 // Firmware.StripeNs
}

// newStripes returns the stripe state for dies dies on chans channels;
// nil when the firmware does not stripe.
func newStripes(on bool, dies, chans int, work int64) *stripes {
	if !on {
		return nil
	}
	return &stripes{width: make([]int, chans), start: make([]int64, chans), end: make([]int64, chans),
		dies: dies / chans, chans: chans, work: work}
}

// issue returns when a program of host data on die, whose data is in at
// at, may start: not before its channel's stripe does.
func (s *stripes) issue(die int, at int64) int64 {
	c := die % s.chans
	if s.width[c] == s.dies {
		s.start[c], s.width[c] = s.end[c]+s.work, 0
	}
	return max(at, s.start[c])
}

// booked records that the program issue let start ends at done.
func (s *stripes) booked(die int, done int64) {
	c := die % s.chans
	s.width[c]++
	s.end[c] = max(s.end[c], done)
}
