package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/workload"
)

// ErrStudy marks an invalid study file or sweep option; errors wrapping
// it name the file, line and field.
var ErrStudy = errors.New("sweep")

// MaxPoints bounds the points of one study.
const MaxPoints = 1_000_000

// Sweep is a study: a base drive, the options every point shares, the
// axes whose cross product (with zipped axes advancing together) gives
// the points, and repetitions.
type Sweep struct {
	// Name names the study (default: the file's base name).
	Name string
	// Drive is the base drive: a preset name or a description file
	// (relative paths are taken from Dir).
	Drive string
	// Scenario, when set, runs this review scenario at every point;
	// otherwise every point is a job (ftlsim --rw=…).
	Scenario string
	// Options are set at every point, in this order: command and job
	// options (capacity, op, gc, precondition, rw, bs, iodepth, …),
	// scenario parameters and drive-description fields, as for Axes.
	Options []Setting
	// Axes are varied; the first varies slowest.
	Axes []Axis
	// Zip lists groups of axes that advance together (each group's axes
	// have as many values); the group takes the place of its first axis.
	Zip [][]string
	// Repeat runs each point this many times with different seeds
	// (default 1); the repetition is the fastest-varying coordinate,
	// "rep".
	Repeat int
	// Seed is the study's seed, from which every point's is derived.
	Seed uint64
	// Shards is the number of shards a Kubernetes Indexed Job splits the
	// study into (JOB_COMPLETION_INDEX gives the index; the count is
	// not in the environment). 0: not given.
	Shards int
	// NoFork turns off drive snapshots for points that share a drive
	// and its preconditioning.
	NoFork bool
	// Dir is the directory of the study file.
	Dir string
	// Source is the study file's text; its hash identifies the study in
	// results.
	Source []byte
}

// Setting is one key and its value, as written in the study file.
type Setting struct {
	Key, Value string
	Line       int // line in the study file (0: not from a file)
}

// Axis is one varied key and its values, in order.
type Axis struct {
	Name   string
	Values []string
	Line   int
}

// studyFile is the YAML form of a Sweep.
type studyFile struct {
	Name     string     `yaml:"name"`
	Drive    string     `yaml:"drive"`
	Scenario string     `yaml:"scenario"`
	Options  yaml.Node  `yaml:"options"`
	Axes     yaml.Node  `yaml:"axes"`
	Zip      [][]string `yaml:"zip"`
	Repeat   int        `yaml:"repeat"`
	Seed     uint64     `yaml:"seed"`
	Shards   int        `yaml:"shards"`
	Fork     *bool      `yaml:"fork"`
}

// Load reads a study file.
func Load(file string) (*Sweep, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStudy, err)
	}
	return Parse(file, b)
}

// Parse decodes a study file; name is used in errors and, with its
// directory, to find a relative drive file. Unknown fields are errors.
func Parse(name string, b []byte) (*Sweep, error) {
	var f studyFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", name, ErrStudy, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	s := &Sweep{Name: f.Name, Drive: f.Drive, Scenario: f.Scenario, Zip: f.Zip, Repeat: f.Repeat, Seed: f.Seed,
		Shards: f.Shards, Dir: filepath.Dir(name), Source: slices.Clone(b)}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	s.NoFork = f.Fork != nil && !*f.Fork
	errAt := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %w: %s", name, line, ErrStudy, fmt.Sprintf(format, a...))
	}
	if f.Options.Kind != 0 {
		if f.Options.Kind != yaml.MappingNode {
			return nil, errAt(f.Options.Line, "options: must be a mapping of option names to values")
		}
		for i := 0; i+1 < len(f.Options.Content); i += 2 {
			k, v := f.Options.Content[i], f.Options.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				return nil, errAt(v.Line, "options.%s: must be one value (vary it under axes)", k.Value)
			}
			s.Options = append(s.Options, Setting{Key: k.Value, Value: v.Value, Line: k.Line})
		}
	}
	if f.Axes.Kind != 0 {
		if f.Axes.Kind != yaml.MappingNode {
			return nil, errAt(f.Axes.Line, "axes: must be a mapping of names to lists of values or ranges")
		}
		for i := 0; i+1 < len(f.Axes.Content); i += 2 {
			k, v := f.Axes.Content[i], f.Axes.Content[i+1]
			vals, err := axisValues(v)
			if err != nil {
				return nil, errAt(v.Line, "axes.%s: %v", k.Value, err)
			}
			s.Axes = append(s.Axes, Axis{Name: k.Value, Values: vals, Line: k.Line})
		}
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// axisValues reads an axis: a list of scalars, one scalar, or a range
// {from, to, step} (arithmetic) or {from, to, times} (geometric).
func axisValues(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		var vs []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: each value must be a scalar", c.Line)
			}
			vs = append(vs, c.Value)
		}
		if len(vs) == 0 {
			return nil, errors.New("no values; allowed a list of one or more values")
		}
		return vs, nil
	case yaml.MappingNode:
		var r struct {
			From  *float64 `yaml:"from"`
			To    *float64 `yaml:"to"`
			Step  float64  `yaml:"step"`
			Times float64  `yaml:"times"`
		}
		if err := n.Decode(&r); err != nil {
			return nil, err
		}
		return expandRange(r.From, r.To, r.Step, r.Times)
	}
	return nil, errors.New("allowed a list of values or a range {from, to, step} or {from, to, times}")
}

