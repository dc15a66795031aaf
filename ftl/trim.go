package ftl

import "fmt"

// Trim discards logical units [lba, lba+n).
func (f *FTL) Trim(lba, n int64) error {
	if lba < 0 || n < 0 || lba+n > int64(len(f.l2p)) {
		return fmt.Errorf("%w: trim units %d+%d, user space has %d", ErrRange, lba, n, len(f.l2p))
	}
	if f.lost != nil {
		f.found(lba, n) // nothing is stored there any more: nothing lost either
	}
	for i := lba; i < lba+n; i++ {
		if f.l2p.at(i) != Unmapped {
			f.cnt.TrimUnits++
			if err := f.unmap(i, true); err != nil {
				return err
			}
		}
	}
	return nil
}
