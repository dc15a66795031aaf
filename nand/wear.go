package nand

import (
	"fmt"
	"math"
)

// Wear summarises erase counts over all blocks.
type Wear struct {
	Min, Max int
	Mean     float64
	// Life is the mean erase count as a fraction of the rated cycles.
	Life float64
}

// Wear returns the erase-count summary of the device.
func (d *Device) Wear() Wear {
	w := Wear{Min: int(^uint(0) >> 1)}
	var sum int64
	for _, e := range d.erases {
		v := int(e)
		sum += int64(v)
		w.Min = min(w.Min, v)
		w.Max = max(w.Max, v)
	}
	w.Mean = float64(sum) / float64(len(d.erases))
	w.Life = w.Mean / float64(d.cfg.Timing.RatedCycles)
	return w
}

// NoteRead counts a read (a sense of the array) of planes consecutive
// physical blocks from pb, for read disturb. It does nothing on a device
// that does not track age (Config.TrackAge).
func (d *Device) NoteRead(pb, planes int) {
	if d.reads == nil {
		return
	}
	for p := pb; p < pb+planes; p++ {
		if d.reads[p] != math.MaxUint32 {
			d.reads[p]++
		}
	}
}

// ReadsSinceErase returns the reads of block pb counted since its last
// erase (0 on a device that does not track age).
func (d *Device) ReadsSinceErase(pb int) uint32 {
	if d.reads == nil {
		return 0
	}
	return d.reads[pb]
}

// SetProgramTime records that planes consecutive physical blocks from pb
// were programmed at time t (the device has no clock: the controller that
// books the program gives it). It does nothing on a device that does not
// track age.
func (d *Device) SetProgramTime(pb, planes int, t int64) {
	if d.progAt == nil {
		return
	}
	for p := pb; p < pb+planes; p++ {
		d.progAt[p] = t
	}
}

// ProgramTime returns when block pb was last programmed (as given to
// SetProgramTime; 0 on a device that does not track age).
func (d *Device) ProgramTime(pb int) int64 {
	if d.progAt == nil {
		return 0
	}
	return d.progAt[pb]
}

// Bake ages the data every programmed block holds by ns, as if the drive
// had sat that long (powered off, or idle) without time passing: each
// block's program time moves ns earlier. It does nothing on a device that
// does not track age.
func (d *Device) Bake(ns int64) {
	if d.progAt == nil || ns <= 0 {
		return
	}
	for pb := range d.progAt {
		if d.wp[pb] > 0 {
			d.progAt[pb] -= ns
		}
	}
}

// AddWear adds erases to every block's erase count without erasing
// anything, as an accelerated endurance run does for the passes it does
// not simulate: the blocks keep their differences and what they hold.
func (d *Device) AddWear(erases int) error {
	if erases < 0 || erases > math.MaxUint32/4 {
		return fmt.Errorf("%w: added wear of %d erases, allowed 0..%d", ErrRange, erases, math.MaxUint32/4)
	}
	for pb, e := range d.erases {
		d.erases[pb] = uint32(min(int64(e)+int64(erases), math.MaxUint32/2))
	}
	return nil
}

// PreWear raises every block's erase count to at least erases, as if the
// drive had already been written that much: a run can start part way
// through the flash's life. Blocks keep what they hold.
func (d *Device) PreWear(erases int) error {
	if erases < 0 || erases > math.MaxUint32/2 {
		return fmt.Errorf("%w: pre-wear of %d erases, allowed 0..%d", ErrRange, erases, math.MaxUint32/2)
	}
	for pb, e := range d.erases {
		d.erases[pb] = max(e, uint32(erases))
	}
	return nil
}
