package sweep

import (
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"
)

// bar is the progress bar drawn on a terminal.
type bar struct{ pb *progressbar.ProgressBar }

// startProgress starts the bar, or says what will run.
func (r *runner) startProgress() {
	if r.o.Progress == nil {
		return
	}
	if r.o.Bar && r.total > 0 {
		r.bar = &bar{pb: progressbar.NewOptions(r.total,
			progressbar.OptionSetWriter(r.o.Progress),
			progressbar.OptionSetDescription("sweep "+r.s.Name),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(r.o.Progress) }),
		)}
		return
	}
	fmt.Fprintf(r.o.Progress, "sweep %s: %d points to run, %d with results already, %d at a time\n",
		r.s.Name, r.total, r.skipped, r.o.Jobs)
}

// report records a finished point (r.mu held): a step of the bar, or a
// line with the count, the point and the ETA.
func (r *runner) report(p Point, failed string) {
	if r.o.Progress == nil {
		return
	}
	done := r.ran + len(r.failures)
	if r.bar != nil {
		r.bar.pb.Add(1)
		if failed != "" {
			r.bar.pb.Describe(fmt.Sprintf("sweep %s (%d failed)", r.s.Name, len(r.failures)))
		}
		return
	}
	elapsed := time.Since(r.start)
	eta := time.Duration(0)
	if done > 0 {
		eta = elapsed / time.Duration(done) * time.Duration(r.total-done)
	}
	what := "done"
	if failed != "" {
		what = failed
	}
	fmt.Fprintf(r.o.Progress, "sweep %s: [%d/%d] point %d (%s): %s; %s elapsed, ETA %s\n", r.s.Name, done, r.total,
		p.Index, p.Label(), what, elapsed.Round(time.Second), eta.Round(time.Second))
}

func (r *runner) stopProgress() {
	if r.bar != nil {
		r.bar.pb.Exit()
	}
}
