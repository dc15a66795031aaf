// Package ftl is a page-mapped flash translation layer: it maps logical
// mapping units (4 KiB by default) to physical units of a nand.Device,
// gathers writes into full multi-plane pages striped across dies, keeps the
// over-provisioned spare area clean with garbage collection, handles TRIM
// and secure erase, and levels wear.
//
// The FTL decides what flash operations happen, never when. Every read,
// program and erase it decides is counted (Counters, by Cause) and, with
// Config.RecordOps, handed to the caller as data (Ready), which books
// each at a time of its own — the controller package turns them into
// time on the nand.Timeline — and says when it is done (Advance). Host
// reads go through the same path (Read, ReadFor): a mapped unit costs an
// array read of its page, or only a transfer when the caller's ReadRun
// has that page sensed already. Without RecordOps the FTL runs as pure
// logic, which is how write-amplification studies run at tens of
// millions of writes per second.
//
// # The contract
//
// The FTL and the caller that carries out its work (package controller)
// meet at one boundary, laid out as etcd-io/raft's Ready and Advance:
//
//  1. Input. The caller calls one of the FTL's inputs — WriteOn (Write
//     and WriteSlots leave the die to the FTL), MakeRoom, Trim, ReadFor,
//     Flush, CollectBackground, FoldBackground, ReclaimEmpty,
//     SettlePending, Refresh, SecureErase — with everything it needs as
//     arguments. The die a new host page goes to is one: the caller
//     chooses it before the call (OpensPage says whether the write needs
//     one). The FTL never calls back into the caller.
//  2. Ready. The input applies what it decides to the FTL's state and
//     to the device at once, and appends the flash operations that
//     takes to its op log; Ready returns them, in the order decided.
//  3. Reports. The caller carries out the operations in that order and
//     tells the FTL what only carrying them out shows, by explicit
//     methods: ReportProgrammed (when a program ended), ReportSensed
//     (each sense of a page, for read disturb), ReportUnreadable (a read
//     of data the FTL moved that could not be decoded: the units moved
//     out of its page are lost, Location.Lost) and ReportLost (the same
//     for a partial write merged with data that could not be read); and,
//     once it knows an erase has run, ForgetErased. A power cut is
//     reported whole, with what it interrupted (PowerLoss).
//  4. Advance. The caller has carried out the work: the log is emptied
//     for the next input. Between Ready and Advance the caller only
//     reports (ReportUnreadable names an operation by its index in
//     Ready's Ops).
//
// The FTL owns the mapping, the groups, the op log and the nand.Device:
// it is the device's only writer — programs, erases, SLC modes, validity,
// and for the caller the read-disturb counts, program times and wear
// (ReportSensed, ReportProgrammed, PreWear, AddWear, Bake). The caller
// may read the device and never changes it. The caller owns time and
// what depends on it: when each operation runs, whether a read decodes,
// which die is free first.
//
// The FTL keeps no clock and never reads one. The only times it handles
// are the caller's, passed through to the device: a block's program
// time (ReportProgrammed) and an ageing (Bake), stored there and never
// compared or computed with here. The other single-writer design, program
// times kept by the controller beside its timeline, would split a
// block's physical state — erase count, reads since erase, program time,
// the inputs of nand.Reliability together — between two owners, and the
// controller would have to follow every erase and every block a power
// cut restores, which only the FTL knows of; passing the time through
// keeps that state in one place with one writer, at the cost of two
// methods whose argument the FTL does not look at.
//
// The code is laid out by responsibility: ftl.go (the type, construction,
// geometry), write.go (the write path: staging, programming, opening
// groups), flush.go (flushes, and the word lines safe erase protects),
// pipeline.go (victim selection), gc.go (collection: copying, pacing,
// background collection), erase.go (erasing cleaned victims, at once or
// once safe), wear.go (static wear levelling), slc.go (the SLC cache),
// refresh.go (read reclaim), read.go, trim.go, ops.go (the op log and
// Ready), contract.go (the reports, and the device changes made for the
// caller), powerloss.go, counters.go (Counters), registry.go (policies by
// name), victim.go (the built-in policies), stats.go and invariants.go.
//
// # Layout
//
// The allocation and cleaning unit is the plane group: the blocks with the
// same index on every plane of one die, programmed together with
// multi-plane commands. Each die has its own free list, its own open group
// for host data and its own open group for data moved by garbage
// collection, so cleaning a die copies data within that die. Host pages go
// to the die the caller names (WriteOn; the controller takes the die that
// frees up first), or to the dies in turn.
//
// # Garbage collection
//
// Foreground collection runs when a die is about to open a new host group
// and has no more than GCLowWater free groups: a victim is chosen among
// the full groups of that die, its valid units are copied into the die's
// GC group, and it is erased. Background collection (CollectBackground)
// is run by the controller while the host is idle, up to GCHighWater free
// groups. Victim policies are small values behind the VictimPolicy
// interface: Greedy, CostBenefit, FIFO, Random and DChoices ship with the
// package, and users may write their own and check them with package
// ftltest. A Registry names policies — the built-in ones and a program's
// own (Register) — so that drive descriptions and the command can name a
// user's policy; it is an explicit value, not global state.
//
// # Victim selection
//
// The policy is one stage of victim selection, which every collection
// path asks in one place (pipeline.go) and which runs that path's stages
// in order, the first to decide winning:
//
//   - blocking (the host waits): fold-first, fruitless, retired, policy,
//     no-room;
//   - paced and background: retired, policy, no-room, worth,
//     fold-cheaper;
//   - the SLC cache's folding: fold-oldest; static wear levelling:
//     coldest; an idle drive's reclaiming of empty groups: empty.
//
// Retired takes a group retired for a failed program that still holds
// data, before anything else. Policy asks the VictimPolicy, once a
// victim. No-room replaces its answer by greedy's on a die left without a
// free group (a power cut can undo erases) when the answer's valid units
// do not fit the room left in the GC group. Worth drops a victim of only
// valid data, which frees nothing, leaving the die to blocking
// collection, which cleans whatever the policy answers. Fruitless takes
// greedy's victim after a die's worth of blocking rounds (so that FIFO or
// Random cannot livelock a die), or finds the spare area exhausted.
// Fold-first and fold-cheaper fold the SLC group next in line instead of
// cleaning a native group when it holds no more valid units than
// greedy's victim (blocking) or the path's own (paced, background);
// fold-oldest takes an SLC group holding nothing, else the one filled
// first. Coldest moves the least-worn candidate once erase counts spread
// wider than StaticWLSpread; empty takes a full group holding no valid
// data. Fallbacks to greedy count in Counters.GCFallbacks. The stages are
// tested one by one from testdata/victim_pipeline_*.txt.
//
// # SLC cache
//
// With Config.SLCStaticGroups or SLCDynamicGroups, host pages go to
// groups in SLC mode (nand.Device.SetSLC: a page a word line, the part's
// SLC-mode times) while the cache has room: the static groups always,
// dynamic ones while the die keeps enough free groups to fold everything
// the cache holds and GCHighWater, so the dynamic region shrinks as the
// drive fills (SLCDynamicReserve keeps more free). SLC groups are never
// collection candidates; folding moves their valid units into native
// groups — while the host waits when the cache is full (unless
// SLCDirect), when collection needs space and an SLC group holds no more
// valid units than the native victim, and in the background
// (FoldBackground, NeedsFold) while the drive is idle. SLCCacheUnits
// reports the room the cache has now.
//
// # Compressed units and reserved groups
//
// With Config.UnitSlots above 1 the device unit is a slot, a fraction of
// the logical unit, and WriteSlots stores a unit in as many slots as its
// compressed data needs (a compressing controller's DuraWrite). A unit's
// slots are consecutive within one multi-plane page (the rest of a page
// that cannot take the next unit is padded); every slot carries the
// unit's tag, the mapping points at the first and a byte per logical unit
// keeps the count, so garbage collection moves whole units and counts
// space in slots. Uniform random writes then follow the same theory at
// the spare area the compressed data leaves (TestCompressionMatchesTheory).
// Config.ReservedGroups holds groups of every die out of use for data the
// controller places itself (RAISE parity).
//
// # Spare area and the theory
//
// The analytic models of garbage collection (Desnoyers 2012) count as
// spare only space that can hold closed data. Here each die also holds two
// open groups and a reserve of free groups, which are not available to data.
// Stats.EffectiveAlpha reports the ratio that the models call α, measured
// over the run with those groups taken out. At that α, FIFO cleaning under
// uniform random writes lands within 0.5 % of Desnoyers' model at 7–28 %
// spare (TestWriteAmplificationMatchesTheory), with compressed units too
// (TestCompressionMatchesTheory).
//
// # Write points and the reserve
//
// The write points are one host and one GC stripe across the dies, as a
// superblock FTL keeps them (Linux pblk: one data line, the same block
// index on every parallel unit, and GC writing through the same line
// set): each die programs its part of the stripe into its open group, so
// every die programs in parallel, and an open group holds half a group
// unwritten on average — one group a die for the two. The reserve is the
// free groups collection keeps under sustained writes. At a fixed
// capacity, more dies mean fewer groups a die, and a reserve kept as a
// count of groups per die (ReserveFixed) takes a growing share of the
// spare: on a die of a few dozen groups, all of it. ReserveSpare sizes
// the thresholds from the spare area instead, as pblk sizes its GC and
// rate-limit thresholds from the spare and total blocks and Agrawal et
// al. 2008 give reserve and free-block thresholds as percentages: when
// the write points and the reserve would hold more than HeldShareLimit
// (a quarter) of a die's spare, the thresholds are scaled down together,
// never below what collection needs to work. SpareBudget reports the
// split, and its Warning says when a drive holds more than a quarter all
// the same (dies too small even for the floors).
//
// # Zoned namespaces
//
// Zones is the zone table of an NVMe zoned namespace: each zone's state
// (with its Zone Descriptor value), its write pointer, and the open and
// active resources the zones hold. It decides whether a write, an append
// or a zone management action may run and records it, with NVMe's
// statuses (ZoneError, its Errno the one a Linux host reports); where
// the data goes is the caller's (the controller stores zone i's data at
// i × the zone capacity in the mapping, and maps zones onto die sets).
// The state machine is QEMU's reference device's, checked against a
// model of the transition table by TestZoneStateMachine.
//
// # Memory and speed
//
// The mapping is a []uint32 indexed by logical unit; reverse mapping lives
// in the device's OOB tags. Per-group metadata is a few bytes. Write, Read
// and Trim do not allocate.
package ftl
