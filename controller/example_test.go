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
