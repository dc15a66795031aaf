package workload

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

// StepKind is what one step of a scenario does.
type StepKind uint8

// Step kinds.
const (
	SecureErase StepKind = iota // erase the drive (ATA SECURITY ERASE UNIT)
	RunJob                      // run Job (its results are kept when Label is set)
	Idle                        // let the drive sit idle for IdleNs
	Bake                        // age the drive's data by BakeNs of retention, without time passing
)

// Step is one step of a scenario.
type Step struct {
	Kind   StepKind
	Job    *Job
	IdleNs int64
	// Label names a measured step in the scenario's results; preparation
	// steps have none.
	Label string
	// BakeNs is the retention a Bake step adds to the data.
	BakeNs int64
	// With are jobs a RunJob step runs at the same time as Job, each with
	// its own queue (fio's jobs of one group); the step reports them as
	// one, as group_reporting does.
	With []*Job
}

// Jobs returns the jobs a RunJob step runs: Job and those With it.
func (s Step) Jobs() []*Job {
	if s.Kind != RunJob {
		return nil
	}
	return append([]*Job{s.Job}, s.With...)
}

// Param is a scenario parameter: its name, default and meaning.
type Param struct {
	Name, Default, Help string
}

// Scenario is a named review procedure (methodology.md), parameterised,
// with the reviews' values as defaults.
type Scenario struct {
	Name        string
	Description string
	Params      []Param
	build       func(p params) ([]Step, error)
	// endurance builds the procedure of a scenario that runs until the
	// drive retires instead of a fixed list of steps.
	endurance func(p params) (Endurance, error)
}

// params are a scenario's parameter values, by name.
type params map[string]string

func (p params) dur(name string) (int64, error) {
	ns, err := units.ParseDuration(p[name])
	if err != nil || ns <= 0 {
		return 0, fmt.Errorf("%w: %s=%s: must be a positive duration", ErrOption, name, p[name])
	}
	return ns, nil
}

func (p params) pct(name string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSuffix(p[name], "%"))
	if err != nil || v < 0 || v > 90 {
		return 0, fmt.Errorf("%w: %s=%s: must be a percentage from 0 to 90", ErrOption, name, p[name])
	}
	return v, nil
}

// Steps returns the scenario's steps with the given parameters (the rest
// at their defaults). Unknown parameters are errors.
func (s Scenario) Steps(overrides map[string]string) ([]Step, error) {
	p, err := s.resolve(overrides)
	if err != nil {
		return nil, err
	}
	if s.endurance != nil {
		return nil, fmt.Errorf("%w: scenario %s runs until the drive retires, not as steps (Scenario.Endurance)", ErrOption, s.Name)
	}
	return s.build(p)
}

// Endurance returns the procedure of a scenario that runs until the
// drive retires (ok is false for the others), with the given parameters.
func (s Scenario) Endurance(overrides map[string]string) (e Endurance, ok bool, err error) {
	if s.endurance == nil {
		return Endurance{}, false, nil
	}
	p, err := s.resolve(overrides)
	if err != nil {
		return Endurance{}, true, err
	}
	e, err = s.endurance(p)
	return e, true, err
}

// resolve returns the scenario's parameter values: overrides, the rest
// at their defaults. Unknown parameters are errors.
func (s Scenario) resolve(overrides map[string]string) (params, error) {
	p := params{}
	for _, d := range s.Params {
		p[d.Name] = d.Default
	}
	for k, v := range overrides {
		if _, ok := p[k]; !ok {
			names := make([]string, 0, len(s.Params))
			for _, d := range s.Params {
				names = append(names, d.Name)
			}
			return nil, fmt.Errorf("%w: scenario %s has no parameter %q (it has: %s)", ErrOption, s.Name, k, strings.Join(names, ", "))
		}
		p[k] = v
	}
	return p, nil
}

