package fit

import (
	"github.com/ftlsim/ftlsim/sim"
)

// logWindows builds, from a run's completions, the lines of a fio log
// averaged over windows (log_avg_msec) as `ftlsim run` writes them: a
// window's I/Os (or KiB) a second, rounded; the run's last sliver joins
// the last whole window. A simulated figure is then read from the same
// samples as the measured one (seriesOf, logFigures).
type logWindows struct {
	avgNs, winEnd int64
	ddir          int
	n, bytes      int64
	pend          *window
	iops, bw      []logSample
}

type window struct{ end, ns, n, bytes int64 }

func newLogWindows(avgMs int64, ddir int) *logWindows {
	return &logWindows{avgNs: avgMs * 1e6, winEnd: avgMs * 1e6, ddir: ddir}
}

func (l *logWindows) complete(c sim.Completion) {
	if c.Op.Dir() != l.ddir {
		return
	}
	for c.DoneNs >= l.winEnd {
		l.flush()
	}
	l.n++
	l.bytes += c.Length
}

func (l *logWindows) flush() {
	if l.pend != nil {
		l.write(l.pend)
	}
	l.pend = &window{end: l.winEnd, ns: l.avgNs, n: l.n, bytes: l.bytes}
	l.n, l.bytes = 0, 0
	l.winEnd += l.avgNs
}

func (l *logWindows) write(w *window) {
	secs := float64(w.ns) / 1e9
	l.iops = append(l.iops, logSample{w.end / 1e6, float64(int64(float64(w.n)/secs + 0.5))})
	l.bw = append(l.bw, logSample{w.end / 1e6, float64(int64(float64(w.bytes)/1024/secs + 0.5))})
}

// close ends the log at the run's end.
func (l *logWindows) close(r *sim.Result) {
	end := r.EndNs - r.StartNs
	for l.winEnd <= end {
		l.flush()
	}
	if rest := end - (l.winEnd - l.avgNs); rest > 0 {
		if l.pend == nil {
			l.pend = &window{end: end}
		}
		l.pend.n += l.n
		l.pend.bytes += l.bytes
		l.pend.ns += rest
	}
	if l.pend != nil {
		l.write(l.pend)
		l.pend = nil
	}
}

// samples returns the log's lines of kind "iops" or "bw".
func (l *logWindows) samples(kind string) []logSample {
	if kind == "bw" {
		return l.bw
	}
	return l.iops
}
