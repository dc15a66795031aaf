package controller

// The checks of a drive description beyond the ranges of its fields,
// which the table states and checkRanges applies: rules that relate one
// field to another or to the geometry. Errors name their fields through
// the table (errAt), never by a copy of their names.

// validateFirmwareData checks the compression, RAISE, mapping-cache and
// TRIM-backlog parameters against the geometry.
func (c *Config) validateFirmwareData() error {
	f, g := &c.Firmware, c.NAND.Geometry
	if f.Compression && g.UnitBytes > g.PageBytes {
		return c.errAt(&f.Compression, "%s needs %s (%d) at most %s (%d)", c.FieldPath(&f.Compression),
			c.FieldPath(&c.NAND.Geometry.UnitBytes), g.UnitBytes, c.FieldPath(&c.NAND.Geometry.PageBytes), g.PageBytes)
	}
	if f.Compression {
		s := int(f.CompressionSlot)
		if s < 512 || s >= g.UnitBytes || g.UnitBytes%s != 0 || s&(s-1) != 0 {
			return c.errAt(&f.CompressionSlot, "%s = %d bytes, allowed a power of two from 512 to half of %s (%d)",
				c.FieldPath(&f.CompressionSlot), s, c.FieldPath(&c.NAND.Geometry.UnitBytes), g.UnitBytes)
		}
		if n := g.PageBytes / s * g.PlanesPerDie; n > 64 {
			return c.errAt(&f.CompressionSlot, "%s = %d bytes gives %d slots per multi-plane page, allowed at most 64",
				c.FieldPath(&f.CompressionSlot), s, n)
		}
	} else if f.CompressionSlot != 0 {
		return c.errAt(&f.CompressionSlot, "%s = %d needs %s: true", c.FieldPath(&f.CompressionSlot), f.CompressionSlot, c.FieldPath(&f.Compression))
	}
	if f.RaiseStripe > g.BlocksPerPlane {
		return c.errAt(&f.RaiseStripe, "%s = %d, allowed 0 (off) or 2..%d (%s)", c.FieldPath(&f.RaiseStripe), f.RaiseStripe,
			min(g.BlocksPerPlane, 1024), c.FieldPath(&c.NAND.Geometry.BlocksPerPlane))
	}
	if f.MapCache > 0 && int64(f.MapCache) < int64(g.PageBytes) {
		return c.errAt(&f.MapCache, "%s = %d bytes, allowed 0 (whole table in DRAM) or %d (one mapping page) .. 1TiB",
			c.FieldPath(&f.MapCache), f.MapCache, g.PageBytes)
	}
	if err := c.validateHMB(); err != nil {
		return err
	}
	if err := c.validateSLCCache(); err != nil {
		return err
	}
	return c.validateReadErrors()
}

// validateReadErrors checks that a drive that models read errors has an
// error model and an ECC.
func (c *Config) validateReadErrors() error {
	f := &c.Firmware
	if !f.ReadErrors {
		return nil
	}
	switch {
	case !c.NAND.Reliability.Enabled():
		return c.errAt(&f.ReadErrors, "%s needs the NAND part's error model: %s = 0, allowed above 0 up to 0.1",
			c.FieldPath(&f.ReadErrors), c.FieldPath(&c.NAND.Reliability.RatedRBER))
	case f.ECCBits == 0:
		return c.errAt(&f.ECCBits, "%s = 0 with %s: allowed 1..1000", c.FieldPath(&f.ECCBits), c.FieldPath(&f.ReadErrors))
	case f.ECCCodeword == 0:
		return c.errAt(&f.ECCCodeword, "%s = 0 with %s: allowed 64..64KiB", c.FieldPath(&f.ECCCodeword), c.FieldPath(&f.ReadErrors))
	}
	return nil
}

// validateRules checks the write buffer against the geometry, the victim
// policy against the registry and the power figures against each other.
func (c *Config) validateRules() error {
	f, g := &c.Firmware, c.NAND.Geometry
	if minBuf := int64(2*g.PlanesPerDie*g.PageBytes) + 4096; int64(f.WriteBuffer) < minBuf {
		return c.errAt(&f.WriteBuffer, "%s = %d bytes, allowed %d (two multi-plane pages and a unit) .. 1TiB",
			c.FieldPath(&f.WriteBuffer), f.WriteBuffer, minBuf)
	}
	if _, err := c.Policies.Parse(f.GCPolicy); err != nil {
		return c.policyErr(err)
	}
	return c.Power.rules(c)
}
