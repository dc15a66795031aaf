package controller

import "fmt"

// validateFirmwareData checks the compression, RAISE, mapping-cache and
// TRIM-backlog parameters against the geometry.
func (c *Config) validateFirmwareData() error {
	f, g := c.Firmware, c.NAND.Geometry
	if f.Compression {
		s := int(f.CompressionSlot)
		if s < 512 || s >= g.UnitBytes || g.UnitBytes%s != 0 || s&(s-1) != 0 {
			return fmt.Errorf("%w: firmware.compression_slot = %d bytes, allowed a power of two from 512 to half of unit_bytes (%d)", ErrConfig, s, g.UnitBytes)
		}
		if n := g.PageBytes / s * g.PlanesPerDie; n > 64 {
			return fmt.Errorf("%w: firmware.compression_slot = %d bytes gives %d slots per multi-plane page, allowed at most 64", ErrConfig, s, n)
		}
	} else if f.CompressionSlot != 0 {
		return fmt.Errorf("%w: firmware.compression_slot = %d needs firmware.compression: true", ErrConfig, f.CompressionSlot)
	}
	if f.RaiseStripe != 0 && (f.RaiseStripe < 2 || f.RaiseStripe > g.BlocksPerPlane || f.RaiseStripe > 1024) {
		return fmt.Errorf("%w: firmware.raise_stripe = %d, allowed 0 (off) or 2..%d", ErrConfig, f.RaiseStripe, min(g.BlocksPerPlane, 1024))
	}
	if f.MapCache < 0 || (f.MapCache > 0 && int64(f.MapCache) < int64(g.PageBytes)) || f.MapCache > 1<<40 {
		return fmt.Errorf("%w: firmware.map_cache = %d bytes, allowed 0 (whole table in DRAM) or %d (one mapping page) .. 1TiB", ErrConfig, f.MapCache, g.PageBytes)
	}
	if err := c.validateHMB(); err != nil {
		return err
	}
	if err := c.validateSLCCache(); err != nil {
		return err
	}
	if f.MapCheckpoint != 0 && (f.MapCheckpoint < 1<<20 || f.MapCheckpoint > 1<<50) {
		return fmt.Errorf("%w: firmware.map_checkpoint = %d bytes, allowed 0 (none) or 1MiB .. 1PiB", ErrConfig, f.MapCheckpoint)
	}
	if f.TrimBacklog < 0 || f.TrimBacklog > 1<<50 {
		return fmt.Errorf("%w: firmware.trim_backlog = %d bytes, allowed 0 (off) .. 1PiB", ErrConfig, f.TrimBacklog)
	}
	return c.validateReadErrors()
}

// validateReadErrors checks the ECC and read-reclaim parameters, and that
// a drive that models read errors has an error model and an ECC.
func (c *Config) validateReadErrors() error {
	f := c.Firmware
	if f.ECCBits < 0 || f.ECCBits > 1000 {
		return fmt.Errorf("%w: firmware.ecc_bits = %d, allowed 0..1000", ErrConfig, f.ECCBits)
	}
	if f.ECCCodeword != 0 && (f.ECCCodeword < 64 || f.ECCCodeword > 64<<10) {
		return fmt.Errorf("%w: firmware.ecc_codeword = %d bytes, allowed 64..64KiB", ErrConfig, f.ECCCodeword)
	}
	if f.ReadReclaimReads < 0 || f.ReadReclaimReads > 1e9 {
		return fmt.Errorf("%w: firmware.read_reclaim_reads = %d, allowed 0 (off) .. 1000000000", ErrConfig, f.ReadReclaimReads)
	}
	if !f.ReadErrors {
		return nil
	}
	switch {
	case !c.NAND.Reliability.Enabled():
		return fmt.Errorf("%w: firmware.read_errors needs the NAND part's error model: nand.reliability.rated_rber = 0, allowed above 0 up to 0.1", ErrConfig)
	case f.ECCBits == 0:
		return fmt.Errorf("%w: firmware.ecc_bits = 0 with firmware.read_errors: allowed 1..1000", ErrConfig)
	case f.ECCCodeword == 0:
		return fmt.Errorf("%w: firmware.ecc_codeword = 0 with firmware.read_errors: allowed 64..64KiB", ErrConfig)
	}
	return nil
}

