package controller

import (
	"fmt"

	"github.com/ftlsim/ftlsim/internal/mintree"
)

// writeBuffer is the controller's write-back buffer, in mapping units:
// a write takes room when its data arrives and each program gives back
// the units it took from the buffer when it ends.
//
// A die's programs end in the order they are booked, so the releases are
// kept per die, in order, and a tournament tree over the dies holds
// each die's first: taking the earliest release costs a walk over the
// dies' tree, not a heap of every program in flight.
type writeBuffer struct {
	capUnits int64
	used     int64
	at       int64         // writes enter the buffer in order: not before this
	queued   []dieReleases // per die: the releases to come, oldest first
	first    mintree.Tree  // per die: when its first release is due (mintree.Empty: none)
	pending  int           // releases to come, all dies
}

// dieReleases is one die's releases to come, oldest first.
type dieReleases struct {
	q    []release
	head int
}

func newWriteBuffer(capUnits int64, dies int) writeBuffer {
	return writeBuffer{capUnits: capUnits, queued: make([]dieReleases, dies), first: mintree.New(dies, mintree.Empty)}
}

// release frees n units at time at, when a program of their data on die
// ends; a die's releases come in the order they end.
func (b *writeBuffer) release(die int, at, n int64) {
	q := &b.queued[die]
	if q.head == len(q.q) {
		b.first.Set(die, at)
	} else if checkInvariants && at < q.q[len(q.q)-1].at {
		panic(fmt.Sprintf("controller: die %d's program ending at %d was booked after one ending at %d", die, at, q.q[len(q.q)-1].at))
	}
	q.q = append(q.q, release{at: at, units: n})
	b.pending++
}

// delay moves die's releases due after t later by d: the programs they
// wait for start later, after a read sent before them
// (Firmware.ReadPriority).
func (b *writeBuffer) delay(die int, t, d int64) {
	q := &b.queued[die]
	if q.head == len(q.q) || q.q[len(q.q)-1].at <= t {
		return
	}
	for i := q.head; i < len(q.q); i++ {
		if q.q[i].at > t {
			q.q[i].at += d
		}
	}
	b.first.Set(die, q.q[q.head].at)
}

// pop takes the earliest release (of several due at once, the lowest
// die's); there must be one.
func (b *writeBuffer) pop() release {
	d := b.first.ArgMin()
	q := &b.queued[d]
	x := q.q[q.head]
	switch q.head++; {
	case q.head == len(q.q):
		q.q, q.head = q.q[:0], 0
		b.first.Set(d, mintree.Empty)
	case q.head >= 64 && 2*q.head >= len(q.q):
		// A die that always has programs in flight never empties its
		// queue: the releases taken make room for more.
		q.q, q.head = q.q[:copy(q.q, q.q[q.head:])], 0
		fallthrough
	default:
		b.first.Set(d, q.q[q.head].at)
	}
	b.pending--
	return x
}

// wait returns the earliest time at or after t when n more units fit in
// the buffer, and takes them; stall adds the time spent waiting.
func (b *writeBuffer) wait(t, n int64, stall *int64) (int64, error) {
	t = max(t, b.at)
	for b.pending > 0 && b.first.Min() <= t {
		b.used -= b.pop().units
	}
	for b.used+n > b.capUnits {
		if b.pending == 0 {
			return 0, fmt.Errorf("controller: write buffer of %d units cannot take %d more", b.capUnits, n)
		}
		x := b.pop()
		b.used -= x.units
		*stall += max(0, x.at-t)
		t = max(t, x.at)
	}
	b.used += n
	b.at = t
	return t, nil
}

// drainedAt returns when the last program of buffered data ends: the
// time from which everything the buffer took is on flash.
func (b *writeBuffer) drainedAt() int64 {
	var t int64
	for _, q := range b.queued {
		if q.head < len(q.q) {
			t = max(t, q.q[len(q.q)-1].at)
		}
	}
	return t
}

// reset empties the buffer (its data discarded).
func (b *writeBuffer) reset() {
	for i := range b.queued {
		b.queued[i].q, b.queued[i].head = b.queued[i].q[:0], 0
	}
	b.first.Fill(len(b.queued), mintree.Empty)
	b.used, b.pending = 0, 0
}

// release frees units of the write buffer when a program finishes.
type release struct {
	at    int64
	units int64
}
