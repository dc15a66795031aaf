package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/workload"
)

// demoSeconds is the length of the demonstration's random-write run: the
// quick review's consistency run, long enough on the demonstration's
// drive for the recovery after the cliff to settle.
const demoSeconds = 600

// The steady-state rule the demonstration holds the run's last quarter
// to, SNIA's (Solid State Storage Performance Test Specification): the
// window cut into steadySlices rounds, the rounds' mean IOPS within
// steadyRangePct of their average from lowest to highest, and the
// least-squares line through them moving at most steadySlopePct of it
// across the window.
const (
	steadySlices   = 5
	steadyRangePct = 20.0
	steadySlopePct = 10.0
)

// demoResult is what the demonstration ran and what it reads from it.
type demoResult struct {
	drive     string
	capacity  int64 // user bytes: the fill wrote every one
	fillMBps  float64
	fillSecs  float64
	run       *sim.Result
	summary   analysis.ConsistencySummary // steady window: the last quarter
	cliff     int                         // index of the cliff's interval; -1 for none
	peak      int                         // index of the highest write amplification
	hostAtPk  int64                       // host bytes written before the peak interval
	tail      steadiness
	tailWA    float64 // mean write amplification over the last quarter
	tailStart int64   // ns
}

// steadiness is how flat a window of a series is, by SNIA's rule.
type steadiness struct {
	rounds   []float64 // mean IOPS of each round, oldest first
	mean     float64   // of the rounds
	rangePct float64   // highest minus lowest round, % of mean
	slopePct float64   // the fitted line's change across the window, % of mean (signed)
	first    float64   // the fitted line at the window's first round
	last     float64   // and at its last
	steady   bool      // both within the rule's limits
}

