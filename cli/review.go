package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ftlsim/ftlsim/internal/memlimit"
	"github.com/ftlsim/ftlsim/report"
)

// reviewArgs are review's options.
type reviewArgs struct {
	drives    []string
	out       string
	quick     bool
	jobs      int
	resume    bool
	maxMemory string
	endurance bool
}

// parseReview reads review's options.
func parseReview(args []string) (reviewArgs, error) {
	fs := flag.NewFlagSet("review", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	drives := fs.String("drive", "", "drives to review, comma-separated (presets or description files)")
	out := fs.String("out", "review", "report folder")
	quick := fs.Bool("quick", false, "shrink drives and runs for a first look (same chart shapes)")
	jobs := fs.Int("jobs", 0, "runs at once (0: one per CPU, at most 4)")
	resume := fs.Bool("resume", false, "read back the runs an earlier review into the folder wrote, and run only the others (without it, a folder holding a review's runs is refused)")
	maxMemory := fs.String("max_memory", "", "memory the review may use, up to the machine's (default: half of the available memory, or FTLSIM_MAX_MEMORY)")
	endurance := fs.Bool("endurance", false, "also run the accelerated endurance procedure on each drive (read-error model on) and add an Endurance section")
	if err := fs.Parse(args); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
			return reviewArgs{}, usage("unknown option --%s for review (it takes --drive, --out, --quick, --jobs, --resume, --max_memory, --endurance)", strings.TrimLeft(name, "-"))
		}
		return reviewArgs{}, usage("%s", err.Error())
	}
	if fs.NArg() > 0 {
		return reviewArgs{}, usage("unexpected argument %q for review", fs.Arg(0))
	}
	if *drives == "" {
		return reviewArgs{}, usage("review needs --drive=NAME[,NAME...]")
	}
	if *jobs < 0 {
		return reviewArgs{}, usage("--jobs=%d: allowed 0 (one per CPU, at most 4) or more", *jobs)
	}
	return reviewArgs{drives: strings.Split(*drives, ","), out: *out, quick: *quick, jobs: *jobs, resume: *resume, maxMemory: *maxMemory, endurance: *endurance}, nil
}

// review runs the review suite on one or more drives and writes a report
// folder:
//
//	ftlsim review --drive=bp4-240,m4-256 [--out=DIR] [--quick] [--jobs=N] [--resume] [--endurance]
//
// Every drive and the folder are checked before any run; each run is
// written to the folder when it finishes, so that --resume after a stop
// (SIGINT, a failure) runs only the rest. A folder that holds a review's
// runs is refused without --resume, and with --resume when the options
// differ from the saved review's so that none of its runs applies (the
// line names the differences); when some still apply (a drive added,
// --endurance changed) they are read back and a line says how many.
// --endurance adds each drive's accelerated endurance run (ftlsim
// scenario endurance, quick with --quick) and the report's Endurance
// section.
func review(args []string, stdout, stderr io.Writer, set settings) error {
	a, err := parseReview(args)
	if err != nil {
		return err
	}
	for _, d := range a.drives {
		cfg, err := lookupDrive("--drive", d)
		if err != nil {
			return err
		}
		if a.endurance && !cfg.NAND.Reliability.Enabled() {
			return usage("--endurance: drive %s has no read-error model (its NAND part's %s is 0); review it without --endurance", d, cfg.FieldPath(&cfg.NAND.Reliability.RatedRBER))
		}
	}
	limit, err := memoryLimit(a.maxMemory)
	if err != nil {
		return err
	}
	start := time.Now()
	progress := func(drive, step string, done, total int, simNs int64) {}
	if isTerminal(stderr) {
		var stepStart, shown time.Time
		progress = func(drive, step string, done, total int, simNs int64) {
			now := time.Now()
			if simNs == 0 {
				stepStart = now
			} else if now.Sub(shown) < 200*time.Millisecond {
				return // redraw five times a second at most
			}
			shown = now
			eta := ""
			if done > 0 {
				left := time.Duration(float64(stepStart.Sub(start)) / float64(done) * float64(total-done))
				eta = fmt.Sprintf(", about %s left", left.Round(time.Second))
			}
			bar := strings.Repeat("#", done*20/total) + strings.Repeat(".", 20-done*20/total)
			fmt.Fprintf(stderr, "\r\033[K[%s] %d/%d %s: %s, %.0f s simulated%s", bar, done+1, total, drive, step, float64(simNs)/1e9, eta)
		}
	}
	var done func(drive, step string, n, total int)
	if !isTerminal(stderr) {
		// Logs and CI: a line a finished run.
		done = func(drive, step string, n, total int) {
			fmt.Fprintf(stderr, "ftlsim: review: %d/%d %s %s done after %s\n", n, total, drive, step, time.Since(start).Round(time.Second))
		}
	}
	if limit.Capped {
		fmt.Fprintf(stderr, "ftlsim: review: memory limit %s\n", limit)
	}
	resumed := 0
	reused := func(diff string, n, total int) {
		fmt.Fprintf(stderr, "ftlsim: review: --resume: the review saved in %s had other options (%s): %d of this review's %d runs still apply and are read back\n",
			a.out, diff, n, total)
	}
	ds, err := report.Run(report.Options{Drives: a.drives, Out: a.out, Quick: a.quick, Progress: progress, Done: done,
		Policies: set.policies, Jobs: a.jobs, Resume: a.resume, Context: set.ctx, MaxMemory: limit.Bytes, Endurance: a.endurance,
		Resumed: func(drive, step string) { resumed++ }, Reused: reused})
	if isTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	var held *report.HasReviewError
	switch {
	case errors.As(err, &held) && held.Differences != "":
		return usage("--resume: %s holds a review of other options (%s) and none of its %d saved runs applies to this one: give the same options, or another --out",
			a.out, held.Differences, held.Runs)
	case errors.As(err, &held):
		return usage("--out=%s holds %s: pass --resume to read its runs back, or another --out", a.out, held.What())
	case errors.Is(err, report.ErrOutput):
		return usage("--out=%s: %w", a.out, err)
	case errors.Is(err, memlimit.ErrTooLarge):
		return usage("--drive=%s: %w (%s)", strings.Join(a.drives, ","), err, limit.From)
	case errors.Is(err, report.ErrInterrupted):
		return fmt.Errorf("%w; ftlsim review --resume with the same options runs the rest", err)
	case err != nil:
		return err
	}
	if resumed > 0 {
		fmt.Fprintf(stderr, "ftlsim: review: %d run(s) read back from %s (--resume)\n", resumed, filepath.Join(a.out, "runs"))
	}
	fmt.Fprintf(stdout, "reviewed %d drive(s) in %s: %s/report.md, %s/report.html, charts and data/\n",
		len(ds), time.Since(start).Round(time.Second), a.out, a.out)
	return nil
}

// isTerminal reports whether w is a terminal (progress is drawn only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
