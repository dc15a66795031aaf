// Package sim is the discrete-event engine that drives a simulated drive
// (package controller) with a workload (package workload) and collects the
// metrics a reviewer reads: per-direction I/O counts, bandwidth, IOPS and
// latency percentiles, per-interval series (IOPS, MB/s, mean latency,
// write amplification, free blocks, garbage-collection activity), busy
// time with idle excluded and average service time, and the drive's flash
// counters over the run.
//
// # Time and order
//
// Time is integer nanoseconds of simulated time; the engine never reads
// the wall clock. Events are ordered by time, then by the order they were
// created, so a run is a pure function of the drive, the workload and
// their seeds: the same inputs give byte-identical results.
//
// # Submission
//
// Closed loop (Options.QueueDepth > 0) keeps that many requests
// outstanding, issuing a new one each time one completes, as fio's iodepth
// does. Open loop (QueueDepth 0) issues each request at its timestamp. Either
// way each of the drive's command queues accepts at most its depth of
// commands (a SATA drive has one queue, NCQ's 32; an NVMe drive
// Host.Queues of Host.QueueDepth each); the rest wait in the host's queue,
// and that wait counts in their latency. The streams of a group are
// numbered in order, and stream k submits to queue k mod the queue count
// (fio's numjobs clones spread over an NVMe drive's queue pairs). When no
// command is outstanding the engine tells the drive it is idle, which is
// when background garbage collection runs.
//
// An Engine keeps its clock across runs, so a drive can be secure-erased,
// filled, tortured and measured in sequence, as the reviews do.
//
// # Saved state
//
// Between runs, SaveState writes the engine's clock and its drive's whole
// state (every value the controller, the FTL and the flash array hold,
// found by reflection, so none is forgotten), and LoadState restores it
// into an engine whose drive was built from the same description, in
// place: runs from the restored engine give byte-identical results to runs
// from the saved one. A drive prepared once can so be run many times.
//
// # Beside the engine
//
// Two packages read what the engine returns and change nothing:
// sim/fioreport writes results as fio does (JSON, json+, terse,
// disk_util), and sim/analysis reads per-interval series as reviewers
// read their charts (performance consistency, sustained writes).
package sim
