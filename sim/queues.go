package sim

import "github.com/ftlsim/ftlsim/workload"

// The engine's queues: its event heap, and the host's view of the
// drive's command queues.

// event is a pending completion.
type event struct {
	at     int64
	seq    uint64
	req    workload.Item
	iss    int64 // when it was issued (arrival at the host queue)
	stream int32
}

// events are the pending completions: a min-heap on (at, seq) of small
// keys, each naming the slot that holds its event, so that sifting moves
// 24 bytes rather than a whole event (112: it carries its request). It is
// written out for its type, like the controller's release queue: a
// generic heap calls Less through a dictionary and measured 10 % slower
// on the per-request path.
type events struct {
	keys []evKey
	slot []event // by slot; a slot is free once its event is popped
	free []int32 // free slots
}

// evKey is an event's place in the heap.
type evKey struct {
	at   int64
	seq  uint64
	slot int32
}

// len is the number of pending events.
func (h *events) len() int { return len(h.keys) }

// nextAt is when the first pending event is due; there must be one.
func (h *events) nextAt() int64 { return h.keys[0].at }

// reset drops every pending event.
func (h *events) reset() {
	h.keys, h.slot, h.free = h.keys[:0], h.slot[:0], h.free[:0]
}

// each calls fn with every pending event, in no particular order.
func (h *events) each(fn func(*event)) {
	for _, k := range h.keys {
		fn(&h.slot[k.slot])
	}
}

func (a evKey) less(b evKey) bool { return a.at < b.at || (a.at == b.at && a.seq < b.seq) }

func (h *events) push(e event) {
	var sl int32
	if n := len(h.free); n > 0 {
		sl = h.free[n-1]
		h.free = h.free[:n-1]
		h.slot[sl] = e
	} else {
		sl = int32(len(h.slot))
		h.slot = append(h.slot, e)
	}
	k := evKey{at: e.at, seq: e.seq, slot: sl}
	a := append(h.keys, k)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !k.less(a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = k
	h.keys = a
}

func (h *events) pop() event {
	a := h.keys
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	if n > 0 {
		i := 0
		for {
			l := 2*i + 1
			if l >= n {
				break
			}
			m := l
			if l+1 < n && a[l+1].less(a[l]) {
				m = l + 1
			}
			if !a[m].less(last) {
				break
			}
			a[i] = a[m]
			i = m
		}
		a[i] = last
	}
	h.keys = a
	h.free = append(h.free, top.slot)
	return h.slot[top.slot]
}

type pending struct {
	it     workload.Item
	iss    int64
	stream int32
}

// hostQueue is one command queue: the requests waiting on the host for
// room in it (a FIFO over a slice) and its commands at the drive.
type hostQueue struct {
	wait []pending
	head int
	out  int // commands at the drive
}

// queued reports whether requests wait for room in the queue.
func (q *hostQueue) queued() bool { return q.head < len(q.wait) }

// compact moves the waiting tail to the front once the consumed head is
// at least half of the slice, so that the slice stays within twice the
// most requests ever waiting (with more outstanding than the queue
// holds, it never empties and would otherwise grow for ever).
func (q *hostQueue) compact() {
	if q.head == len(q.wait) {
		q.wait, q.head = q.wait[:0], 0
	} else if q.head >= 64 && 2*q.head >= len(q.wait) {
		n := copy(q.wait, q.wait[q.head:])
		q.wait, q.head = q.wait[:n], 0
	}
}
