package cli

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/memlimit"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sweep"
	"github.com/ftlsim/ftlsim/workload"
)

const sweepUsage = "ftlsim sweep FILE.yaml [--out=DIR] [-j N] [--shard=I/N] [--resume] [--max_memory=SIZE] [--keep_states] [--list]; ftlsim sweep merge DIR... [--out=DIR]; ftlsim sweep plot DIR [--metric=M] [--x=AXIS] [--series=AXIS] [--facet=AXIS] [--heatmap] [--out=FILE.svg|png]"

// sweepCmd runs a study, or merges or plots its results:
//
//	ftlsim sweep FILE.yaml [options]
//	ftlsim sweep merge DIR... [--out=DIR]
//	ftlsim sweep plot DIR [options]
func sweepCmd(args []string, stdout, stderr io.Writer, set settings) error {
	if len(args) == 0 {
		return usage("sweep: give a study file (%s)", sweepUsage)
	}
	switch args[0] {
	case "merge":
		return sweepMerge(args[1:], stdout, stderr)
	case "plot":
		return sweepPlot(args[1:], stdout)
	}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "output directory (default: sweep-NAME)")
	jobs := fs.Int("j", runtime.NumCPU(), "points at once")
	fs.IntVar(jobs, "jobs", runtime.NumCPU(), "points at once")
	shardFlag := fs.String("shard", "", "run shard I of N (I/N)")
	resume := fs.Bool("resume", false, "continue a study: run only the points without a result")
	maxMemory := fs.String("max_memory", "", "memory the points running at once may use together, up to the machine's")
	keep := fs.Bool("keep_states", false, "keep the drive snapshots of forked points")
	list := fs.Bool("list", false, "list the points and their command lines; run nothing")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usage("sweep: %v (%s)", err, sweepUsage)
	}
	if len(pos) != 1 {
		return usage("sweep takes one study file (got %d): %s", len(pos), sweepUsage)
	}
	if *jobs < 1 || *jobs > 4096 {
		return usage("sweep: -j %d: allowed 1..4096", *jobs)
	}
	s, err := sweep.Load(pos[0])
	if err != nil {
		return err
	}
	if *list {
		return listPoints(s, stdout)
	}
	shard, err := sweep.ShardFromEnv(os.Getenv, s.Shards)
	if *shardFlag != "" {
		shard, err = sweep.ParseShard(*shardFlag)
	}
	if err != nil {
		return err
	}
	limit, err := memoryLimit(*maxMemory)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = "sweep-" + s.Name
	}
	o := sweep.Options{Out: dir, Jobs: *jobs, MemoryBytes: limit.Bytes, Shard: shard.Index, Shards: shard.Count,
		Resume: *resume, Version: buildVersion(), KeepStates: *keep, Progress: stderr, Bar: isTerminal(stderr),
		Main: Command, Memory: CommandMemory, Policies: set.policies,
	}
	if limit.Capped {
		fmt.Fprintf(stderr, "ftlsim: sweep %s: memory budget %s\n", s.Name, limit)
	}
	if shard.Count > 1 {
		fmt.Fprintf(stderr, "ftlsim: sweep %s: shard %s (from %s)\n", s.Name, shard, shard.From)
	}
	st, err := sweep.Run(set.ctx, s, o)
	if err != nil && st.Ran+st.Failed+st.Skipped == 0 && !errors.Is(err, sweep.ErrInterrupted) {
		return err // refused before any point ran
	}
	fmt.Fprintf(stdout, "sweep %s: %d points", s.Name, st.Points)
	if shard.Count > 1 {
		fmt.Fprintf(stdout, ", %d in shard %s", st.Selected, shard)
	}
	fmt.Fprintf(stdout, ": %d run, %d with results already, %d failed", st.Ran, st.Skipped, st.Failed)
	if st.Prepared > 0 {
		what := "drives"
		if st.Prepared == 1 {
			what = "drive"
		}
		fmt.Fprintf(stdout, "; %d %s filled once for forked points", st.Prepared, what)
	}
	fmt.Fprintf(stdout, "\nresults: %s/%s\n", dir, sweep.ResultsFile(shard.Index, shard.Count))
	if err == nil && shard.Count <= 1 {
		fmt.Fprintf(stdout, "table: %s/%s and %s/%s\n", dir, sweep.TableCSV, dir, sweep.TableJSONL)
	}
	if errors.Is(err, sweep.ErrInterrupted) {
		return fmt.Errorf("%w: %w", errInterrupted, err)
	}
	return err
}

// buildVersion names this build for a sweep's results: Version, and
// when the build carries no revision (go build -buildvcs=false, a
// modified tree), a hash of the executable, so that results of two
// different builds are not taken for one (resume, merge).
func buildVersion() string {
	v := Version()
	if strings.HasSuffix(v, ")") {
		return v
	}
	exe, err := os.Executable()
	if err != nil {
		return v
	}
	f, err := os.Open(exe)
	if err != nil {
		return v
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return v
	}
	return fmt.Sprintf("%s (build %x)", v, h.Sum(nil)[:6])
}

// listPoints writes each point's number, coordinates and command line.
func listPoints(s *sweep.Sweep, w io.Writer) error {
	ps, err := s.Points()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.Group != "" {
			fmt.Fprintf(w, "%d\t%s\tprepare: ftlsim %s\n", p.Index, p.Label(), strings.Join(p.Prepare, " "))
		}
		fmt.Fprintf(w, "%d\t%s\tftlsim %s\n", p.Index, p.Label(), strings.Join(p.Args, " "))
	}
	return nil
}

