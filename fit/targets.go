package fit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/controller"

	"github.com/ftlsim/ftlsim/workload"
)

// Target is one measured figure the fitted drive is held to.
type Target struct {
	// Procedure is the key of the procedure that measures it.
	Procedure string
	// Figure names the figure among the procedure's.
	Figure string
	// Value is the measured value; Lo and Hi, when Hi > Lo, the range a
	// figure is accepted in (a review's "2,500-5,000 IOPS"): inside it
	// the error is 0.
	Value, Lo, Hi float64
	// Weight scales the target's share of the objective (default 1).
	Weight float64
	// Source is where the target was read ("file:line").
	Source string
	// What is a description of the figure, for the fitted drive's
	// comments.
	What string
}

// Name is the target's procedure and figure.
func (t Target) Name() string { return t.Procedure + ": " + t.Figure }

// Error is the figure's relative error against the target: (got -
// value) / |value|, or, for a range, the distance outside it over the
// value.
func (t Target) Error(got float64) float64 {
	scale := math.Abs(t.Value)
	if scale == 0 {
		scale = math.Max(t.Hi-t.Lo, 1)
	}
	if t.Hi > t.Lo {
		switch {
		case got < t.Lo:
			return (got - t.Lo) / scale
		case got > t.Hi:
			return (got - t.Hi) / scale
		}
		return 0
	}
	return (got - t.Value) / scale
}

// Targets is a set of targets and the procedures that measure them.
type Targets struct {
	List       []Target
	Procedures map[string]Procedure
	// Params are parameters the targets file names (with bounds);
	// Drive the base drive it names ("" when it names none), Without the
	// fields it takes out of that drive (set to their defaults: the start
	// of a fit that must find them), Capacity the user capacity it
	// resizes the drive to (0: the drive's), keeping its spare share.
	Params   []string
	Drive    string
	Without  []string
	Capacity controller.Size
	// OnlyParams is set when the file says default_params: false: only
	// Params are fitted.
	OnlyParams bool
}

// Start returns the drive a fit of these targets starts from: cfg (a
// resolved description) without the fields of Without, resized to
// Capacity.
func (ts *Targets) Start(cfg controller.Config) (controller.Config, error) {
	for _, path := range ts.Without {
		f, ok := table.Lookup(path)
		if !ok || f.Section {
			return cfg, fmt.Errorf("without: %q: no such field of a drive description", path)
		}
		v := f.Value(reflect.ValueOf(&cfg).Elem())
		v.Set(reflect.Zero(v.Type()))
	}
	if ts.Capacity > 0 {
		r, err := cfg.Resolve()
		if err != nil {
			return cfg, err
		}
		cfg = r.Config.Resized(ts.Capacity, r.SparePercent)
	}
	r, err := cfg.Resolve()
	return r.Config, err
}

func (ts *Targets) add(p Procedure) {
	if ts.Procedures == nil {
		ts.Procedures = map[string]Procedure{}
	}
	ts.Procedures[p.Key()] = p
}

// LoadFio reads the measurement kit's outputs in dir: each fio JSON
// report (and those in the folders one level down), the job file it was
// made with (NAME.fio beside it or in the folder above), and the logs it
// names (NAME_iops.N.log, NAME_bw.N.log, fio's names). Every timed job
// gives a target (MB/s of a sequential pattern, IOPS of a random one),
// every log the figures of its series (see logFigures). Each file is read
// as fio writes it.
func LoadFio(dir string) (*Targets, error) {
	files, err := reports(dir)
	if err != nil {
		return nil, err
	}
	ts := &Targets{}
	for _, file := range files {
		if err := ts.loadReport(dir, file); err != nil {
			return nil, err
		}
	}
	if len(ts.List) == 0 {
		return nil, fmt.Errorf("%s: the reports hold no timed job and no log: nothing to fit", dir)
	}
	return ts, nil
}

