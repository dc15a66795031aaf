package sweep

import (
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress tells a study's progress on Options.Progress: a line a
// finished point with the count and the ETA, or a bar on a terminal.
type progress struct {
	s       *Sweep
	o       Options
	start   time.Time
	total   int // points to run
	skipped int // points with a result already
	bar     *progressbar.ProgressBar
}

// begin starts the bar, or says what will run.
func (pr *progress) begin() {
	if pr.o.Progress == nil {
		return
	}
	if pr.o.Bar && pr.total > 0 {
		pr.bar = progressbar.NewOptions(pr.total,
			progressbar.OptionSetWriter(pr.o.Progress),
			progressbar.OptionSetDescription("sweep "+pr.s.Name),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(pr.o.Progress) }),
		)
		return
	}
	fmt.Fprintf(pr.o.Progress, "sweep %s: %d points to run, %d with results already, %d at a time\n",
		pr.s.Name, pr.total, pr.skipped, pr.o.Jobs)
}

// event records a finished or failed point (the Scheduler's calls are
// serialised): a step of the bar, or a line with the count, the point and
// the ETA.
func (pr *progress) event(e Event) {
	if pr.o.Progress == nil || (e.Kind != TaskFinished && e.Kind != TaskFailed) {
		return
	}
	done := e.Ran + e.Failed
	if pr.bar != nil {
		pr.bar.Add(1)
		if e.Kind == TaskFailed {
			pr.bar.Describe(fmt.Sprintf("sweep %s (%d failed)", pr.s.Name, e.Failed))
		}
		return
	}
	elapsed := time.Since(pr.start)
	eta := time.Duration(0)
	if done > 0 {
		eta = elapsed / time.Duration(done) * time.Duration(pr.total-done)
	}
	what := "done"
	if e.Kind == TaskFailed {
		what = "failed: " + e.Err.Error()
	}
	fmt.Fprintf(pr.o.Progress, "sweep %s: [%d/%d] point %d (%s): %s; %s elapsed, ETA %s\n", pr.s.Name, done, pr.total,
		e.Task.Point, e.Task.Label(), what, elapsed.Round(time.Second), eta.Round(time.Second))
}

// end closes the bar.
func (pr *progress) end() {
	if pr.bar != nil {
		pr.bar.Exit()
	}
}
