package ftl

import "fmt"

// WriteRun is WriteHandle of the n ≥ 1 logical units lba, lba+1, …,
// each stored in one device unit (UnitSlots 1) with data token: it
// writes them in order exactly as that many calls would, and returns,
// with the number it wrote, after the first that programs the host page
// or decides other flash work (Ready then holds it; the caller carries it
// out before it writes on), or that fails. die is the die of the host
// page the first unit opens, if it opens one (OpensPageHandle); a caller
// that chooses dies calls WriteRun again, with the next page's, for the
// rest. A sequential write's units cost a few stores each.
func (f *FTL) WriteRun(h, die int, lba int64, token uint32, n int) (int, error) {
	if f.k != 1 || n < 1 {
		return 0, fmt.Errorf("%w: a run of %d units of %d slots (runs take 1 or more units of one slot)", ErrRange, n, f.k)
	}
	if f.fdp == nil {
		if h != 0 {
			return 0, fmt.Errorf("%w: handle %d, the drive has no placement handles", ErrPlacement, h)
		}
		return f.writeRun(die, lba, token, n)
	}
	if uint(h) >= uint(len(f.fdp.host)) {
		return 0, fmt.Errorf("%w: handle %d, the drive has %d", ErrPlacement, h, len(f.fdp.host))
	}
	if err := f.useHost(h); err != nil {
		return 0, err
	}
	before := f.cnt.HostWriteUnits
	done, err := f.writeRun(die, lba, token, n)
	f.fdp.stats[h].HostUnits += f.cnt.HostWriteUnits - before
	return done, err
}

// writeRun is WriteRun on the active host write point. The units that go
// into the open host page of a drive in the common state (no SLC cache,
// nothing lost, writable) take the short way, the steps of write without
// the checks that cannot fire (runPage); any other goes through write.
func (f *FTL) writeRun(die int, lba int64, token uint32, n int) (int, error) {
	s := &f.host
	done := 0
	for done < n {
		l := lba + int64(done)
		common := f.slc == nil && f.lost == nil && !f.readOnly && uint64(l) < uint64(len(f.l2p))
		switch {
		case common && s.group >= 0 && int(s.n) < f.pageUnits:
			m, err := f.runPage(s, l, token, n-done)
			done += m
			if err != nil {
				return done, err
			}
		case common && s.group < 0:
			// write's steps for a unit that opens the host page: the old
			// copy goes first unless it goes late (lateUnmap: runPage
			// lets it go, with the page open).
			if !f.lateUnmap && f.l2p.at(l) != Unmapped {
				if err := f.unmap(l, false); err != nil {
					return done, err
				}
			}
			if err := f.openHostPage(die); err != nil {
				return done, err
			}
			k := n - done
			if len(f.ops) > 0 {
				k = 1 // collection ran to open it: its work is carried out before the next unit
			}
			m, err := f.runPage(s, l, token, k)
			done += m
			if err != nil {
				return done, err
			}
		default:
			if err := f.write(l, token, 1, die); err != nil {
				return done, err
			}
			done++
		}
		if s.group < 0 || len(f.ops) > 0 {
			break
		}
	}
	return done, nil
}

// runPage places up to n units from lba in the open host page s, as
// write would place them one by one, and programs the page if they fill
// it; it returns how many it placed. The old copy of each goes first
// (early and late unmapping coincide with the page open).
func (f *FTL) runPage(s *stage, lba int64, token uint32, n int) (int, error) {
	k0 := int(s.n)
	m := min(n, f.pageUnits-k0, len(f.l2p)-int(lba))
	at := uint32(int64(s.group)*int64(f.upg) + int64(s.page)*int64(f.pageUnits) + int64(k0))
	l2p := f.l2p[lba : lba+int64(m)]
	tags, data, seqs := s.tags[k0:k0+m], s.data[k0:k0+m], s.seqs[k0:k0+m]
	w := f.wseq
	f.mapClean = false
	for j := range l2p {
		if l2p.at(int64(j)) != Unmapped {
			if err := f.unmap(lba+int64(j), false); err != nil {
				f.placed(s, j)
				return j, err
			}
		}
		w++
		tags[j], data[j], seqs[j] = uint32(lba)+uint32(j), token, w
		l2p.set(int64(j), at+uint32(j))
	}
	f.placed(s, m)
	if int(s.n) < f.pageUnits {
		return m, nil
	}
	d := int(s.group) / f.gpd
	if err := f.program(s, HostStream); err != nil {
		return m, err
	}
	return m, f.hostPageDone(d)
}

// placed counts m units writeRun placed in the host stage s.
func (f *FTL) placed(s *stage, m int) {
	f.cnt.HostWriteUnits += int64(m)
	f.cnt.HostRawSlots += int64(m)
	f.cnt.HostSlots += int64(m)
	s.host += int32(m)
	s.n += int32(m)
	f.wseq += uint32(m)
}
