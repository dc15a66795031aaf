package sim_test

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// The speed and memory targets of the simulator are checked here, never by
// timed assertions in tests. Run, for example:
//
//	go test -run=NONE -bench=. -benchtime=1x ./sim/
//	go test -run=NONE -bench=SteadyState -benchtime=5000000x ./sim/

// bigDrive builds the generic 256 GiB (user) drive, or the capacity given;
// sf turns on the SandForce mechanisms with the SF-2281 presets' values:
// compression into 2 KiB slots, RAISE 1/16 and a 160 MiB mapping cache.
func bigDrive(b *testing.B, capacity int64, sf bool) *controller.Controller {
	return bigDriveWith(b, capacity, sf, nil)
}

// bigDriveWith is bigDrive with its description edited by edit.
func bigDriveWith(b *testing.B, capacity int64, sf bool, edit func(*controller.Config)) *controller.Controller {
	b.Helper()
	cfg, err := controller.Preset("generic-mlc")
	if err != nil {
		b.Fatal(err)
	}
	if capacity > 0 {
		cfg.Capacity = controller.Size(capacity)
	}
	if sf {
		fw := &cfg.Firmware
		fw.Compression, fw.CompressionSlot, fw.RaiseStripe = true, 2048, 16
		fw.MapCache, fw.MapMissNs = 160<<20, 40000 // sizing: flash sizes the flash for the parity too
	}
	if edit != nil {
		edit(&cfg)
	}
	d, err := controller.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// count is a Source of n closed-loop 4 KiB uniform random writes.
type count struct {
	g *workload.Generator
	n int
}

func (c *count) Next(it *workload.Item) bool {
	if c.n == 0 || !c.g.Next(it) {
		return false
	}
	c.n--
	return true
}

// Waits, Stalled and Completed pass the generator's workload.Waiter on
// (a zonemode=zbd job's zone locks).
func (c *count) Waits() bool                 { return c.g.Waits() }
func (c *count) Stalled() bool               { return c.g.Stalled() }
func (c *count) Completed(it *workload.Item) { c.g.Completed(it) }

func heapBytes() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// steadyState is a 256 GiB drive filled and written randomly until its
// free blocks are spent and GC runs at its steady rate.
type steadyState struct {
	e        *sim.Engine
	gen      *workload.Generator
	memPerGB float64
}

// steady holds the plain drive [0], the SandForce-style one [1], the
// plain one modelling read errors [2], the plain one mapping 16 KiB
// units [3] and the plain one keeping no OOB tags [4], each built once.
var steady [5]steadyState

// units16K maps 16 KiB units (a page of the generic part), on flash
// that keeps no OOB tags (the FTL keeps its reverse map: see compact).
func units16K(c *controller.Config) { c.NAND.Geometry.UnitBytes, c.NAND.DropTags = 16<<10, true }

// compact keeps no OOB tags on the flash: the FTL keeps the reverse map
// of the groups it programs and of those it will collect soon, as large
// drives do (controller.CompactMapUnits).
func compact(c *controller.Config) { c.NAND.DropTags = true }

// readErrorsOn turns on the read-error model (the preset's part and ECC).
func readErrorsOn(c *controller.Config) { c.Firmware.ReadErrors = true }

func steadyEngineMode(b *testing.B, mode int) *steadyState {
	st := &steady[mode]
	if st.e != nil {
		return st
	}
	sf := mode == 1
	before := heapBytes()
	var edit func(*controller.Config)
	switch mode {
	case 2:
		edit = readErrorsOn
	case 3:
		edit = units16K
	case 4:
		edit = compact
	}
	d := bigDriveWith(b, 0, sf, edit)
	e := sim.New(d)
	e.SecureErase()
	if err := e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}); err != nil {
		b.Fatal(err)
	}
	j := workload.RandomWriteJob("steady", 1<<62)
	if sf {
		// Half-compressible data with some duplicates: units of 1 and 2 slots.
		if err := j.Set("data", "os-install"); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Resolve(d.CapacityBytes()); err != nil {
		b.Fatal(err)
	}
	st.gen = workload.NewGenerator(j)
	// Past the cliff: a quarter of a drive-write of random data.
	if _, err := e.Run(&count{g: st.gen, n: int(d.CapacityBytes() / 4096 / 4)}, sim.Options{QueueDepth: 32}); err != nil {
		b.Fatal(err)
	}
	st.memPerGB = float64(heapBytes()-before) / (float64(d.Config().NAND.Geometry.Bytes()) / (1 << 30))
	st.e = e
	return st
}

func benchSteady(b *testing.B, sf bool) { benchSteadyMode(b, map[bool]int{false: 0, true: 1}[sf]) }

