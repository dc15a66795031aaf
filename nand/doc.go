// Package nand models the physical flash array of an SSD: its geometry
// (channels, targets, dies, planes, blocks, pages), its timing (array read,
// program and erase latencies, bus transfer rate), the occupancy of every
// die and channel, and the state of every block and page.
//
// # Cells, page types and programming
//
// A part stores 1 (SLC), 2 (MLC), 3 (TLC) or 4 (QLC) bits per cell; as
// many pages share a word line, laid out word line after word line: the
// lower page, then the middle, upper and top pages as the cell holds
// more bits (Timing.PageType, Timing.Kind). Each page type has its own
// read and program time (Timing.ReadNsByPage, Timing.ProgNsByPage, or
// the derivation from ReadNs, ProgLSBNs and ProgMSBNs). A multi-pass
// part programs each page on its own; a one-shot part loads a word
// line's pages into the die's latches and programs them together, the
// die busy once per word line (Timeline.Program). Timing.SLCMode gives
// the timing of the part's blocks written one bit per cell.
//
// The package enforces the rules of NAND flash and reports breaches as
// errors instead of corrupting state: a page may only be programmed after
// its block has been erased, the pages of a block are programmed strictly in
// order, a block holding valid data may not be erased, and a unit of data
// may only be invalidated once.
//
// # Addressing
//
// Blocks are numbered flat, plane innermost: physical block
// pb = (die*BlocksPerPlane + blk)*PlanesPerDie + plane, so the planes of one
// multi-plane block (a "plane group", what the FTL allocates) are adjacent.
// Dies are numbered channel innermost (die d sits on channel d % Channels),
// so consecutive dies use different buses.
//
// A page holds PageBytes/UnitBytes mapping units. Units are numbered so that
// a plane group's units are contiguous and in programming order:
// unit = group*UnitsPerGroup + (page*PlanesPerDie + plane)*UnitsPerPage + slot.
// Every unit carries a 32-bit tag in its spare (OOB) area — the FTL stores the
// logical address there — and a valid bit.
//
// # Raw bit errors
//
// A part's Reliability is its raw bit-error model: the raw bit-error rate
// of a read as a function of the block's erase count, the time since it
// was programmed and the reads since its erase (Reliability.RBER). With
// Config.TrackAge the device keeps those inputs per block: reads since
// erase (NoteRead), the program time the controller gives it
// (SetProgramTime; the device has no clock), and Bake and PreWear to age
// data and wear blocks without running time. What the errors mean for a
// read — ECC, read retry, parity — is the controller's.
//
// # Units and time
//
// Sizes are in bytes, times are integer nanoseconds of simulated time. The
// package never reads the wall clock.
//
// # Memory and speed
//
// State is kept in flat slices indexed by block and unit number: four bytes
// of tag and one bit of validity per unit, a few bytes per block. No method
// on the per-page path allocates.
//
// # Concurrency
//
// A Device is not safe for concurrent use; the simulator drives it from one
// goroutine.
package nand
