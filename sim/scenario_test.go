package sim_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testtier"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/workload"
)

// runScenario runs a scenario on a fresh two-die 4 GiB drive.
func runScenario(t *testing.T, name string, p map[string]string) (*sim.Engine, map[string]*sim.Result) {
	t.Helper()
	return runScenarioOn(t, sim.New(twoDies(t, nil)), name, p)
}

// runScenarioOn runs a scenario on the drive of engine e.
func runScenarioOn(t *testing.T, e *sim.Engine, name string, p map[string]string) (*sim.Engine, map[string]*sim.Result) {
	t.Helper()
	sc, err := workload.ScenarioByName(name)
	require.NoError(t, err)
	steps, err := sc.Steps(p)
	require.NoError(t, err)
	ms, err := e.RunSteps(steps)
	require.NoError(t, err)
	out := map[string]*sim.Result{}
	for _, m := range ms {
		out[m.Label] = m.Result
	}
	return e, out
}

func mappedFraction(e *sim.Engine) float64 {
	f := e.Controller().FTL()
	n := 0
	for lba := int64(0); lba < f.UserUnits(); lba++ {
		if f.Mapped(lba) {
			n++
		}
	}
	return float64(n) / float64(f.UserUnits())
}

func mbps(r *sim.Result) float64 { return (r.Read.BWBytes + r.Write.BWBytes) / 1e6 }

func TestScenarioList(t *testing.T) {
	names := map[string]bool{}
	for _, s := range workload.Scenarios() {
		names[s.Name] = true
		require.NotEmpty(t, s.Description)
		if _, ok, err := s.Endurance(nil); ok {
			// Runs until the drive retires (Engine.Endurance), not as steps.
			require.NoError(t, err, s.Name)
			continue
		}
		_, err := s.Steps(nil) // defaults are valid
		require.NoError(t, err, s.Name)
	}
	for _, n := range []string{"secure-erase", "fill", "season", "spare-area", "torture", "four-corners", "access-patterns",
		"as-ssd", "atto", "hdtach", "sustained-write", "consistency", "trim-validation", "power", "power-loss", "endurance"} {
		require.True(t, names[n], n)
	}
	sc, _ := workload.ScenarioByName("torture")
	_, err := sc.Steps(map[string]string{"tiem": "1m"})
	require.ErrorContains(t, err, `no parameter "tiem"`)
	_, err = sc.Steps(map[string]string{"time": "-1"})
	require.ErrorContains(t, err, "time=-1")
	_, err = workload.ScenarioByName("bake")
	require.Error(t, err)
}

func TestScenarioPreparation(t *testing.T) {
	e, _ := runScenario(t, "secure-erase", nil)
	require.Zero(t, mappedFraction(e))
	e, r := runScenario(t, "fill", nil)
	require.Equal(t, 1.0, mappedFraction(e))
	require.InDelta(t, 1.0, r["fill"].Device.WriteAmplification, 0.01)
	e, r = runScenario(t, "season", nil)
	require.Equal(t, 1.0, mappedFraction(e), "seasoning ends with every LBA mapped")
	require.Equal(t, e.Controller().CapacityBytes(), r["restore"].Write.Bytes, "the restore pass covers the drive once")
	// A sector-by-sector restore is a second pass in LBA order: every
	// block the fill wrote is overwritten whole, and collection erases it
	// with nothing to copy.
	require.InDelta(t, 1.0, r["restore"].Device.WriteAmplification, 0.02, "a sequential second pass frees whole blocks")
	e, _ = runScenario(t, "spare-area", map[string]string{"spare": "25"})
	require.InDelta(t, 0.75, mappedFraction(e), 0.001)
	_, r = runScenario(t, "torture", map[string]string{"time": "300s"})
	require.Greater(t, r["torture"].Device.WriteAmplification, 3.0, "torture reaches garbage collection")
}

