package report

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// Options choose a review's drives, length and output.
type Options struct {
	// Drives are preset names or drive description files.
	Drives []string
	// Out is the report folder (created).
	Out string
	// Quick shrinks each drive to QuickCapacity (keeping its geometry's
	// dies) and the runs to seconds, keeping each chart's shape.
	Quick bool
	// Progress, when set, is told each step as it starts and, during it,
	// the simulated time the drive has run so far (every simulated second).
	Progress func(drive, step string, done, total int, simNs int64)
	// Policies is where the drives' gc_policy names are looked up (nil:
	// the built-in policies only).
	Policies *ftl.Registry
}

// Drive is one drive's review results.
type Drive struct {
	Name   string
	Config controller.Config
	Runs   map[string][]sim.Measurement // by scenario
}

// suite lists the review's scenarios and their parameters, full and quick.
func suite(quick bool) []struct {
	name   string
	params map[string]string
} {
	type s = struct {
		name   string
		params map[string]string
	}
	if quick {
		return []s{
			{"four-corners", map[string]string{"random_time": "5s", "seq_time": "5s"}},
			{"atto", map[string]string{"length": "64m"}},
			{"hdtach", map[string]string{}},
			{"consistency", map[string]string{"time": "600s"}},
			{"consistency-25", map[string]string{"time": "600s", "spare": "25"}},
			{"trim-validation", map[string]string{"torture_time": "300s", "measure_time": "20s"}},
			{"power", map[string]string{"time": "10s"}},
			{"storage-bench-heavy-2011", map[string]string{"time": "60s"}},
		}
	}
	return []s{
		{"four-corners", nil},
		{"atto", nil},
		{"hdtach", nil},
		{"consistency", nil},
		{"consistency-25", map[string]string{"spare": "25"}},
		{"trim-validation", nil},
		{"power", nil},
		{"storage-bench-heavy-2011", map[string]string{"time": "10m"}},
	}
}

// QuickCapacity is the user capacity of a drive in quick mode: 1 GiB per
// die, at least 8 GiB, so that each die keeps room for its spare area.
func QuickCapacity(dies int) int64 { return max(8, int64(dies)) << 30 }

// Run runs the suite on every drive and writes the report folder.
func Run(o Options) ([]Drive, error) {
	if len(o.Drives) == 0 {
		return nil, fmt.Errorf("report: no drives")
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	var drives []Drive
	for _, name := range o.Drives {
		cfg, err := controller.Lookup(name)
		if err != nil {
			return nil, err
		}
		if o.Quick {
			// Keep the drive's spare area and dies; shrink its blocks.
			if cfg.Sizing == controller.SizeSpare && cfg.OPPercent == 0 {
				return nil, fmt.Errorf("%w: %s: quick mode keeps the drive's op_percent, which it does not state (sizing: %s derives it)",
					controller.ErrConfig, name, controller.SizeSpare)
			}
			cfg = cfg.Resized(controller.Size(QuickCapacity(cfg.NAND.Geometry.Dies())), cfg.OPPercent)
		}
		d := Drive{Name: name, Runs: map[string][]sim.Measurement{}}
		st := suite(o.Quick)
		for i, s := range st {
			if o.Progress != nil {
				o.Progress(name, s.name, i, len(st), 0)
			}
			sc, err := workload.ScenarioByName(strings.TrimSuffix(s.name, "-25"))
			if err != nil {
				return nil, err
			}
			steps, err := sc.Steps(s.params)
			if err != nil {
				return nil, err
			}
			cfg.Policies = o.Policies
			c, err := controller.New(cfg)
			if err != nil {
				return nil, err
			}
			d.Config = c.Config()
			eng := sim.New(c)
			hooks := sim.Hooks{}
			if o.Progress != nil {
				name, step, i, n := name, s.name, i, len(st)
				hooks.OnInterval = func(sim.Interval) { o.Progress(name, step, i, n, eng.Now()) }
			}
			ms, err := eng.RunStepsHooks(steps, hooks)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", name, s.name, err)
			}
			d.Runs[s.name] = sim.CombineRepeated(ms)
			// Each scenario builds a fresh drive; give the last one's
			// memory back before the next (a 256 GiB drive holds 0.6 GB).
			c, eng = nil, nil
			debug.FreeOSMemory()
		}
		drives = append(drives, d)
	}
	if err := write(o, drives); err != nil {
		return nil, err
	}
	return drives, nil
}

// get returns a run's measurement by label.
func (d Drive) get(scenario, label string) *sim.Result {
	for _, m := range d.Runs[scenario] {
		if m.Label == label {
			return m.Result
		}
	}
	return nil
}

func mbps(r *sim.Result) float64 {
	if r == nil {
		return 0
	}
	return (r.Read.BWBytes + r.Write.BWBytes) / 1e6
}

func iops(r *sim.Result) float64 {
	if r == nil {
		return 0
	}
	return r.Read.IOPS + r.Write.IOPS
}

// write produces the report folder.
func write(o Options, drives []Drive) error {
	charts, err := drawCharts(o.Out, drives)
	if err != nil {
		return err
	}
	if err := writeData(o.Out, drives); err != nil {
		return err
	}
	md, err := os.Create(filepath.Join(o.Out, "report.md"))
	if err != nil {
		return err
	}
	defer md.Close()
	writeMarkdown(md, o, drives, charts)
	return writeHTML(o.Out, o, drives, charts)
}

// writeData writes every series as CSV and every run as fio-shaped JSON.
func writeData(dir string, drives []Drive) error {
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	for _, d := range drives {
		var scen []string
		for s := range d.Runs {
			scen = append(scen, s)
		}
		sort.Strings(scen)
		for _, s := range scen {
			var jobs []sim.FioJob
			for _, m := range d.Runs[s] {
				jobs = append(jobs, m.Result.Fio(map[string]string{"scenario": s, "step": m.Label}))
				f, err := os.Create(filepath.Join(data, fmt.Sprintf("%s_%s_%s.csv", safe(d.Name), s, m.Label)))
				if err != nil {
					return err
				}
				fmt.Fprintln(f, "time_s,iops,mbps,mean_latency_us,write_amplification,free_blocks,gc_copied_pages,power_w")
				for _, iv := range m.Result.Intervals {
					fmt.Fprintf(f, "%.3f,%.1f,%.3f,%.1f,%.3f,%d,%d,%.3f\n", float64(iv.EndNs)/1e9, iv.IOPS, iv.MBps,
						iv.MeanLatencyNs/1e3, iv.WriteAmplification, iv.FreeBlocks, iv.GCCopiedUnits, iv.PowerW)
				}
				if err := f.Close(); err != nil {
					return err
				}
			}
			f, err := os.Create(filepath.Join(data, fmt.Sprintf("%s_%s.json", safe(d.Name), s)))
			if err != nil {
				return err
			}
			err = sim.WriteFioJSON(f, map[string]string{"drive": d.Name, "scenario": s}, jobs...)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func safe(s string) string {
	s = filepath.Base(s)
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\\' {
			return '_'
		}
		return r
	}, strings.TrimSuffix(s, ".yaml"))
}

// describe is one line about a drive.
func describe(d Drive) string {
	g := d.Config.NAND.Geometry
	return fmt.Sprintf("%s: %s user, %s flash (%.1f %% spare), %d dies on %d channels, %s GC",
		d.Name, units.FormatBytes(int64(d.Config.Capacity)), units.FormatBytes(g.Bytes()), d.Config.OPPercent, g.Dies(), g.Channels, d.Config.Firmware.GCPolicy)
}
