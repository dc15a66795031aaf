// Package trace reads block I/O traces recorded on real systems and
// replays them on a simulated drive.
//
// # Formats
//
//	msr       MSR Cambridge CSV: Timestamp (Windows FILETIME, 100 ns ticks),
//	          Hostname, DiskNumber, Type (Read/Write), Offset (bytes),
//	          Size (bytes), ResponseTime
//	spc       SPC / UMass: ASU, LBA (512-byte sectors), Size (bytes),
//	          Opcode (r/w), Timestamp (seconds)
//	disksim   DiskSim/SSDsim/MQSim ASCII: time (ns), device, LBA (sectors),
//	          size (sectors), op (1 read, 0 write)
//	heimdall  windows cut from MSR traces: time (ms, decimal), device,
//	          offset (bytes), size (bytes), op (1 read, 0 write)
//	blkparse  blkparse's default text output; queue (Q) events are
//	          replayed, RWBS R/W/D give read, write and discard, and the
//	          summary block that ends the output is skipped
//	iolog     fio's iolog, versions 2 (no timestamps; "wait N" lines pause
//	          N microseconds) and 3 (microseconds from the start of the
//	          run, as fio's --write_iolog writes them)
//
// Open detects the format from the first lines when none is given, and
// reads gzip-compressed files directly. Readers stream: memory does not
// grow with the trace. A malformed line is reported with the file name,
// the line number and the offending field (ParseError).
//
// # Replay
//
// A Source maps trace records onto one drive. Records from several devices
// share one address space (Devices "merge", as SSDsim and MQSim replay
// them) or get equal partitions of the drive ("partition:N"). A request
// that ends past the drive is wrapped back into it (Beyond "wrap") or
// stops the replay with an error naming the line ("reject"). Offsets and
// lengths are widened to whole 512-byte sectors; zero-length records are
// skipped and counted.
package trace
