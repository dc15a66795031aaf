// Command consistency runs the reviews' performance-consistency test on a
// simulated drive, twice: with every LBA in use, and with 25 % spare area
// made by partitioning (only the first 75 % of the LBAs are ever written).
//
// The procedure is the reviews': secure erase; sequential fill (of the
// partition); 4 KiB random writes at queue depth 32 over the partition,
// incompressible, for 2,000 s, with IOPS recorded every second. It prints
// what the reviewers read from the charts — the fresh plateau, the cliff,
// the steady state from t = 1,400 s with its spread, and any seconds at
// 0 IOPS — and writes the series as CSV and the reviews' charts as PNG:
// the whole run on a log scale, and the steady-state window on a log and a
// linear scale.
//
//	go run ./examples/consistency                    # 256 GiB generic-mlc, 2,000 s (about 3 minutes)
//	go run ./examples/consistency -quick             # a small drive, 600 s (seconds)
//	go run ./examples/consistency -drive=mydrive.yaml -seconds=1000 -out=/tmp/c
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/workload"
)

type options struct {
	drive    string
	capacity string
	seconds  int
	out      string
	quick    bool
}

// outcome is one run of the procedure.
type outcome struct {
	label   string
	spare   int // percent of LBAs left unwritten
	series  []sim.Interval
	summary analysis.ConsistencySummary
}

func main() {
	var o options
	flag.StringVar(&o.drive, "drive", "generic-mlc", "drive preset or description file")
	flag.StringVar(&o.capacity, "capacity", "", "user capacity (default: the drive's)")
	flag.IntVar(&o.seconds, "seconds", 2000, "length of the random-write run")
	flag.StringVar(&o.out, "out", "consistency-out", "directory for the CSV and PNG files")
	flag.BoolVar(&o.quick, "quick", false, "a small two-die drive and a 600 s run, for a first look")
	flag.Parse()
	if _, err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "consistency:", err)
		os.Exit(1)
	}
}

func buildDrive(o options) (*controller.Controller, error) {
	cfg, err := controller.Lookup(o.drive)
	if err != nil {
		return nil, err
	}
	if o.quick {
		// Two dies keep the per-die reserve small next to the spare area
		// of a small drive, so it behaves like a large one, quickly.
		g := &cfg.NAND.Geometry
		g.Channels, g.TargetsPerChannel, g.DiesPerTarget = 2, 1, 1
		cfg.Capacity = 4 << 30
	}
	if o.capacity != "" {
		if err := cfg.Capacity.UnmarshalText([]byte(o.capacity)); err != nil {
			return nil, err
		}
	}
	return controller.New(cfg)
}

func run(o options, w io.Writer) ([]outcome, error) {
	if o.quick && o.seconds == 2000 {
		o.seconds = 600
	}
	if o.seconds < 10 {
		return nil, fmt.Errorf("-seconds=%d: at least 10", o.seconds)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}
	var outs []outcome
	for _, spare := range []int{0, 25} {
		d, err := buildDrive(o)
		if err != nil {
			return nil, err
		}
		if spare == 0 {
			fmt.Fprintf(w, "drive %s: %d GiB user, %.1f %% spare, %d dies\n", d.Config().Name,
				d.CapacityBytes()>>30, sim.GeometryOf(d).OPPercent, d.Config().NAND.Geometry.Dies())
		}
		e := sim.New(d)
		e.SecureErase()
		size := fmt.Sprintf("%d%%", 100-spare)
		fill := workload.FillJob()
		if err := fill.Set("size", size); err != nil {
			return nil, err
		}
		if _, err := e.RunJob(fill, sim.Hooks{}); err != nil {
			return nil, err
		}
		j := workload.RandomWriteJob("consistency", int64(o.seconds)*sim.Second)
		if err := j.Set("size", size); err != nil {
			return nil, err
		}
		r, err := e.RunJob(j, sim.Hooks{})
		if err != nil {
			return nil, err
		}
		label := "default"
		if spare > 0 {
			label = fmt.Sprintf("%d%% spare area", spare)
		}
		// The reviews read the steady state from 1,400 s of 2,000: the
		// last 30 % of the run.
		from := int64(o.seconds) * 7 / 10 * sim.Second
		ivs := r.Intervals.Slice()
		out := outcome{label: label, spare: spare, series: ivs, summary: analysis.SummarizeConsistency(ivs, from)}
		outs = append(outs, out)
		if err := writeCSV(filepath.Join(o.out, fmt.Sprintf("consistency-%d.csv", spare)), ivs); err != nil {
			return nil, err
		}
		report(w, out, r)
	}
	if err := plotAll(o.out, outs, int64(o.seconds)*7/10*sim.Second); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nseries and charts in %s/\n", o.out)
	return outs, nil
}

func report(w io.Writer, o outcome, r *sim.Result) {
	s := o.summary
	fmt.Fprintf(w, "\n%s:\n", o.label)
	fmt.Fprintf(w, "  fresh plateau   %8.0f IOPS\n", s.FreshIOPS)
	if s.CliffNs >= 0 {
		fmt.Fprintf(w, "  cliff at        %8.0f s\n", float64(s.CliffNs)/1e9)
	} else {
		fmt.Fprintf(w, "  cliff           none within the run\n")
	}
	fmt.Fprintf(w, "  steady state    %8.0f IOPS median from %.0f s (10th-90th percentile %.0f-%.0f), write amplification %.2f\n",
		s.SteadyMedian, float64(s.SteadyFromNs)/1e9, s.SteadyP10, s.SteadyP90, s.SteadyWA)
	fmt.Fprintf(w, "  seconds at 0    %8d\n", s.ZeroSeconds)
	fmt.Fprintf(w, "  whole run       %.0f IOPS mean, %.2f write amplification\n", r.Write.IOPS, r.Device.WriteAmplification)
}

func writeCSV(file string, series []sim.Interval) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	fmt.Fprintln(f, "time_s,iops,mean_latency_us,write_amplification,free_blocks,gc_copied_units")
	for _, iv := range series {
		fmt.Fprintf(f, "%.3f,%.1f,%.1f,%.3f,%d,%d\n", float64(iv.EndNs)/1e9, iv.IOPS, iv.MeanLatencyNs/1e3,
			iv.WriteAmplification, iv.FreeBlocks, iv.GCCopiedUnits)
	}
	return f.Close()
}
