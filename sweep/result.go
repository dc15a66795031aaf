package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/sim/fioreport"
)

// Result is one point's outcome: a line of the results file.
type Result struct {
	// Point is the point's number in the study.
	Point int `json:"point"`
	// Coords are the point's coordinates, in the study's axis order.
	Coords Coords `json:"coords"`
	// Seed is the point's random seed.
	Seed uint64 `json:"seed"`
	// Hash identifies the point's configuration (Point.Hash).
	Hash string `json:"hash"`
	// Study identifies the study file (Sweep.StudyHash).
	Study string `json:"study"`
	// Version is the ftlsim that ran the point.
	Version string `json:"version"`
	// Metrics are the summary figures (see Summarize), by name.
	Metrics map[string]float64 `json:"metrics"`
	// Output is the point's full fio-shaped JSON, relative to the output
	// directory.
	Output string `json:"output"`
}

// Coords are a point's coordinates; they are written as a JSON object in
// axis order.
type Coords []Coord

// MarshalJSON writes the coordinates as an object, in order.
func (cs Coords) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c.Axis)
		v, _ := json.Marshal(c.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the coordinates' object, keeping its order.
func (cs *Coords) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return errors.New("coords: not an object")
	}
	*cs = (*cs)[:0]
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("coords.%v: %w", k, err)
		}
		*cs = append(*cs, Coord{Axis: fmt.Sprint(k), Value: v})
	}
	_, err = dec.Token()
	return err
}

// Label is the coordinates as name=value pairs, space-separated.
func (cs Coords) Label() string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Axis + "=" + c.Value)
	}
	return b.String()
}

// Get returns the value of axis name, and whether the point has it.
func (cs Coords) Get(name string) (string, bool) {
	for _, c := range cs {
		if c.Axis == name {
			return c.Value, true
		}
	}
	return "", false
}

