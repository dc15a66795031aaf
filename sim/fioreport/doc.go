// Package fioreport writes a simulation's results as fio writes its own:
// the --output-format=json document (Report, Job: fio's field names and
// units — bandwidth in KiB/s, runtimes in ms, latencies in ns — with
// ftlsim's device, geometry, power and series objects added), json+
// (JobPlusOf: each direction's completion-latency bins), terse version 3
// (WriteTerse) and fio's disk_util entry for the simulated drive
// (SumDiskUtil).
//
// It reads results (package sim) and changes nothing: JobOf and the
// writers are pure functions of a sim.Result, so the same run gives
// byte-identical documents. Readers of fio's JSON (fio's own tools, the
// sweep's result reader) read these documents unchanged.
package fioreport
