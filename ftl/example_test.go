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

// A program names its own policy like a built-in one through a Registry,
// which it passes to whatever builds drives (controller.Config.Policies,
// report.Options.Policies, cli.WithPolicies).
func ExampleRegistry() {
	reg := ftl.NewRegistry()
	if err := reg.Register("youngest", func(string) (ftl.VictimPolicy, error) { return youngest{}, nil }); err != nil {
		panic(err)
	}
	p, err := reg.Parse("youngest")
	fmt.Println(p.Name(), err)
	p, err = reg.Parse("d-choices:4")
	fmt.Println(p.Name(), err)
	_, err = reg.Parse("oldest")
	fmt.Println(err)
	// Output:
	// youngest <nil>
	// d-choices:4 <nil>
	// invalid ftl configuration: gc policy "oldest", allowed cost-benefit, d-choices:D, fifo, greedy, random, youngest
}

// The FTL decides which flash operations happen; with RecordOps it hands
// them to the caller (Ready), who decides when each happens (the
// controller books them on the flash timeline) and then says so
// (Advance).
func ExampleFTL_Ready() {
	dev := exampleDevice()
	f, err := ftl.New(dev, ftl.Config{UserUnits: 1024, RecordOps: true})
	if err != nil {
		panic(err)
	}
	// A page holds four units: the fourth write programs it.
	for lba := range int64(4) {
		if err := f.Write(lba, 0); err != nil {
			panic(err)
		}
	}
	for _, op := range f.Ready().Ops {
		fmt.Println(op)
	}
	f.Advance()
	// Reading the page's units in one run senses the page once.
	var run ftl.ReadRun
	for lba := range int64(4) {
		if _, err := f.ReadFor(lba, ftl.CauseHost, &run); err != nil {
			panic(err)
		}
	}
	for _, op := range f.Ready().Ops {
		fmt.Println(op)
	}
	// Output:
	// program host die=0 block=0 page=0 planes=1 units=4
	// read host die=0 block=0 page=0 planes=1 units=1
	// transfer host die=0 block=0 page=0 planes=1 units=1
	// transfer host die=0 block=0 page=0 planes=1 units=1
	// transfer host die=0 block=0 page=0 planes=1 units=1
}

// An SLC cache on TLC flash: host writes go to blocks in SLC mode while
// the cache has room (with one block of room left, the FTL starts
// folding the oldest into TLC blocks, a little after each host page); an
// idle drive folds the full SLC blocks (the one being filled stays), and
// the cache has room again — less than on the empty drive, as the folded
// data now fills TLC blocks.
func ExampleFTL_FoldBackground() {
	dev, err := nand.New(nand.Config{
		Geometry: nand.Geometry{Channels: 1, TargetsPerChannel: 1, DiesPerTarget: 1, PlanesPerDie: 1,
			BlocksPerPlane: 64, PagesPerBlock: 48, PageBytes: 16384, UnitBytes: 4096},
		Timing: nand.Timing{Cell: nand.TLC, ReadNs: 1, ProgLSBNs: 1, ProgMSBNs: 1, EraseNs: 1, BusMBps: 1, RatedCycles: 3000,
			SLCReadNs: 1, SLCProgNs: 1, SLCRatedCycles: 30000},
	})
	if err != nil {
		panic(err)
	}
	f, err := ftl.New(dev, ftl.Config{UserUnits: dev.Geometry().Units() * 100 / 125, SLCStaticGroups: 2, SLCDynamicGroups: 64})
	if err != nil {
		panic(err)
	}
	fmt.Println("cache room:", f.SLCCacheUnits(), "units")
	for lba := range int64(2800) {
		_ = f.Write(lba, 0)
	}
	c := f.Counters()
	fmt.Println("written in SLC mode:", c.SLCHostUnits, "folded:", c.FoldedUnits)
	for f.NeedsFold(0) {
		_, _ = f.FoldBackground(0)
	}
	fmt.Println("after idle: folded", f.Counters().FoldedUnits, "cache room", f.SLCCacheUnits())
	// Output:
	// cache room: 2880 units
	// written in SLC mode: 2800 folded: 64
	// after idle: folded 2752 cache room 2048
}
