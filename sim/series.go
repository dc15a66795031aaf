package sim

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"iter"
	"math"
	"sort"
	"unsafe"
)

// Series is a run's per-interval series (Result.Intervals): an Interval
// for each series interval (Options.IntervalNs), in order, the last one
// possibly shorter.
//
// Consecutive intervals that are alike but for their times — simulated
// time in which nothing changed: no I/O completed, the drive did no work,
// its levels stayed — are stored once, with their count, so that an idle
// gap of any length (a trace's pause, a think time of hours) costs the
// memory of one interval. Reading the series gives every interval, as
// if each were stored: Len counts them all, At and All return each with
// its own times. Runs gives the stored form, for readers that would
// otherwise walk billions of idle intervals one by one.
//
// The zero Series is empty and ready to use. A Series is a value whose
// copies share their storage: Append to one copy only. It is not safe for
// concurrent use while appended to; reading it from several goroutines at
// once is safe.
type Series struct {
	runs []seriesRun
	n    int // intervals, all runs
}

// seriesRun is count intervals alike but for their times: the first is
// first, each next one starts where the one before ends and is as long.
type seriesRun struct {
	first Interval
	count int
	at    int // the index of first in the series
}

// runBytes is the memory one stored run takes.
const runBytes = int64(unsafe.Sizeof(seriesRun{}))

// SeriesOf returns the series of ivs, runs of intervals alike but for
// their times stored once.
func SeriesOf(ivs []Interval) Series {
	var s Series
	for _, iv := range ivs {
		s.Append(iv)
	}
	return s
}

// Len is the number of intervals in the series.
func (s Series) Len() int { return s.n }

// Stored is the number of runs the series stores: what its memory grows
// with.
func (s Series) Stored() int { return len(s.runs) }

// At returns interval i (0 ≤ i < Len); it panics with an index out of
// range otherwise, as a slice does.
func (s Series) At(i int) Interval {
	if i < 0 || i >= s.n {
		panic("sim: Series.At: index out of range")
	}
	r := sort.Search(len(s.runs), func(k int) bool { return s.runs[k].at > i }) - 1
	return s.runs[r].nth(i - s.runs[r].at)
}

// nth is the k-th interval of the run.
func (r *seriesRun) nth(k int) Interval {
	iv := r.first
	d := int64(k) * (iv.EndNs - iv.StartNs)
	iv.StartNs += d
	iv.EndNs += d
	return iv
}

// All yields every interval with its index, in order.
func (s Series) All() iter.Seq2[int, Interval] {
	return func(yield func(int, Interval) bool) {
		for i := range s.runs {
			r := &s.runs[i]
			for k := range r.count {
				if !yield(r.at+k, r.nth(k)) {
					return
				}
			}
		}
	}
}

// Runs yields the stored form: each run's first interval and how many
// intervals the run has (the k-th of them is the first moved on by k of
// its length).
func (s Series) Runs() iter.Seq2[Interval, int] {
	return func(yield func(Interval, int) bool) {
		for _, r := range s.runs {
			if !yield(r.first, r.count) {
				return
			}
		}
	}
}

// Slice returns every interval in a new slice: for series short enough
// to hold whole (a run's series with a runtime is; one with long idle
// gaps may not be).
func (s Series) Slice() []Interval {
	out := make([]Interval, 0, s.n)
	for _, iv := range s.All() {
		out = append(out, iv)
	}
	return out
}

// Last returns the last interval; false when the series is empty.
func (s Series) Last() (Interval, bool) {
	if s.n == 0 {
		return Interval{}, false
	}
	r := &s.runs[len(s.runs)-1]
	return r.nth(r.count - 1), true
}

// Append adds iv at the end of the series.
func (s *Series) Append(iv Interval) { s.AppendRun(iv, 1) }

