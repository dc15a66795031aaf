// Package controller composes a flash array (package nand) and a
// translation layer (package ftl) into a drive with the firmware and host
// interface behaviour of a real SSD controller: a SATA 6 Gb/s link with
// payload bandwidth and per-command overhead and native command queueing,
// or NVMe over PCIe (nvme.go: queue pairs, a full-duplex link whose
// bandwidth follows from its generation and lanes, doorbell and interrupt
// latencies, a host memory buffer for DRAM-less drives), a
// firmware that spends time on every command, a write-back DRAM buffer that
// acknowledges writes once buffered and pushes back on the host when full,
// read-modify-write of partial mapping units, TRIM, secure erase and
// background garbage collection while the host is idle.
//
// # SandForce-style firmware
//
// Four optional mechanisms model the SF-2281 and serve any what-if study:
// compression (Firmware.Compression: the flash array's device unit becomes
// a slot, and each mapping unit takes its compressed size in whole slots,
// from the Data a write carries); RAISE die-level parity
// (Firmware.RaiseStripe: capacity held for parity and a parity page
// programmed per stripe of data pages); a DRAM-less mapping cache
// (Firmware.MapCache: mapping pages read from flash on misses and
// programmed back when changed ones are evicted, at MapMissNs of firmware
// time each); and a TRIM backlog (Firmware.TrimBacklog: trimmed space
// recorded for reclaiming while idle, with TRIM beyond it dropped). Parity
// and mapping pages are written to per-die logs outside the FTL's mapping;
// their programs, erases and energy are counted.
//
// # Read errors
//
// With Firmware.ReadErrors every flash read the controller decodes (host,
// read-ahead, read-modify-write and garbage-collection reads) draws, from
// the drive's seed, whether the NAND part's raw bit errors
// (nand.Reliability) exceed what its ECC corrects (ECC: a BCH code, the
// binomial tail of errors in a codeword). A failed read is sensed again
// with the part's read-retry steps, each booked at tR and the transfer; a
// read no step recovers is rebuilt from RAISE parity (the stripe's other
// pages read on their dies) or, without RAISE, fails: Submit returns
// ErrUncorrectable with the completion time, and data garbage collection
// could not read is lost until rewritten. Firmware.ReadReclaimReads
// refreshes groups read too often since their erase (ftl.FTL.Refresh).
// PreWear and Bake start a drive part way through its life and age its
// data, so that faults show in a short run (readerr.go, ecc.go).
//
// # Time
//
// The controller is advanced by its caller's virtual clock (package sim):
// Submit takes the time the host submits a command and returns, at once,
// the time the host sees it complete. Every resource — the link, the firmware, the
// write buffer, each die and each channel — keeps a reservation calendar,
// so a command's completion is known when it is submitted, and the flash
// work it causes (including garbage collection) occupies the dies from
// then on. Commands must be submitted in non-decreasing time.
//
// The controller's own flash operations — RAISE parity pages, mapping
// pages — are counted in the same ftl.Counters as the FTL's, by cause,
// so Counters covers the whole drive with one type.
//
// # The contract
//
// The controller drives the FTL as raft's application drives a RawNode
// (see "The contract" in package ftl): for each piece of a command it
//
//  1. chooses what the FTL cannot know and passes it in — for a write
//     that opens a host page (ftl.FTL.OpensPage), the die that frees up
//     first on the timeline (hostDie), chosen once all earlier work is
//     booked — and calls the FTL's input (WriteOn, Trim, ReadFor, Flush,
//     CollectBackground, ...);
//  2. takes the flash work it decided (Ready) and books each operation,
//     in order, from a time it passes explicitly (drain, book; no field
//     holds a "current time");
//  3. reports what booking found: with read errors modelled, when each
//     program ends (ReportProgrammed) and each sense of a page
//     (ReportSensed); a read of moved data that could not be decoded
//     (ReportUnreadable, from drain with the operation's index) or the
//     rest of a partial write that could not be read (ReportLost);
//     erases known to have run (ForgetErased); power cuts (PowerLoss);
//  4. says it is done (Advance).
//
// The controller owns time — the timeline, the link and firmware
// calendars, the write buffer — and the physical outcomes that depend on
// it (ECC, read retry, RAISE rebuilds, what a power cut interrupts). The
// FTL owns the mapping and the flash array's state (nand.Device): it
// alone changes it, the controller's wear and ageing (PreWear, AddWear,
// Bake) included. The controller reads the device only through
// deviceReader, which holds none of its changing methods.
//
// Files by responsibility: controller.go (commands in), ops.go (booking
// the FTL's work; choosing the die of host pages), link.go (host link,
// data path), buffer.go (write-back buffer), gcpath.go (how GC's copies
// cross the controller: firmware time per unit, the ECC engine, or
// copyback), read.go, readahead.go, write.go
// (read-modify-write, compression), trim.go (TRIM backlog), idle.go
// (background work, secure erase), raise.go (parity), mapcache.go
// (DRAM-less mapping cache, host memory buffer), nvme.go (the NVMe
// interface and PCIe link arithmetic), limits.go (random-read ceilings
// from a description), power.go, config.go, sizing.go, lines.go; the
// description's fields: fields.go (the table), validate.go (rules between
// fields), load.go (reading YAML, base), fielderr.go (errors that name
// file, line and field), fieldref.go (docs/drive-fields.md).
//
// # Drive descriptions
//
// A drive is described by a Config, read from YAML (LoadConfig) or taken
// from the presets embedded in this package (Preset, Presets). Sizes in a
// description may be written as numbers of bytes or with units ("240GB",
// "256GiB", "16k"); GB is 10^9 bytes, GiB 2^30.
//
// Of a drive's three sizes — user capacity, spare area (op_percent, as a
// percentage of user capacity) and flash — a description gives two and its
// sizing names the one derived: "flash" (the default) derives the blocks
// per plane, physical flash = capacity × (1 + OP) rounded up to whole
// blocks on every plane of every die; "spare" keeps a full geometry, as
// product lines do, and derives the spare area; "capacity" derives the
// capacity. Config.Resolve checks a description and returns the drive as
// built (a Resolved, with the spare area the rounded geometry gives),
// never changing the description; New resolves what it is given.
// Config.Resized describes the same drive at another capacity and spare
// area.
//
// Each field of a description is declared once, on the struct field that
// holds it: its yaml tag names it, and its range, unit, default, layer
// (NAND part, controller, firmware, board) and one-line doc are tags
// beside it. Fields returns that table; Resolve's range checks, FTLConfig's
// copies (the ftl tag), the sweep's drive axes and docs/drive-fields.md
// are derived from it. A description may build on another ("base: NAME");
// every error names the file, the line, the field and what is allowed.
package controller
