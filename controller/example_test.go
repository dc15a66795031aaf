package controller_test

import (
	"fmt"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
)

// A preset is an ordinary drive description: change any parameter for a
// what-if study, then build the drive. The flash is the user capacity
// plus the spare area, rounded up to whole blocks.
func ExamplePreset() {
	cfg, err := controller.Preset("generic-mlc")
	if err != nil {
		panic(err)
	}
	cfg.Capacity = 240e9 / 4096 * 4096 // 240 GB user-visible
	cfg.OPPercent = 12
	d, err := controller.New(cfg)
	if err != nil {
		panic(err)
	}
	g := d.Config().NAND.Geometry
	fmt.Printf("%d dies, %d blocks per plane, %.1f GB of flash for %.1f GB user\n",
		g.Dies(), g.BlocksPerPlane, float64(g.Bytes())/1e9, float64(d.CapacityBytes())/1e9)
	// Output:
	// 32 dies, 1002 blocks per plane, 269.0 GB of flash for 240.0 GB user
}

// A drive takes host commands at a time and tells when they complete.
func ExampleController_Submit() {
	cfg, _ := controller.Preset("generic-mlc-small")
	d, err := controller.New(cfg)
	if err != nil {
		panic(err)
	}
	w, _ := d.Submit(0, blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096})
	r, _ := d.Submit(w, blockio.Request{Op: blockio.Read, Offset: 0, Length: 4096})
	fmt.Printf("write acknowledged from the buffer after %.1f µs; read back %.1f µs later\n", float64(w)/1e3, float64(r-w)/1e3)
	// Output:
	// write acknowledged from the buffer after 15.8 µs; read back 17.8 µs later
}

// An NVMe drive's link follows from its PCIe generation and lanes: the
// lanes' transfer rate, less the line code (8b/10b, then 128b/130b) and
// the packets' framing (87 % by default).
func ExamplePCIeLinkMBps() {
	for _, l := range []struct{ gen, lanes int }{{1, 1}, {2, 4}, {3, 4}, {4, 4}, {5, 16}} {
		mbps, err := controller.PCIeLinkMBps(l.gen, l.lanes, 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("PCIe %d.0 x%d: %d MB/s each way\n", l.gen, l.lanes, mbps)
	}
	// Output:
	// PCIe 1.0 x1: 217 MB/s each way
	// PCIe 2.0 x4: 1740 MB/s each way
	// PCIe 3.0 x4: 3426 MB/s each way
	// PCIe 4.0 x4: 6852 MB/s each way
	// PCIe 5.0 x16: 54823 MB/s each way
}

// The ceilings a description puts on 4 KiB random reads: on the generic
// NVMe drive the dies bind; cut to one PCIe lane, the link does.
func ExampleConfig_ReadLimits() {
	cfg, err := controller.Preset("generic-nvme")
	if err != nil {
		panic(err)
	}
	for _, lanes := range []int{4, 1} {
		cfg.Host.PCIeLanes = lanes
		l, err := cfg.ReadLimits(4096)
		if err != nil {
			panic(err)
		}
		iops, by := l.Bound()
		fmt.Printf("x%d: dies %.0f, channels %.0f, link %.0f, firmware %.0f: at most %.0f IOPS (%s)\n",
			lanes, l.Dies, l.Channels, l.Link, l.Firmware, iops, by)
	}
	// Output:
	// x4: dies 577409, channels 1476015, link 796178, firmware 833333: at most 577409 IOPS (dies)
	// x1: dies 577409, channels 1476015, link 206356, firmware 833333: at most 206356 IOPS (link)
}
