package controller

import (
	"fmt"
	"slices"
)

// Interface is a drive's host interface: the description's host.interface.
type Interface string

// The host interfaces. The zero value (empty) is SATA.
const (
	// SATA is a SATA link: one command queue (NCQ), a half-duplex link
	// whose bandwidth and per-command overhead the description gives.
	SATA Interface = "sata"
	// NVMe is NVMe over PCIe: Host.Queues I/O queue pairs of
	// Host.QueueDepth commands each, a full-duplex link (reads' data and
	// writes' data cross it in opposite directions, each at LinkMBps),
	// and doorbell and interrupt latencies (Firmware.DoorbellNs,
	// Firmware.InterruptNs). A DRAM-less NVMe drive may keep its mapping
	// pages in a host memory buffer (Firmware.HMB).
	NVMe Interface = "nvme"
)

// UnmarshalText accepts the name of an interface.
func (i *Interface) UnmarshalText(b []byte) error {
	v := Interface(b)
	if v != SATA && v != NVMe {
		return fmt.Errorf("interface %q, allowed sata or nvme", b)
	}
	*i = v
	return nil
}

// IsNVMe reports whether the host interface is NVMe.
func (h Host) IsNVMe() bool { return h.Interface == NVMe }

// QueueCount is the number of command queues: Queues on NVMe (at least
// one), one on SATA.
func (h Host) QueueCount() int { return max(1, h.Queues) }

// DefaultPCIeEfficiencyPercent is the share of a PCIe link's coded rate
// left for payload when the description gives none. An estimate: with the
// 256-byte maximum payload most hosts set, a memory-write packet carries
// 256 bytes in 282 (a 16-byte header for 64-bit addresses, sequence
// number, LCRC and framing: 91 %), and acknowledgement and flow-control
// packets take a few percent more; PCIe 3.0 ×4 drives top out near
// 3.5 GB/s of the 3.94 GB/s coded rate (89 %).
const DefaultPCIeEfficiencyPercent = 87

// pcieLane is, per PCIe generation (index 1..5), the lane's transfer rate
// in MT/s and its line code (payload bits of coded bits).
var pcieLane = [...]struct{ mtps, num, den int64 }{
	{}, {2500, 8, 10}, {5000, 8, 10}, {8000, 128, 130}, {16000, 128, 130}, {32000, 128, 130},
}

// pcieLanes are the link widths a drive may have.
var pcieLanes = []int{1, 2, 4, 8, 16}

// PCIeLinkMBps returns the payload bandwidth, in 10^6 bytes/s each way, of
// a PCIe link of generation gen (1..5: 2.5, 5, 8, 16, 32 GT/s a lane, coded
// 8b/10b in generations 1 and 2 and 128b/130b after) and lanes lanes (1, 2,
// 4, 8 or 16), of which efficiencyPercent is left for payload (1..100; 0:
// DefaultPCIeEfficiencyPercent), rounded down. A 3.0 ×4 link: 8000 MT/s ×
// 4 × 128/130 / 8 = 3938 MB/s coded, 3426 MB/s of payload at 87 %.
func PCIeLinkMBps(gen, lanes, efficiencyPercent int) (int64, error) {
	var c Config
	h := &c.Host
	if gen < 1 || gen >= len(pcieLane) {
		return 0, fmt.Errorf("%w: %s = %d, allowed 1..%d", ErrConfig, c.FieldPath(&h.PCIeGen), gen, len(pcieLane)-1)
	}
	if !slices.Contains(pcieLanes, lanes) {
		return 0, fmt.Errorf("%w: %s = %d, allowed 1, 2, 4, 8 or 16", ErrConfig, c.FieldPath(&h.PCIeLanes), lanes)
	}
	if efficiencyPercent == 0 {
		efficiencyPercent = DefaultPCIeEfficiencyPercent
	}
	if efficiencyPercent < 1 || efficiencyPercent > 100 {
		return 0, fmt.Errorf("%w: %s = %d, allowed 1..100 (0: %d)", ErrConfig, c.FieldPath(&h.PCIeEfficiencyPercent), efficiencyPercent, DefaultPCIeEfficiencyPercent)
	}
	l := pcieLane[gen]
	return int64(lanes) * l.mtps * l.num * int64(efficiencyPercent) / (l.den * 8 * 100), nil
}

// resolveHost checks the host interface's fields and, on an NVMe drive
// whose link_mbps is 0, derives the link's bandwidth from its PCIe link.
// Fields only NVMe has are refused on SATA.
func (c *Config) resolveHost() error {
	h := &c.Host
	iface := c.FieldPath(&h.Interface)
	switch h.Interface {
	case "", SATA:
		for _, p := range []*int{&h.PCIeGen, &h.PCIeLanes, &h.PCIeEfficiencyPercent} {
			if *p != 0 {
				return c.errAt(p, "%s = %d on SATA, allowed only with %s: %s", c.FieldPath(p), *p, iface, NVMe)
			}
		}
		if h.Queues < 0 || h.Queues > 1 {
			return c.errAt(&h.Queues, "%s = %d on SATA, allowed 1 (%s: %s allows 1..65535)", c.FieldPath(&h.Queues), h.Queues, iface, NVMe)
		}
		if c.Firmware.HMB != 0 {
			return c.errAt(&c.Firmware.HMB, "%s = %d on SATA, allowed only with %s: %s", c.FieldPath(&c.Firmware.HMB), c.Firmware.HMB, iface, NVMe)
		}
		return nil
	case NVMe:
	default:
		return c.errAt(&h.Interface, "%s = %q, allowed %s or %s", iface, h.Interface, SATA, NVMe)
	}
	if err := c.checkRange(&h.Queues); err != nil {
		return err
	}
	if h.LinkMBps != 0 && h.PCIeGen == 0 && h.PCIeLanes == 0 && h.PCIeEfficiencyPercent == 0 {
		return nil // the bandwidth given, no PCIe link described
	}
	mbps, err := PCIeLinkMBps(h.PCIeGen, h.PCIeLanes, h.PCIeEfficiencyPercent)
	if err != nil && h.LinkMBps == 0 {
		return c.located(fmt.Errorf("%w (an NVMe link needs %s and %s, or %s)", err,
			c.FieldPath(&h.PCIeGen), c.FieldPath(&h.PCIeLanes), c.FieldPath(&h.LinkMBps)))
	}
	if err != nil {
		return c.located(err)
	}
	if h.LinkMBps == 0 {
		h.LinkMBps = mbps
	}
	return nil
}

// validateHMB checks the host memory buffer: on NVMe only (resolveHost),
// with a mapping cache for it to back, from one mapping page to 1 TiB.
func (c *Config) validateHMB() error {
	f, g := &c.Firmware, c.NAND.Geometry
	switch {
	case f.HMB == 0:
		if f.HMBNs != 0 {
			return c.errAt(&f.HMBNs, "%s = %d needs %s", c.FieldPath(&f.HMBNs), f.HMBNs, c.FieldPath(&f.HMB))
		}
	case f.MapCache == 0:
		return c.errAt(&f.HMB, "%s = %d bytes needs %s (a DRAM-less drive's mapping cache, which the HMB backs)",
			c.FieldPath(&f.HMB), f.HMB, c.FieldPath(&f.MapCache))
	case int64(f.HMB) < int64(g.PageBytes):
		return c.errAt(&f.HMB, "%s = %d bytes, allowed 0 (none) or %d (one mapping page) .. 1TiB", c.FieldPath(&f.HMB), f.HMB, g.PageBytes)
	}
	return nil
}
