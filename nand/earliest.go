package nand

import "github.com/ftlsim/ftlsim/internal/mintree"

// earliest keeps the dies' queued-work end times (Timeline.dieFree) in a
// tournament tree, so that EarliestDie finds the die that frees up first
// in a few steps whatever the number of dies, rather than by reading all
// of them: a 480-die drive chooses a die for every page it writes. The
// bookings only mark the dies they move (touch); the tree takes their
// new times when it is next asked.
type earliest struct {
	tree   mintree.Tree
	dirty  []int32 // dies whose time changed since the tree last took them
	marked []bool  // per die: in dirty
}

func newEarliest(dies int) earliest {
	return earliest{tree: mintree.New(dies, 0), marked: make([]bool, dies), dirty: make([]int32, 0, dies)}
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
	e.tree.Fill(dies, 0)
}

// EarliestDie returns the die that finishes its queued work first (the
// least DieFree): of those that tie, the first from die `from` on, in
// turn (from, from+1, …, the last die, 0, 1, …). from must be a die.
func (tl *Timeline) EarliestDie(from int) int {
	e := &tl.early
	for _, d := range e.dirty {
		e.marked[d] = false
		e.tree.Set(int(d), tl.dieFree[d])
	}
	e.dirty = e.dirty[:0]
	m := e.tree.Min()
	if d := e.tree.First(from, m); d >= 0 {
		return d
	}
	return e.tree.First(0, m)
}
