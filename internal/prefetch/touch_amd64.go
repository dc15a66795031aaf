package prefetch

// Touch writes *p back unchanged in one read-modify-write instruction,
// so that the page holding it, if the process has never touched it, is
// faulted in once as written. Reading a never-touched page first maps
// the kernel's shared zero page, and the store that follows faults again
// to replace it: Touch before the read of an entry that is about to be
// stored saves that second fault. It is not atomic with respect to other
// writers of *p.
//
//go:noescape
func Touch(p *uint32)