func expandRange(from, to *float64, step, times float64) ([]string, error) {
	if from == nil || to == nil {
		return nil, errors.New("a range needs from and to")
	}
	lo, hi := *from, *to
	var vs []string
	add := func(x float64) error {
		if len(vs) >= MaxPoints {
			return fmt.Errorf("more than %d values", MaxPoints)
		}
		vs = append(vs, formatNumber(x))
		return nil
	}
	switch {
	case step != 0 && times != 0:
		return nil, errors.New("give step (arithmetic) or times (geometric), not both")
	case step > 0 && hi >= lo:
		n := int(math.Floor((hi-lo)/step + 1e-9))
		if n >= MaxPoints {
			return nil, fmt.Errorf("more than %d values", MaxPoints)
		}
		for i := 0; i <= n; i++ {
			if err := add(lo + float64(i)*step); err != nil {
				return nil, err
			}
		}
	case times > 1 && lo > 0 && hi >= lo:
		for x := lo; x <= hi*(1+1e-9); x *= times {
			if err := add(x); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("from %g to %g: allowed step > 0 or times > 1 (with from > 0), and to ≥ from", lo, hi)
	}
	return vs, nil
}

// formatNumber writes x as an integer when it is one, else in the
// shortest form that reads back the same.
func formatNumber(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Validate checks the study: a drive, known scenario, axes with values
// and unique names, zip groups of equal length, and at most MaxPoints
// points. Keys are checked against the command when the points are
// built (Points).
func (s *Sweep) Validate() error {
	bad := func(format string, a ...any) error { return fmt.Errorf("%w: %s", ErrStudy, fmt.Sprintf(format, a...)) }
	if s.Drive == "" {
		return bad("drive: missing; allowed a preset name (ftlsim drives) or a description file")
	}
	if s.Scenario != "" {
		if _, err := workload.ScenarioByName(s.Scenario); err != nil {
			return bad("scenario: %v", err)
		}
	}
	if s.Repeat < 0 || s.Repeat > 10000 {
		return bad("repeat = %d: allowed 1..10000 (0: once)", s.Repeat)
	}
	if s.Shards < 0 || s.Shards > 100000 {
		return bad("shards = %d: allowed 1..100000 (0: not given)", s.Shards)
	}
	seen := map[string]bool{}
	for _, a := range s.Axes {
		if seen[a.Name] {
			return bad("axes.%s: given twice", a.Name)
		}
		if a.Name == "rep" {
			return bad("axes.rep: reserved for repetitions (repeat: N)")
		}
		seen[a.Name] = true
		if len(a.Values) == 0 {
			return bad("axes.%s: no values", a.Name)
		}
	}
	zipped := map[string]bool{}
	for i, g := range s.Zip {
		if len(g) < 2 {
			return bad("zip[%d]: a group needs two or more axes", i)
		}
		for _, n := range g {
			a, ok := s.axis(n)
			switch {
			case !ok:
				return bad("zip[%d]: %q is not an axis", i, n)
			case zipped[n]:
				return bad("zip[%d]: axis %q is in two groups", i, n)
			case len(a.Values) != len(s.mustAxis(g[0]).Values):
				return bad("zip[%d]: axis %s has %d values, %s has %d; zipped axes advance together and need as many", i,
					n, len(a.Values), g[0], len(s.mustAxis(g[0]).Values))
			}
			zipped[n] = true
		}
	}
	n := max(s.Repeat, 1)
	for _, d := range s.dims() {
		if n *= len(d.values); n > MaxPoints {
			return bad("more than %d points", MaxPoints)
		}
	}
	return nil
}

func (s *Sweep) axis(name string) (Axis, bool) {
	for _, a := range s.Axes {
		if a.Name == name {
			return a, true
		}
	}
	return Axis{}, false
}

func (s *Sweep) mustAxis(name string) Axis { a, _ := s.axis(name); return a }

// dim is one dimension of the grid: an axis, or a zipped group of axes.
type dim struct {
	axes   []string
	values [][]string // values[i][j]: axis j's value at step i
}

// dims returns the grid's dimensions, slowest first: each zipped group
// stands where its first axis is.
func (s *Sweep) dims() []dim {
	group := map[string][]string{}
	inGroup := map[string]bool{}
	for _, g := range s.Zip {
		group[g[0]] = g
		for _, n := range g {
			inGroup[n] = true
		}
	}
	var ds []dim
	for _, a := range s.Axes {
		names := []string{a.Name}
		if g, ok := group[a.Name]; ok {
			names = g
		} else if inGroup[a.Name] {
			continue
		}
		d := dim{axes: names}
		for i := range a.Values {
			row := make([]string, len(names))
			for j, n := range names {
				if ax, ok := s.axis(n); ok && i < len(ax.Values) {
					row[j] = ax.Values[i]
				}
			}
			d.values = append(d.values, row)
		}
		ds = append(ds, d)
	}
	return ds
}

// AxisNames returns the coordinates' names in the order points report
// them: the axes (zipped ones in their group's place), then "rep" when
// the study repeats.
func (s *Sweep) AxisNames() []string {
	var ns []string
	for _, d := range s.dims() {
		ns = append(ns, d.axes...)
	}
	if s.Repeat > 1 {
		ns = append(ns, "rep")
	}
	return ns
}

// NumPoints is the number of points of the study.
func (s *Sweep) NumPoints() int {
	n := max(s.Repeat, 1)
	for _, d := range s.dims() {
		n *= len(d.values)
	}
	return n
}
