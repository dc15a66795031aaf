package controller_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
)

// The drives of the prefetch metamorphic test: small, so that a fill and
// garbage collection take a few thousand requests, with the mechanisms
// prefetching could disturb switched on.
var prefetchDrives = []struct {
	name string
	edit func(*controller.Config)
}{
	// The generic drive, cut to 256 MiB on its 8 dies with 32-page blocks
	// and 25 % spare (40 groups a die, of which it keeps 5); greedy, paced
	// GC.
	{"generic-mlc-small", func(c *controller.Config) {}},
	// The same with a randomised victim policy (the FTL's random source
	// must not be drawn by hints), no pacing, read-ahead and reclaiming
	// trimmed groups while idle.
	{"generic-mlc-small/d-choices", func(c *controller.Config) {
		c.Firmware.GCPolicy = "d-choices:4"
		c.Firmware.GCPaceWater = 0
		c.Firmware.ReadAhead = 256 << 10
		c.Firmware.ReclaimOnIdle = true
	}},
	// A SandForce drive shrunk the same way: compression in 2 KiB slots,
	// RAISE parity, read-ahead, a TRIM backlog and a mapping cache of four
	// mapping pages of the sixteen the table needs, so that most commands
	// miss.
	{"atlas-30", func(c *controller.Config) {
		c.Firmware.MapCache = 64 << 10
		c.Firmware.TrimBacklog = 16 << 20
	}},
}

// prefetchConfig returns the named drive's configuration at 256 MiB.
func prefetchConfig(t *testing.T, preset string, edit func(*controller.Config)) controller.Config {
	t.Helper()
	cfg, err := controller.Preset(preset)
	require.NoError(t, err)
	r, err := cfg.Resolve() // keep the drive's spare area and dies
	require.NoError(t, err)
	spare := r.SparePercent
	if spare < 25 && cfg.Firmware.RaiseStripe == 0 {
		spare = 25 // room for the groups each die keeps
	}
	cfg = r.Config.Resized(256<<20, spare)
	cfg.NAND.Geometry.PagesPerBlock = 32
	edit(&cfg)
	return cfg
}

// hostOp is one step of a metamorphic run: a request (or idle time) after
// gapNs, with the hints the prefetching drive gets just before it.
type hostOp struct {
	idle  bool // let the drive idle for gapNs instead of submitting req
	req   blockio.Request
	gapNs int64
	hints []prefetchHint
}

// prefetchHint is a Prefetch call: for the ahead-th next request (1 is
// the one submitted next), or, with ahead 0, for req, a request that may
// never come and may lie anywhere, even outside the drive.
type prefetchHint struct {
	ahead int
	req   blockio.Request
	stage int
}

// hostRequest draws a valid request on a drive of capacity bytes:
// reads, writes (with random compressibility), trims and flushes, sector-
// or unit-aligned, up to 256 KiB.
func hostRequest(t *rapid.T, capacity int64, token uint32) blockio.Request {
	op := rapid.SampledFrom([]blockio.Op{blockio.Read, blockio.Read, blockio.Write, blockio.Write, blockio.Write, blockio.Trim, blockio.Flush}).Draw(t, "op")
	if op == blockio.Flush {
		return blockio.Request{Op: op}
	}
	align := rapid.SampledFrom([]int64{512, 4096, 4096, 4096}).Draw(t, "align")
	off := rapid.Int64Range(0, capacity/align-1).Draw(t, "offset") * align
	n := rapid.Int64Range(1, min(256<<10, capacity-off)/512).Draw(t, "sectors") * 512
	r := blockio.Request{Op: op, Offset: off, Length: n, Token: token}
	if op == blockio.Write {
		r.Data = blockio.Data{CompressPct: uint8(rapid.IntRange(0, 100).Draw(t, "compress")),
			DedupePct: uint8(rapid.SampledFrom([]int{0, 0, 0, 25, 50}).Draw(t, "dedupe"))}
	}
	return r
}

// anyRequest draws a request for a hint: any op, any offset from before
// the drive's start to past its end, any length.
func anyRequest(t *rapid.T, capacity int64) blockio.Request {
	return blockio.Request{
		Op:     blockio.Op(rapid.IntRange(0, 4).Draw(t, "hint op")),
		Offset: rapid.Int64Range(-capacity, 2*capacity).Draw(t, "hint offset"),
		Length: rapid.Int64Range(0, 1<<20).Draw(t, "hint length"),
	}
}

// hostOps draws the measured part of a run: up to 300 steps, each with up
// to four hints.
func hostOps(t *rapid.T, capacity int64) []hostOp {
	n := rapid.IntRange(1, 300).Draw(t, "ops")
	ops := make([]hostOp, n)
	for i := range ops {
		o := &ops[i]
		o.gapNs = rapid.SampledFrom([]int64{0, 0, 1_000, 20_000, 200_000, 3_000_000}).Draw(t, "gap")
		if rapid.IntRange(0, 19).Draw(t, "idle?") == 0 {
			o.idle = true
			o.gapNs = rapid.SampledFrom([]int64{5e6, 50e6, 500e6}).Draw(t, "idle")
		} else {
			o.req = hostRequest(t, capacity, uint32(i+1))
		}
		for range rapid.IntRange(0, 4).Draw(t, "hints") {
			h := prefetchHint{ahead: rapid.IntRange(0, 3).Draw(t, "ahead"), stage: rapid.IntRange(1, 2).Draw(t, "stage")}
			if h.ahead == 0 {
				h.req = anyRequest(t, capacity)
			}
			o.hints = append(o.hints, h)
		}
	}
	return ops
}

