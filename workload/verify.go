package workload

import (
	"github.com/google/btree"
)

// Verifier is a Source that verifies (fio's verify): before it starts,
// the engine tells it the drive's logical unit, in which it then records
// what it wrote, as the drive keeps data (a write to part of a unit
// rewrites the whole unit). Each verify read it issues (Item.Verify)
// covers units that must all hold Item.Expect, the token of the last write
// the source made to them.
type Verifier interface {
	SetDeviceUnit(bytes int64)
}

// extent is a run of blocks [start, end) that one write left, and that
// write's token.
type extent struct {
	start, end int64
	token      uint32
}

// written records which blocks a job wrote last with which token, as
// extents ordered by start: a sequential job keeps one extent a write, a
// random one one a block it wrote, never one a block of its range.
type written struct {
	t   *btree.BTreeG[extent]
	hit []extent // scratch for cut
}

func newWritten() *written {
	return &written{t: btree.NewG(32, func(a, b extent) bool { return a.start < b.start })}
}

// cut removes blocks [a, b) from every extent, keeping the parts outside.
func (w *written) cut(a, b int64) {
	w.hit = w.hit[:0]
	// The extent that starts at or before a may reach into [a, b).
	w.t.DescendLessOrEqual(extent{start: a}, func(e extent) bool {
		if e.end > a {
			w.hit = append(w.hit, e)
		}
		return false
	})
	w.t.AscendRange(extent{start: a + 1}, extent{start: b}, func(e extent) bool {
		w.hit = append(w.hit, e)
		return true
	})
	for _, e := range w.hit {
		w.t.Delete(e)
		if e.start < a {
			w.t.ReplaceOrInsert(extent{e.start, a, e.token})
		}
		if e.end > b {
			w.t.ReplaceOrInsert(extent{b, e.end, e.token})
		}
	}
}

// write records blocks [a, b) as written with token.
func (w *written) write(a, b int64, token uint32) {
	w.cut(a, b)
	w.t.ReplaceOrInsert(extent{a, b, token})
}

// from returns the first written block at or after b, the end of its
// extent and its token; ok is false when nothing is written there.
func (w *written) from(b int64) (start, end int64, token uint32, ok bool) {
	w.t.DescendLessOrEqual(extent{start: b}, func(e extent) bool {
		if e.end > b {
			start, end, token, ok = b, e.end, e.token, true
		}
		return false
	})
	if ok {
		return
	}
	w.t.AscendGreaterOrEqual(extent{start: b}, func(e extent) bool {
		start, end, token, ok = e.start, e.end, e.token, true
		return false
	})
	return
}