// TestScenarioConsistency: the plateau ends in a cliff once the spare
// area is written, the steady state (the last 30 % of the run) is well
// below it, and 25 % spare area raises it. The run is 1200 s in the long
// tier, 600 s by default.
func TestScenarioConsistency(t *testing.T) {
	secs := testtier.Pick(600, 1200)
	run := fmt.Sprintf("%ds", secs)
	e, full := runScenario(t, "consistency", map[string]string{"time": run})
	_, spare := runScenario(t, "consistency", map[string]string{"time": run, "spare": "25"})
	from := int64(secs) * 7 / 10 * sim.Second
	a := analysis.SummarizeConsistency(full["consistency"].Intervals.Slice(), from)
	b := analysis.SummarizeConsistency(spare["consistency"].Intervals.Slice(), from)
	// The plateau writes into the flash the fill left free. Cleaning
	// starts once a die is down to gc_pace_water free groups, besides the
	// two groups it keeps open, and must keep up once all is written; the
	// series has one-second intervals.
	cfg := e.Controller().Config()
	g := cfg.NAND.Geometry
	free := float64(g.Bytes() - e.Controller().CapacityBytes())
	held := float64(g.Dies()*(max(cfg.Firmware.GCPaceWater, cfg.Firmware.GCLowWater)+2)*g.PlanesPerDie) * float64(g.BlockBytes())
	rate := a.FreshIOPS * 4096
	cliff := float64(a.CliffNs) / 1e9
	t.Logf("cliff at %.1f s; writes at the plateau reach the pacing in %.1f s, fill the spare area in %.1f s", cliff, (free-held)/rate, free/rate)
	require.GreaterOrEqual(t, cliff, (free-held)/rate, "the plateau lasts until cleaning starts")
	require.LessOrEqual(t, cliff, free/rate+1, "the plateau ends when the spare area is written")
	require.Less(t, a.SteadyMedian, a.FreshIOPS/3)
	require.Greater(t, b.SteadyMedian, 2*a.SteadyMedian)
}

func TestScenarioFourCornersAndPatterns(t *testing.T) {
	// Eight dies: queue depth has parallelism to use.
	e, r := runScenarioOn(t, sim.New(smallDrive(t, nil)), "four-corners", map[string]string{"random_time": "2s", "seq_time": "2s", "span": "1g"})
	require.Len(t, r, 6)
	require.Greater(t, r["4k-rand-read-qd32"].Read.IOPS, 2*r["4k-rand-read-qd3"].Read.IOPS, "random reads scale with queue depth")
	require.Greater(t, r["4k-rand-write-qd32"].Write.IOPS, r["4k-rand-write-qd3"].Write.IOPS)
	seq, link := mbps(r["128k-seq-read-qd1"]), float64(e.Controller().Config().Host.LinkMBps)
	t.Logf("128 KiB sequential read at QD 1: %.0f MB/s (link %.0f MB/s); 4 KiB random read at QD 3: %.0f MB/s", seq, link, mbps(r["4k-rand-read-qd3"]))
	require.LessOrEqual(t, seq, link)
	require.Greater(t, seq, 2*mbps(r["4k-rand-read-qd3"]), "large sequential transfers beat small random ones")
	_, r = runScenarioOn(t, sim.New(smallDrive(t, nil)), "access-patterns", map[string]string{"time": "1s"})
	require.Len(t, r, 24)
	for _, p := range []string{"file-server", "web-server", "workstation", "database"} {
		q1, q32 := r[p+"-qd1"], r[p+"-qd32"]
		require.Greater(t, q32.Read.IOPS+q32.Write.IOPS, 2*(q1.Read.IOPS+q1.Write.IOPS), p)
	}
	require.Zero(t, r["web-server-qd8"].Write.IOs, "the web server pattern only reads")
}

func TestScenarioTransferSizes(t *testing.T) {
	_, r := runScenario(t, "atto", map[string]string{"length": "32m"})
	require.Len(t, r, 30)
	// Throughput rises with transfer size until the flash or link bounds it.
	require.Less(t, mbps(r["read-512"]), mbps(r["read-4k"]))
	require.Less(t, mbps(r["read-4k"]), mbps(r["read-64k"]))
	require.Less(t, mbps(r["write-512"]), mbps(r["write-4k"]))
	require.LessOrEqual(t, mbps(r["read-8m"]), 1.05*mbps(r["read-1m"]), "flat once bounded")
	atto4k := mbps(r["read-4k"])
	// AS-SSD: 16 MiB sequential transfers of incompressible data only.
	sc, err := workload.ScenarioByName("as-ssd")
	require.NoError(t, err)
	steps, err := sc.Steps(nil)
	require.NoError(t, err)
	for _, s := range steps {
		if s.Kind == workload.RunJob && s.Job.Pattern == workload.SeqWrite {
			require.Zero(t, s.Job.Data.CompressPct, "AS-SSD writes incompressible data")
			require.Equal(t, int64(16<<20), s.Job.BS[0].Bytes)
		}
	}
	_, r = runScenario(t, "as-ssd", nil)
	require.Equal(t, int64(1<<30), r["seq-write"].Write.Bytes)
	require.Equal(t, int64(1<<30), r["seq-read"].Read.Bytes)
	require.Greater(t, mbps(r["seq-read"]), atto4k, "16 MiB transfers beat 4 KiB ones")
}

