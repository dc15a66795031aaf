package controller

import "github.com/ftlsim/ftlsim/ftl"

// restLog keeps, for a drive that orders erases after the programs they
// depend on (Firmware.GCSafeErase), when each host program comes to
// rest: when it has ended and so has the program that completed its word
// line (a program interrupted on a word line's later page destroys its
// earlier ones). An erase waits for the rest of the host program its op
// names (ftl.Op.Prog) and of every one numbered before it, as the FTL
// decided it — not for every program booked before it: a program booked
// far ahead on another die holds no data the erase destroys.
//
// Numbers run in the FTL's order of the host stage's programs (the order
// they are booked). A ring holds the latest ones: for a program not yet
// settled, its rest time (unset: -1, its word line still open); for a
// settled one, the latest rest time of it and every program before it.
// Programs are settled in order, as soon as the program and all before it
// have a rest time.
type restLog struct {
	// latest is the number of the latest host program booked; settled
	// the highest number up to which every program is settled.
	latest, settled uint64
	// t is the ring, indexed by number & mask; it grows when more than
	// its length of programs wait for their word lines.
	t    []int64
	mask uint64
	// pend lists, per die, the host programs whose word line is still
	// open (a die's host programs are on its one open host group).
	pend [][]uint64
	// synced is false from a reset until the first program booked after
	// it, whose number the log takes up (every program before it being at
	// rest at the reset: power up); lost is set if a program then comes
	// out of order, and makes every erase wait for every program booked.
	synced, lost bool
	// base is the number of the last program before the reset; lo the
	// oldest number the ring still holds.
	base, lo uint64
}

// newRestLog returns the log of a drive of dies dies, at rest at t.
func newRestLog(dies int, t int64) *restLog {
	r := &restLog{t: make([]int64, 1024), mask: 1023, pend: make([][]uint64, dies)}
	r.reset(t)
	return r
}

// reset starts the log again at t, with every program at rest (the
// drive has just powered up).
func (r *restLog) reset(t int64) {
	r.latest, r.settled, r.base, r.lo = 0, 0, 0, 0
	r.t[0] = t
	r.synced, r.lost = false, false
	for d := range r.pend {
		r.pend[d] = r.pend[d][:0]
	}
}

// full returns the number whose low 31 bits are n, at or before latest
// and no earlier than base (a program before the reset is at rest when
// base is).
func (r *restLog) full(n uint32) uint64 {
	d := uint64((uint32(r.latest) - n) & (1<<31 - 1))
	if d > r.latest-r.base {
		return r.base
	}
	return r.latest - d
}

// program records host program op (tag op.Prog) on its die, ending at
// done.
func (r *restLog) program(op *ftl.Op, done int64) {
	if !r.synced {
		// Every program numbered before this one is at rest at the reset.
		r.synced = true
		t := r.t[r.settled&r.mask]
		r.latest = uint64((op.Prog.N() - 1) & (1<<31 - 1))
		r.settled, r.base, r.lo = r.latest, r.latest, r.latest
		r.t[r.latest&r.mask] = t
	}
	n := r.latest + 1
	if uint32(n)&(1<<31-1) != op.Prog.N() {
		r.lost = true
	}
	if n-r.settled >= uint64(len(r.t)) {
		r.grow(n - r.settled)
	}
	r.latest = n
	if n-r.lo > r.mask {
		r.lo = n - r.mask
	}
	d := int(op.Die)
	if !op.Prog.Rests() {
		r.t[n&r.mask] = -1
		r.pend[d] = append(r.pend[d], n)
		return
	}
	r.t[n&r.mask] = done
	for _, p := range r.pend[d] {
		r.t[p&r.mask] = done
	}
	r.pend[d] = r.pend[d][:0]
	r.settle()
}

// settle advances settled over the programs that have a rest time.
func (r *restLog) settle() {
	prev := r.t[r.settled&r.mask]
	for r.settled < r.latest {
		k := (r.settled + 1) & r.mask
		if r.t[k] < 0 {
			return
		}
		prev = max(prev, r.t[k])
		r.t[k] = prev
		r.settled++
	}
}

// grow makes the ring hold at least n+1 programs from settled on.
func (r *restLog) grow(n uint64) {
	size := uint64(len(r.t))
	for size <= n {
		size *= 2
	}
	t := make([]int64, size)
	for k := r.lo; k <= r.latest; k++ {
		t[k&(size-1)] = r.t[k&r.mask]
	}
	r.t, r.mask = t, size-1
}

// after returns when an erase that waits for the rest of host program
// tag (and of every program before it) may start, and false when the log
// does not know that program to be at rest (the caller then waits for
// every program booked).
func (r *restLog) after(tag ftl.ProgTag) (int64, bool) {
	switch {
	case tag == 0:
		return 0, true
	case r.lost:
		return 0, false
	case !r.synced:
		return r.t[r.settled&r.mask], true // at rest since the reset
	}
	n := r.full(tag.N())
	if n > r.settled {
		return 0, false
	}
	// Settled times grow with the number: one older than the ring's
	// oldest is bounded by that one's.
	n = max(n, r.lo)
	return r.t[n&r.mask], true
}