// sweepMerge combines output directories into one table.
func sweepMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "directory of the merged table (default: the first directory)")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return usage("sweep merge: %v (ftlsim sweep merge DIR... [--out=DIR])", err)
	}
	if len(dirs) == 0 {
		return usage("sweep merge: give the output directories of the study's shards (ftlsim sweep merge DIR... [--out=DIR])")
	}
	if *out == "" {
		*out = dirs[0]
	}
	m, err := sweep.MergeDirs(dirs, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sweep %s: %d of %d points; table: %s/%s and %s/%s\n", m.Study.Name, len(m.Table.Results), m.Points,
		*out, sweep.TableCSV, *out, sweep.TableJSONL)
	if len(m.Missing) > 0 {
		var ns []string
		for i, p := range m.Missing {
			if i == 20 {
				ns = append(ns, "…")
				break
			}
			ns = append(ns, strconv.Itoa(p))
		}
		fmt.Fprintf(stderr, "ftlsim: sweep merge: %d points have no result yet (%s): run their shards (--resume continues one)\n", len(m.Missing), strings.Join(ns, ", "))
	}
	return nil
}

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
}

// Command runs one ftlsim command line as Main does, stopped by ctx, with
// the victim policies registered in policies known to it (nil: the
// built-in ones): a sweep's points from Go (sweep.Options.Main).
func Command(ctx context.Context, args []string, policies *ftl.Registry, stdout, stderr io.Writer) int {
	return Main(args, stdout, stderr, WithContext(ctx), WithPolicies(policies))
}

// CommandMemory checks one command line as the command would (options,
// drive description, scenario parameters, the policies of policies) and
// returns the memory its run plans to use: memlimit.EstimateRun of its
// drive and jobs (sweep.Options.Memory).
func CommandMemory(args []string, policies *ftl.Registry) (int64, error) {
	set := settings{policies: policies}
	var o *options
	w := memlimit.Work{IntervalNs: sim.Second}
	scenario := len(args) > 0 && args[0] == "scenario"
	if scenario {
		if len(args) < 2 {
			return 0, usage("scenario: no name")
		}
		sc, overrides, so, err := parseScenario(args[1:], set)
		if err != nil {
			return 0, err
		}
		o = so
		if spec, ok, err := sc.Endurance(overrides); ok {
			if err != nil {
				return 0, err
			}
			// A round's statistics are summed up and dropped before the next.
			w.Jobs, w.OneAtATime = []*workload.Job{spec.Fill, spec.Precondition, spec.Write, spec.Read}, true
		} else {
			steps, err := scenarioSteps(sc, overrides, o)
			if err != nil {
				return 0, err
			}
			for _, st := range steps {
				for _, j := range st.Jobs() {
					w.Jobs = append(w.Jobs, j)
					o.trackData = o.trackData || j.Verify || len(j.PowerLossNs) > 0
				}
			}
		}
	} else {
		jo, err := parseArgs(args, modeJob, set.policies)
		if err != nil {
			return 0, err
		}
		o = jo
		o.trackData = o.job.Verify || len(o.job.PowerLossNs) > 0
		w = work(o, []*workload.Job{o.job}, o.intervalMsec*1e6)
	}
	cfg, _, err := resolveDrive(o)
	if err != nil {
		return 0, err
	}
	r, err := cfg.Check()
	if err != nil {
		return 0, err
	}
	if !scenario {
		if err := o.job.Resolve(int64(r.Config.Capacity)); err != nil {
			return 0, err
		}
	}
	return memlimit.EstimateRun(r, w).Bytes(), nil
}

// sweepPlot draws a study's charts: the one the options describe, or
// the default set into the output directory.
func sweepPlot(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("sweep plot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var spec sweep.PlotSpec
	fs.StringVar(&spec.Metric, "metric", "", "the metric on the y scale (default: the default charts)")
	fs.StringVar(&spec.X, "x", "", "the axis on the x scale")
	fs.StringVar(&spec.Series, "series", "", "a line (or heatmap row) per value of this axis")
	fs.StringVar(&spec.Facet, "facet", "", "a panel per value of this axis")
	fs.BoolVar(&spec.Heatmap, "heatmap", false, "a heatmap of x against series")
	fs.StringVar(&spec.Title, "title", "", "the chart's title")
	out := fs.String("out", "", "the chart's file (.svg, .png or .pdf); with the default charts, their directory")
	format := fs.String("format", "svg", "the default charts' format: svg, png or pdf")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return usage("sweep plot: %v (%s)", err, sweepUsage)
	}
	if len(dirs) != 1 {
		return usage("sweep plot takes one output directory (got %d): %s", len(dirs), sweepUsage)
	}
	t, err := sweep.LoadTable(dirs[0])
	if err != nil {
		return err
	}
	if spec.Metric != "" || spec.X != "" {
		if *out == "" {
			return usage("sweep plot: --out=FILE.svg|png|pdf: where to write the chart")
		}
		if err := t.SavePlot(*out, spec); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", *out, spec)
		return nil
	}
	if *format != "svg" && *format != "png" && *format != "pdf" {
		return usage("sweep plot: --format=%s: allowed svg, png, pdf", *format)
	}
	dir := *out
	if dir == "" {
		dir = dirs[0]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, sp := range sweep.DefaultPlots(t) {
		file := filepath.Join(dir, sp.Name()+"."+*format)
		if err := t.SavePlot(file, sp); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", file, sp)
	}
	return nil
}