// steadinessOf cuts series (whole intervals) into steadySlices rounds of
// equal length and reads them by SNIA's rule.
func steadinessOf(series []sim.Interval) steadiness {
	var s steadiness
	n := len(series)
	if n < steadySlices {
		return s
	}
	xs := make([]float64, steadySlices)
	for k := range steadySlices {
		part := series[k*n/steadySlices : (k+1)*n/steadySlices]
		var ios, secs float64
		for _, iv := range part {
			d := float64(iv.EndNs-iv.StartNs) / 1e9
			ios += iv.IOPS * d
			secs += d
		}
		s.rounds = append(s.rounds, ios/secs)
		xs[k] = float64(k)
	}
	s.mean = stat.Mean(s.rounds, nil)
	lo, hi := s.rounds[0], s.rounds[0]
	for _, v := range s.rounds {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	a, b := stat.LinearRegression(xs, s.rounds, nil, false)
	s.first, s.last = a, a+b*float64(steadySlices-1)
	if s.mean > 0 {
		s.rangePct = 100 * (hi - lo) / s.mean
		s.slopePct = 100 * (s.last - s.first) / s.mean
	}
	s.steady = s.mean > 0 && s.rangePct <= steadyRangePct && math.Abs(s.slopePct) <= steadySlopePct
	return s
}

// runDemo runs the reviews' performance-consistency procedure, shortened,
// on a small drive.
func runDemo() (*demoResult, error) {
	cfg, err := controller.Preset("generic-mlc-small")
	if err != nil {
		return nil, err
	}
	c, err := controller.New(cfg)
	if err != nil {
		return nil, err
	}
	e := sim.New(c)
	e.SecureErase()
	fill, err := e.RunJob(workload.FillJob(), sim.Hooks{})
	if err != nil {
		return nil, err
	}
	r, err := e.RunJob(workload.RandomWriteJob("consistency", demoSeconds*sim.Second), sim.Hooks{})
	if err != nil {
		return nil, err
	}
	return readDemo(describeDrive(c), int64(c.Config().Capacity), fill, r), nil
}

// readDemo reads a fill's and a consistency run's results.
func readDemo(drive string, capacity int64, fill, r *sim.Result) *demoResult {
	d := &demoResult{drive: drive, capacity: capacity, fillMBps: fill.Write.BWBytes / 1e6,
		fillSecs: float64(fill.RuntimeNs) / 1e9, run: r, cliff: -1, peak: -1}
	whole := wholeIntervals(r.Intervals.Slice())
	length := r.EndNs - r.StartNs
	d.tailStart = length * 3 / 4
	d.summary = analysis.SummarizeConsistency(r.Intervals.Slice(), d.tailStart)
	var host int64
	for i, iv := range whole {
		if d.cliff < 0 && iv.EndNs == d.summary.CliffNs {
			d.cliff = i
		}
		if d.peak < 0 || iv.WriteAmplification > whole[d.peak].WriteAmplification {
			d.peak, d.hostAtPk = i, host
		}
		host += iv.WriteBytes
	}
	var tail []sim.Interval
	var wa, bytes float64
	for _, iv := range whole {
		if iv.StartNs >= d.tailStart {
			tail = append(tail, iv)
			wa += iv.WriteAmplification * float64(iv.WriteBytes)
			bytes += float64(iv.WriteBytes)
		}
	}
	if bytes > 0 {
		d.tailWA = wa / bytes
	}
	d.tail = steadinessOf(tail)
	return d
}

// wholeIntervals is series without its last interval when that is
// shorter than the first (the I/Os in flight when the job stopped).
func wholeIntervals(series []sim.Interval) []sim.Interval {
	if n := len(series); n > 1 && series[n-1].EndNs-series[n-1].StartNs < series[0].EndNs-series[0].StartNs {
		return series[:n-1]
	}
	return series
}

// fillValid is the share of a block written by the fill that is still
// valid after the host rewrote host bytes at uniformly random places of
// capacity bytes: each unit survives with probability exp(-host/capacity).
func fillValid(host, capacity int64) float64 {
	return math.Exp(-float64(host) / float64(capacity))
}

// demoRows are the table's times: every second to 8 s (the cliff), then
// every 10 s to 100 s, then every 50 s.
func demoRows(end int64) []int64 {
	var out []int64
	for s := int64(1); s <= end; s++ {
		if s <= 8 || (s <= 100 && s%10 == 0) || s%50 == 0 {
			out = append(out, s)
		}
	}
	return out
}

// demo runs the demonstration and explains what it shows.
func demo(w io.Writer) error {
	d, err := runDemo()
	if err != nil {
		return err
	}
	writeDemo(w, d)
	return nil
}

// writeDemo writes the demonstration's table and explanation; every
// figure it states is read from d.
func writeDemo(w io.Writer, d *demoResult) {
	r := d.run
	secs := (r.EndNs - r.StartNs) / 1e9
	fmt.Fprintf(w, "ftlsim demonstration: the reviews' performance-consistency test, shortened.\n")
	fmt.Fprintf(w, "drive %s\n\n", d.drive)
	fmt.Fprintf(w, "1. secure erase, then a sequential fill with 128 KiB writes: %.0f MB/s, %.1f s simulated.\n", d.fillMBps, d.fillSecs)
	fmt.Fprintf(w, "2. 4 KiB random writes over every LBA at queue depth 32 for %d s:\n\n", secs)
	fmt.Fprintf(w, "   %6s %9s %8s %12s\n", "time", "IOPS", "WA", "free blocks")
	whole := wholeIntervals(r.Intervals.Slice())
	at := map[int64]sim.Interval{}
	for _, iv := range whole {
		if iv.EndNs%int64(sim.Second) == 0 {
			at[iv.EndNs/int64(sim.Second)] = iv
		}
	}
	for _, s := range demoRows(secs) {
		if iv, ok := at[s]; ok {
			fmt.Fprintf(w, "   %5ds %9.0f %8.2f %12d\n", s, iv.IOPS, iv.WriteAmplification, iv.FreeBlocks)
		}
	}
	s := d.summary
	fmt.Fprintf(w, "\nWhat it shows:\n- The fresh drive writes at %.0f IOPS while its free blocks last.", s.FreshIOPS)
	if d.cliff < 0 {
		fmt.Fprintf(w, " IOPS never fell below half of that: no cliff in this run.\n")
	} else {
		fmt.Fprintf(w, " At %d s they run out\n  and garbage collection must copy valid data out of a block before erasing it (the cliff).\n", s.CliffNs/1e9)
	}
	if d.peak >= 0 && d.cliff >= 0 && d.peak >= d.cliff {
		pk := whole[d.peak]
		v := fillValid(d.hostAtPk, d.capacity)
		fmt.Fprintf(w, "- Write amplification peaks just after the cliff, at %.1f (%d s): the fill left every block\n"+
			"  fully valid, and by then the host had rewritten only %.2f GiB at random, %.1f %% of the %.0f GiB,\n"+
			"  so a block from the fill still held about %.0f %% valid data. Freeing one means copying that\n"+
			"  first: about 1/(1 - %.3f) = %.1f pages programmed per page the host writes for an average fill\n"+
			"  block (greedy GC takes the emptiest, a little less). As random writes empty blocks further,\n"+
			"  the victims hold less valid data and write amplification falls.\n",
			pk.WriteAmplification, pk.EndNs/1e9, float64(d.hostAtPk)/(1<<30), 100*(1-v), float64(d.capacity)/(1<<30),
			100*v, v, 1/(1-v))
	}
	t := d.tail
	from, to := d.tailStart/1e9, secs
	round := (to - from) / steadySlices
	switch {
	case t.mean == 0:
		fmt.Fprintf(w, "- The last quarter is too short to judge.\n")
	case t.steady:
		fmt.Fprintf(w, "- Over the last quarter (%d-%d s) it settles near %.0f IOPS with write amplification %.1f: in\n"+
			"  %d rounds of %d s its IOPS span %.1f %% of their mean and the fitted line moves %+.1f %%\n"+
			"  (steady by SNIA's rule: at most %.0f %% and %.0f %%).\n",
			from, to, t.mean, d.tailWA, steadySlices, round, t.rangePct, t.slopePct, steadyRangePct, steadySlopePct)
	default:
		how := "still rising"
		if t.slopePct < 0 {
			how = "still falling"
		}
		if math.Abs(t.slopePct) <= steadySlopePct {
			how = "level but still swinging"
		}
		fmt.Fprintf(w, "- Over the last quarter (%d-%d s) it has not settled, it is %s: in %d rounds of %d s\n"+
			"  the fitted line moves %+.1f %% (from %.0f to %.0f IOPS) and the rounds span %.1f %% of their mean\n"+
			"  %.0f IOPS (SNIA's steady-state rule allows %.0f %% and %.0f %%); write amplification %.1f. A longer run\n"+
			"  shows where it ends.\n",
			from, to, how, steadySlices, round, t.slopePct, t.first, t.last, t.rangePct, t.mean, steadySlopePct, steadyRangePct, d.tailWA)
	}
	fmt.Fprintf(w, "- In this run the host wrote %.1f GiB and the flash programmed %.1f GiB.\n",
		float64(r.Device.HostWriteBytes)/(1<<30), float64(r.Device.NANDWriteBytes)/(1<<30))
	fmt.Fprintf(w, "\nMore, from the repository's root (or build the command once with go build -o ftlsim ./cmd/ftlsim\nand type ./ftlsim for go run ./cmd/ftlsim):\n")
	for _, c := range demoCommands() {
		fmt.Fprintf(w, "  %s\n", wrapCommand(c, 100))
	}
}

// demoCommands are the commands the demonstration suggests, as typed in
// the module's root.
func demoCommands() []string {
	return []string{
		"go run ./cmd/ftlsim --help",
		"go run ./cmd/ftlsim drives",
		"go run ./cmd/ftlsim scenario",
		"go run ./cmd/ftlsim --drive=generic-mlc-small --precondition=fill --rw=randwrite --bs=4k --iodepth=32 --runtime=600 --time_based --norandommap --size=75% --output-format=json",
		"go run ./cmd/ftlsim review --drive=m4-64,bp4-60 --quick --out=review",
	}
}

// wrapCommand breaks a command line before options so that no line is
// longer than width, with shell line continuations.
func wrapCommand(c string, width int) string {
	var out strings.Builder
	line := 0
	for i, f := range strings.Fields(c) {
		if i > 0 {
			if line+1+len(f) > width {
				out.WriteString(" \\\n      ")
				line = 6
			} else {
				out.WriteByte(' ')
				line++
			}
		}
		out.WriteString(f)
		line += len(f)
	}
	return out.String()
}

// printHelp writes the command's usage.
func printHelp(w io.Writer) {
	fmt.Fprint(w, `usage: ftlsim [options]          run one fio-style job on a simulated SSD
       ftlsim                    a short demonstration
       ftlsim drives [NAME]      list drive presets, or print one as YAML
       ftlsim replay FILE [options]  replay a block trace on a simulated SSD
       ftlsim run JOBFILE [options]  run a fio job file (drive and output options apply; job options
                                 set defaults the file overrides, as fio's do; --section=NAME runs one section)
       ftlsim scenario [NAME [--PARAM=VALUE ...] [options]]  list or run a review procedure
       ftlsim review --drive=NAME[,NAME...] [--out=DIR] [--quick] [--jobs=N] [--resume] [--max_memory=SIZE] [--endurance]
                                 the whole review suite, as a report; each run is saved as it finishes,
                                 and --resume runs only those not saved yet; --endurance adds each drive's
                                 accelerated endurance run (read-error model on; quick with --quick) and
                                 an Endurance section: chart and table against TB written
       ftlsim sweep FILE.yaml [--out=DIR] [-j N] [--shard=I/N] [--resume] [--max_memory=SIZE] [--keep_states] [--list]
                                 a what-if study: every point of the file's axes (drive fields, job options,
                                 scenario parameters), -j at a time within the memory limit; one JSON line a
                                 point in DIR/results.jsonl, the table in DIR/table.csv; shards from --shard,
                                 SLURM_ARRAY_TASK_ID/COUNT or JOB_COMPLETION_INDEX (with the file's shards:)
       ftlsim sweep merge DIR... [--out=DIR]   the shards' results as one table
       ftlsim sweep plot DIR [--metric=M --x=AXIS [--series=AXIS] [--facet=AXIS] [--heatmap] --out=FILE.svg|png]
                                 a study's charts (without --metric: the default set, into DIR)
       ftlsim fit DIR|FILE.yaml --drive=NAME [--param=FIELD[=LO..HI]]... [--out=DIR] [-j N] [--leave_one_out] [--resume]
                                 fit a drive's firmware values to the measurement kit's fio reports and logs
                                 (DIR) or to a file of figures: DIR/fitted.yaml and DIR/fit.md (docs/fit.md)
       ftlsim --version          this build's version

Job options (fio's names and meanings):
  --name=NAME --rw=read|write|trim|randread|randwrite|randtrim|rw|randrw|trimwrite[:N]
  --bs=SIZE|LO-HI|R,W[,T] --bssplit=4k/10:64k/90[,W-LIST[,T-LIST]] --iodepth=N --size=SIZE|N% --offset=SIZE|N%
  --io_size=SIZE --runtime=TIME --ramp_time=TIME --time_based --number_ios=N --loops=N --startdelay=TIME
  --thinktime=USEC --thinktime_blocks=N --fsync=N --fdatasync=N --sync=0|1 --end_fsync=1   (FLUSH commands)
  --ss=iops|bw|lat[_slope]:LIMIT[%] --ss_dur=TIME --ss_ramp=TIME --ss_interval=TIME   (stop once steady, as fio)
  --rwmixread=N --rwmixwrite=N --random_distribution=random|zipf:T|pareto:H|normal:D|zoned:A/R:...|sequence:B,B,...
  --randseed=N (scenarios too: seeds the drive and each step) --norandommap --random_generator=lfsr --percentage_random=N --rate_iops=N --rate=BYTES --rate_process=linear|poisson
  --buffer_compress_percentage=N --buffer_compress_chunk=SIZE --dedupe_percentage=N --buffer_pattern=P
  --data=full-random|pseudo-random|os-install|media|zeros   (content; drives that do not compress ignore it)
  --verify=crc32c|md5|... (read back and check every block written) --writefua=1 --readfua=1 --num_range=N
  --zonemode=strided --zonesize=SIZE --zoneskip=SIZE --sprandom=1 --spr_op=F --exitall
  --numjobs=N --group_reporting --percentile_list=P:P:... --lat_percentiles=1 --clat_percentiles=0
  --power_loss=TIME[,TIME...]   (cut the drive's power during the run; see ftlsim scenario power-loss)
  (every option: see workload.Options in the Go API; ftlsim --OPTION=bad names the allowed values)
Drive options:
  --drive=PRESET|FILE  (default generic-mlc; see ftlsim drives)
                       NVMe drives (generic-nvme, generic-nvme-hmb, host.interface: nvme in a description):
                       numjobs clone k submits to queue k mod host.queues, each holding host.queue_depth
                       commands (--iodepth beyond waits on the host); SATA drives have one queue (NCQ: 32)
  --capacity=SIZE      user-visible capacity, e.g. 240GB or 256GiB
  --op=PERCENT         spare area as a percentage of user capacity
  --gc=POLICY          greedy, fifo, cost-benefit, random, d-choices:D
  --lba_format=DATA[+META]  the namespace's LBA format: 512 or 4096 data bytes a block, +8, 16, 64 or 128
                       of metadata interleaved (extended LBAs: the job's offsets and bs count it; docs/fio.md)
  --precondition=none|fill|torture[:TIME]|season   run before the job (after a secure erase)
  --faults=KEY=V,...   read errors and wear-out: on, wear=SHARE, age=TIME (e.g. 180d, 1y), rber_scale=X,
                       grown_bad_permille=N, bad_block_permille=N, read_reclaim=N, ecc_bits=N (see README)
Drive snapshots (ftlsim [options], replay and run; see README):
  --save_state=FILE    save the drive's state once prepared (secure erase, precondition), then run the job
  --prepare_only       with --save_state: prepare and save, run no job
  --load_state=FILE    start from the saved state instead of preparing: the drive options must describe the same
                       drive, --precondition is the file's; --randseed seeds the job, the drive's randomness is the file's
Output:
  --output-format=normal|json|json+|terse  --output=FILE
  --write_iops_log=NAME --write_bw_log=NAME --write_lat_log=NAME --log_avg_msec=MS --log_offset=0|1
  --write_hist_log=NAME --log_hist_msec=MS   (fio's completion-latency histograms)
  --write_device_log=FILE.csv --device_log_msec=MS   (the JSON holds series of up to 36,000 intervals)
  Files are written whole once the run succeeds: a failed run leaves existing files as they were.
Memory:
  --max_memory=SIZE    what a run may use (default: FTLSIM_MAX_MEMORY, else half of the machine's available memory);
                       a larger drive or run is refused before it starts
  --compact_map=1      keep no OOB tags on the simulated flash, as drives above 4 TiB of flash do by themselves:
                       about 1.15 instead of 2.08 MB per GiB of flash at 4 KiB units, for more CPU time; the same results
Replay options (with the drive and output options):
  --format=msr|spc|disksim|heimdall|blkparse|iolog   (default: detected; gzip is read directly)
  --iodepth=N          closed loop at queue depth N (default: open loop at the recorded times)
  --speedup=X          replay the recorded times X times faster
  --devices=merge|partition:N   --beyond=wrap|reject
Sizes: 4k = 4096 (fio's kb_base=1024); --capacity counts GB as 10^9 and GiB as 2^30.
Times: seconds, or with ms, m, h suffixes.
Exit status: 0 success, 1 a failed run, 2 bad input (one line names the option), 130 stopped by SIGINT or
SIGTERM (the results so far are written, marked interrupted; a second signal ends the command at once).
`)
}