// Summarize reads a point's fio-shaped JSON report and returns its
// summary figures. For each job (a step of a scenario): iops, and for
// each direction it used, read_iops, read_mbps, read_lat_mean_us,
// read_lat_p99_us and their write_ namesakes; wa (write amplification),
// erases, power_w; effective_spare (the spare area left to garbage
// collection, in percent of the user capacity), held_spare (the percent
// of the spare the write points and the reserve hold) and spare_warning
// (1 when the drive was warned of holding more than a quarter); and, when the job logged a series of
// ten or more intervals, the performance-consistency summary over it
// (the steady state is the last 30 %, as the reviews' 1,400 s of 2,000):
// fresh_iops, cliff_s (-1: none), steady_iops (median), steady_p10,
// steady_p90, steady_mean, steady_max, steady_wa, zero_s and stall_s
// (the longest run of seconds with no I/O after the cliff). The steps of
// the sustained-write scenario give instead burst_mbps, fast_gb (written
// at full speed), after_mbps and average_mbps (analysis.SummarizeSustained). With one job
// the names are as given; with several, each is prefixed with the job's
// name and a slash.
func Summarize(report []byte) (map[string]float64, error) {
	var r fioReport
	if err := json.Unmarshal(report, &r); err != nil {
		return nil, fmt.Errorf("reading the point's JSON report: %w", err)
	}
	m := map[string]float64{}
	for _, j := range r.Jobs {
		prefix := ""
		if len(r.Jobs) > 1 {
			prefix = j.JobName + "/"
		}
		put := func(k string, v float64) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				m[prefix+k] = round6(v)
			}
		}
		put("iops", j.Read.IOPS+j.Write.IOPS+j.Trim.IOPS)
		for _, d := range []struct {
			name string
			d    fioDir
		}{{"read", j.Read}, {"write", j.Write}} {
			if d.d.IOPS == 0 {
				continue // a direction the job did not use
			}
			put(d.name+"_iops", d.d.IOPS)
			put(d.name+"_mbps", float64(d.d.BWBytes)/1e6)
			put(d.name+"_lat_mean_us", d.d.ClatNs.Mean/1e3)
			put(d.name+"_lat_p99_us", percentile(d.d.ClatNs.Percentile, 99)/1e3)
		}
		put("wa", j.Device.WriteAmplification)
		if g := j.Geometry; g != nil && g.EffectiveOPPercent != nil {
			put("effective_spare", *g.EffectiveOPPercent)
			put("held_spare", g.HeldSparePercent)
			warned := 0.0
			if len(g.Warnings) > 0 {
				warned = 1
			}
			put("spare_warning", warned)
		}
		put("erases", float64(j.Device.Erases))
		put("power_w", j.Power.AverageW)
		if st := j.JobOptions["step"]; (st == "sustained" || st == "after-idle") && len(j.Series.MBps) == len(j.Series.TimeMs) {
			// A sustained write: its rate per GB written.
			ivs := make([]sim.Interval, len(j.Series.MBps))
			start := int64(0)
			for i := range ivs {
				end := j.Series.TimeMs[i] * 1e6
				ivs[i] = sim.Interval{StartNs: start, EndNs: end, WriteBytes: int64(j.Series.MBps[i] * float64(end-start) / 1e3)}
				start = end
			}
			ss := analysis.SummarizeSustained(ivs)
			put("burst_mbps", ss.BurstMBps)
			put("fast_gb", float64(ss.FastBytes)/1e9)
			put("after_mbps", ss.AfterMBps)
			put("average_mbps", ss.AverageMBps)
		} else if s := j.Series; len(s.IOPS) >= 10 && len(s.TimeMs) == len(s.IOPS) {
			ivs := make([]sim.Interval, len(s.IOPS))
			start := int64(0)
			for i := range ivs {
				end := s.TimeMs[i] * 1e6
				ivs[i] = sim.Interval{StartNs: start, EndNs: end, IOPS: s.IOPS[i]}
				if i < len(s.WriteAmplification) {
					ivs[i].WriteAmplification = s.WriteAmplification[i]
				}
				start = end
			}
			last := ivs[len(ivs)-1].EndNs
			c := analysis.SummarizeConsistency(ivs, last*7/10)
			put("fresh_iops", c.FreshIOPS)
			cliff := -1.0
			if c.CliffNs >= 0 {
				cliff = float64(c.CliffNs) / 1e9
			}
			put("cliff_s", cliff)
			put("steady_iops", c.SteadyMedian)
			put("steady_p10", c.SteadyP10)
			put("steady_p90", c.SteadyP90)
			put("steady_mean", c.SteadyMean)
			put("steady_max", c.SteadyMax)
			put("steady_wa", c.SteadyWA)
			put("zero_s", float64(c.ZeroSeconds))
			put("stall_s", float64(c.LongestStall))
		}
	}
	return m, nil
}

// fioReport is the part of a fio-shaped JSON report (fioreport.Report)
// Summarize reads.
type fioReport struct {
	Jobs []struct {
		JobName    string            `json:"jobname"`
		JobOptions map[string]string `json:"job options"`
		Read       fioDir            `json:"read"`
		Write      fioDir            `json:"write"`
		Trim       fioDir            `json:"trim"`
		Device     struct {
			WriteAmplification float64 `json:"write_amplification"`
			Erases             int64   `json:"erases"`
		} `json:"device"`
		Power struct {
			AverageW float64 `json:"average_w"`
		} `json:"power"`
		Geometry *struct {
			EffectiveOPPercent *float64 `json:"effective_op_percent"`
			HeldSparePercent   float64  `json:"held_spare_percent"`
			Warnings           []string `json:"warnings"`
		} `json:"geometry"`
		Series fioreport.Series `json:"series"`
	} `json:"jobs"`
}

type fioDir struct {
	BWBytes int64   `json:"bw_bytes"`
	IOPS    float64 `json:"iops"`
	ClatNs  struct {
		Mean       float64          `json:"mean"`
		Percentile map[string]int64 `json:"percentile"`
	} `json:"clat_ns"`
}

