package workload

// Scenarios of several writers sharing a drive at once, with and without
// flexible data placement: tenants in namespaces of their own (Micron's
// four-namespace experiment) and a hot/cold mix.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

// maxTenants bounds the tenants scenario's writers.
const maxTenants = 64

// sharedWrites are the parameters the tenants and hot-cold scenarios
// share: how long they write, warm up and queue, and the placement
// handles their writers use.
type sharedWrites struct {
	warmup, time int64
	handles      int
	iodepth      string
	fill         bool
}

func (p params) sharedWrites() (sharedWrites, error) {
	var w sharedWrites
	var err error
	if w.time, err = p.dur("time"); err != nil {
		return w, err
	}
	if w.warmup, err = units.ParseDuration(p["warmup"]); err != nil || w.warmup < 0 {
		return w, fmt.Errorf("%w: warmup=%s: must be a duration, 0s for none", ErrOption, p["warmup"])
	}
	if w.handles, err = strconv.Atoi(p["handles"]); err != nil || w.handles < 0 || w.handles > maxPlacementIDs {
		return w, fmt.Errorf("%w: handles=%s: must be an integer from 0 (no placement) to %d", ErrOption, p["handles"], maxPlacementIDs)
	}
	if qd, err := strconv.Atoi(p["iodepth"]); err != nil || qd < 1 || qd > 65536 {
		return w, fmt.Errorf("%w: iodepth=%s: must be an integer from 1 to 65536", ErrOption, p["iodepth"])
	}
	w.iodepth = p["iodepth"]
	switch p["fill"] {
	case "1":
		w.fill = true
	case "0":
	default:
		return w, fmt.Errorf("%w: fill=%s: must be 0 or 1", ErrOption, p["fill"])
	}
	return w, nil
}

// writer is one of the jobs written at once: its name and fio options.
type writer struct {
	name string
	opts []string
}

// group builds the steps: secure erase, the fill, then the writers at
// once for the warm-up (not measured) and for the measured time, each
// writer i with placement identifier index i mod handles when handles
// is set (fio's fdp=1, plids=…).
func (w sharedWrites) group(label string, writers []writer) ([]Step, error) {
	s := &steps{}
	s.erase()
	if w.fill {
		s.run("", "fill", "rw", "write", "bs", "128k", "iodepth", "32")
	}
	phase := func(label string, ns int64) {
		var jobs []*Job
		for i, wr := range writers {
			opts := append([]string{"iodepth", w.iodepth, "runtime", seconds(ns), "time_based", "1"}, wr.opts...)
			if w.handles > 0 {
				opts = append(opts, "fdp", "1", "plids", strconv.Itoa(i%w.handles))
			}
			j, err := newJobWith(wr.name, opts...)
			if err != nil {
				s.err = err
				return
			}
			j.ClampToDrive = true
			j.RandSeed += uint64(i) // each writer its own random offsets
			jobs = append(jobs, j)
		}
		s.out = append(s.out, Step{Kind: RunJob, Job: jobs[0], With: jobs[1:], Label: label})
	}
	if w.warmup > 0 {
		phase("", w.warmup)
	}
	phase(label, w.time)
	return s.done()
}

// sharedParams are the parameters of sharedWrites, with their defaults.
func sharedParams(time, warmup string) []Param {
	return []Param{
		{"handles", "0", "placement handles the writers use on an FDP drive: 0 none (the drive places the data itself); N: writer i's writes carry the placement identifier at index i mod N (fio's fdp=1, plids=i%N)"},
		{"time", time, "length of the measured writes"},
		{"warmup", warmup, "writes before the measured ones, not measured (0s: none)"},
		{"iodepth", "32", "each writer's queue depth"},
		{"fill", "1", "1: fill the drive with 128 KiB sequential writes first, so that collection runs from the start"},
	}
}

// tenantsScenario is several tenants writing at once, each in its own
// equal share of the LBAs, as Micron's four-namespace FDP experiment
// (four sequential writers of 4, 16, 64 and 256 KiB blocks, one a
// namespace, on one drive and on four drives of a quarter the size).
func tenantsScenario() Scenario {
	return Scenario{
		Name: "tenants",
		Description: "tenants writing at once, each over its own equal share of the LBAs (a namespace each), one a block size: secure erase and fill, then the tenants' writes for the warm-up and the measured time; " +
			"with handles each tenant writes through a reclaim unit handle (FDP); the default is Micron's four-namespace experiment (sequential writes of 4, 16, 64 and 256 KiB)",
		Params: append([]Param{
			{"bs", "4k,16k,64k,256k", "the tenants' block sizes, one tenant each (1 to 64 tenants)"},
			{"rw", "write", "each tenant's pattern over its share: write (sequential) or randwrite"},
		}, sharedParams("60s", "60s")...),
		build: func(p params) ([]Step, error) {
			w, err := p.sharedWrites()
			if err != nil {
				return nil, err
			}
			bss := strings.Split(p["bs"], ",")
			if len(bss) > maxTenants || p["bs"] == "" {
				return nil, fmt.Errorf("%w: bs=%s: 1 to %d block sizes, one a tenant", ErrOption, p["bs"], maxTenants)
			}
			rw := p["rw"]
			if rw != "write" && rw != "randwrite" {
				return nil, fmt.Errorf("%w: rw=%s: allowed write, randwrite", ErrOption, rw)
			}
			share := 100 / float64(len(bss))
			var writers []writer
			for i, bs := range bss {
				bs = strings.TrimSpace(bs)
				writers = append(writers, writer{name: fmt.Sprintf("tenant%d-%s", i+1, bs), opts: []string{"rw", rw, "bs", bs, "norandommap", "1",
					"offset", pct(float64(i) * share), "size", pct(share)}})
			}
			return w.group("tenants", writers)
		},
	}
}

// hotColdScenario is a hot/cold mix: uniform random writes over a small
// hot range and sequential writes over the rest at once, with the two
// streams through one placement handle or two.
func hotColdScenario() Scenario {
	return Scenario{
		Name: "hot-cold",
		Description: "a hot/cold mix: uniform random writes over the first hot % of the LBAs and sequential writes over the rest at once, with the same block size and queue depth: secure erase and fill, then both for the warm-up and the measured time; " +
			"handles=2 puts the streams in reclaim unit handles of their own (FDP), handles=1 or 0 mixes them",
		Params: append([]Param{
			{"hot", "25", "percent of the LBAs the random writes cover, 1-90"},
			{"bs", "4k", "both streams' block size"},
		}, sharedParams("60s", "60s")...),
		build: func(p params) ([]Step, error) {
			w, err := p.sharedWrites()
			if err != nil {
				return nil, err
			}
			hot, err := p.pct("hot")
			if err != nil || hot < 1 {
				return nil, fmt.Errorf("%w: hot=%s: must be a percentage from 1 to 90", ErrOption, p["hot"])
			}
			return w.group("hot-cold", []writer{
				{name: "hot", opts: []string{"rw", "randwrite", "bs", p["bs"], "norandommap", "1", "size", strconv.Itoa(hot) + "%"}},
				{name: "cold", opts: []string{"rw", "write", "bs", p["bs"], "offset", strconv.Itoa(hot) + "%", "size", strconv.Itoa(100-hot) + "%"}},
			})
		},
	}
}

// pct renders a share of the LBAs as an offset or size option.
func pct(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + "%"
}
