package ftl

// sampleAlpha records, at each collection, how much physical space can
// hold closed data: everything but free groups and the unwritten part of
// open groups and stages.
func (f *FTL) sampleAlpha() {
	unusable := int64(f.nfree+f.npending) * int64(f.upg)
	for st := range f.open {
		for _, g := range f.open[st] {
			if g >= 0 {
				unusable += int64(f.ppb-f.groupWP(g)) * int64(f.pageUnits)
			}
		}
	}
	phys := int64(f.dies*(f.gpd-f.reserved)-f.nbadUsable)*int64(f.upg) - unusable
	f.alphaSum += float64(phys) / float64(int64(len(f.l2p))*int64(f.k))
	f.alphaN++
}

// Stats are derived figures of a run.
type Stats struct {
	// EffectiveAlpha is the mean, over garbage collections, of the
	// physical space able to hold data (free groups and the unwritten part
	// of open groups excluded) divided by the user space: the α of the
	// analytic models. 0 before the first collection.
	EffectiveAlpha float64
	// NominalAlpha is the usable physical space (groups neither reserved
	// nor retired) over the user space, uncompressed: the α the free
	// groups and the open groups' unwritten parts are taken out of.
	NominalAlpha float64
	// HeldShare is the share of the spare area the write points and the
	// reserve held, measured over the same collections:
	// 1 − (EffectiveAlpha−1)/(NominalAlpha−1) (SpareBudget.HeldShare is
	// the figure the configuration predicts). 0 before the first
	// collection; with compressed data it can be negative, the data
	// taking less than its uncompressed size.
	HeldShare float64
}

// Stats returns derived figures.
func (f *FTL) Stats() Stats {
	if f.alphaN == 0 {
		return Stats{}
	}
	s := Stats{EffectiveAlpha: f.alphaSum / f.alphaN}
	s.NominalAlpha = float64(int64(f.dies*(f.gpd-f.reserved)-f.nbadUsable)*int64(f.upg)) / float64(int64(len(f.l2p))*int64(f.k))
	if s.NominalAlpha > 1 {
		s.HeldShare = 1 - (s.EffectiveAlpha-1)/(s.NominalAlpha-1)
	}
	return s
}

// FreeGroupsMin is the fewest free groups there have been at once since
// the FTL was built or ResetFreeGroupsMin was called.
func (f *FTL) FreeGroupsMin() int { return f.freeMin }

// ResetFreeGroupsMin restarts the low-water mark of free groups
// (FreeGroupsMin) from the current count.
func (f *FTL) ResetFreeGroupsMin() { f.freeMin = f.nfree + f.npending }

// ResetStats restarts the spare-area sampling (for a new measurement window).
func (f *FTL) ResetStats() { f.alphaSum, f.alphaN = 0, 0 }
