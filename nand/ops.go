package nand

// The operations that change a device's state: program (a page, or a
// multi-plane page at once), invalidate, read and erase.

import (
	"fmt"
	"math"
	"math/bits"
)

// SetSeqs stores, in the OOB area of page p of physical block pb just
// programmed, one write sequence number per unit (the FTL's record of
// which copy of a logical unit is newest, which a rebuild after power
// loss reads). It does nothing on a device that does not track data.
func (d *Device) SetSeqs(pb, page int, seqs []uint32) {
	if d.seqs == nil {
		return
	}
	u := d.Unit(pb, page, 0)
	copy(d.seqs[u:u+int64(d.upp)], seqs)
}

// Seq returns the write sequence number stored with unit u (0 when the
// device does not track data).
func (d *Device) Seq(u int64) uint32 {
	if d.seqs == nil {
		return 0
	}
	return d.seqs[u]
}

// PageState returns the state of page p of physical block pb.
func (d *Device) PageState(pb, page int) PageState {
	if page >= int(d.wp[pb]) {
		return Erased
	}
	u := d.Unit(pb, page, 0)
	for s := 0; s < d.upp; s++ {
		if d.IsValid(u + int64(s)) {
			return Valid
		}
	}
	return Invalid
}

// Program programs page p of physical block pb with one tag per unit
// (len(tags) == UnitsPerPage). Units whose tag is NoTag are programmed
// invalid. data, if not nil and the device tracks data, holds a payload
// token per unit.
func (d *Device) Program(pb, page int, tags, data []uint32) error {
	if pb < 0 || pb >= d.nblk || page < 0 || page >= d.ppb || len(tags) != d.upp {
		return fmt.Errorf("%w: program block %d page %d with %d tags", ErrRange, pb, page, len(tags))
	}
	if d.IsBad(pb) {
		return fmt.Errorf("%w: program block %d", ErrBadBlock, pb)
	}
	w := int(d.wp[pb])
	switch {
	case w == d.PagesIn(pb):
		return fmt.Errorf("%w: block %d", ErrBlockFull, pb)
	case page < w:
		return fmt.Errorf("%w: block %d page %d (write pointer %d)", ErrNotErased, pb, page, w)
	case page > w:
		return fmt.Errorf("%w: block %d page %d (write pointer %d)", ErrOutOfOrder, pb, page, w)
	}
	u := d.Unit(pb, page, 0)
	if d.prng != nil {
		// Wear-out: the cumulative hazard of a block's programs over e
		// erases is phazard·PagesPerBlock·e³, spread over its pages.
		w, step := d.cycleWear(pb)
		e := w + step
		if d.prng.Float64() < 1-math.Exp(-d.phazard*(e*e*e-w*w*w)) {
			d.wp[pb]++ // the page is used up, its data not stored
			d.bad[pb] = true
			d.grown++
			return fmt.Errorf("%w: block %d page %d after %d erases", ErrProgramFailed, pb, page, d.EraseCount(pb))
		}
	}
	if d.ntags != nil {
		d.ntags.put(u, tags)
	}
	if d.data != nil && data != nil {
		copy(d.data[u:u+int64(len(tags))], data)
	}
	var m uint64
	for s, t := range tags {
		if t != NoTag {
			m |= 1 << uint(s)
		}
	}
	d.setValid(u, m, len(tags))
	d.valid[pb] += uint32(bits.OnesCount64(m))
	d.wp[pb]++
	return nil
}

// ProgramGroup programs page p on every plane of plane group g at once,
// as Program of each plane's block in turn would, each with its
// UnitsPerPage tags (and data) taken in turn from tags (data), and
// reports true. When one of those programs would be refused, or could
// fail (a part whose programs fail: Timing.ProgramFailPermille), it does
// nothing and reports false: program the planes one by one then.
func (d *Device) ProgramGroup(g, page int, tags, data []uint32) bool {
	np, upp := d.np, d.upp
	pb0 := g * np
	if d.prng != nil || pb0 < 0 || pb0+np > d.nblk || page < 0 || page >= d.ppb || len(tags) != np*upp || (data != nil && len(data) != len(tags)) {
		return false
	}
	for pb := pb0; pb < pb0+np; pb++ {
		if int(d.wp[pb]) != page || page >= d.PagesIn(pb) || d.IsBad(pb) {
			return false
		}
	}
	u := d.Unit(pb0, page, 0)
	n := int64(len(tags))
	if d.ntags != nil {
		d.ntags.put(u, tags)
	}
	if d.data != nil && data != nil {
		copy(d.data[u:u+n], data)
	}
	if n <= 64 {
		// The planes' pages are consecutive units: one mask for all.
		m := validMask(tags)
		d.setValid(u, m, int(n))
		pm := uint64(1)<<uint(upp) - 1
		for p := range np {
			d.valid[pb0+p] += uint32(bits.OnesCount64(m >> uint(p*upp) & pm))
			d.wp[pb0+p]++
		}
		return true
	}
	for p := range np {
		m := validMask(tags[p*upp : (p+1)*upp])
		d.setValid(u+int64(p*upp), m, upp)
		d.valid[pb0+p] += uint32(bits.OnesCount64(m))
		d.wp[pb0+p]++
	}
	return true
}

// validMask returns the mask of the units of tags (at most 64) that hold
// data: bit i set when tags[i] is not NoTag.
func validMask(tags []uint32) uint64 {
	all := true
	for _, t := range tags {
		if t == NoTag {
			all = false
			break
		}
	}
	if all {
		return ^uint64(0) >> uint(64-len(tags))
	}
	var m uint64
	for s, t := range tags {
		if t != NoTag {
			m |= 1 << uint(s&63)
		}
	}
	return m
}

