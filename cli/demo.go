package cli

import (
	"fmt"
	"io"
	"sort"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// demoSeconds is the length of the demonstration's random-write run.
const demoSeconds = 120

// demo runs the reviews' performance-consistency procedure, shortened, on
// a small drive, and explains what it shows.
func demo(w io.Writer) error {
	cfg, err := controller.Preset("generic-mlc-small")
	if err != nil {
		return err
	}
	c, err := controller.New(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ftlsim demonstration: the reviews' performance-consistency test, shortened.\n")
	fmt.Fprintf(w, "drive %s\n\n", describeDrive(c))
	e := sim.New(c)
	e.SecureErase()
	fill, err := e.RunJob(workload.FillJob(), sim.Hooks{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "1. secure erase, then a sequential fill with 128 KiB writes: %.0f MB/s, %.1f s simulated.\n",
		fill.Write.BWBytes/1e6, float64(fill.RuntimeNs)/1e9)
	r, err := e.RunJob(workload.RandomWriteJob("consistency", demoSeconds*sim.Second), sim.Hooks{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "2. 4 KiB random writes over every LBA at queue depth 32 for %d s:\n\n", demoSeconds)
	fmt.Fprintf(w, "   %6s %9s %8s %12s\n", "time", "IOPS", "WA", "free blocks")
	for i, iv := range r.Intervals {
		if i < 8 || i%10 == 9 {
			fmt.Fprintf(w, "   %5ds %9.0f %8.2f %12d\n", iv.EndNs/1e9, iv.IOPS, iv.WriteAmplification, iv.FreeBlocks)
		}
	}
	fresh := r.Intervals[0].IOPS
	cliff := -1
	for i, iv := range r.Intervals {
		if iv.IOPS < fresh/2 {
			cliff = i
			break
		}
	}
	var tail []float64
	var waTail float64
	for _, iv := range r.Intervals[len(r.Intervals)*3/4 : len(r.Intervals)-1] {
		tail = append(tail, iv.IOPS)
		waTail += iv.WriteAmplification
	}
	sort.Float64s(tail)
	fmt.Fprintf(w, "\nWhat it shows: the fresh drive writes at %.0f IOPS while its spare blocks last;", fresh)
	if cliff >= 0 {
		fmt.Fprintf(w, " at %d s the\nfree blocks run out and garbage collection must copy valid data before every\nerase (the cliff);", cliff)
	}
	fmt.Fprintf(w, " over the last quarter the drive settles near %.0f IOPS (median) with write\namplification %.1f (host writes %.1f GiB, flash programmed %.1f GiB in this run).\n",
		tail[len(tail)/2], waTail/float64(len(tail)), float64(r.Device.HostWriteBytes)/(1<<30), float64(r.Device.NANDWriteBytes)/(1<<30))
	fmt.Fprintf(w, "\nMore: ftlsim --help; ftlsim drives; for example\n  ftlsim --drive=generic-mlc-small --precondition=fill --rw=randwrite --bs=4k --iodepth=32 \\\n         --runtime=600 --time_based --norandommap --size=75%% --output-format=json\n")
	return nil
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `usage: ftlsim [options]          run one fio-style job on a simulated SSD
       ftlsim                    a short demonstration
       ftlsim drives [NAME]      list drive presets, or print one as YAML
       ftlsim replay FILE [options]  replay a block trace on a simulated SSD
       ftlsim run JOBFILE [options]  run a fio job file (drive and output options apply; job options
                                 set defaults the file overrides, as fio's do; --section=NAME runs one section)
       ftlsim scenario [NAME [--PARAM=VALUE ...] [options]]  list or run a review procedure
       ftlsim review --drive=NAME[,NAME...] [--out=DIR] [--quick] [--jobs=N]  the whole review suite, as a report
       ftlsim --version          this build's version

Job options (fio's names and meanings):
  --name=NAME --rw=read|write|trim|randread|randwrite|randtrim|rw|randrw|trimwrite[:N]
  --bs=SIZE|LO-HI|R,W[,T] --bssplit=4k/10:64k/90[,W-LIST[,T-LIST]] --iodepth=N --size=SIZE|N% --offset=SIZE|N%
  --io_size=SIZE --runtime=TIME --ramp_time=TIME --time_based --number_ios=N --loops=N --startdelay=TIME
  --thinktime=USEC --thinktime_blocks=N --fsync=N --fdatasync=N --sync=0|1 --end_fsync=1   (FLUSH commands)
  --ss=iops|bw|lat[_slope]:LIMIT[%] --ss_dur=TIME --ss_ramp=TIME --ss_interval=TIME   (stop once steady, as fio)
  --rwmixread=N --rwmixwrite=N --random_distribution=random|zipf:T|pareto:H|normal:D|zoned:A/R:...
  --randseed=N --norandommap --percentage_random=N --rate_iops=N --rate=BYTES --rate_process=linear|poisson
  --buffer_compress_percentage=N --buffer_compress_chunk=SIZE --dedupe_percentage=N --buffer_pattern=P
  --data=full-random|pseudo-random|os-install|media|zeros   (content; drives that do not compress ignore it)
Drive options:
  --drive=PRESET|FILE  (default generic-mlc; see ftlsim drives)
  --capacity=SIZE      user-visible capacity, e.g. 240GB or 256GiB
  --op=PERCENT         spare area as a percentage of user capacity
  --gc=POLICY          greedy, fifo, cost-benefit, random, d-choices:D
  --precondition=none|fill|torture[:TIME]   run before the job (after a secure erase)
Output:
  --output-format=normal|json|json+|terse  --output=FILE
  --write_iops_log=NAME --write_bw_log=NAME --write_lat_log=NAME --log_avg_msec=MS --log_offset=0|1
  --write_hist_log=NAME --log_hist_msec=MS   (fio's completion-latency histograms)
  --write_device_log=FILE.csv --device_log_msec=MS
Replay options (with the drive and output options):
  --format=msr|spc|disksim|heimdall|blkparse|iolog   (default: detected; gzip is read directly)
  --iodepth=N          closed loop at queue depth N (default: open loop at the recorded times)
  --speedup=X          replay the recorded times X times faster
  --devices=merge|partition:N   --beyond=wrap|reject
Sizes: 4k = 4096 (fio's kb_base=1024); --capacity counts GB as 10^9 and GiB as 2^30.
Times: seconds, or with ms, m, h suffixes. Exit status 2 means bad input.
`)
}
