package controller

import (
	"fmt"
	"math"
)

// ReadLimits are the ceilings, in I/Os per second, that each resource of a
// drive puts on random reads of one size, worked out from its description
// alone (Config.ReadLimits). The drive cannot read faster than the least
// of them (Bound), and comes close to it once enough reads are
// outstanding to keep the binding resource busy. A resource that does not
// bound reads is +Inf.
type ReadLimits struct {
	// Dies: every die reading at once, each read holding its die for the
	// command, tR and the data's transfer (dies / (command + tR +
	// transfer)).
	Dies float64
	// Channels: every channel moving a read's command and data in turn
	// (channels / (command + transfer)).
	Channels float64
	// Link: the host link moving each read's data and its command
	// overhead (Host.CommandNs).
	Link float64
	// Firmware: the firmware core taking one read command at a time
	// (ReadCommandNs, or CommandNs when that is 0).
	Firmware float64
	// Datapath: the controller's read data path (DatapathReadMBps).
	Datapath float64
}

// Bound returns the least of the limits and the name of the resource
// that sets it ("dies", "channels", "link", "firmware" or "datapath").
func (l ReadLimits) Bound() (float64, string) {
	iops, by := l.Dies, "dies"
	for _, x := range []struct {
		v    float64
		name string
	}{{l.Channels, "channels"}, {l.Link, "link"}, {l.Firmware, "firmware"}, {l.Datapath, "datapath"}} {
		if x.v < iops {
			iops, by = x.v, x.name
		}
	}
	return iops, by
}

// perSecond is the rate of a resource that spends ns on each I/O, times
// n of them working at once; +Inf when it spends nothing.
func perSecond(n int, ns int64) float64 {
	if ns <= 0 {
		return math.Inf(1)
	}
	return float64(n) * 1e9 / float64(ns)
}

// ReadLimits works out the ceilings on random reads of bs bytes from the
// resolved description: reads aligned to bs, each within one flash page
// (1 ≤ bs ≤ page_bytes), of incompressible data on flash, spread evenly
// over the dies.
// It leaves out what the description's mechanisms add in particular
// cases: mapping-cache misses (MapCache), read errors and retries, read
// suspension of programs, garbage collection, and read-ahead hits.
func (c Config) ReadLimits(bs int64) (ReadLimits, error) {
	r, err := c.Resolve()
	if err != nil {
		return ReadLimits{}, err
	}
	cfg := r.Config
	g, t, h, f := cfg.NAND.Geometry, cfg.NAND.Timing, cfg.Host, cfg.Firmware
	if bs < 1 || bs > int64(g.PageBytes) {
		return ReadLimits{}, fmt.Errorf("controller: ReadLimits of %d-byte reads, allowed 1..%d (one flash page)", bs, g.PageBytes)
	}
	// The flash moves whole mapping units.
	unit := int64(g.UnitBytes)
	xfer := t.TransferNs(int((bs + unit - 1) / unit * unit))
	cmd := f.CommandNs
	if f.ReadCommandNs > 0 {
		cmd = f.ReadCommandNs
	}
	l := ReadLimits{
		Dies:     perSecond(g.Dies(), t.CommandNs+t.ReadNs+xfer),
		Channels: perSecond(g.Channels, t.CommandNs+xfer),
		Link:     perSecond(1, h.CommandNs+(bs*1000+h.LinkMBps-1)/h.LinkMBps),
		Firmware: perSecond(1, cmd),
		Datapath: math.Inf(1),
	}
	if f.DatapathReadMBps > 0 {
		l.Datapath = float64(f.DatapathReadMBps) * 1e6 / float64(bs)
	}
	return l, nil
}
