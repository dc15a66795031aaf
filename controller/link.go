package controller

import "github.com/ftlsim/ftlsim/nand"

// linkTransfer books the host link for a command moving n bytes to the
// host (or none), starting no earlier than at, and returns when the
// transfer ends.
func (c *Controller) linkTransfer(at, n int64) int64 {
	return c.link.Book(at, c.cfg.Host.CommandNs+(n*1000+c.cfg.Host.LinkMBps-1)/c.cfg.Host.LinkMBps)
}

// linkTransferIn is linkTransfer for data moving from the host: on SATA
// the same half-duplex link, on NVMe PCIe's other direction.
func (c *Controller) linkTransferIn(at, n int64) int64 {
	return c.linkIn.Book(at, c.cfg.Host.CommandNs+(n*1000+c.cfg.Host.LinkMBps-1)/c.cfg.Host.LinkMBps)
}

// newLinks makes the link's calendars, idle from t: one shared by both
// directions on SATA, one a direction on NVMe.
func (c *Controller) newLinks(t int64) {
	c.link = nand.NewCalendar()
	c.link.Advance(t)
	c.linkIn = c.link
	if c.cfg.Host.IsNVMe() {
		c.linkIn = nand.NewCalendar()
		c.linkIn.Advance(t)
	}
}

// datapath is the controller's data path (ECC, DMA) in each direction:
// it handles a request's bytes in order at its rate.
type datapath struct {
	readFree, writeFree int64 // when each direction is next free
}

// pass returns when n bytes that reach a direction's data path at at
// (free: that direction's free time) have passed it at mbps MB/s; with
// mbps 0 the path adds nothing.
func pass(free *int64, at, n, mbps int64) int64 {
	if mbps <= 0 {
		return at
	}
	*free = max(at, *free) + (n*1000+mbps-1)/mbps
	return *free
}
