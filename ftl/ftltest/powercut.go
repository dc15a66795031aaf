package ftltest

import (
	"pgregory.net/rapid"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// powerCut cuts the power at a random point among the flash operations
// since the last flush, rebuilds, and checks the rebuilt mapping against
// the device and the loss the FTL reports against the model.
func (m *machine) powerCut(t *rapid.T) {
	m.drain()
	cut := m.drawCut(t)
	rec, err := m.f.PowerLoss(cut)
	if err != nil {
		t.Fatalf("power loss: %v", err)
	}
	m.f.Advance()
	m.sinceFlush = m.sinceFlush[:0]
	m.checkRebuild(t, rec)
}

// drawCut draws where the cut falls among the latest flash operations
// since the last flush and returns what it did: those decided before it
// have run, the rest have not — programs unfinished, erases not started
// (a controller starts an erase only once the programs decided before it
// have finished: safe erase relies on that). At most one erase a die is
// under way or queued at a cut (a controller issues an erase only after
// the programs before it).
func (m *machine) drawCut(t *rapid.T) ftl.PowerCut {
	g, ops := m.g, m.sinceFlush
	var cut ftl.PowerCut
	first := len(ops)
	erases := map[int32]bool{}
	for first > 0 {
		op := ops[first-1]
		if op.Kind == ftl.OpErase {
			if erases[op.Die] {
				break
			}
			erases[op.Die] = true
		}
		first--
	}
	at := rapid.IntRange(first, len(ops)).Draw(t, "cut_at")
	for _, op := range ops[:at] {
		if op.Kind == ftl.OpErase {
			m.f.ForgetErased(int(op.Block) / g.PlanesPerDie)
		}
	}
	// A program into a group erased later (and so done, without safe
	// erase) went with the erase.
	erasedLater := make([]bool, len(ops))
	gone := map[int32]bool{}
	for i := len(ops) - 1; i >= at; i-- {
		op := ops[i]
		grp := op.Block / int32(g.PlanesPerDie)
		if op.Kind == ftl.OpErase && !m.safe {
			gone[grp] = true
		}
		erasedLater[i] = op.Kind == ftl.OpProgram && gone[grp]
	}
	// With safe erase the erases the cut stops have not started: their
	// groups hold again what they held before the first of them, and the
	// programs decided after it into them never were (not listed).
	unrun := map[int32]bool{}
	if m.safe {
		for _, op := range ops[at:] {
			if op.Kind == ftl.OpErase {
				unrun[op.Block/int32(g.PlanesPerDie)] = true
			}
		}
	}
	// wp and slc are what a block holds pages up to, and its mode, as
	// the rebuild will find it.
	wp := func(pb int) (int, bool) {
		if unrun[int32(pb/g.PlanesPerDie)] {
			w, slc, _ := m.f.KeptImage(pb / g.PlanesPerDie)
			return w, slc
		}
		return m.dev.WritePointer(pb), m.dev.IsSLC(pb)
	}
	// The first program the cut stops may be under way: an upper page's
	// then destroys the pages programmed before it on its word line; the
	// others had not started (their cells are still erased). On a
	// one-shot part every program the cut stops loses the pages before it
	// on its word line (they wait in the die's latches), and so do the
	// word lines whose last page was never sent.
	underWay := rapid.Bool().Draw(t, "under_way")
	if m.oneShot {
		for pb := 0; pb < g.Blocks(); pb++ {
			if w, slc := wp(pb); w%m.wlPages != 0 && w != g.PagesPerBlock && !m.f.Retired(pb/g.PlanesPerDie) && !slc {
				for q := w - w%m.wlPages; q < w; q++ {
					cut.Corrupted = append(cut.Corrupted, ftl.PageRef{Block: pb, Page: q})
				}
			}
		}
	}
	erasing := map[int32]bool{} // groups past their first erase not started
	for i, op := range ops[at:] {
		grp := op.Block / int32(g.PlanesPerDie)
		if erasedLater[at+i] || (op.Kind == ftl.OpProgram && erasing[grp]) {
			continue
		}
		started := false
		if op.Kind == ftl.OpProgram && op.SLC {
			started, underWay = underWay, false // a page a word line: it takes no other with it
		} else if op.Kind == ftl.OpProgram && (underWay || m.oneShot) {
			started, underWay = underWay, false
			for q := int(op.Page) - int(op.Page)%m.wlPages; q < int(op.Page); q++ {
				for p := 0; p < int(op.Planes); p++ {
					cut.Corrupted = append(cut.Corrupted, ftl.PageRef{Block: int(op.Block) + p, Page: q})
				}
			}
		}
		switch {
		case op.Kind == ftl.OpErase && !m.safe:
			// Without safe erase a controller issues an erase at once:
			// here it has run, before programs decided earlier (the
			// hazard safe erase removes).
			m.f.ForgetErased(int(grp))
			continue
		case op.Kind == ftl.OpErase:
			cut.Unerased = append(cut.Unerased, int(grp))
			erasing[grp] = true
			continue
		}
		for p := 0; p < int(op.Planes); p++ {
			ref := ftl.PageRef{Block: int(op.Block) + p, Page: int(op.Page)}
			cut.Unfinished = append(cut.Unfinished, ref)
			if !started {
				cut.Unstarted = append(cut.Unstarted, ref)
			}
		}
	}
	return cut
}

// checkRebuild checks the mapping rebuilt after a cut: each unit maps to
// its newest surviving copy, found here by a scan of the device's OOB
// areas; with safe erase every write a flush made durable reads back (or
// a later one); and the loss rec reports is what reads show. The model
// then takes what survived.
func (m *machine) checkRebuild(t *rapid.T, rec ftl.Recovery) {
	g, dev, user := m.g, m.dev, m.user
	want := make([]int64, user)
	for i := range want {
		want[i] = -1
	}
	for u := int64(0); u < int64(g.Units()); u++ {
		pb, page := dev.Locate(u)
		tag := dev.Tag(u)
		if page >= dev.WritePointer(pb) || tag == nand.NoTag || int64(tag) >= user {
			continue
		}
		if w := want[tag]; w < 0 || int32(dev.Seq(u)-dev.Seq(w)) > 0 {
			want[tag] = u
		}
	}
	var lost, lostFlushed, resurrected int64
	for x := int64(0); x < user; x++ {
		loc, err := m.f.Read(x)
		if err != nil {
			t.Fatalf("read %d after the cut: %v", x, err)
		}
		if want[x] < 0 {
			if loc.Mapped {
				t.Fatalf("unit %d mapped after the rebuild, but no copy survives", x)
			}
		} else if !loc.Mapped || dev.Data(want[x]) != loc.Token {
			t.Fatalf("unit %d reads version %d (mapped %v); its newest surviving copy holds %d", x, loc.Token, loc.Mapped, dev.Data(want[x]))
		}
		// Every write that was durable reads back (with safe erase:
		// otherwise moved data can be lost with its source erased), or a
		// later one of the same unit.
		if m.safe && m.durable[x] != 0 && (!loc.Mapped || loc.Token < m.durable[x] || loc.Token > m.model[x]) {
			t.Fatalf("unit %d: durable version %d, latest %d, reads %d after the cut (mapped %v)", x, m.durable[x], m.model[x], loc.Token, loc.Mapped)
		}
		switch {
		case m.model[x] != 0 && loc.Token != m.model[x]:
			lost++
			if m.durable[x] == m.model[x] {
				lostFlushed++
			}
		case m.model[x] == 0 && loc.Mapped:
			resurrected++
		}
		m.model[x], m.durable[x] = loc.Token, loc.Token
	}
	if lostFlushed != rec.LostFlushedUnits {
		t.Fatalf("the rebuild reports %d flushed units lost; %d read other than their flushed latest write", rec.LostFlushedUnits, lostFlushed)
	}
	if lost != rec.LostUnits || resurrected != rec.ResurrectedUnits {
		t.Fatalf("the rebuild reports %d units lost and %d resurrected; %d read other than their latest write and %d trimmed read data",
			rec.LostUnits, rec.ResurrectedUnits, lost, resurrected)
	}
}
