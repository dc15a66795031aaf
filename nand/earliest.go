package nand

import "math"

// earliest keeps the dies' queued-work end times (Timeline.dieFree) in a
// tournament tree, so that EarliestDie finds the die that frees up first
// in a few steps whatever the number of dies, rather than by reading all
// of them: a 480-die drive chooses a die for every page it writes. The
// bookings only mark the dies they move (touch); the tree takes their
// new times when it is next asked.
type earliest struct {
	leaves int     // a power of two, at least the number of dies
	node   []int64 // node[1] is the root, node[leaves+d] die d's time; unused leaves hold MaxInt64
	dirty  []int32 // dies whose time changed since the tree last took them
	marked []bool  // per die: in dirty
}

func newEarliest(dies int) earliest {
	n := 1
	for n < dies {
		n <<= 1
	}
	e := earliest{leaves: n, node: make([]int64, 2*n), marked: make([]bool, dies), dirty: make([]int32, 0, dies)}
	for i := n + dies; i < 2*n; i++ {
		e.node[i] = math.MaxInt64
	}
	for i := n - 1; i > 0; i-- {
		e.node[i] = min(e.node[2*i], e.node[2*i+1])
	}
	return e
}

// touch records that die's time changed.
func (e *earliest) touch(die int) {
	if !e.marked[die] {
		e.marked[die] = true
		e.dirty = append(e.dirty, int32(die))
	}
}

// reset makes every die's time 0.
func (e *earliest) reset(dies int) {
	clear(e.marked)
	e.dirty = e.dirty[:0]
	clear(e.node[e.leaves : e.leaves+dies])
	for i := e.leaves - 1; i > 0; i-- {
		e.node[i] = min(e.node[2*i], e.node[2*i+1])
	}
}

// update takes the times of the dies marked since the last update.
func (e *earliest) update(free []int64) {
	for _, d := range e.dirty {
		e.marked[d] = false
		i := e.leaves + int(d)
		e.node[i] = free[d]
		for i > 1 {
			i >>= 1
			m := min(e.node[2*i], e.node[2*i+1])
			if e.node[i] == m {
				break // the minima above are unchanged too
			}
			e.node[i] = m
		}
	}
	e.dirty = e.dirty[:0]
}

// first returns the lowest die from `from` on (leaves from, from+1, …)
// whose time is at most m, or -1 when there is none.
func (e *earliest) first(from int, m int64) int {
	i := e.leaves + from
	for e.node[i] > m {
		for i&1 == 1 { // a right child: the range after it starts further up
			i >>= 1
		}
		if i <= 1 {
			return -1
		}
		i++ // the sibling to the right
	}
	for i < e.leaves {
		i <<= 1
		if e.node[i] > m {
			i++
		}
	}
	return i - e.leaves
}

// EarliestDie returns the die that finishes its queued work first (the
// least DieFree): of those that tie, the first from die `from` on, in
// turn (from, from+1, …, the last die, 0, 1, …). from must be a die.
func (tl *Timeline) EarliestDie(from int) int {
	e := &tl.early
	e.update(tl.dieFree)
	m := e.node[1]
	if d := e.first(from, m); d >= 0 {
		return d
	}
	return e.first(0, m)
}
