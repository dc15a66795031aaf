package workload_test

import (
	"fmt"

	"github.com/ftlsim/ftlsim/workload"
)

// Jobs take fio's options by name, as a command line or job file gives
// them, and resolve against a drive's capacity.
func ExampleJob_Set() {
	j := workload.NewJob("oltp")
	for _, kv := range [][2]string{{"rw", "randrw"}, {"rwmixread", "70"}, {"bssplit", "4k/80:64k/20"},
		{"size", "50%"}, {"random_distribution", "zipf:0.9"}, {"number_ios", "3"}} {
		if err := j.Set(kv[0], kv[1]); err != nil {
			panic(err)
		}
	}
	if err := j.Resolve(64 << 30); err != nil {
		panic(err)
	}
	g := workload.NewGenerator(j)
	var it workload.Item
	for g.Next(&it) {
		fmt.Println(it.Op, it.Length, it.Offset)
	}
	fmt.Println(j.Set("rw", "sideways"))
	// Output:
	// read 4096 1769017344
	// read 4096 5902356480
	// write 4096 15903670272
	// invalid job option: rw=sideways: "sideways": allowed read, write, trim, randread, randwrite, randtrim, rw, randrw, trimwrite
}

// Each option says what ftlsim does with it: honours it (and which of
// the job's fields it sets), reports it as not applied, or refuses it.
func ExampleLookupOption() {
	for _, name := range []string{"blocksize", "ioengine", "read_iolog"} {
		o, _ := workload.LookupOption(name)
		fmt.Printf("%s: %s (%s) %s%s\n", name, o.Name, o.Support, o.Field, o.Reason)
	}
	j := workload.NewJob("typo")
	fmt.Println(j.Set("iodepht", "8"))
	// Output:
	// blocksize: bs (honoured) Blocks.BS
	// ioengine: ioengine (not applied) the host's I/O path: the simulation submits to the drive directly
	// read_iolog: read_iolog (refused) ftlsim replays traces with its replay command (ftlsim replay FILE: fio's iologs, blktrace and others)
	// unknown option iodepht (did you mean iodepth?)
}
