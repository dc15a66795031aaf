//go:build !linux

package workload

// physicalMemory returns the machine's memory in bytes: unknown (0) on
// this system, so job files using $mb_memory are refused here.
func physicalMemory() int64 { return 0 }