func benchSteadyMode(b *testing.B, mode int) {
	st := steadyEngineMode(b, mode)
	b.ReportAllocs()
	passes, scans := st.e.Controller().FTL().ReverseMapPasses(), st.e.Controller().FTL().ReverseMapScans()
	b.ResetTimer()
	r, err := st.e.Run(&count{g: st.gen, n: b.N}, sim.Options{QueueDepth: 32})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if r.Device.GCRuns > 0 {
		b.ReportMetric(float64(st.e.Controller().FTL().ReverseMapPasses()-passes)/float64(r.Device.GCRuns), "map-passes/GC")
		b.ReportMetric(float64(st.e.Controller().FTL().ReverseMapScans()-scans)/float64(r.Device.GCRuns), "map-scans/GC")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "host-IOs/s")
	b.ReportMetric(st.memPerGB, "B/GiB-flash")
	b.ReportMetric(r.Device.WriteAmplification, "WA")
}

// BenchmarkSteadyStateRandomWrite measures simulated host I/Os per wall
// second of 4 KiB random writes at QD 32 on a 256 GiB drive in steady state,
// and the simulator's memory per GiB of simulated flash.
func BenchmarkSteadyStateRandomWrite(b *testing.B) { benchSteady(b, false) }

// BenchmarkSteadyStateReadErrors is BenchmarkSteadyStateRandomWrite with
// the read-error model on (firmware.read_errors): every GC read draws its
// ECC outcome, every program records its time, and the moves GC makes are
// recorded (what it could not read would be lost). The drive is fresh, so
// the figure is the model's bookkeeping, not retries.
func BenchmarkSteadyStateReadErrors(b *testing.B) { benchSteadyMode(b, 2) }

// BenchmarkSteadyState16KiBUnits is BenchmarkSteadyStateCompactMap on
// 16 KiB mapping units: every 4 KiB write reads and programs a whole unit
// again (read-modify-write), and the memory per GiB of flash is that of
// a large-indirection-unit drive.
func BenchmarkSteadyState16KiBUnits(b *testing.B) { benchSteadyMode(b, 3) }

// BenchmarkSteadyStateCompactMap is BenchmarkSteadyStateRandomWrite on
// flash that keeps no OOB tags (nand.Config.DropTags, as drives above
// controller.CompactMapUnits): its memory per GiB of flash, and the cost
// of the passes over the mapping table that find victims' logical units
// (map-passes/GC).
func BenchmarkSteadyStateCompactMap(b *testing.B) { benchSteadyMode(b, 4) }

// BenchmarkSteadyStateSandForce is BenchmarkSteadyStateRandomWrite with
// compression (half-compressible data), RAISE parity and the mapping
// cache switched on.
func BenchmarkSteadyStateSandForce(b *testing.B) { benchSteady(b, true) }

// BenchmarkSequentialFill measures the reviews' sequential fill (128 KiB
// writes, QD 1) of a whole 256 GiB drive, drive construction included.
func BenchmarkSequentialFill(b *testing.B) { benchFill(b, false) }

// BenchmarkSequentialFillSandForce is BenchmarkSequentialFill with
// compression (half-compressible data), RAISE and the mapping cache on.
func BenchmarkSequentialFillSandForce(b *testing.B) { benchFill(b, true) }