func (ts *Targets) loadReport(dir, file string) error {
	r, err := readReport(file)
	if err != nil {
		return err
	}
	jobFileName, err := findJobFile(file, r)
	if err != nil {
		return err
	}
	text, err := os.ReadFile(jobFileName)
	if err != nil {
		return err
	}
	env, err := variables(jobFileName, text, r)
	if err != nil {
		return err
	}
	key, _ := filepath.Rel(dir, file)
	p := &jobFile{key: filepath.ToSlash(key), file: jobFileName, text: text, env: env}
	jf, err := p.parse()
	if err != nil {
		return fmt.Errorf("%s (with the variables of %s): %w", jobFileName, file, err)
	}
	sections := map[string]workload.FileJob{}
	index := map[string]int{}
	for i, j := range jf.Jobs {
		sections[j.Section], index[j.Section] = j, i+1
	}
	ts.add(p)
	logs := logOptions(text, env)
	for _, j := range r.Jobs {
		fj, ok := sections[j.Name]
		if !ok {
			return fmt.Errorf("%s: job %q is not a section of %s", file, j.Name, jobFileName)
		}
		if j.Error != 0 {
			continue // fio could not run it (the null engine's TRIM): no figure
		}
		src := fmt.Sprintf("%s: [%s]", file, j.Name)
		figs := jobFigures(j, r)
		for _, name := range sortedKeys(figs) {
			ts.List = append(ts.List, Target{Procedure: p.key, Figure: name, Value: figs[name], Weight: 1, Source: src})
		}
		lo := logs[j.Name]
		for _, kind := range logKinds(lo) {
			prefix := lo[map[string]string{"iops": "write_iops_log", "bw": "write_bw_log"}[kind]]
			logFile := filepath.Join(filepath.Dir(file), fmt.Sprintf("%s_%s.%d.log", prefix, kind, index[j.Name]))
			avg, _ := strconv.ParseInt(lo["log_avg_msec"], 10, 64)
			if avg <= 0 {
				return fmt.Errorf("%s: [%s] logs each I/O (log_avg_msec unset); the kit's jobs average each second (log_avg_msec=1000)", file, j.Name)
			}
			samples, err := readLog(logFile, logDir(fj.Job), avg)
			if err != nil {
				return err
			}
			runNs := samples[len(samples)-1].ms * 1e6
			lf := logFigures(j.Name, kind, seriesOf(kind, samples), runNs)
			for _, name := range sortedKeys(lf) {
				ts.List = append(ts.List, Target{Procedure: p.key, Figure: name, Value: lf[name], Weight: 1, Source: logFile})
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// figuresFile is a targets file: a base drive, parameters and figures.
type figuresFile struct {
	Drive    string   `yaml:"drive"`
	Without  []string `yaml:"without"`
	Capacity string   `yaml:"capacity"`
	Params   []string `yaml:"params"`
	// DefaultParams false fits only Params.
	DefaultParams *bool         `yaml:"default_params"`
	Targets       []figureEntry `yaml:"targets"`
}

type figureEntry struct {
	Procedure string            `yaml:"procedure"`
	Options   map[string]string `yaml:"options"`
	Figure    string            `yaml:"figure"`
	Value     *float64          `yaml:"value"`
	Range     []float64         `yaml:"range"`
	Weight    *float64          `yaml:"weight"`
	What      string            `yaml:"what"`
}

// LoadFigures reads a targets file of figures (YAML): an optional base
// drive, optional parameters ("firmware.gc_restore_to=2..12"), and
// targets, each a procedure (one of ftlsim's scenarios, with its
// options), the figure extracted from its result, the measured value (or
// an accepted range, or both), a weight and a description. Every entry
// is checked: an unknown scenario or option, a figure the procedure does
// not measure (checked when the fit first runs it), a value missing, a
// range that is not [lo, hi] with lo < hi, a weight that is not positive
// — each refused naming the file, line and entry.
func LoadFigures(file string) (*Targets, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var ff figuresFile
	dec := func() error {
		d := yaml.NewDecoder(strings.NewReader(string(b)))
		d.KnownFields(true)
		return d.Decode(&ff)
	}
	if err := dec(); err != nil {
		return nil, yamlError(file, err)
	}
	lines := entryLines(&doc)
	ts := &Targets{Drive: ff.Drive, Params: ff.Params, Without: ff.Without,
		OnlyParams: ff.DefaultParams != nil && !*ff.DefaultParams}
	for _, path := range ff.Without {
		if f, ok := table.Lookup(path); !ok || f.Section {
			return nil, fmt.Errorf("%s: without: %q: no such field of a drive description (see docs/drive-fields.md)", file, path)
		}
	}
	if ff.Capacity != "" {
		if err := ts.Capacity.UnmarshalText([]byte(ff.Capacity)); err != nil || ts.Capacity <= 0 {
			return nil, fmt.Errorf("%s: capacity = %q: allowed a size such as 16GiB", file, ff.Capacity)
		}
	}
	for i, e := range ff.Targets {
		at := fmt.Sprintf("%s:%d: targets[%d]", file, lines[i], i)
		t, p, err := e.target()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		t.Source = fmt.Sprintf("%s:%d", file, lines[i])
		ts.add(p)
		ts.List = append(ts.List, t)
	}
	if len(ts.List) == 0 {
		return nil, fmt.Errorf("%s: no targets", file)
	}
	for _, t := range ts.List {
		if sc, ok := ts.Procedures[t.Procedure].(*scenario); ok {
			sc.need = append(sc.need, t.Figure) // what it must measure: see runsTo
		}
	}
	return ts, nil
}

func (e figureEntry) target() (Target, Procedure, error) {
	if e.Procedure == "" {
		return Target{}, nil, errors.New("procedure: missing; allowed one of ftlsim's scenarios (ftlsim scenario --list)")
	}
	sc, err := workload.ScenarioByName(e.Procedure)
	if err != nil {
		return Target{}, nil, fmt.Errorf("procedure: %w", err)
	}
	if _, err := sc.Steps(e.Options); err != nil {
		return Target{}, nil, fmt.Errorf("options: %w", err)
	}
	if e.Figure == "" {
		return Target{}, nil, errors.New("figure: missing (e.g. \"consistency: steady median\")")
	}
	t := Target{Figure: e.Figure, Weight: 1, What: e.What}
	if e.Weight != nil {
		if !(*e.Weight > 0) || math.IsInf(*e.Weight, 0) {
			return t, nil, fmt.Errorf("weight = %v, allowed > 0", *e.Weight)
		}
		t.Weight = *e.Weight
	}
	switch len(e.Range) {
	case 0:
	case 2:
		if !(e.Range[0] < e.Range[1]) {
			return t, nil, fmt.Errorf("range = %v, allowed [lo, hi] with lo < hi", e.Range)
		}
		t.Lo, t.Hi = e.Range[0], e.Range[1]
	default:
		return t, nil, fmt.Errorf("range = %v, allowed [lo, hi]", e.Range)
	}
	switch {
	case e.Value != nil:
		t.Value = *e.Value
	case t.Hi > t.Lo && !math.IsInf(t.Hi, 0):
		t.Value = (t.Lo + t.Hi) / 2
	case t.Hi > t.Lo:
		t.Value = t.Lo
	default:
		return t, nil, errors.New("value: missing; give the measured value, a range [lo, hi], or both")
	}
	p := &scenario{name: e.Procedure, over: e.Options}
	if p.over == nil {
		p.over = map[string]string{}
	}
	t.Procedure = p.Key()
	return t, p, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// yamlError puts a YAML decoding error on one line per problem, each
// "file:line: what", joined by "; ".
func yamlError(file string, err error) error {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if m := yamlLine.FindStringSubmatch(l); m != nil {
			msg := strings.Replace(m[2], " in type fit.figureEntry", " (allowed: procedure, options, figure, value, range, weight, what)", 1)
			msg = strings.Replace(msg, " in type fit.figuresFile", " (allowed: drive, without, capacity, params, default_params, targets)", 1)
			parts = append(parts, fmt.Sprintf("%s:%s: %s", file, m[1], msg))
		}
	}
	if len(parts) == 0 {
		return fmt.Errorf("%s: %s", file, strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "yaml: ")), " "))
	}
	return errors.New(strings.Join(parts, "; "))
}

// entryLines returns the line of each entry of the document's targets.
func entryLines(doc *yaml.Node) []int {
	var out []int
	if len(doc.Content) == 0 {
		return out
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "targets" {
			for _, e := range m.Content[i+1].Content {
				out = append(out, e.Line)
			}
		}
	}
	return out
}

// checkDrive checks that every procedure runs on cfg's drive and
// measures its targets' figures, running each once on the base drive;
// it returns the base drive's figures (the model's prediction before the
// fit).
func checkFigures(ts *Targets, figs map[string]map[string]float64) error {
	for _, t := range ts.List {
		f, ok := figs[t.Procedure]
		if !ok {
			return fmt.Errorf("%s: %s: the procedure did not run", t.Source, t.Procedure)
		}
		if _, ok := f[t.Figure]; !ok {
			return fmt.Errorf("%s: figure %q: not a figure of %s; allowed: %s", t.Source, t.Figure, t.Procedure, strings.Join(sortedKeys(f), ", "))
		}
	}
	return nil
}