// newJobWith builds a job from fio options; the options are the package's own,
// so an error is a programming error.
func newJobWith(name string, opts ...string) (*Job, error) {
	j := NewJob(name)
	for i := 0; i+1 < len(opts); i += 2 {
		if err := j.Set(opts[i], opts[i+1]); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// steps assembles steps from constructors, stopping at the first error.
type steps struct {
	out []Step
	err error
}

func (s *steps) erase() { s.out = append(s.out, Step{Kind: SecureErase}) }

func (s *steps) idle(ns int64) { s.out = append(s.out, Step{Kind: Idle, IdleNs: ns}) }

func (s *steps) run(label, name string, opts ...string) {
	if s.err != nil {
		return
	}
	j, err := newJobWith(name, opts...)
	if err != nil {
		s.err = err
		return
	}
	j.ClampToDrive = true
	s.out = append(s.out, Step{Kind: RunJob, Job: j, Label: label})
}

func (s *steps) done() ([]Step, error) { return s.out, s.err }

func sizeOf(spare int) string { return strconv.Itoa(100-spare) + "%" }

// seconds renders ns for a runtime option.
func seconds(ns int64) string { return strconv.FormatInt(ns/1e6, 10) + "ms" }

// The Iometer access specifications TechReport and others used (Intel's
// file-server, web-server, workstation and database patterns).
var iometerPatterns = map[string][]string{
	"file-server": {"rw", "randrw", "rwmixread", "80", "bssplit", "512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10"},
	"web-server":  {"rw", "randread", "bssplit", "512/22:1k/15:2k/8:4k/23:8k/15:16k/2:32k/6:64k/7:128k/1:512k/1"},
	"workstation": {"rw", "randrw", "rwmixread", "80", "bs", "8k"},
	"database":    {"rw", "randrw", "rwmixread", "67", "bs", "8k"},
}

var scenarios = []Scenario{
	{
		Name: "secure-erase", Description: "erase every block; the mapping is empty (the fresh state)",
		build: func(p params) ([]Step, error) { s := &steps{}; s.erase(); return s.done() },
	},
	{
		Name: "fill", Description: "secure erase, then write every user LBA once with 128 KiB sequential writes at QD 1",
		build: func(p params) ([]Step, error) {
			s := &steps{}
			s.erase()
			s.run("fill", "fill", "rw", "write", "bs", "128k")
			return s.done()
		},
	},
	{
		Name: "sustained-write", Description: "sustained sequential write, as reviews of drives with an SLC cache chart it: secure erase, write the first fill % of the LBAs (an 80 % full drive: fill=80) and idle, then write the rest of the span (or span % of the LBAs) once with 128 KiB sequential writes at QD 32 (MB/s each second and over each GB written: full speed while the cache lasts, then the rate folding allows); with idle > 0 the drive then idles that long and writes burst % of the LBAs — after those written if they fit, else again from the fill — to show how much cache came back",
		Params: []Param{{"fill", "0", "percent of the LBAs written (and left to settle) before the measured write, 0-90"},
			{"settle", "60s", "idle after the fill, before the measured write"},
			{"span", "0", "percent of the LBAs the measured write covers from the fill on (0: the rest)"},
			{"bs", "128k", "transfer size"}, {"iodepth", "32", "queue depth"},
			{"idle", "0s", "idle after the measured write, then a second write of burst % (0s: none)"},
			{"burst", "10", "percent of the LBAs the write after the idle covers, 1-90"}},
		build: func(p params) ([]Step, error) {
			fill, err := p.pct("fill")
			if err != nil {
				return nil, err
			}
			burst, err := p.pct("burst")
			if err != nil || burst < 1 {
				return nil, fmt.Errorf("%w: burst=%s: must be a percentage from 1 to 90", ErrOption, p["burst"])
			}
			span, err := strconv.Atoi(p["span"])
			if err != nil || span < 0 || fill+span > 100 {
				return nil, fmt.Errorf("%w: span=%s: must be a percentage from 0 (the rest) to %d (100 less the fill)", ErrOption, p["span"], 100-fill)
			}
			if span == 0 {
				span = 100 - fill
			}
			idle, err := units.ParseDuration(p["idle"])
			if err != nil || idle < 0 {
				return nil, fmt.Errorf("%w: idle=%s: must be a duration, 0s for none", ErrOption, p["idle"])
			}
			settle, err := units.ParseDuration(p["settle"])
			if err != nil || settle < 0 {
				return nil, fmt.Errorf("%w: settle=%s: must be a duration, 0s for none", ErrOption, p["settle"])
			}
			s := &steps{}
			s.erase()
			if fill > 0 {
				s.run("", "prefill", "rw", "write", "bs", "128k", "iodepth", "32", "size", strconv.Itoa(fill)+"%")
				if settle > 0 {
					s.idle(settle)
				}
			}
			s.run("sustained", "sustained-write", "rw", "write", "bs", p["bs"], "iodepth", p["iodepth"],
				"offset", strconv.Itoa(fill)+"%", "size", strconv.Itoa(span)+"%")
			if idle > 0 {
				s.idle(idle)
				at := fill + span
				if at+burst > 100 {
					at = fill
				}
				s.run("after-idle", "write-after-idle", "rw", "write", "bs", p["bs"], "iodepth", p["iodepth"],
					"offset", strconv.Itoa(at)+"%", "size", strconv.Itoa(burst)+"%")
			}
			return s.done()
		},
	},
	{
		Name: "spare-area", Description: "emulate extra over-provisioning: secure erase, then fill only the first (100 - spare) % of the LBAs",
		Params: []Param{{"spare", "25", "percent of the LBAs never written"}},
		build: func(p params) ([]Step, error) {
			sp, err := p.pct("spare")
			if err != nil {
				return nil, err
			}
			s := &steps{}
			s.erase()
			s.run("fill", "fill", "rw", "write", "bs", "128k", "size", sizeOf(sp))
			return s.done()
		},
	},
	{
		Name: "torture", Description: "secure erase, fill, then 4 KiB random writes at QD 32 over every LBA (incompressible) for 30-60 minutes",
		Params: []Param{{"time", "30m", "length of the random writes"}, {"spare", "0", "percent of the LBAs left unwritten"}},
		build:  fillThenRandomWrites("torture"),
	},
	{
		Name: "consistency", Description: "performance consistency: secure erase, fill, 4 KiB random writes at QD 32 over every LBA for 2000 s, IOPS each second (repeat with spare=25)",
		Params: []Param{{"time", "2000s", "length of the random writes"}, {"spare", "0", "spare area by partitioning, percent"}},
		build:  fillThenRandomWrites("consistency"),
	},
	{
		Name: "four-corners", Description: "Iometer four corners: 4 KiB random read and write over 8 GB at QD 3 and QD 32, 128 KiB sequential read and write over the span at QD 1, with pseudo-random (compressible) or full-random (incompressible) data",
		Params: []Param{{"random_time", "3m", "length of each random test"}, {"seq_time", "1m", "length of each sequential test"}, {"span", "8g", "span of the random tests"},
			{"data", "full-random", "data pattern written: " + strings.Join(DataPatternNames(), ", ")}},
		build: func(p params) ([]Step, error) {
			rt, err := p.dur("random_time")
			if err != nil {
				return nil, err
			}
			st, err := p.dur("seq_time")
			if err != nil {
				return nil, err
			}
			s := &steps{}
			s.erase()
			s.run("128k-seq-write-qd1", "seq-write", "rw", "write", "bs", "128k", "runtime", seconds(st), "time_based", "1", "data", p["data"])
			for _, qd := range []string{"3", "32"} {
				s.run("4k-rand-write-qd"+qd, "rand-write", "rw", "randwrite", "bs", "4k", "iodepth", qd, "size", p["span"], "runtime", seconds(rt), "time_based", "1", "norandommap", "1", "data", p["data"])
			}
			s.run("", "fill", "rw", "write", "bs", "128k", "data", p["data"])
			s.run("128k-seq-read-qd1", "seq-read", "rw", "read", "bs", "128k", "runtime", seconds(st), "time_based", "1")
			for _, qd := range []string{"3", "32"} {
				s.run("4k-rand-read-qd"+qd, "rand-read", "rw", "randread", "bs", "4k", "iodepth", qd, "size", p["span"], "runtime", seconds(rt), "time_based", "1", "norandommap", "1")
			}
			return s.done()
		},
	},
	{
		Name: "access-patterns", Description: "TechReport's Iometer access patterns (file server, web server, workstation, database) at 1, 2, 4, 8, 16 and 32 outstanding I/Os, on a filled drive",
		Params: []Param{{"time", "30s", "length of each test"}, {"patterns", "file-server,web-server,workstation,database", "which patterns"}},
		build: func(p params) ([]Step, error) {
			ns, err := p.dur("time")
			if err != nil {
				return nil, err
			}
			s := &steps{}
			s.erase()
			s.run("", "fill", "rw", "write", "bs", "128k")
			for _, name := range strings.Split(p["patterns"], ",") {
				opts, ok := iometerPatterns[name]
				if !ok {
					return nil, fmt.Errorf("%w: patterns=%s: %q is not one of file-server, web-server, workstation, database", ErrOption, p["patterns"], name)
				}
				for _, qd := range []string{"1", "2", "4", "8", "16", "32"} {
					s.run(name+"-qd"+qd, name, append(append([]string{}, opts...), "iodepth", qd, "runtime", seconds(ns), "time_based", "1", "norandommap", "1")...)
				}
			}
			return s.done()
		},
	},
	{
		Name: "as-ssd", Description: "AS-SSD sequential read and write (16 MiB transfers over a 1 GiB file, incompressible data)",
		build: func(p params) ([]Step, error) {
			s := &steps{}
			s.erase()
			s.run("seq-write", "as-ssd-seq-write", "rw", "write", "bs", "16m", "size", "1g", "data", "full-random")
			s.run("seq-read", "as-ssd-seq-read", "rw", "read", "bs", "16m", "size", "1g")
			return s.done()
		},
	},
	{
		Name: "atto", Description: "ATTO transfer-size sweep: sequential write then read of a 256 MiB file at 0.5 KiB to 8 MiB transfers, QD 4; ATTO writes a repeating, highly compressible pattern (SandForce drives look their best here)",
		Params: []Param{{"length", "256m", "bytes written and read at each size"},
			{"data", "pseudo-random", "data pattern written: " + strings.Join(DataPatternNames(), ", ")}},
		build: func(p params) ([]Step, error) {
			length, err := units.ParseSize(p["length"], false)
			if err != nil || length < 512 {
				return nil, fmt.Errorf("%w: length=%s: must be a size of at least 512 bytes", ErrOption, p["length"])
			}
			s := &steps{}
			s.erase()
			for _, bs := range []string{"512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m", "8m"} {
				b, _ := units.ParseSize(bs, false)
				size := strconv.FormatInt(max(length, b), 10) // at least one transfer
				s.run("write-"+bs, "atto-write", "rw", "write", "bs", bs, "size", size, "iodepth", "4", "data", p["data"])
				s.run("read-"+bs, "atto-read", "rw", "read", "bs", bs, "size", size, "iodepth", "4")
			}
			return s.done()
		},
	},
	{
		Name: "hdtach", Description: "HD Tune/HD Tach: full-span sequential write and read with 64 KiB transfers (the series gives the transfer-rate curve), random access times at 512 B, 4 KiB, 64 KiB and 1 MiB; with torture=1 the drive is tortured first, and the write curve shows its recovery",
		Params: []Param{{"torture", "0", "1 to torture the drive first (30 minutes of 4 KiB random writes)"}, {"torture_time", "30m", "length of the torture"}},
		build: func(p params) ([]Step, error) {
			s := &steps{}
			s.erase()
			switch p["torture"] {
			case "0":
			case "1":
				ns, err := p.dur("torture_time")
				if err != nil {
					return nil, err
				}
				s.run("", "fill", "rw", "write", "bs", "128k")
				s.run("", "torture", "rw", "randwrite", "bs", "4k", "iodepth", "32", "runtime", seconds(ns), "time_based", "1", "norandommap", "1")
			default:
				return nil, fmt.Errorf("%w: torture=%s: must be 0 or 1", ErrOption, p["torture"])
			}
			s.run("write-curve", "full-span-write", "rw", "write", "bs", "64k")
			s.run("read-curve", "full-span-read", "rw", "read", "bs", "64k")
			for _, bs := range []string{"512", "4k", "64k", "1m"} {
				s.run("access-"+bs, "random-access", "rw", "randread", "bs", bs, "number_ios", "2000", "norandommap", "1")
			}
			return s.done()
		},
	},
	{
		Name: "trim-validation", Description: "secure erase, measure 128 KiB sequential writes (clean); fill and torture; measure (dirty); TRIM every LBA; measure (after TRIM)",
		Params: []Param{{"torture_time", "30m", "length of the torture"}, {"measure_time", "60s", "length of each measurement"}},
		build: func(p params) ([]Step, error) {
			tt, err := p.dur("torture_time")
			if err != nil {
				return nil, err
			}
			mt, err := p.dur("measure_time")
			if err != nil {
				return nil, err
			}
			s := &steps{}
			measure := func(label string) {
				s.run(label, "seq-write", "rw", "write", "bs", "128k", "runtime", seconds(mt), "time_based", "1")
			}
			s.erase()
			measure("clean")
			s.erase()
			s.run("", "fill", "rw", "write", "bs", "128k")
			s.run("", "torture", "rw", "randwrite", "bs", "4k", "iodepth", "32", "runtime", seconds(tt), "time_based", "1", "norandommap", "1")
			measure("dirty")
			s.run("", "trim-all", "rw", "trim", "bs", "64m")
			s.idle(30e9)
			measure("after-trim")
			return s.done()
		},
	},
	{
		Name: "endurance", Description: "accelerated endurance: secure erase and fill, then rounds until the drive retires, each writing part of the drive in 4 KiB random writes, adding round_wear of the rated P/E cycles at once for the passes it stands for, idling (the drive collects in the background; the round's WA counts it), baking the data for retention, and reading 4 KiB at random to measure read retries, latency and uncorrectable reads; the drive's read-error model is on",
		Params: []Param{{"quick", "0", "1: smaller rounds (a 32nd of the drive written, a quarter of the rated cycles each)"}, {"round_wear", "", "share of the rated cycles each round adds (default 0.1, quick 0.25)"},
			{"retention", "30d", "retention baked into the data before each read pass"}, {"max_life", "10", "retire at this many times the rated cycles"},
			{"chart", "", "write the chart (read retries and p99 read latency against TB written) to this .svg or .png file"}},
		endurance: func(p params) (Endurance, error) {
			quick := p["quick"] == "1" || p["quick"] == "true"
			if !quick && p["quick"] != "0" && p["quick"] != "false" && p["quick"] != "" {
				return Endurance{}, fmt.Errorf("%w: quick=%s: allowed 0 or 1", ErrOption, p["quick"])
			}
			e, err := NewEndurance(quick)
			if err != nil {
				return e, err
			}
			if v := p["round_wear"]; v != "" {
				if e.RoundWear, err = units.ParseFloat(v); err != nil {
					return e, fmt.Errorf("%w: round_wear=%s: a share of the rated cycles, 0.001..10", ErrOption, v)
				}
			}
			if e.RetentionNs, err = units.ParseDuration(p["retention"]); err != nil {
				return e, fmt.Errorf("%w: retention=%s: a duration (30d, 12h)", ErrOption, p["retention"])
			}
			if e.MaxLife, err = units.ParseFloat(p["max_life"]); err != nil {
				return e, fmt.Errorf("%w: max_life=%s: times the rated cycles, up to 100", ErrOption, p["max_life"])
			}
			return e, e.Validate()
		},
	},
	{
		Name: "power-loss", Description: "secure erase, fill (flushed at its end), then 4 KiB random writes at QD 32 over a quarter of the drive, each block once, a FLUSH every 256 writes, with the power cut part way; the drive mounts again, the writes go on, and every block is read back to find what the cut lost",
		Params: []Param{{"cut", "10s", "when the power is cut, from the start of the random writes"}, {"fsync", "256", "a FLUSH every this many writes (0: none)"}},
		build: func(p params) ([]Step, error) {
			cut, err := p.dur("cut")
			if err != nil {
				return nil, err
			}
			s := &steps{}
			s.erase()
			s.run("", "fill", "rw", "write", "bs", "128k", "end_fsync", "1")
			s.run("power-loss", "rand-write", "rw", "randwrite", "bs", "4k", "iodepth", "32", "size", "25%",
				"power_loss", seconds(cut), "verify", "crc32c", "fsync", p["fsync"])
			return s.done()
		},
	},
	{
		Name: "power", Description: "power at idle, during 128 KiB sequential writes (QD 1) and during 4 KiB random writes (QD 32), each on a fresh drive",
		Params: []Param{{"time", "60s", "length of each reading"}},
		build: func(p params) ([]Step, error) {
			ns, err := p.dur("time")
			if err != nil {
				return nil, err
			}
			s := &steps{}
			s.erase()
			s.run("idle", "idle", "rw", "randread", "bs", "4k", "rate_iops", "1", "runtime", seconds(ns), "time_based", "1")
			s.run("seq-write", "seq-write", "rw", "write", "bs", "128k", "runtime", seconds(ns), "time_based", "1")
			s.erase()
			s.run("random-write", "rand-write", "rw", "randwrite", "bs", "4k", "iodepth", "32", "size", "8g", "runtime", seconds(ns), "time_based", "1", "norandommap", "1")
			return s.done()
		},
	},
}

// benchSuite is a trace-based suite synthesised from its published
// statistics (methodology.md): read share, request-size mix, share of
// sequential requests and queue-depth profile. Run in timed phases, each
// at one queue depth, with idle gaps between them as recorded traces have.
type benchSuite struct {
	name, description string
	rwmixread         int
	bssplit           string
	random            int     // percent of requests at random offsets
	qd1Share          float64 // share of phases at QD 1
	burstQD           int     // queue depth of the other phases
}

var benchSuites = []benchSuite{
	{"storage-bench-heavy-2011",
		"AnandTech Storage Bench 2011 Heavy, synthesised: 2,168,893 reads and 1,783,447 writes (55 % reads), 48.63 GB read and 106.32 GB written (39.2 KB a request), 4 KB 28 %, 16 KB 10 %, 32 KB 10 %, 64 KB 4 % with the unpublished 48 % split between 8 KB (25.6 %) and 128 KB (22.4 %) so that the mean request size matches, 42 % sequential, average QD 4.625 with 59 % of requests at QD 1 (phases at QD 1 and QD 10)",
		55, "4k/28:8k/25.6:16k/10:32k/10:64k/4:128k/22.4", 58, 0.59, 10},
	{"storage-bench-light-2011",
		"AnandTech Storage Bench 2011 Light, synthesised: 372,630 reads and 459,709 writes (45 % reads), 4 KB 27 %, 16 KB 8 %, 32 KB 6 %, 64 KB 5 % with the unpublished 54 % assumed 8 KB; bytes, sequential share and queue depths are not published: 42 % sequential and 75 % of phases at QD 1, the rest at QD 4, are assumptions",
		45, "4k/27:8k/54:16k/8:32k/6:64k/5", 58, 0.75, 4},
	{"destroyer-2013",
		"AnandTech The Destroyer 2013, synthesised: 38.83 M reads and 10.98 M writes (78 % reads), 1,583.02 GB read and 875.62 GB written (49.4 KB a request), average QD about 5.5 with bursty peaks (phases at QD 1 and QD 11, 55 % at QD 1); the size mix (4 KB 38 %, 16 KB 14 %, 32 KB 10 %, 64 KB 10 %, 128 KB 28 %, matching the mean) and the 42 % sequential share are assumptions",
		78, "4k/38:16k/14:32k/10:64k/10:128k/28", 58, 0.55, 11},
}

func init() {
	scenarios = append(scenarios, seasonScenario(), desktopScenario(), tenantsScenario(), hotColdScenario())
	for _, b := range benchSuites {
		b := b
		scenarios = append(scenarios, Scenario{
			Name: b.name, Description: b.description + "; reports average data rates, busy time (idle excluded) and average service time",
			Params: []Param{{"time", "2m", "total active time, split over the phases"}, {"phases", "20", "number of phases"},
				{"idle", "200ms", "idle time between phases"}, {"fill", "1", "1 to fill the drive first (an installed system)"}},
			build: func(p params) ([]Step, error) {
				total, err := p.dur("time")
				if err != nil {
					return nil, err
				}
				idle, err := p.dur("idle")
				if err != nil {
					return nil, err
				}
				n, err := strconv.Atoi(p["phases"])
				if err != nil || n < 1 || n > 10000 {
					return nil, fmt.Errorf("%w: phases=%s: must be an integer from 1 to 10000", ErrOption, p["phases"])
				}
				s := &steps{}
				s.erase()
				switch p["fill"] {
				case "1":
					s.run("", "fill", "rw", "write", "bs", "128k")
				case "0":
				default:
					return nil, fmt.Errorf("%w: fill=%s: must be 0 or 1", ErrOption, p["fill"])
				}
				// Phases at QD 1 and at the burst depth, spread evenly
				// (a deterministic pattern, the same every run).
				qd1 := int(math.Round(b.qd1Share * float64(n)))
				for i := 0; i < n; i++ {
					qd := b.burstQD
					if (i*qd1)/n != ((i+1)*qd1)/n {
						qd = 1
					}
					s.run("bench", b.name, "rw", "randrw", "rwmixread", strconv.Itoa(b.rwmixread), "bssplit", b.bssplit,
						"percentage_random", strconv.Itoa(b.random), "iodepth", strconv.Itoa(qd), "runtime", seconds(total/int64(n)),
						"time_based", "1", "norandommap", "1", "randseed", strconv.Itoa(1000+i))
					if i < n-1 {
						s.idle(idle)
					}
				}
				return s.done()
			},
		})
	}
}

// fillThenRandomWrites builds the torture and consistency procedures:
// secure erase, fill the partition (all but spare % of the LBAs), then
// 4 KiB random writes at QD 32 over it for time, measured under label.
func fillThenRandomWrites(label string) func(p params) ([]Step, error) {
	return func(p params) ([]Step, error) {
		ns, err := p.dur("time")
		if err != nil {
			return nil, err
		}
		sp, err := p.pct("spare")
		if err != nil {
			return nil, err
		}
		s := &steps{}
		s.erase()
		s.run("", "fill", "rw", "write", "bs", "128k", "size", sizeOf(sp))
		s.run(label, label, "rw", "randwrite", "bs", "4k", "iodepth", "32", "size", sizeOf(sp), "runtime", seconds(ns), "time_based", "1", "norandommap", "1", "data", "full-random")
		return s.done()
	}
}

// Scenarios returns every scenario, by name.
func Scenarios() []Scenario {
	out := append([]Scenario(nil), scenarios...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ScenarioByName returns the scenario called name; an unknown name is
// an *UnknownError naming the closest scenarios.
func ScenarioByName(name string) (Scenario, error) {
	for _, s := range scenarios {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(scenarios))
	for i, s := range Scenarios() {
		names[i] = s.Name
	}
	return Scenario{}, Unknown("scenario", name, names, "", "scenarios: "+strings.Join(names, ", "))
}
