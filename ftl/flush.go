package ftl

import (
	"errors"
	"fmt"

	"github.com/ftlsim/ftlsim/nand"
)

// Flushing, and the word lines SafeErase protects: a page programmed on
// MLC, TLC or QLC flash is at rest only once the last page of its word
// line is, and a flush pads what it leaves half programmed.

// Flush programs every partly filled page, padding it, as a controller
// does on a cache flush or before power-off: every host write before it
// is durable. With SafeErase it also closes every half programmed word
// line of the host's groups, padding its remaining pages, so that no
// later program can destroy what the flush made durable.
func (f *FTL) Flush() error { return f.eachPoint(f.flush) }

// flush is Flush of the write points being served.
func (f *FTL) flush() error {
	if f.readOnly {
		// Nothing can be programmed: what is staged stays in controller
		// memory, and on a one-shot part the pages of a half programmed
		// word line stay in the die's latches: not durable. The rest is
		// on flash.
		if f.host.n > 0 || f.gcStaged() > 0 {
			return fmt.Errorf("%w: the flush cannot program what is staged", ErrReadOnly)
		}
		if f.latchedHost() {
			return fmt.Errorf("%w: the flush cannot program the last page of a half programmed word line", ErrReadOnly)
		}
		f.flushSeq = f.wseq
		return nil
	}
	if err := f.pad(&f.host, HostStream); err != nil {
		return err
	}
	for d := range f.gc {
		if err := f.pad(&f.gc[d], GCStream); err != nil {
			return err
		}
	}
	if f.wl > 1 {
		// The host's word lines only: the units moved into the GC
		// groups' still have their old copies, which wait for those
		// lines to close (eraseDep).
		if err := f.closeHostWordLines(); err != nil {
			return err
		}
	}
	f.flushSeq = f.wseq
	return nil
}

// latchedHost reports, on a one-shot part, whether an open host group
// has a half programmed word line: its pages wait in the die's latches
// for the word line's last page, which programs them all.
func (f *FTL) latchedHost() bool {
	if f.latchWL == 0 {
		return false
	}
	for _, g := range f.open[HostStream] {
		if g < 0 || f.isSLC(g) {
			continue
		}
		if wp := f.groupWP(g); wp%f.latchWL != 0 && wp != f.ppb {
			return true
		}
	}
	return false
}

// WriteSeq returns the number of the latest host write (each write's
// data carries its number into the OOB area); a flush makes every write
// up to it durable.
func (f *FTL) WriteSeq() uint32 { return f.wseq }

// trackWordLine notes that page of group g was just programmed, by the
// program numbered prog of its stage: the first page of a word line opens
// it, the last closes it.
func (f *FTL) trackWordLine(g int32, page int, prog uint64) {
	switch {
	case (page+1)%f.wl == 0 || page+1 == f.ppb:
		if f.wlOpen[g] != 0 {
			f.wlOpen[g] = 0
			f.nwlOpen--
		}
	case page%f.wl == 0:
		f.wlOpen[g] = prog
		f.nwlOpen++
	}
}

// closeWordLines pads every half programmed word line of the open groups
// to its end (SafeErase on MLC, TLC and QLC flash), programming first the
// pages being filled.
func (f *FTL) closeWordLines() error {
	if f.nwlOpen == 0 {
		return nil
	}
	for st := range f.open {
		for d := range f.open[st] {
			if err := f.closeWordLine(Stream(st), d); err != nil {
				return err
			}
		}
	}
	return nil
}

// SettlePending is for a drive gone idle, with SafeErase: when cleaned
// victims wait for their erase, it programs the pages being filled
// (padded), closes the half programmed word lines, and erases them. It
// reports whether there were any.
func (f *FTL) SettlePending() (bool, error) {
	if f.npending == 0 || f.readOnly {
		return false, nil
	}
	err := f.eachHost(func() error {
		if err := f.pad(&f.host, HostStream); err != nil {
			return err
		}
		for d := range f.gc {
			if err := f.pad(&f.gc[d], GCStream); err != nil {
				return err
			}
		}
		return f.closeWordLines()
	})
	if err != nil {
		return true, err
	}
	return true, f.erasePendingReady()
}

// closeHostWordLines closes the half programmed word lines of the host's
// open groups on every die (closeWordLine).
func (f *FTL) closeHostWordLines() error {
	for d := range f.open[HostStream] {
		if err := f.closeWordLine(HostStream, d); err != nil {
			return err
		}
	}
	return nil
}

// closeWordLine programs the page stream st is filling on die d, padded,
// and pads the half programmed word line of its open group there, if any.
func (f *FTL) closeWordLine(st Stream, d int) error {
	s := &f.host
	if st == GCStream {
		s = &f.gc[d]
	}
	for g := f.open[st][d]; g >= 0 && f.wlOpen[g] != 0; g = f.open[st][d] {
		if s.n > 0 {
			if err := f.pad(s, st); err != nil {
				return err
			}
			continue
		}
		s.group, s.page = g, int32(f.groupWP(g))
		for s.n < int32(f.pageUnits) {
			s.tags[s.n], s.data[s.n] = nand.NoTag, 0
			s.n++
		}
		f.cnt.PaddedUnits += int64(f.pageUnits)
		if err := f.program(s, st); err != nil {
			return err
		}
	}
	return nil
}

// pad fills the rest of stage s's page with empty units and programs it.
func (f *FTL) pad(s *stage, cause Stream) error {
	if s.group < 0 || s.n == 0 {
		return nil
	}
	for s.n < int32(f.pageUnits) {
		s.tags[s.n], s.data[s.n] = nand.NoTag, 0
		s.n++
		f.cnt.PaddedUnits++
	}
	return f.program(s, cause)
}

// closeAtMount closes, while a drive mounts after a power cut and before
// anything is erased, the word lines left half programmed: the newest
// copy of some data may be on their first pages. The host's hold what it
// wrote. A GC word line's copy is not taken while its source survives
// (see rebuild), but is the only one left once the source was erased
// with nothing valid in it (data trimmed, which the scan finds again),
// and what the rebuild maps must be as durable as a flush makes it: such
// a word line is closed too, and only such a one (padding a GC word line
// that holds nothing mapped would spend flash for nothing: on a part
// whose block is one word line, a block a cut). A program that fails
// there with no free group left to take the page again leaves the drive
// read-only: it mounts so, and no program can then destroy what the open
// word lines hold.
func (f *FTL) closeAtMount() error {
	if f.wl == 1 || f.readOnly {
		return nil
	}
	err := f.eachPoint(func() error {
		if err := f.closeHostWordLines(); err != nil {
			return err
		}
		for d, g := range f.open[GCStream] {
			if g < 0 || f.wlOpen[g] == 0 || !f.openWordLineHoldsData(g) {
				continue
			}
			if err := f.closeWordLine(GCStream, d); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, ErrReadOnly) {
		return nil
	}
	return err
}

// openWordLineHoldsData reports whether a unit programmed on group g's
// half programmed word line is valid (mapped).
func (f *FTL) openWordLineHoldsData(g int32) bool {
	wp := f.groupWP(g)
	for page := wp - wp%f.wl; page < wp; page++ {
		base := int64(g)*int64(f.upg) + int64(page)*int64(f.pageUnits)
		if f.dev.ValidMask(base, f.pageUnits) != 0 {
			return true
		}
	}
	return false
}
