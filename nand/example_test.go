package nand_test

import (
	"errors"
	"fmt"

	"github.com/ftlsim/ftlsim/nand"
)

func exampleConfig() nand.Config {
	return nand.Config{
		Geometry: nand.Geometry{Channels: 2, TargetsPerChannel: 1, DiesPerTarget: 1, PlanesPerDie: 1,
			BlocksPerPlane: 4, PagesPerBlock: 4, PageBytes: 16384, SpareBytes: 1280, UnitBytes: 4096},
		Timing: nand.Timing{Cell: nand.MLC, ReadNs: 50_000, ProgLSBNs: 500_000, ProgMSBNs: 2_000_000,
			EraseNs: 3_000_000, BusMBps: 200, CommandNs: 300, RatedCycles: 3000},
	}
}

// The device enforces NAND's rules: pages are programmed in order, once
// between erases, and a block holding valid data is not erased.
func ExampleDevice() {
	dev, err := nand.New(exampleConfig())
	if err != nil {
		panic(err)
	}
	tags := []uint32{10, 11, 12, 13} // logical units stored in the page's OOB area
	fmt.Println(dev.Program(0, 0, tags, nil))
	fmt.Println(errors.Is(dev.Program(0, 0, tags, nil), nand.ErrNotErased))
	fmt.Println(errors.Is(dev.Program(0, 2, tags, nil), nand.ErrOutOfOrder))
	fmt.Println(errors.Is(dev.Erase(0), nand.ErrEraseValid))
	for s := 0; s < 4; s++ {
		_ = dev.Invalidate(dev.Unit(0, 0, s))
	}
	fmt.Println(dev.Erase(0), dev.EraseCount(0), dev.State(0))
	// Output:
	// <nil>
	// true
	// true
	// true
	// <nil> 1 free
}

// The timeline books array and bus time: dies on different channels work
// in parallel, and a die is busy until its operation ends.
func ExampleTimeline() {
	cfg := exampleConfig()
	tl := nand.NewTimeline(cfg)
	a := tl.Program(0, 0, 1, 0) // die 0, lower page
	b := tl.Program(1, 1, 1, 0) // die 1 (other channel), upper page
	c := tl.Read(0, 1, 4096, 0) // waits for die 0's program
	fmt.Printf("die 0 program done at %d µs, die 1 at %d µs, read on die 0 at %d µs\n", a/1000, b/1000, c/1000)
	// Output:
	// die 0 program done at 588 µs, die 1 at 2088 µs, read on die 0 at 659 µs
}
