package fioreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/ftlsim/ftlsim/sim"
)

// fio's steadystate block, from what steady-state detection found.

// SteadyState is fio's steadystate block: the criterion as fio writes
// it ("iops_slope:0.100000%"), the window in seconds, whether it was
// attained, the criterion's figure, and the window's samples (bw in KiB/s,
// as fio's).
type SteadyState struct {
	SS           string     `json:"ss"`
	Duration     int64      `json:"duration"`
	Attained     int        `json:"attained"`
	Criterion    string     `json:"criterion"`
	MaxDeviation float64    `json:"max_deviation"`
	Slope        float64    `json:"slope"`
	Data         SteadyData `json:"data"`
}

// SteadyData is the window's samples and means.
type SteadyData struct {
	BWMean   int64   `json:"bw_mean"`
	IOPSMean int64   `json:"iops_mean"`
	LatMean  *int64  `json:"lat_mean,omitempty"`
	LatNs    []int64 `json:"lat_ns,omitempty"`
	IOPS     []int64 `json:"iops"`
	BW       []int64 `json:"bw"`
}

// Steady writes what steady-state detection found as fio's
// steadystate block (nil for nil).
func Steady(s *sim.SteadyState) *SteadyState {
	if s == nil {
		return nil
	}
	pct := ""
	if s.Percent {
		pct = "%"
	}
	out := &SteadyState{
		SS: fmt.Sprintf("%s:%f%s", s.Criterion, s.Limit, pct), Duration: s.DurationNs / 1e9,
		MaxDeviation: s.MaxDeviation, Slope: s.Slope, Data: SteadyData{IOPS: []int64{}, BW: []int64{}},
	}
	if s.Attained {
		out.Attained = 1
	}
	// The criterion's figure: the slope or the deviation, as a share of
	// the mean when the limit is one.
	fig, mean := s.MaxDeviation, 0.0
	src := s.IOPS
	switch {
	case strings.HasPrefix(s.Criterion, "bw"):
		src = s.BW
	case strings.HasPrefix(s.Criterion, "lat"):
		src = s.Lat
	}
	for _, v := range src {
		mean += v
	}
	if len(src) > 0 {
		mean /= float64(len(src))
	}
	if strings.HasSuffix(s.Criterion, "_slope") {
		fig = math.Abs(s.Slope)
	}
	if s.Percent && mean > 0 {
		fig = 100 * fig / mean
	}
	out.Criterion = fmt.Sprintf("%f%s", fig, pct)
	var si, sb float64
	for i := range s.IOPS {
		out.Data.IOPS = append(out.Data.IOPS, int64(math.Round(s.IOPS[i])))
		out.Data.BW = append(out.Data.BW, int64(math.Round(s.BW[i]/1024)))
		si += s.IOPS[i]
		sb += s.BW[i] / 1024
	}
	if n := float64(len(s.IOPS)); n > 0 {
		out.Data.IOPSMean, out.Data.BWMean = int64(math.Round(si/n)), int64(math.Round(sb/n))
	}
	if strings.HasPrefix(s.Criterion, "lat") {
		// fio adds the latencies when the criterion is on them.
		var sl float64
		out.Data.LatNs = []int64{}
		for _, v := range s.Lat {
			out.Data.LatNs = append(out.Data.LatNs, int64(math.Round(v)))
			sl += v
		}
		m := int64(0)
		if len(s.Lat) > 0 {
			m = int64(math.Round(sl / float64(len(s.Lat))))
		}
		out.Data.LatMean = &m
	}
	return out
}
