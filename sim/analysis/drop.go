package analysis

import "github.com/ftlsim/ftlsim/sim"

// DropShare is the share of the fresh level below which a series has
// dropped: three intervals in a row below it make the drop (Drop).
const DropShare = 0.7

// DropPoint is where a series of rates (IOPS, MB/s: one a full interval)
// leaves its fresh level.
type DropPoint struct {
	// Level is the fresh level: the highest median of three intervals in
	// a row that start in the first tenth of the series (or its first
	// three) — or, when one of the first two intervals is faster than
	// that by more than 1/DropShare (a fast path that lasts a second or
	// two, gone from every window of three), that interval's rate.
	Level float64
	// At is the index of the first of three intervals in a row below
	// DropShare × Level; -1 when the series never drops.
	At int
}

// Drop finds the fresh level of rates and where they fall from it: the
// one rule SummarizeConsistency and SummarizeSustained share.
func Drop(rates []float64) DropPoint {
	p := DropPoint{At: -1}
	head := min(max(3, len(rates)/10), len(rates))
	for i := range head {
		p.Level = max(p.Level, median(rates[i:min(i+3, len(rates))]))
	}
	for _, r := range rates[:min(2, len(rates))] {
		if r*DropShare > p.Level {
			p.Level = r
		}
	}
	limit := DropShare * p.Level
	for i := 0; i+3 <= len(rates); i++ {
		if rates[i] < limit && rates[i+1] < limit && rates[i+2] < limit {
			p.At = i
			break
		}
	}
	return p
}

// fullIntervals returns series without its last interval when that one is
// shorter than the first (a run's partial end).
func fullIntervals(series []sim.Interval) []sim.Interval {
	if n := len(series); n > 1 && series[n-1].EndNs-series[n-1].StartNs < series[0].EndNs-series[0].StartNs {
		return series[:n-1]
	}
	return series
}
