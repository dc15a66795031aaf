package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// The placement paths' speed and memory, beside the conventional drive's
// (BenchmarkSteadyStateRandomWrite): the same 256 GiB of generic MLC,
// zoned or with FDP's reclaim unit handles. Run, for example:
//
//	go test -run=NONE -bench='Zoned|FDP|SteadyStateRandomWrite$' -benchtime=2000000x ./sim/

// placed is a drive built once per benchmark, with its memory per GiB of
// flash.
type placed struct {
	e        *sim.Engine
	src      func(n int) workload.Source
	memPerGB float64
}

var zonedBench, fdpBench placed

// zonedState is the generic 256 GiB drive as a zoned namespace of
// 256 MiB zones striped over its 32 dies, 14 of them active at once (the
// ZN540's limit), written by a zonemode=zbd job of 4 KiB random writes:
// each lands at the write pointer of one of its open zones, and a full
// zone the job comes back to is reset (fio's zbd.c). It is written over
// once before timing, so every zone has been filled and resets run.
func zonedState(b *testing.B) *placed {
	st := &zonedBench
	if st.e != nil {
		return st
	}
	before := heapBytes()
	d := bigDriveWith(b, 0, false, func(c *controller.Config) {
		c.Firmware.Zoned = controller.Zoned{ZoneSize: 256 << 20, MaxOpen: 14, MaxActive: 14}
	})
	e := sim.New(d)
	e.SecureErase()
	z, ok := d.Zones()
	if !ok {
		b.Fatal("the drive is not zoned")
	}
	l := workload.ZoneLayout{ZoneBytes: z.ZoneBytes, CapacityBytes: z.ZoneCapacity, Zones: z.Zones, MaxOpen: z.MaxOpen, MaxActive: z.MaxActive}
	j := workload.RandomWriteJob("zoned", 1<<62)
	for _, kv := range [][2]string{{"zonemode", "zbd"}, {"max_open_zones", "14"}} {
		if err := j.Set(kv[0], kv[1]); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.CheckZones(&l); err != nil {
		b.Fatal(err)
	}
	if err := j.Resolve(d.CapacityBytes()); err != nil {
		b.Fatal(err)
	}
	j.ZBD.Host = workload.NewZoneHost(l)
	g := workload.NewGenerator(j) // one job throughout: its open zones stay its own
	st.src = func(n int) workload.Source { return &count{g: g, n: n} }
	if _, err := e.Run(st.src(int(d.CapacityBytes()/4096)), sim.Options{QueueDepth: 32}); err != nil {
		b.Fatal(err)
	}
	st.memPerGB = float64(heapBytes()-before) / (float64(d.Config().NAND.Geometry.Bytes()) / (1 << 30))
	st.e = e
	return st
}

// fdpState is the generic 256 GiB drive with eight reclaim unit handles,
// four persistently isolated, filled and then written by four tenants,
// each 4 KiB random writes over its own quarter through its own handle,
// past the cliff so that collection runs at its steady rate.
func fdpState(b *testing.B) *placed {
	st := &fdpBench
	if st.e != nil {
		return st
	}
	before := heapBytes()
	d := bigDriveWith(b, 0, false, func(c *controller.Config) {
		c.Firmware.FDP = controller.FDP{Handles: 8, PersistentHandles: 4}
	})
	e := sim.New(d)
	e.SecureErase()
	quarter := d.CapacityBytes() / 4 / 4096
	rng := rand.New(rand.NewPCG(1, 2))
	st.src = func(n int) workload.Source { return &tenants{rng: rng, quarter: quarter, n: n} }
	if err := e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.Run(st.src(int(d.CapacityBytes()/4096/4)), sim.Options{QueueDepth: 32}); err != nil {
		b.Fatal(err)
	}
	st.memPerGB = float64(heapBytes()-before) / (float64(d.Config().NAND.Geometry.Bytes()) / (1 << 30))
	st.e = e
	return st
}

func benchPlaced(b *testing.B, st *placed) {
	b.ReportAllocs()
	b.ResetTimer()
	r, err := st.e.Run(st.src(b.N), sim.Options{QueueDepth: 32})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "host-IOs/s")
	b.ReportMetric(st.memPerGB, "B/GiB-flash")
	b.ReportMetric(r.Device.WriteAmplification, "WA")
	if r.ZBD {
		b.ReportMetric(float64(r.ZoneResets), "zone-resets")
	}
}

// BenchmarkZonedRandomWrite measures simulated host I/Os per wall second
// of a zonemode=zbd job's 4 KiB writes at QD 32 on a 256 GiB zoned drive
// (zone resets included), and its memory per GiB of flash.
func BenchmarkZonedRandomWrite(b *testing.B) { benchPlaced(b, zonedState(b)) }

// BenchmarkFDPRandomWrite measures simulated host I/Os per wall second of
// four tenants' 4 KiB random writes at QD 32, each through its own
// reclaim unit handle, on a 256 GiB FDP drive in steady state, and its
// memory per GiB of flash.
func BenchmarkFDPRandomWrite(b *testing.B) { benchPlaced(b, fdpState(b)) }