// AppendRun adds count intervals alike but for their times at the end of
// the series: iv, then each next one starting where the one before ends
// and as long. A count below 1 adds nothing.
func (s *Series) AppendRun(iv Interval, count int) {
	if count < 1 {
		return
	}
	if k := len(s.runs) - 1; k >= 0 && s.runs[k].continues(iv) {
		s.runs[k].count += count
	} else {
		s.runs = append(s.runs, seriesRun{first: iv, count: count, at: s.n})
	}
	s.n += count
}

// continues reports whether iv is the next interval of the run: alike
// but for its times, as long, starting where the run ends.
func (r *seriesRun) continues(iv Interval) bool {
	l := r.first.EndNs - r.first.StartNs
	if iv.EndNs-iv.StartNs != l || iv.StartNs != r.first.StartNs+int64(r.count)*l {
		return false
	}
	a := r.first
	a.StartNs, a.EndNs = iv.StartNs, iv.EndNs
	return a == iv
}

// Shifted returns a copy of the series with every interval moved by d.
func (s Series) Shifted(d int64) Series {
	out := Series{runs: make([]seriesRun, len(s.runs)), n: s.n}
	for i, r := range s.runs {
		r.first.StartNs += d
		r.first.EndNs += d
		out.runs[i] = r
	}
	return out
}

// Concat returns the series of s's intervals followed by t's.
func (s Series) Concat(t Series) Series {
	out := Series{runs: make([]seriesRun, 0, len(s.runs)+len(t.runs))}
	for _, x := range []Series{s, t} {
		for iv, n := range x.Runs() {
			out.AppendRun(iv, n)
		}
	}
	return out
}

// zip returns the series whose interval i is add(a's i-th, b's i-th),
// with b's intervals past a's end as they are. Runs of both stay runs:
// add sees each pair of runs' overlap once, so the result costs what the
// stored forms do.
func zip(a, b Series, add func(x *Interval, y Interval)) Series {
	var out Series
	i, j := 0, 0   // runs of a and b
	ki, kj := 0, 0 // intervals of the current runs taken
	for i < len(a.runs) || j < len(b.runs) {
		switch {
		case j == len(b.runs):
			r := &a.runs[i]
			out.AppendRun(r.nth(ki), r.count-ki)
			i, ki = i+1, 0
		case i == len(a.runs):
			r := &b.runs[j]
			out.AppendRun(r.nth(kj), r.count-kj)
			j, kj = j+1, 0
		default:
			ra, rb := &a.runs[i], &b.runs[j]
			n := min(ra.count-ki, rb.count-kj)
			x := ra.nth(ki)
			add(&x, rb.nth(kj))
			out.AppendRun(x, n)
			if ki += n; ki == ra.count {
				i, ki = i+1, 0
			}
			if kj += n; kj == rb.count {
				j, kj = j+1, 0
			}
		}
	}
	return out
}

// seriesWire is a Series as gob carries it: its runs, each its first
// interval and count.
type seriesWire struct {
	First []Interval
	Count []int
}

// GobEncode implements gob.GobEncoder: the stored form, so that a saved
// series costs what it does in memory.
func (s Series) GobEncode() ([]byte, error) {
	w := seriesWire{First: make([]Interval, len(s.runs)), Count: make([]int, len(s.runs))}
	for i, r := range s.runs {
		w.First[i], w.Count[i] = r.first, r.count
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(w)
	return b.Bytes(), err
}

// GobDecode implements gob.GobDecoder. It refuses a stored form no series
// has: counts below 1, or more intervals than an int counts.
func (s *Series) GobDecode(b []byte) error {
	var w seriesWire
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return err
	}
	if len(w.First) != len(w.Count) {
		return fmt.Errorf("sim: series: %d runs but %d counts", len(w.First), len(w.Count))
	}
	*s = Series{}
	for i, iv := range w.First {
		if c := w.Count[i]; c < 1 || s.n > math.MaxInt-c {
			return fmt.Errorf("sim: series: run %d counts %d intervals (allowed 1 to %d)", i, c, math.MaxInt-s.n)
		}
		s.AppendRun(iv, w.Count[i])
	}
	return nil
}