func benchFill(b *testing.B, sf bool) {
	for range b.N {
		before := heapBytes()
		d := bigDrive(b, 0, sf)
		e := sim.New(d)
		e.SecureErase()
		j := workload.FillJob()
		if sf {
			if err := j.Set("data", "os-install"); err != nil {
				b.Fatal(err)
			}
		}
		r, err := e.RunJob(j, sim.Hooks{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(heapBytes()-before)/(float64(d.Config().NAND.Geometry.Bytes())/(1<<30)), "B/GiB-flash")
		b.ReportMetric(float64(r.Write.IOs), "host-IOs")
		runtime.KeepAlive(e)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/fill")
}

// BenchmarkMQSimComparison is MQSim's reference job scaled as the issue
// states it: fill a 32 GiB drive, then simulate 1 M random 4 KiB writes.
func BenchmarkMQSimComparison(b *testing.B) {
	for range b.N {
		before := heapBytes()
		d := bigDrive(b, 32<<30, false)
		e := sim.New(d)
		e.SecureErase()
		if err := e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}); err != nil {
			b.Fatal(err)
		}
		j := workload.RandomWriteJob("mqsim", 1<<62)
		if err := j.Resolve(d.CapacityBytes()); err != nil {
			b.Fatal(err)
		}
		if _, err := e.Run(&count{g: workload.NewGenerator(j), n: 1_000_000}, sim.Options{QueueDepth: 32}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(heapBytes()-before)/(1<<20), "MiB-heap")
		runtime.KeepAlive(e)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op-wall")
}

// nvmeState is an NVMe drive filled and written randomly past its
// cliff, with the workload generators of its benchmarks: 4 random
// writers and 8 random readers, each a job on its own queue.
type nvmeState struct {
	e              *sim.Engine
	writers, reads []*workload.Generator
	memPerGB       float64
}

// nvmeSteady is the generic NVMe drive (256 GiB, PCIe 3.0 ×4, 8 queue
// pairs, MLC); nvmeTLC is the same drive on the Samsung V5 TLC part
// (one-shot programming, 1,152-page blocks).
var nvmeSteady, nvmeTLC nvmeState

// nvmeTLCPart is the NAND part of the TLC benchmarks.
const nvmeTLCPart = "samsung-v5-tlc-256gbit"

// nvmeEngine builds, once, the generic NVMe drive on its own dies or
// (part not "") on those of a NAND part preset.
func nvmeEngine(b *testing.B, st *nvmeState, part string) *sim.Engine {
	if st.e != nil {
		return st.e
	}
	before := heapBytes()
	cfg, err := controller.Preset("generic-nvme")
	if err != nil {
		b.Fatal(err)
	}
	if part != "" {
		p, err := controller.Part(part)
		if err != nil {
			b.Fatal(err)
		}
		g := &cfg.NAND.Geometry
		g.PlanesPerDie, g.PagesPerBlock, g.PageBytes, g.SpareBytes = p.Die.PlanesPerDie, p.Die.PagesPerBlock, p.Die.PageBytes, p.Die.SpareBytes
		cfg.NAND.Timing, cfg.NAND.Reliability = p.Timing, p.Reliability
	}
	d, err := controller.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	e := sim.New(d)
	e.SecureErase()
	if err := e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}); err != nil {
		b.Fatal(err)
	}
	gen := func(rw string, seed int) *workload.Generator {
		j := workload.RandomWriteJob("nvme", 1<<62)
		for _, kv := range [][2]string{{"rw", rw}, {"randseed", strconv.Itoa(seed)}} {
			if err := j.Set(kv[0], kv[1]); err != nil {
				b.Fatal(err)
			}
		}
		if err := j.Resolve(d.CapacityBytes()); err != nil {
			b.Fatal(err)
		}
		return workload.NewGenerator(j)
	}
	for k := range 4 {
		st.writers = append(st.writers, gen("randwrite", 100+k))
	}
	for k := range 8 {
		st.reads = append(st.reads, gen("randread", 200+k))
	}
	// Past the cliff: a quarter of a drive-write of random data.
	if _, err := runNVMe(e, st.writers, 32, int(d.CapacityBytes()/4096/4)); err != nil {
		b.Fatal(err)
	}
	st.memPerGB = float64(heapBytes()-before) / (float64(d.Config().NAND.Geometry.Bytes()) / (1 << 30))
	st.e = e
	return e
}

// runNVMe runs n I/Os from the generators, one job each at iodepth qd
// (job k on queue k), and returns the group's device figures.
func runNVMe(e *sim.Engine, gens []*workload.Generator, qd, n int) (sim.Device, error) {
	streams := make([]sim.Stream, len(gens))
	for k, g := range gens {
		streams[k] = sim.Stream{Source: &count{g: g, n: (n + k) / len(gens)}, Options: sim.Options{QueueDepth: qd}}
	}
	rs, err := e.RunGroup(streams)
	if err != nil {
		return sim.Device{}, err
	}
	return rs[0].Device, nil
}

func benchNVMe(b *testing.B, write bool) { benchNVMeOn(b, write, &nvmeSteady, "") }

func benchNVMeOn(b *testing.B, write bool, st *nvmeState, part string) {
	e := nvmeEngine(b, st, part)
	gens, qd := st.reads, 32
	if write {
		gens = st.writers
	}
	b.ReportAllocs()
	b.ResetTimer()
	d, err := runNVMe(e, gens, qd, b.N)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "host-IOs/s")
	b.ReportMetric(st.memPerGB, "B/GiB-flash")
	if write {
		b.ReportMetric(d.WriteAmplification, "WA")
	}
}

// BenchmarkNVMeRandomWrite measures simulated host I/Os per wall second
// of 4 KiB random writes from 4 jobs at QD 32 each, on 4 of the generic
// NVMe drive's queue pairs, in steady state (256 GiB, 7 % spare).
func BenchmarkNVMeRandomWrite(b *testing.B) { benchNVMe(b, true) }

// BenchmarkNVMeRandomRead is 4 KiB random reads from 8 jobs at QD 32
// each, one a queue pair, on the same drive.
func BenchmarkNVMeRandomRead(b *testing.B) { benchNVMe(b, false) }

// BenchmarkNVMeTLCRandomWrite is BenchmarkNVMeRandomWrite on the generic
// NVMe drive built on TLC dies (nvmeTLCPart): the NVMe TLC
// benchmark (at least 1 M simulated host I/Os a wall second, at most 4
// MiB of memory a GiB of flash).
func BenchmarkNVMeTLCRandomWrite(b *testing.B) { benchNVMeOn(b, true, &nvmeTLC, nvmeTLCPart) }

// BenchmarkNVMeTLCRandomRead is BenchmarkNVMeRandomRead on TLC dies.
func BenchmarkNVMeTLCRandomRead(b *testing.B) { benchNVMeOn(b, false, &nvmeTLC, nvmeTLCPart) }
