package nand

import "fmt"

// What a power cut leaves: pages it destroyed, erases it undid, blocks it
// left erased, and the validity a rebuild decides anew.

// Corrupt makes page p of physical block pb unreadable, as a program cut
// short by power loss leaves it (or its paired lower page): its units
// lose their tags and validity. The page stays programmed.
func (d *Device) Corrupt(pb, page int) error {
	if pb < 0 || pb >= d.nblk || page < 0 || page >= int(d.wp[pb]) {
		return fmt.Errorf("%w: corrupt block %d page %d (write pointer %d)", ErrRange, pb, page, d.wp[pb])
	}
	u := d.Unit(pb, page, 0)
	for s := int64(0); s < int64(d.upp); s++ {
		if d.IsValid(u + s) {
			d.vbit[(u+s)>>6] &^= 1 << ((u + s) & 63)
			d.valid[pb]--
		}
		if d.ntags != nil {
			d.ntags.set(u+s, NoTag)
		}
	}
	return nil
}

// Restore undoes the erase of physical block pb that a power cut stopped
// before it ran: the block holds again its first wp pages, whose tags,
// write sequences and payload tokens are given for the block's whole
// plane group (indexed by unit within the group), every unit invalid (a
// rebuild decides which are live), and its erase is not counted. slc is
// the mode the block was in (SetSLC). A block that went bad on that erase
// is good again: the erase, and so its failure, never happened (a bad
// block is never erased, so its mark can only have come from this one).
func (d *Device) Restore(pb, wp int, slc bool, tags, seqs, data []uint32) error {
	if pb < 0 || pb >= d.nblk || wp < 0 || wp > d.ppb || len(tags) != d.upg || len(seqs) != d.upg || len(data) != d.upg {
		return fmt.Errorf("%w: restore block %d to %d pages", ErrRange, pb, wp)
	}
	if d.ntags == nil {
		return fmt.Errorf("%w: restore block %d: the device keeps no tags (Config.DropTags)", ErrRange, pb)
	}
	if d.IsSLC(pb) != slc {
		d.wp[pb] = 0 // whatever was programmed since is undone below
		if err := d.SetSLC(pb, slc); err != nil {
			return err
		}
	}
	base := int64(pb/d.np) * int64(d.upg)
	for page := 0; page < d.ppb; page++ {
		for s := 0; s < d.upp; s++ {
			u := d.Unit(pb, page, s)
			d.vbit[u>>6] &^= 1 << (u & 63)
			d.ntags.set(u, NoTag)
			if page < wp {
				i := u - base
				d.ntags.set(u, tags[i])
				if d.seqs != nil {
					d.seqs[u], d.data[u] = seqs[i], data[i]
				}
			}
		}
	}
	d.valid[pb] = 0
	d.wp[pb] = uint16(wp)
	if d.bad != nil && d.bad[pb] {
		d.bad[pb] = false
		d.grown--
	}
	if d.slc != nil && d.slc[pb] {
		if d.slcErases[pb] > 0 {
			d.slcErases[pb]--
		}
	} else if d.erases[pb] > 0 {
		d.erases[pb]--
	}
	return nil
}

// Unprogram rolls physical block pb back to erased, as a power cut leaves
// a block none of whose programs since its last erase had started: its
// cells are still erased. Its write pointer goes back to 0, its pages
// lose their tags and validity, and its reads since that erase (which
// could only follow the programs) are forgotten; that erase ran and was
// counted when it was done, so no erase is counted. The block keeps its
// mode (SetSLC).
func (d *Device) Unprogram(pb int) error {
	if pb < 0 || pb >= d.nblk {
		return fmt.Errorf("%w: unprogram block %d", ErrRange, pb)
	}
	for page := 0; page < int(d.wp[pb]); page++ {
		for s := 0; s < d.upp; s++ {
			u := d.Unit(pb, page, s)
			d.vbit[u>>6] &^= 1 << (u & 63)
			if d.ntags != nil {
				d.ntags.set(u, NoTag)
			}
		}
	}
	d.valid[pb] = 0
	d.wp[pb] = 0
	if d.reads != nil {
		d.reads[pb] = 0
	}
	return nil
}

// SetValid marks programmed unit u valid or invalid, whatever it was: a
// rebuild after power loss decides anew which copies are live.
func (d *Device) SetValid(u int64, valid bool) error {
	if u < 0 || u >= d.units {
		return fmt.Errorf("%w: unit %d", ErrRange, u)
	}
	pb, page := d.Locate(u)
	if page >= int(d.wp[pb]) {
		return fmt.Errorf("%w: block %d page %d", ErrNotProgrammed, pb, page)
	}
	if d.IsValid(u) == valid {
		return nil
	}
	if valid {
		d.vbit[u>>6] |= 1 << (u & 63)
		d.valid[pb]++
	} else {
		d.vbit[u>>6] &^= 1 << (u & 63)
		d.valid[pb]--
	}
	return nil
}
