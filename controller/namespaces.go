package controller

// Namespaces: the user capacity split into NVMe namespaces that share
// the drive's dies, buffer and spare area (one FTL maps them all).

// Namespace is one namespace of the drive: its identifier (from 1) and
// its byte range of the drive's user capacity.
type Namespace struct {
	ID           int
	Offset, Size int64
}

// Namespaces returns the drive's namespaces in LBA order: the user
// capacity split as Host.Namespaces says (one namespace when 0 or 1).
func (c *Controller) Namespaces() []Namespace {
	return splitNamespaces(c.cap, c.unit, c.cfg.Host.Namespaces)
}

// splitNamespaces splits capacity bytes into n namespaces of equal size
// in whole units of unit bytes, the last taking the rest.
func splitNamespaces(capacity, unit int64, n int) []Namespace {
	n = max(n, 1)
	each := capacity / int64(n) / unit * unit
	out := make([]Namespace, n)
	for i := range out {
		out[i] = Namespace{ID: i + 1, Offset: int64(i) * each, Size: each}
	}
	out[n-1].Size = capacity - out[n-1].Offset
	return out
}
