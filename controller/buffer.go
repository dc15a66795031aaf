package controller

import "fmt"

// writeBuffer is the controller's write-back buffer, in mapping units:
// a write takes room when its data arrives and each program gives back
// the units it took from the buffer when it ends.
type writeBuffer struct {
	capUnits int64
	used     int64
	at       int64 // writes enter the buffer in order: not before this
	rel      releases
}

// release frees n units at time at (when a program of their data ends).
func (b *writeBuffer) release(at, n int64) { b.rel.push(release{at: at, units: n}) }

// wait returns the earliest time at or after t when n more units fit in
// the buffer, and takes them; stall adds the time spent waiting.
func (b *writeBuffer) wait(t, n int64, stall *int64) (int64, error) {
	t = max(t, b.at)
	for len(b.rel) > 0 && b.rel[0].at <= t {
		b.used -= b.rel.pop().units
	}
	for b.used+n > b.capUnits {
		if len(b.rel) == 0 {
			return 0, fmt.Errorf("controller: write buffer of %d units cannot take %d more", b.capUnits, n)
		}
		x := b.rel.pop()
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
	for _, r := range b.rel {
		t = max(t, r.at)
	}
	return t
}

// reset empties the buffer (its data discarded).
func (b *writeBuffer) reset() { b.rel, b.used = b.rel[:0], 0 }

// release frees units of the write buffer when a program finishes.
type release struct {
	at    int64
	units int64
}

// releases is a min-heap on at, typed so that pushes do not allocate.
type releases []release

func (h *releases) push(r release) {
	*h = append(*h, r)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].at <= a[i].at {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *releases) pop() release {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a[l].at < a[m].at {
			m = l
		}
		if l+1 < n && a[l+1].at < a[m].at {
			m = l + 1
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}
