package ftl

// levelWear moves the least-worn full group of die d when the erase counts
// of the die spread wider than StaticWLSpread (victim selection's wear
// path, stageColdest).
func (f *FTL) levelWear(d int) error {
	if f.clean[d].group >= 0 || len(f.free[d]) == 0 {
		return nil
	}
	c, _ := f.chooseVictim(d, pathWear, 0)
	if c.group < 0 {
		return nil
	}
	if err := f.startVictim(d, c.group, WLStream); err != nil {
		return err
	}
	_, err := f.copyPages(d, -1)
	return err
}
