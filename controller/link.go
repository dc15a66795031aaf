package controller

// linkTransfer books the host link for a command moving n bytes, starting
// no earlier than at, and returns when the transfer ends.
func (c *Controller) linkTransfer(at, n int64) int64 {
	return c.link.Book(at, c.cfg.Host.CommandNs+(n*1000+c.cfg.Host.LinkMBps-1)/c.cfg.Host.LinkMBps)
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