// SetGroupSeqs is SetSeqs of page p on every plane of plane group g, each
// with its UnitsPerPage numbers taken in turn from seqs.
func (d *Device) SetGroupSeqs(g, page int, seqs []uint32) {
	if d.seqs == nil {
		return
	}
	u := d.Unit(g*d.np, page, 0)
	copy(d.seqs[u:u+int64(d.np*d.upp)], seqs)
}

// setValid ORs mask m (n ≤ 64 bits) into the valid bits from unit u.
func (d *Device) setValid(u int64, m uint64, n int) {
	w, b := u>>6, uint(u&63)
	d.vbit[w] |= m << b
	if b+uint(n) > 64 {
		d.vbit[w+1] |= m >> (64 - b)
	}
}

// InvalidateMask invalidates, at once, the units u+i for each bit i set in
// mask (at most 64 units, all valid, which may span the planes of a
// multi-plane page). It is Invalidate for a batch, as garbage collection
// moves a page's units.
func (d *Device) InvalidateMask(u int64, mask uint64) error {
	if mask == 0 {
		return nil
	}
	n := 64 - bits.LeadingZeros64(mask)
	if u < 0 || u+int64(n) > d.units {
		return fmt.Errorf("%w: units %d+%d", ErrRange, u, n)
	}
	if d.ValidMask(u, n)&mask != mask {
		return fmt.Errorf("%w: invalidate units %d mask %#x", ErrNotValid, u, mask)
	}
	w, b := u>>6, uint(u&63)
	d.vbit[w] &^= mask << b
	if b+uint(n) > 64 {
		d.vbit[w+1] &^= mask >> (64 - b)
	}
	// Count per physical block: runs of UnitsPerPage units share a block.
	for m := mask; m != 0; {
		x := u + int64(bits.TrailingZeros64(m))
		pb, _ := d.Locate(x)
		// The bits of this block's run of units within the page.
		start := int(x - u)
		run := d.upp - int(x%int64(d.upp))
		var rm uint64
		if start+run >= 64 {
			rm = m &^ (1<<uint(start) - 1)
		} else {
			rm = m & ((1<<uint(start+run) - 1) &^ (1<<uint(start) - 1))
		}
		d.valid[pb] -= uint32(bits.OnesCount64(rm))
		m &^= rm
	}
	return nil
}

// Invalidate marks unit u as no longer holding live data.
func (d *Device) Invalidate(u int64) error {
	if u < 0 || u >= d.units {
		return fmt.Errorf("%w: unit %d", ErrRange, u)
	}
	if !d.IsValid(u) {
		return fmt.Errorf("%w: invalidate unit %d", ErrNotValid, u)
	}
	d.vbit[u>>6] &^= 1 << (u & 63)
	pb, _ := d.Locate(u)
	d.valid[pb]--
	return nil
}

// Read returns the tag and payload token of unit u, which must be valid.
func (d *Device) Read(u int64) (tag, data uint32, err error) {
	if u < 0 || u >= d.units {
		return 0, 0, fmt.Errorf("%w: unit %d", ErrRange, u)
	}
	pb, page := d.Locate(u)
	if page >= int(d.wp[pb]) {
		return 0, 0, fmt.Errorf("%w: block %d page %d", ErrNotProgrammed, pb, page)
	}
	if !d.IsValid(u) {
		return 0, 0, fmt.Errorf("%w: read unit %d", ErrNotValid, u)
	}
	if d.data != nil {
		data = d.data[u]
	}
	return d.Tag(u), data, nil
}

// Erase erases physical block pb. A block that holds valid units is not
// erased (the FTL must move or invalidate them first).
func (d *Device) Erase(pb int) error {
	if pb < 0 || pb >= d.nblk {
		return fmt.Errorf("%w: erase block %d", ErrRange, pb)
	}
	if d.IsBad(pb) {
		return fmt.Errorf("%w: erase block %d", ErrBadBlock, pb)
	}
	if d.valid[pb] != 0 {
		return fmt.Errorf("%w: block %d has %d valid units", ErrEraseValid, pb, d.valid[pb])
	}
	d.eraseBlock(pb)
	if d.rng != nil {
		// Wear-out: the cumulative hazard at e erases is hazard·e³.
		e, step := d.cycleWear(pb)
		w := e - step
		if d.rng.Float64() < 1-math.Exp(-d.hazard*(e*e*e-w*w*w)) {
			d.bad[pb] = true
			d.grown++
			return fmt.Errorf("%w: block %d after %d erases", ErrEraseFailed, pb, d.EraseCount(pb))
		}
	}
	return nil
}

func (d *Device) eraseBlock(pb int) {
	if d.wp[pb] != 0 && d.ntags != nil {
		u := d.Unit(pb, 0, 0)
		for p := 0; p < int(d.wp[pb]); p++ {
			base := u + int64(p*d.np*d.upp)
			for s := 0; s < d.upp; s++ {
				d.ntags.set(base+int64(s), NoTag)
			}
		}
	}
	d.wp[pb] = 0
	if d.slc != nil && d.slc[pb] {
		d.slcErases[pb]++
	} else {
		d.erases[pb]++
	}
	if d.reads != nil {
		d.reads[pb] = 0
	}
}

// SecureErase erases every block, discarding all data, as an ATA SECURITY
// ERASE UNIT does. Every block's erase count grows by one.
func (d *Device) SecureErase() {
	for i := range d.vbit {
		d.vbit[i] = 0
	}
	for pb := range d.valid {
		d.valid[pb] = 0
		d.eraseBlock(pb)
	}
}
