// Package mintree keeps the least of n values in a tournament tree: a
// change costs a walk from its leaf towards the root, finding the least
// (and the first index holding a value at most a bound) a walk down. The
// simulator asks it which die frees up first and which program in flight
// ends first, many times a page, on drives of up to hundreds of dies.
package mintree

import "math"

// Empty is the value of a leaf that holds nothing: it is never the
// least while any leaf holds a value.
const Empty = math.MaxInt64

// Tree is a tournament tree over n leaves. Build one with New.
type Tree struct {
	leaves int     // a power of two, at least n
	node   []int64 // node[1] is the root, node[leaves+i] leaf i; unused leaves hold Empty
}

// New returns a tree of n ≥ 1 leaves, each holding v.
func New(n int, v int64) Tree {
	l := 1
	for l < n {
		l <<= 1
	}
	t := Tree{leaves: l, node: make([]int64, 2*l)}
	t.Fill(n, v)
	return t
}

// Fill sets the first n leaves (all the tree's) to v.
func (t *Tree) Fill(n int, v int64) {
	for i := range t.leaves {
		t.node[t.leaves+i] = Empty
		if i < n {
			t.node[t.leaves+i] = v
		}
	}
	for i := t.leaves - 1; i > 0; i-- {
		t.node[i] = min(t.node[2*i], t.node[2*i+1])
	}
}

// Set sets leaf i to v.
func (t *Tree) Set(i int, v int64) {
	i += t.leaves
	t.node[i] = v
	for i > 1 {
		i >>= 1
		m := min(t.node[2*i], t.node[2*i+1])
		if t.node[i] == m {
			return // the minima above are unchanged too
		}
		t.node[i] = m
	}
}

// Get returns leaf i's value.
func (t *Tree) Get(i int) int64 { return t.node[t.leaves+i] }

// Min returns the least value (Empty when every leaf is).
func (t *Tree) Min() int64 { return t.node[1] }

// ArgMin returns the lowest leaf holding the least value.
func (t *Tree) ArgMin() int {
	i, m := 1, t.node[1]
	for i < t.leaves {
		i <<= 1
		if t.node[i] != m {
			i++
		}
	}
	return i - t.leaves
}

// First returns the lowest leaf from `from` on whose value is at most m,
// or -1 when there is none.
func (t *Tree) First(from int, m int64) int {
	i := t.leaves + from
	for t.node[i] > m {
		for i&1 == 1 { // a right child: the leaves after it start further up
			i >>= 1
		}
		if i <= 1 {
			return -1
		}
		i++ // the sibling to the right
	}
	for i < t.leaves {
		i <<= 1
		if t.node[i] > m {
			i++
		}
	}
	return i - t.leaves
}