func TestScenarioHDTach(t *testing.T) {
	_, r := runScenario(t, "hdtach", nil)
	w := r["write-curve"]
	require.Equal(t, int64(4<<30), w.Write.Bytes)
	require.Greater(t, w.Intervals.Len(), 5, "a curve across the span")
	require.Less(t, r["access-512"].Read.Latency.Mean, r["access-1m"].Read.Latency.Mean)
	// After torture the full-span write starts slow and recovers as the
	// drive cleans itself up.
	_, r = runScenario(t, "hdtach", map[string]string{"torture": "1", "torture_time": "300s"})
	iv := r["write-curve"].Intervals.Slice()
	first, last := iv[0].MBps, iv[len(iv)-2].MBps
	t.Logf("after torture: full-span write starts at %.0f MB/s, ends at %.0f MB/s", first, last)
	require.Greater(t, last, 1.5*first)
}

// The sustained write covers what the fill left: the whole span on an
// empty drive, the last 20 % on one filled to 80 %; the write after the
// idle covers the burst. On a drive without an SLC cache the rate holds.
func TestScenarioSustainedWrite(t *testing.T) {
	_, r := runScenario(t, "sustained-write", nil)
	w := r["sustained"]
	require.Equal(t, int64(4<<30), w.Write.Bytes)
	s := analysis.SummarizeSustained(w.Intervals.Slice())
	require.Equal(t, w.Write.Bytes, s.Bytes)
	require.False(t, s.Dropped, "no cache to run out of: %+v", s)
	require.InDelta(t, s.BurstMBps, s.AverageMBps, 0.1*s.BurstMBps)
	require.Len(t, s.PerGB, 5) // 4 GiB is 4.29 GB
	_, r = runScenario(t, "sustained-write", map[string]string{"fill": "80", "idle": "10s", "burst": "5"})
	require.InDelta(t, float64(4<<30)/5, float64(r["sustained"].Write.Bytes), float64(4<<30)/100)
	require.InDelta(t, float64(4<<30)/20, float64(r["after-idle"].Write.Bytes), float64(4<<30)/100)
	sc, _ := workload.ScenarioByName("sustained-write")
	for _, bad := range []map[string]string{{"fill": "95"}, {"burst": "0"}, {"idle": "-1s"}, {"settle": "x"}} {
		_, err := sc.Steps(bad)
		require.Error(t, err, "%v", bad)
	}
}

func TestScenarioTRIMValidationAndPower(t *testing.T) {
	_, r := runScenario(t, "trim-validation", map[string]string{"torture_time": "300s", "measure_time": "10s"})
	clean, dirty, trimmed := mbps(r["clean"]), mbps(r["dirty"]), mbps(r["after-trim"])
	t.Logf("TRIM validation: clean %.0f MB/s, dirty %.0f, after TRIM %.0f", clean, dirty, trimmed)
	require.Less(t, dirty, 0.7*clean)
	require.InEpsilon(t, clean, trimmed, 0.1, "after TRIM ≈ clean on a non-SandForce drive")
	_, r = runScenario(t, "power", map[string]string{"time": "5s"})
	require.Less(t, r["idle"].Power.AverageW, r["seq-write"].Power.AverageW)
	require.Less(t, r["idle"].Power.AverageW, r["random-write"].Power.AverageW)
	require.Equal(t, int64(5), r["idle"].Read.IOs, "one read a second")
}

