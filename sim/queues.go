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

// events is a min-heap on (at, seq). It is written out for its type, like
// the controller's release queue: a generic heap calls Less through a
// dictionary and measured 10 % slower on the per-request path.
type events []event

func (h events) less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}

func (h *events) push(e event) {
	*h = append(*h, e)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *events) pop() event {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a.less(l, m) {
			m = l
		}
		if l+1 < n && a.less(l+1, m) {
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
