package ftl

import "fmt"

// Refresh moves the valid data of full plane group g out and erases it,
// as firmware does with a block read so often that read disturb
// threatens its data (read reclaim). The group is cleaned like a garbage
// collection victim (its operations are recorded with CauseGC, and it
// counts in GCRuns and ReclaimedGroups), but chosen by the caller. It
// reports whether it did: a group that is not full, is open or already
// being cleaned, or whose die is busy cleaning another or has no more
// than GCLowWater free groups, is left as it is.
func (f *FTL) Refresh(g int) (bool, error) {
	if g < 0 || g >= len(f.busy) {
		return false, fmt.Errorf("%w: refresh of group %d, the device has %d", ErrRange, g, len(f.busy))
	}
	d := f.dieOf(int32(g))
	if f.bad[g] || !f.candidate(int32(g)) || f.clean[d].group >= 0 || f.freeOrErasing(d) <= f.cfg.GCLowWater {
		return false, nil
	}
	if err := f.startVictim(d, g, GCStream); err != nil {
		return false, err
	}
	f.cnt.ReclaimedGroups++
	_, err := f.copyPages(d, -1)
	return true, err
}
