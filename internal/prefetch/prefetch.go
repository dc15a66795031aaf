// Package prefetch hints to the processor that memory will be needed
// soon. The simulator's mapping tables are hundreds of MiB indexed at
// random, so each host write would otherwise wait for two dependent cache
// misses (its mapping entry, then the state of the unit it replaces), and
// garbage collection for one per unit it moves. Issuing the loads early,
// while other work proceeds, takes them off the critical path. A hint
// never changes results; on architectures without an implementation it
// does nothing.
package prefetch
