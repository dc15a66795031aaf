package nand

import "sort"

// opEnds remembers, per die, when each of its last operations booked
// ends (a ring of opRing entries a die, oldest first), so that a read
// dispatched ahead of the die's queued work (ReadFirst) can find the
// operation in progress when it arrives: the queued operations after it
// have not started, and the firmware sends the read before them.
type opEnds struct {
	end  []int64 // opRing entries a die
	head []int32 // index of each die's oldest entry
	n    []int32 // entries held, per die
}

// opRing is how many operations a die's queue is remembered for: deeper
// than the programs a write buffer of tens of MiB queues on a die of a
// drive with few dies (32 MiB on 8 dies: 256 pages of 16 KiB). Beyond
// it a read waits for the oldest operation remembered, later than it
// would.
const opRing = 256

func newOpEnds(dies int) *opEnds {
	return &opEnds{end: make([]int64, dies*opRing), head: make([]int32, dies), n: make([]int32, dies)}
}

// push records an operation on die ending at end, no earlier than the
// die's others: current and delay rely on each die's ends being in order.
func (o *opEnds) push(die int, end int64) {
	base := die * opRing
	if o.n[die] < opRing {
		o.end[base+int((o.head[die]+o.n[die])%opRing)] = end
		o.n[die]++
		return
	}
	o.end[base+int(o.head[die])] = end
	o.head[die] = (o.head[die] + 1) % opRing
}

// current returns when the operation die is doing at time s ends: the
// first remembered end after s (the oldest remembered when every end is
// after s), and false when none is.
//
// A die's ends are in the order of its operations, which is the order of
// time (push), so the first end after s is found by bisection.
func (o *opEnds) current(die int, s int64) (int64, bool) {
	base, head, n := die*opRing, int(o.head[die]), int(o.n[die])
	at := func(i int) int64 { return o.end[base+(head+i)%opRing] }
	i := sort.Search(n, func(i int) bool { return at(i) > s })
	if i == n {
		return 0, false
	}
	return at(i), true
}

// delay moves the ends after t later by d: the queued operations start
// after a read that went before them.
//
// The ends after t are the newest (the ends are in the order of time), so
// it walks back from the newest and stops at the first end not after t;
// the order is kept.
func (o *opEnds) delay(die int, t, d int64) {
	base, head := die*opRing, int(o.head[die])
	for i := int(o.n[die]) - 1; i >= 0; i-- {
		k := base + (head+i)%opRing
		if o.end[k] <= t {
			return
		}
		o.end[k] += d
	}
}

// reset forgets every die's operations.
func (o *opEnds) reset() {
	clear(o.head)
	clear(o.n)
}

// SetReadFirst makes the timeline remember each die's queued operations,
// so that ReadFirst and its kin may dispatch reads ahead of them, as
// firmware that keeps acknowledged programs in its own queue and sends
// a die's reads before them does.
func (tl *Timeline) SetReadFirst(on bool) {
	switch {
	case on && tl.ops == nil:
		tl.ops = newOpEnds(len(tl.dieFree))
	case !on:
		tl.ops = nil
	}
}

// ReadPageFirst books a read of page p of die d (as ReadPage) that the
// firmware sends before the die's queued operations: it waits for the
// operation in progress when it may start (a die does one at a time; a
// part without suspend finishes it), not for those queued behind that,
// which start later by the read's time. Reads sent first follow one
// another on the die. Without SetReadFirst, or with nothing queued, it is
// ReadPage. A die whose reads went first SuspendLimit times in a row
// (SetSuspendLimit) makes the next wait for its queue.
func (tl *Timeline) ReadPageFirst(die, page, planes, n int, at int64) int64 {
	return tl.readFirst(die, tl.ReadNs(page), planes, n, at)
}

// ReadSLCFirst is ReadPageFirst of a page of a block in SLC mode.
func (tl *Timeline) ReadSLCFirst(die, planes, n int, at int64) int64 {
	return tl.readFirst(die, tl.slcRead, planes, n, at)
}

// OutputFirst is Output of more bytes of a page that ReadPageFirst
// brought into the page register, sent before the die's queued work.
func (tl *Timeline) OutputFirst(die, n int, at int64) int64 {
	start, ok := tl.firstStart(die, at)
	if !ok {
		done := tl.Output(die, n, max(at, tl.readFree[die]))
		tl.readFree[die] = done
		return done
	}
	done := tl.transfer(int(tl.chanOf[die]), start, tl.bus.outCmd+tl.transferNs(n))
	tl.wentFirst(die, start, done)
	return done
}

func (tl *Timeline) readFirst(die int, tR int64, planes, n int, at int64) int64 {
	start, ok := tl.firstStart(die, at)
	if !ok {
		done := tl.read(die, tR, planes, n, max(at, tl.readFree[die]))
		tl.readFree[die] = done
		return done
	}
	c := int(tl.chanOf[die])
	p := int64(planes)
	cmdEnd := tl.transfer(c, start, tl.bus.readCmdFixed+p*tl.bus.readCmdPlane)
	arrEnd := cmdEnd + tR + (p-1)*tl.planeNs
	done := tl.transfer(c, arrEnd, tl.bus.readOutFixed+(p-1)*tl.bus.readOutPlane+tl.transferNs(n))
	tl.wentFirst(die, start, done)
	return done
}

// firstStart returns when a read sent first on die, which may start at
// at, starts: after the die's earlier reads sent first, and after the
// operation in progress; false when it should simply follow the die's
// queue (nothing queued, no memory of it, or the suspend limit reached).
func (tl *Timeline) firstStart(die int, at int64) (int64, bool) {
	s := max(at, tl.readFree[die])
	if tl.ops == nil || tl.dieFree[die] <= s || (tl.suspendLimit > 0 && tl.suspends[die] >= tl.suspendLimit) {
		if tl.suspends != nil {
			tl.suspends[die] = 0
		}
		return 0, false
	}
	if s == tl.readFree[die] {
		// Right behind a read sent first: the queued work has not
		// started.
		return s, true
	}
	e, ok := tl.ops.current(die, s)
	if !ok || e >= tl.dieFree[die] {
		// The operation in progress is the die's last queued.
		return 0, false
	}
	return e, true
}

// wentFirst records a read sent first on die from start to done: the
// die's queued work after start starts later by as much.
func (tl *Timeline) wentFirst(die int, start, done int64) {
	d := done - start
	tl.dieBusy[die] += d
	tl.dieFree[die] += d
	tl.ops.delay(die, start, d)
	tl.early.touch(die)
	if tl.regFree != nil {
		tl.regFree[die] = max(tl.regFree[die], done)
	}
	tl.readFree[die] = done
	if tl.suspendLimit > 0 {
		tl.suspends[die]++
	}
}
