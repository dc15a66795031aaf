package sim

import "github.com/ftlsim/ftlsim/controller"

// GeometryOf describes drive c.
func GeometryOf(c *controller.Controller) Geometry {
	cfg := c.Config()
	g := cfg.NAND.Geometry
	fc := c.FTL().Config()
	phys := g.Bytes()
	user := int64(cfg.Capacity) // on a zoned drive, what its zones hold
	b := c.FTL().SpareBudget()
	var warnings []string
	for _, w := range c.Warnings() {
		warnings = append(warnings, w.String())
	}
	return Geometry{
		Drive: cfg.Name, Channels: g.Channels, Dies: g.Dies(), Planes: g.PlanesPerDie, Blocks: g.Blocks(),
		PagesPerBlock: g.PagesPerBlock, PageBytes: g.PageBytes, MappingUnitBytes: g.UnitBytes,
		PhysicalBytes: phys, UserBytes: user, OPPercent: 100 * float64(phys-user) / float64(user),
		OpenBlocks:    2 * g.Dies() * g.PlanesPerDie,
		ReserveBlocks: fc.GCLowWater * g.Dies() * g.PlanesPerDie,
		BadBlocks:     c.Device().BadBlocks(), RetiredGroups: c.FTL().BadGroups(),
		GrownBadBlocks:     c.Device().GrownBadBlocks(),
		EffectiveOPPercent: b.EffectivePercent(), HeldSparePercent: 100 * min(b.HeldShare(), 100),
		Warnings: warnings,
	}
}
