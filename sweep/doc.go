// Package sweep runs what-if studies: one ftlsim command line per point of
// a grid of drive-description fields, job options and scenario
// parameters, run in parallel on the cores of one machine or split into
// shards across a cluster's scheduler (Slurm job arrays, Kubernetes
// Indexed Jobs, HTCondor, GNU parallel), with results gathered into one
// table and charts.
//
// A study file (YAML, see Parse) names a base drive, fixed options, axes
// and repetitions:
//
//	name: op-dies
//	drive: m4-64                 # a preset or a description file
//	scenario: consistency        # or leave it out and give job options
//	options: {capacity: 64GiB, time: 600s}
//	axes:
//	  op: [7, 12, 25, 28]        # a command option (--op)
//	  nand.geometry.dies: [8, 16, 32]
//	  gc_policy: [greedy, cost-benefit]   # a drive-description field
//	repeat: 1
//	seed: 1
//
// Points are numbered in a stable order (the first axis varies slowest,
// repetitions fastest) and each point's random seed is derived from its
// coordinates and the study's seed, so a point's result never depends on
// which machine, shard or order ran it. Every point is a command line of
// its own (Point.Command), so any one of them can be run again by hand.
//
// Run executes the points through Options.Main, cli.Command (the sweep
// package does not import the command), with the victim policies of
// Options.Policies known to it, so that a policy a program registered in
// Go runs in its sweeps: -j points at once, no more at a time than a
// memory budget allows (each point's estimate comes from Options.Memory,
// cli.CommandMemory), with a progress line and an ETA. Each finished
// point appends one JSON line to the results file (Result: coordinates,
// summary figures, the point's configuration hash, the ftlsim version and
// the path of its full fio-shaped JSON); a result already present with
// the same hash and version is not run again (Options.Resume), so an
// interrupted study continues where it stopped.
//
// The Scheduler that Run uses is ftlsim's one run organiser: the review
// (package report) runs its suite on it too, as a built-in study whose
// points are each drive's runs. It runs Tasks — a hash of their inputs,
// a memory estimate, a function that runs them, optional shared
// preparation — under a jobs limit and a weighted memory budget, writes
// each finished task's files whole and appends its Result, stops on the
// context (and, with FailFast, on the first failure), and Plan sorts
// tasks into those a saved result stands for and those to run.
//
// Points that share a drive and its preconditioning and differ only in
// their workload are forked from one drive snapshot (--save_state,
// --load_state): the drive is filled once per group, with a seed derived
// from the group, and every point of the group starts from the snapshot.
//
// Merge combines the results of shards (or of one whole run) into one
// table, sorted by point, as CSV and JSON lines, refusing results of a
// different study file or ftlsim version; Table.SavePlot draws a metric
// against one axis, a line per value of a second, small multiples over a
// third, or a heatmap over two (DefaultPlots picks a study's usual
// charts).
//
// The package holds no global state; Run may be called concurrently for
// different output directories.
package sweep
