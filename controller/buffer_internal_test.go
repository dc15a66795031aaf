package controller

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refBuffer is the write buffer as a sorted list of every release: the
// behaviour writeBuffer must keep.
type refBuffer struct {
	capUnits, used, at int64
	rel                []release
}

func (b *refBuffer) wait(t, n int64, stall *int64) bool {
	t = max(t, b.at)
	slices.SortStableFunc(b.rel, func(x, y release) int { return int(x.at - y.at) })
	for len(b.rel) > 0 && b.rel[0].at <= t {
		b.used -= b.rel[0].units
		b.rel = b.rel[1:]
	}
	for b.used+n > b.capUnits {
		if len(b.rel) == 0 {
			return false
		}
		x := b.rel[0]
		b.rel = b.rel[1:]
		b.used -= x.units
		*stall += max(0, x.at-t)
		t = max(t, x.at)
	}
	b.used += n
	b.at = t
	return true
}

// TestWriteBufferPerDie runs the write buffer beside refBuffer through a
// long stream of programs on dies that always have one in flight: the
// same times and stalls, and each die's queue stays short.
func TestWriteBufferPerDie(t *testing.T) {
	const dies, capUnits = 3, 2048
	r := rand.New(rand.NewPCG(1, 2))
	b := newWriteBuffer(capUnits, dies)
	ref := &refBuffer{capUnits: capUnits}
	var stall, refStall int64
	dieAt := make([]int64, dies)
	now := int64(0)
	for i := range 20_000 {
		n := int64(1 + r.IntN(8))
		got, err := b.wait(now, n, &stall)
		if !ref.wait(now, n, &refStall) {
			if err == nil {
				t.Fatalf("step %d: the reference buffer could not take %d units, writeBuffer could", i, n)
			}
			break
		}
		// Of releases due at the same time on different dies either may
		// be taken first: the units still held once every release due
		// by now is taken agree.
		held, refHeld := b.used, ref.used
		for _, q := range b.queued {
			for _, x := range q.q[q.head:] {
				if x.at <= got {
					held -= x.units
				}
			}
		}
		for _, x := range ref.rel {
			if x.at <= ref.at {
				refHeld -= x.units
			}
		}
		if err != nil || got != ref.at || stall != refStall || held != refHeld {
			t.Fatalf("step %d: wait = %d, %v (held %d, stall %d), want %d (held %d, stall %d)", i, got, err, held, stall, ref.at, refHeld, refStall)
		}
		d := r.IntN(dies)
		dieAt[d] = max(dieAt[d], got) + int64(1+r.IntN(1000))
		b.release(d, dieAt[d], n)
		ref.rel = append(ref.rel, release{at: dieAt[d], units: n})
		now = got + int64(r.IntN(300))
	}
	for d, q := range b.queued {
		if cap(q.q) > 4*capUnits {
			t.Errorf("die %d's queue holds room for %d releases", d, cap(q.q))
		}
	}
	if b.drainedAt() != slices.MaxFunc(append(ref.rel, release{}), func(x, y release) int { return int(x.at - y.at) }).at {
		t.Errorf("drainedAt = %d", b.drainedAt())
	}
}
