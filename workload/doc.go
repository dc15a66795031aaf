// Package workload generates the host requests that drive a simulated SSD:
// fio-style jobs (the options ftlsim shares with fio, with fio's names,
// syntax and meaning) and, in later packages, traces and review procedures.
//
// A Job is built from options with Set, exactly as fio reads them from a
// command line or a job file, then resolved against a drive's capacity
// (sizes and offsets may be percentages of it) and turned into a Generator,
// which is a Source of requests.
//
// # Randomness
//
// Every random choice comes from a PCG generator seeded by the job's
// randseed, so a job gives the same requests every time. Random offsets
// follow fio: aligned to the smallest block size, drawn uniformly or from
// zipf:θ (Gray et al.'s generator, θ < 1 allowed), pareto:h, normal:dev% or
// zoned distributions, with skewed ranks scattered over the range by a hash
// as fio does. Uniform random I/O visits every block once per pass (fio's
// random map) unless norandommap is set; the map is a keyed permutation, so
// it costs no memory.
package workload