// prefixOps is the unmeasured start of a run, the same on both drives
// but hinted on one as the engine hints (stage 1 two requests ahead,
// stage 2 one ahead): a sequential fill of the first fill bytes with
// 128 KiB writes, then churn random 4 KiB writes over the drive, which
// bring it to garbage collection.
func prefixOps(capacity, fill int64, churn int, seed uint64) []hostOp {
	var ops []hostOp
	for off := int64(0); off < fill; off += 128 << 10 {
		ops = append(ops, hostOp{req: blockio.Request{Op: blockio.Write, Offset: off, Length: min(128<<10, fill-off), Token: 1}})
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for range churn {
		ops = append(ops, hostOp{gapNs: 10_000, req: blockio.Request{Op: blockio.Write, Offset: rng.Int64N(capacity/4096) * 4096,
			Length: 4096, Token: 2, Data: blockio.Data{CompressPct: uint8(rng.IntN(101))}}})
	}
	for i := range ops {
		ops[i].hints = []prefetchHint{{ahead: 2, stage: 1}, {ahead: 1, stage: 2}}
	}
	return ops
}

// hostRun plays ops on drive c from time 0 and returns a line per step:
// the request, when it was submitted, its completion time and error (for
// an idle step, the interval and error). With hints it first makes every
// Prefetch call the step asks for.
func hostRun(c *controller.Controller, ops []hostOp, hints bool) []string {
	out := make([]string, 0, len(ops))
	now, lastDone := int64(0), int64(0)
	for i, o := range ops {
		if hints {
			for _, h := range o.hints {
				switch {
				case h.ahead == 0:
					r := h.req
					c.Prefetch(&r, h.stage)
				case i+h.ahead-1 < len(ops) && !ops[i+h.ahead-1].idle:
					r := ops[i+h.ahead-1].req
					c.Prefetch(&r, h.stage)
				}
			}
		}
		now += o.gapNs
		if o.idle {
			from := max(now-o.gapNs, lastDone)
			err := c.Idle(from, from+o.gapNs)
			now = max(now, from+o.gapNs)
			out = append(out, fmt.Sprintf("idle %d-%d: %v", from, from+o.gapNs, err))
			continue
		}
		done, err := c.Submit(now, o.req)
		lastDone = max(lastDone, done)
		out = append(out, fmt.Sprintf("%s %d+%d at %d: done %d, %v", o.req.Op, o.req.Offset, o.req.Length, now, done, err))
	}
	return out
}

// TestPrefetchChangesNoResult is a metamorphic test of the prefetch hints
// (Controller.Prefetch, FTL.PrefetchMapping and PrefetchLocation), which
// must never change a result: two identical drives get the same requests
// at the same times, one of them with hints for the requests to come and
// for random requests that never come (stages 1 and 2, interleaved, some
// outside the drive), and every completion time, the final counters and
// the final mapping must be the same.
func TestPrefetchChangesNoResult(t *testing.T) {
	for _, d := range prefetchDrives {
		t.Run(d.name, func(t *testing.T) {
			preset, _, _ := strings.Cut(d.name, "/")
			cfg := prefetchConfig(t, preset, d.edit)
			runs, collected, missed := 0, 0, 0
			rapid.Check(t, func(rt *rapid.T) {
				build := func() *controller.Controller {
					c, err := controller.New(cfg)
					require.NoError(rt, err)
					return c
				}
				plain, hinted := build(), build()
				capacity := plain.CapacityBytes()
				fill := rapid.SampledFrom([]int64{0, capacity / 2, capacity, capacity}).Draw(rt, "fill")
				churn := rapid.SampledFrom([]int{0, 2000, 8000}).Draw(rt, "churn")
				ops := append(prefixOps(capacity, fill, churn, rapid.Uint64().Draw(rt, "seed")), hostOps(rt, capacity)...)

				want, got := hostRun(plain, ops, false), hostRun(hinted, ops, true)
				for i := range want {
					if want[i] != got[i] {
						rt.Fatalf("step %d of %d: without hints %s; with hints %s", i, len(ops), want[i], got[i])
					}
				}
				k := plain.Counters()
				runs++
				if k.GCRuns > 0 {
					collected++
				}
				if k.MapMisses > 0 {
					missed++
				}
				require.Equal(rt, k, hinted.Counters())
				require.Equal(rt, plain.FTL().Stats(), hinted.FTL().Stats())
				require.Equal(rt, plain.Device().Wear(), hinted.Device().Wear())
				for lba := range plain.FTL().UserUnits() {
					a, errA := plain.FTL().Lookup(lba)
					b, errB := hinted.FTL().Lookup(lba)
					if a != b || fmt.Sprint(errA) != fmt.Sprint(errB) {
						rt.Fatalf("unit %d: without hints %+v (%v); with hints %+v (%v)", lba, a, errA, b, errB)
					}
				}
			})
			t.Logf("%d runs: %d collected garbage, %d missed the mapping cache", runs, collected, missed)
		})
	}
}