// percentile returns fio's percentile p from its "99.000000"-keyed map
// (0 when absent).
func percentile(ps map[string]int64, p float64) float64 {
	if v, ok := ps[strconv.FormatFloat(p, 'f', 6, 64)]; ok {
		return float64(v)
	}
	return 0
}

// round6 keeps six significant digits, so that tables read the same on
// every machine.
func round6(v float64) float64 {
	if v == 0 {
		return 0
	}
	s := strconv.FormatFloat(v, 'g', 6, 64)
	r, _ := strconv.ParseFloat(s, 64)
	return r
}

// ReadResults reads a results file (JSON lines). A last line cut short
// (a run killed while writing it) is ignored; any other bad line is an
// error naming the file and line.
func ReadResults(file string) ([]Result, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readResults(file, f)
}

func readResults(name string, r io.Reader) ([]Result, error) {
	br := bufio.NewReader(r)
	var out []Result
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err == io.EOF {
			return out, nil
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		complete := err == nil
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var res Result
		if jerr := json.Unmarshal(b, &res); jerr != nil {
			if !complete {
				return out, nil // cut short by a kill: the point runs again
			}
			return nil, fmt.Errorf("%s:%d: %w: not a result line: %v", name, line, ErrStudy, jerr)
		}
		out = append(out, res)
		if !complete {
			return out, nil
		}
	}
}

// appendResult adds one line to the results file f with one write, and
// syncs it: a line is in the file whole, or (killed mid-write) cut short
// and ignored.
func appendResult(f *os.File, r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// Table is a study's results, one per point, sorted by point.
type Table struct {
	Axes    []string // the coordinates' names, in study order
	Metrics []string // every metric any result has, sorted
	Results []Result
}

// NewTable sorts results by point and collects the metric names; two
// results for one point must agree (the same hash), and one is kept.
func NewTable(axes []string, results []Result) (*Table, error) {
	byPoint := map[int]Result{}
	for _, r := range results {
		if o, ok := byPoint[r.Point]; ok && o.Hash != r.Hash {
			return nil, fmt.Errorf("%w: point %d has two results of different configurations (hashes %s and %s)", ErrStudy, r.Point, o.Hash, r.Hash)
		}
		byPoint[r.Point] = r
	}
	t := &Table{Axes: axes}
	names := map[string]bool{}
	for _, r := range byPoint {
		t.Results = append(t.Results, r)
		for k := range r.Metrics {
			names[k] = true
		}
	}
	sort.Slice(t.Results, func(i, j int) bool { return t.Results[i].Point < t.Results[j].Point })
	for k := range names {
		t.Metrics = append(t.Metrics, k)
	}
	sort.Strings(t.Metrics)
	return t, nil
}

// WriteCSV writes the table: point, the coordinates, seed, the metrics,
// hash and output. A metric a point lacks is left empty.
func (t *Table) WriteCSV(w io.Writer) error {
	cols := append(append(append([]string{"point"}, t.Axes...), "seed"), t.Metrics...)
	cols = append(cols, "hash", "output")
	var b strings.Builder
	b.WriteString(csvLine(cols))
	for _, r := range t.Results {
		row := []string{strconv.Itoa(r.Point)}
		for _, a := range t.Axes {
			v, _ := r.Coords.Get(a)
			row = append(row, v)
		}
		row = append(row, strconv.FormatUint(r.Seed, 10))
		for _, m := range t.Metrics {
			if v, ok := r.Metrics[m]; ok {
				row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
			} else {
				row = append(row, "")
			}
		}
		row = append(row, r.Hash, r.Output)
		b.WriteString(csvLine(row))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func csvLine(fields []string) string {
	q := slices.Clone(fields)
	for i, f := range q {
		if strings.ContainsAny(f, ",\"\n") {
			q[i] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		}
	}
	return strings.Join(q, ",") + "\n"
}

// WriteJSONLines writes the table's results, one JSON line each.
func (t *Table) WriteJSONLines(w io.Writer) error {
	var b bytes.Buffer
	for _, r := range t.Results {
		j, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}
