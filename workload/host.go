package workload

import (
	"os"
	"runtime"
)

// ThisHost returns this machine's page size, memory and CPU count: the
// values fio's $pagesize, $mb_memory and $ncpus stand for. The memory is
// unknown (0) where the system does not say.
func ThisHost() HostFacts {
	return HostFacts{PageSize: int64(os.Getpagesize()), MBMemory: physicalMemory() >> 20, NCPUs: int64(runtime.NumCPU())}
}