func (c *Config) validateRest() error {
	h, f := c.Host, c.Firmware
	checks := []struct {
		name  string
		v, lo int64
		hi    int64
	}{
		{"host.link_mbps", h.LinkMBps, 1, 100000},
		{"host.command_ns", h.CommandNs, 0, 1e9},
		{"host.queue_depth", int64(h.QueueDepth), 1, 65536},
		{"firmware.command_ns", f.CommandNs, 0, 1e9},
		{"firmware.read_command_ns", f.ReadCommandNs, 0, 1e9},
		{"firmware.write_command_ns", f.WriteCommandNs, 0, 1e9},
		{"firmware.doorbell_ns", f.DoorbellNs, 0, 1e7},
		{"firmware.interrupt_ns", f.InterruptNs, 0, 1e7},
		{"firmware.hmb_ns", f.HMBNs, 0, 1e7},
		{"firmware.datapath_read_mbps", f.DatapathReadMBps, 0, 100000},
		{"firmware.datapath_write_mbps", f.DatapathWriteMBps, 0, 100000},
		{"firmware.compress_out_mbps", f.CompressOutMBps, 0, 100000},
		{"firmware.read_ahead", int64(f.ReadAhead), 0, 64 << 20},
		{"firmware.suspend_ns", f.SuspendNs, 0, 1e7},
		{"firmware.suspend_limit", int64(f.SuspendLimit), 0, 1e6},
		{"firmware.gc_restore_to", int64(f.GCRestoreTo), 0, 1 << 20},
		{"firmware.buffer_ns", f.BufferNs, 0, 1e9},
		{"firmware.idle_ns", f.IdleNs, 0, 3600e9},
		{"firmware.trim_unit_ns", f.TrimUnitNs, 0, 1e6},
		{"firmware.map_miss_ns", f.MapMissNs, 0, 1e9},
		{"firmware.gc_unit_ns", f.GCUnitNs, 0, 1e8},
		{"firmware.ecc_mbps", f.ECCMBps, 0, 1000000},
		{"firmware.gc_streams", int64(f.GCStreams), 0, 1 << 16},
		{"firmware.gc_victim_ns", f.GCVictimNs, 0, 1e9},
		{"firmware.firmware_cores", int64(f.Cores), 0, 64},
		{"firmware.gc_low_water", int64(f.GCLowWater), 0, 1 << 20},
		{"firmware.gc_high_water", int64(f.GCHighWater), 0, 1 << 20},
		{"firmware.gc_pace_water", int64(f.GCPaceWater), 0, 1 << 20},
		{"firmware.gc_pace_percent", int64(f.GCPacePercent), 0, 10000},
		{"firmware.static_wl_spread", int64(f.StaticWLSpread), 0, 1 << 30},
	}
	for _, k := range checks {
		if k.v < k.lo || k.v > k.hi {
			return fmt.Errorf("%w: %s = %d, allowed %d..%d", ErrConfig, k.name, k.v, k.lo, k.hi)
		}
	}
	g := c.NAND.Geometry
	minBuf := int64(2*g.PlanesPerDie*g.PageBytes) + 4096
	if int64(f.WriteBuffer) < minBuf || int64(f.WriteBuffer) > 1<<40 {
		return fmt.Errorf("%w: firmware.write_buffer = %d bytes, allowed %d (two multi-plane pages and a unit) .. 1TiB", ErrConfig, f.WriteBuffer, minBuf)
	}
	if _, err := c.Policies.Parse(f.GCPolicy); err != nil {
		return fmt.Errorf("%w: firmware.gc_policy: %w", ErrConfig, err)
	}
	return c.Power.Validate()
}
