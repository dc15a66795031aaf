package ftl

// coldest returns the least-worn candidate group on die d, or -1.
func (f *FTL) coldest(d int) int {
	best, be := -1, 0
	for g := d * f.gpd; g < (d+1)*f.gpd; g++ {
		if !f.candidate(int32(g)) {
			continue
		}
		if e := f.dev.EraseCount(g * f.np); best < 0 || e < be {
			best, be = g, e
		}
	}
	return best
}

// levelWear moves the least-worn full group of die d when the erase counts
// of the die spread wider than StaticWLSpread.
func (f *FTL) levelWear(d int) error {
	if f.clean[d].group >= 0 || len(f.free[d]) == 0 {
		return nil
	}
	lo, hi := -1, 0
	for g := d * f.gpd; g < (d+1)*f.gpd; g++ {
		e := f.dev.EraseCount(g * f.np)
		hi = max(hi, e)
		if f.candidate(int32(g)) && (lo < 0 || e < lo) {
			lo = e
		}
	}
	if lo < 0 || hi-lo <= f.cfg.StaticWLSpread {
		return nil
	}
	if err := f.startVictim(d, f.coldest(d), WLStream); err != nil {
		return err
	}
	_, err := f.copyPages(d, -1)
	return err
}