// TestStorageBenchSuites: each synthesised suite reproduces its published
// read share and mean request size, keeps the drive idle between phases
// (busy time below elapsed time), and reports service times.
func TestStorageBenchSuites(t *testing.T) {
	for _, c := range []struct {
		name      string
		readShare float64
		meanKB    float64
	}{
		{"storage-bench-heavy-2011", 0.55, 39.2},
		{"storage-bench-light-2011", 0.45, 11.8},
		{"destroyer-2013", 0.78, 49.4},
	} {
		e, _ := runScenarioOn(t, sim.New(smallDrive(t, nil)), "secure-erase", nil)
		sc, err := workload.ScenarioByName(c.name)
		require.NoError(t, err)
		steps, err := sc.Steps(map[string]string{"time": "10s", "phases": "10", "idle": "100ms"})
		require.NoError(t, err)
		ms, err := e.RunSteps(steps)
		require.NoError(t, err)
		var parts []*sim.Result
		for _, m := range ms {
			require.Equal(t, "bench", m.Label)
			parts = append(parts, m.Result)
		}
		require.Len(t, parts, 10)
		r := sim.Combine(parts)
		n := float64(r.Read.IOs + r.Write.IOs)
		t.Logf("%s: %.0f requests, %.1f %% reads, %.1f KB a request, busy %.1f s of %.1f s, service %.0f us",
			c.name, n, 100*float64(r.Read.IOs)/n, float64(r.Read.Bytes+r.Write.Bytes)/n/1e3, float64(r.BusyNs)/1e9, float64(r.EndNs-r.StartNs)/1e9, r.AvgServiceNs/1e3)
		require.InDelta(t, c.readShare, float64(r.Read.IOs)/n, 0.02)
		require.InEpsilon(t, c.meanKB, float64(r.Read.Bytes+r.Write.Bytes)/n/1e3, 0.08)
		require.Less(t, r.BusyNs, r.EndNs-r.StartNs)
		// Little's law: the service times add up to the time integral of
		// the requests outstanding, which is at least the busy time.
		require.GreaterOrEqual(t, r.AvgServiceNs*n, float64(r.BusyNs)*(1-1e-9))
		require.Equal(t, r.Read.IOs+r.Write.IOs, parts[0].Read.IOs+parts[0].Write.IOs+func() (s int64) {
			for _, p := range parts[1:] {
				s += p.Read.IOs + p.Write.IOs
			}
			return
		}())
	}
}

// TestContentIgnoredWithoutCompression: controllers that do not compress
// (every preset so far) perform the same whatever the data.
func TestContentIgnoredWithoutCompression(t *testing.T) {
	run := func(data string) *sim.Result {
		e := sim.New(smallDrive(t, nil))
		e.SecureErase()
		r, err := e.RunJob(job(t, "rw", "randwrite", "iodepth", "32", "runtime", "2", "time_based", "1", "data", data), sim.Hooks{})
		require.NoError(t, err)
		return r
	}
	a, b := run("full-random"), run("pseudo-random")
	require.Equal(t, a.Write.IOs, b.Write.IOs)
	require.Equal(t, a.Device.NANDWriteBytes, b.Device.NANDWriteBytes)
	_, r := runScenario(t, "four-corners", map[string]string{"random_time": "1s", "seq_time": "1s", "span": "1g", "data": "pseudo-random"})
	require.Len(t, r, 6)
	sc, _ := workload.ScenarioByName("four-corners")
	_, err := sc.Steps(map[string]string{"data": "lorem"})
	require.ErrorContains(t, err, "data=lorem")
}

// TestScenarioATTOAgainstASSSDOnCompression: ATTO writes compressible
// data and AS-SSD incompressible data, so on a compressing drive the same
// large sequential writes are much faster under ATTO; on a drive that
// does not compress they are alike.
func TestScenarioATTOAgainstASSSDOnCompression(t *testing.T) {
	for _, compress := range []bool{true, false} {
		edit := func(c *controller.Config) {
			if compress {
				c.Firmware.Compression, c.Firmware.CompressionSlot = true, 2048
			}
		}
		_, atto := runScenarioOn(t, sim.New(smallDrive(t, edit)), "atto", map[string]string{"length": "64m"})
		_, asssd := runScenarioOn(t, sim.New(smallDrive(t, edit)), "as-ssd", nil)
		a, s := mbps(atto["write-8m"]), mbps(asssd["seq-write"])
		t.Logf("compression %v: ATTO 8 MiB writes %.0f MB/s, AS-SSD sequential write %.0f MB/s", compress, a, s)
		if compress {
			require.Greater(t, a, 1.3*s)
		} else {
			require.InEpsilon(t, s, a, 0.15)
		}
	}
}
