package ftl_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

func exampleDevice() *nand.Device {
	dev, err := nand.New(nand.Config{
		Geometry: nand.Geometry{Channels: 1, TargetsPerChannel: 1, DiesPerTarget: 2, PlanesPerDie: 1,
			BlocksPerPlane: 256, PagesPerBlock: 64, PageBytes: 16384, UnitBytes: 4096},
		Timing: nand.Timing{Cell: nand.MLC, ReadNs: 1, ProgLSBNs: 1, ProgMSBNs: 1, EraseNs: 1, BusMBps: 1, RatedCycles: 3000},
	})
	if err != nil {
		panic(err)
	}
	return dev
}

// An FTL over a device with 12 % spare area: fill it, overwrite it at
// random, and read the write amplification greedy cleaning gives.
func ExampleFTL() {
	dev := exampleDevice()
	user := dev.Geometry().Units() * 100 / 112
	f, err := ftl.New(dev, ftl.Config{UserUnits: user, Victim: ftl.Greedy{}})
	if err != nil {
		panic(err)
	}
	for lba := int64(0); lba < user; lba++ {
		_ = f.Write(lba, 0)
	}
	r := rand.New(rand.NewPCG(1, 2))
	before := f.Counters()
	for range 4 * user {
		_ = f.Write(r.Int64N(user), 0)
	}
	c := f.Counters()
	wa := float64(c.ProgramUnits-before.ProgramUnits) / float64(c.HostWriteUnits-before.HostWriteUnits)
	fmt.Printf("write amplification %.1f (FIFO theory at α=1.12: %.1f)\n", wa, ftl.FIFOWriteAmplification(1.12))
	fmt.Println("invariants:", f.CheckInvariants())
	// Output:
	// write amplification 4.9 (FIFO theory at α=1.12: 4.8)
	// invariants: <nil>
}

// youngest is a user-written victim policy: among the groups with the
// fewest valid units, the one filled most recently.
type youngest struct{}

func (youngest) Name() string { return "youngest" }

func (youngest) Victim(v ftl.View, die int) int {
	first, n := v.Groups(die)
	best := -1
	for g := first; g < first+n; g++ {
		if !v.Candidate(g) {
			continue
		}
		if best < 0 || v.Valid(g) < v.Valid(best) || (v.Valid(g) == v.Valid(best) && v.ClosedAt(g) > v.ClosedAt(best)) {
			best = g
		}
	}
	return best
}

// A victim policy is a small interface; package ftltest checks one against
// the FTL's invariants in one call.
func ExampleVictimPolicy() {
	dev := exampleDevice()
	f, err := ftl.New(dev, ftl.Config{UserUnits: dev.Geometry().Units() * 3 / 4, Victim: youngest{}})
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 400000 {
		_ = f.Write(r.Int64N(f.UserUnits()), 0)
	}
	fmt.Println(f.Config().Victim.Name(), f.Counters().GCRuns > 0, f.CheckInvariants())
	// Output:
	// youngest true <nil>
}
