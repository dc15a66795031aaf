package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/cmdline"
	"github.com/ftlsim/ftlsim/nand"
	"github.com/ftlsim/ftlsim/workload"
)

// Coord is a point's value on one axis.
type Coord struct {
	Axis, Value string
}

// Point is one run of a study: its number, coordinates and seed, and the
// ftlsim command line that runs it.
type Point struct {
	// Index numbers the point in the study's stable order, from 0.
	Index int
	// Coords are the point's values, in the order of Sweep.AxisNames.
	Coords []Coord
	// Rep is the repetition (0 when the study does not repeat).
	Rep int
	// Seed is the point's random seed (--randseed), derived from its
	// coordinates and the study's seed.
	Seed uint64
	// Args is the command line, without the program name; a drive
	// description the axes changed is named DriveFile, relative to the
	// output directory (Command resolves it).
	Args []string
	// Drive is the description, when the axes change drive fields: it is
	// written to DriveFile in the output directory.
	Drive     []byte
	DriveFile string
	// Hash identifies the point's configuration: its command line with
	// every file it reads replaced by the hash of its content.
	Hash string
	// Group is the drive-preparation group of a point forked from a
	// snapshot ("" when the point prepares its own drive): points of a
	// group share the drive, its preconditioning and every option that
	// changes them, and differ only in their workload.
	Group string
	// Prepare is the command line that fills the group's drive and
	// saves its snapshot (StateFile), when Group is set.
	Prepare   []string
	StateFile string

	driveID string // the hash of the drive description's content
}

// hash identifies the point's configuration: its command line with the
// drive description's content hash for its name.
func (p *Point) hash() string {
	id := []string{"ftlsim-sweep-point", "drive=" + p.driveID}
	for _, a := range append(slices.Clone(p.Args), p.Prepare...) {
		if !strings.HasPrefix(a, "--drive=") && !strings.HasPrefix(a, "--load_state=") && !strings.HasPrefix(a, "--save_state=") {
			id = append(id, a)
		}
	}
	return hashOf([]byte(strings.Join(id, "\x00")))[:16]
}

// Command returns the point's command line with its files in output
// directory dir.
func (p Point) Command(dir string) []string {
	return resolveFiles(p.Args, dir)
}

// PrepareCommand returns the command line that prepares the point's
// group snapshot in output directory dir (nil without a group).
func (p Point) PrepareCommand(dir string) []string {
	if p.Group == "" {
		return nil
	}
	return resolveFiles(p.Prepare, dir)
}

// fileOptions name the options whose value is a file in the output
// directory (relative names are resolved against it).
var fileOptions = []string{"--drive=drives/", "--load_state=states/", "--save_state=states/"}

func resolveFiles(args []string, dir string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		for _, f := range fileOptions {
			if strings.HasPrefix(a, f) {
				k, v, _ := strings.Cut(a, "=")
				out[i] = k + "=" + filepath.Join(dir, v)
			}
		}
	}
	return out
}

// Label is the point's coordinates as name=value pairs.
func (p Point) Label() string { return Coords(p.Coords).Label() }

// keyKind is what a study key sets.
type keyKind int

const (
	kindOption   keyKind = iota // a command or job option: --key=value
	kindParam                   // a scenario parameter
	kindDrive                   // a drive-description field (a YAML path)
	kindScenario                // the scenario itself
)

// commandOptions are the command's own options a study may set (besides
// fio's job options): the drive's sizing and firmware, faults and the
// preconditioning.
var commandOptions = cmdline.StudyOptions(cmdline.Job)

// scenarioOptions are the command options that also apply to scenarios.
var scenarioOptions = cmdline.StudyOptions(cmdline.Scenario)

// workloadOnly reports whether option key changes only what the host
// does, not the drive nor its preparation: points that differ only in
// such options fork from one snapshot of their drive.
func workloadOnly(key string) bool {
	return workload.IsWorkloadOnly(key) || cmdline.IsWorkloadOnly(key)
}

// classify says what key sets at a point running scenario sc ("" for a
// job): a drive field is one the table of description fields holds
// (controller.Fields).
func classify(key, sc string) (keyKind, string, error) {
	if key == "scenario" {
		return kindScenario, "", nil
	}
	if sc != "" {
		s, err := workload.ScenarioByName(sc)
		if err != nil {
			return 0, "", err
		}
		for _, p := range s.Params {
			if p.Name == key {
				return kindParam, key, nil
			}
		}
		if slices.Contains(scenarioOptions, key) {
			return kindOption, key, nil
		}
	} else if slices.Contains(workload.Options(), key) || slices.Contains(commandOptions, key) {
		return kindOption, key, nil
	}
	if p, ok := driveField(key); ok {
		return kindDrive, p, nil
	}
	if fs := controller.FieldsNamed(key); len(fs) > 1 {
		var paths []string
		for _, f := range fs {
			paths = append(paths, f.Path)
		}
		return 0, "", fmt.Errorf("%q names several drive fields (%s); give the path", key, strings.Join(paths, ", "))
	}
	what := "job option"
	if sc != "" {
		what = "parameter of scenario " + sc
	}
	return 0, "", fmt.Errorf("%q is neither a %s, a command option (%s) nor a field of the drive description (docs/drive-fields.md lists them; give a path such as %s)",
		key, what, strings.Join(commandOptions, ", "), geometryPath(func(g *nand.Geometry) any { return &g.Channels }))
}

// diesAxis is the sweep's name for the die count: not a field of the
// description, it sets the geometry's dies per target (see setPath).
const diesAxis = "dies"

// driveField returns the description field that key names: its path
// (with or without "drive." before it), or the name of a field no other
// field shares, or the die count.
func driveField(key string) (string, bool) {
	key = strings.TrimPrefix(key, "drive.")
	if f, ok := controller.LookupField(key); ok {
		return f.Path, true
	}
	dies := geometryPath(nil)
	if key == diesAxis || key == dies {
		return dies, true
	}
	if fs := controller.FieldsNamed(key); len(fs) == 1 {
		return fs[0].Path, true
	}
	return "", false
}

// geometryPath is the path of the geometry field at returns, or of the
// die-count axis under the geometry when at is nil
// ("nand.geometry.dies").
func geometryPath(at func(*nand.Geometry) any) string {
	var c controller.Config
	g := &c.NAND.Geometry
	if at == nil {
		return c.FieldPath(g) + "." + diesAxis
	}
	return c.FieldPath(at(g))
}

// checkDriveValue checks value against the range of the description
// field at path, before any point runs.
func checkDriveValue(path, value string) error {
	if path == geometryPath(nil) {
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return fmt.Errorf("%s = %s: allowed a whole number of dies, at least 1", path, value)
		}
		return nil
	}
	f, _ := controller.LookupField(path)
	return f.CheckText(value)
}

// baseDrive returns the study's base drive description as a YAML tree,
// and the name points use for it when no axis changes it (a preset's
// name, or the file's path).
func (s *Sweep) baseDrive() (*yaml.Node, string, []byte, error) {
	name := s.Drive
	cfg, err := controller.Preset(name)
	if err != nil {
		file := name
		if !filepath.IsAbs(file) {
			file = filepath.Join(s.Dir, file)
		}
		c, ferr := controller.LoadConfig(file)
		if ferr != nil {
			return nil, "", nil, fmt.Errorf("%w: drive: %w", ErrStudy, ferr)
		}
		cfg, name = c, file
	}
	b, err := cfg.Marshal()
	if err != nil {
		return nil, "", nil, fmt.Errorf("%w: drive %s: %w", ErrStudy, name, err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, "", nil, fmt.Errorf("%w: drive %s: %w", ErrStudy, name, err)
	}
	return &n, name, b, nil
}

// setPath sets the field at dotted path p of description tree doc to
// value, creating missing mappings on the way. The die-count axis sets
// the geometry's dies per target so that channels × targets per channel ×
// dies per target is the value.
func setPath(doc *yaml.Node, p, value string) error {
	if p == geometryPath(nil) {
		chPath := geometryPath(func(g *nand.Geometry) any { return &g.Channels })
		tpcPath := geometryPath(func(g *nand.Geometry) any { return &g.TargetsPerChannel })
		ch, _ := strconv.Atoi(scalar(lookupPath(doc, chPath)))
		tpc, _ := strconv.Atoi(scalar(lookupPath(doc, tpcPath)))
		n, err := strconv.Atoi(value)
		per := max(ch, 1) * max(tpc, 1)
		if err != nil || n < 1 || n%per != 0 {
			return fmt.Errorf("%s = %s: allowed a multiple of %s × %s = %d", p, value, chPath, tpcPath, per)
		}
		dpt := geometryPath(func(g *nand.Geometry) any { return &g.DiesPerTarget })
		if err := checkDriveValue(dpt, strconv.Itoa(n/per)); err != nil {
			return fmt.Errorf("%s = %s: %w", p, value, err)
		}
		return setPath(doc, dpt, strconv.Itoa(n/per))
	}
	n := doc
	if n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	parts := strings.Split(p, ".")
	for i, k := range parts {
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: %s is not a mapping", p, strings.Join(parts[:i], "."))
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == k {
				next = n.Content[j+1]
			}
		}
		last := i == len(parts)-1
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode}
			if last {
				next = &yaml.Node{Kind: yaml.ScalarNode}
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, next)
		}
		if last {
			if next.Kind != yaml.ScalarNode {
				return fmt.Errorf("%s: is a section, not a field; set one of its fields", p)
			}
			next.Value, next.Tag, next.Style = value, "", 0
			return nil
		}
		n = next
	}
	return nil
}

func lookupPath(n *yaml.Node, p string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range strings.Split(p, ".") {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == k {
				next = n.Content[j+1]
			}
		}
		n = next
	}
	return n
}

func scalar(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	return n.Value
}

// seedOf derives a seed in 1..2³²-1 from the study's seed and the
// strings parts.
func seedOf(study uint64, parts ...string) uint64 {
	h := sha256.New()
	fmt.Fprintf(h, "ftlsim-sweep\x00%d", study)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	v := binary.LittleEndian.Uint64(h.Sum(nil))
	return v%(1<<32-1) + 1
}

func hashOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// StudyHash identifies the study file: results of different study files
// do not merge.
func (s *Sweep) StudyHash() string { return hashOf(s.Source)[:16] }

// Points returns the study's points in their stable order. Every key is
// checked here: an unknown key, a drive field the description does not
// have, or a drive description that no longer parses is an error naming
// the key and the point.
func (s *Sweep) Points() ([]Point, error) {
	base, baseName, baseSrc, err := s.baseDrive()
	if err != nil {
		return nil, err
	}
	dims := s.dims()
	reps := max(s.Repeat, 1)
	total := s.NumPoints()
	points := make([]Point, 0, total)
	idx := make([]int, len(dims))
	for i := 0; i < total; i++ {
		// Row-major over the dimensions, repetitions fastest.
		rep := i % reps
		rest := i / reps
		for d := len(dims) - 1; d >= 0; d-- {
			idx[d] = rest % len(dims[d].values)
			rest /= len(dims[d].values)
		}
		var coords []Coord
		for d, dm := range dims {
			for j, a := range dm.axes {
				coords = append(coords, Coord{Axis: a, Value: dm.values[idx[d]][j]})
			}
		}
		if s.Repeat > 1 {
			coords = append(coords, Coord{Axis: "rep", Value: strconv.Itoa(rep)})
		}
		p, err := s.point(i, coords, rep, base, baseName, baseSrc)
		if err != nil {
			return nil, fmt.Errorf("%w: point %d (%s): %w", ErrStudy, i, Point{Coords: coords}.Label(), err)
		}
		points = append(points, p)
	}
	if !s.NoFork {
		count := map[string]int{}
		for _, p := range points {
			if p.Group != "" {
				count[p.Group]++
			}
		}
		for i := range points {
			if count[points[i].Group] < 2 {
				points[i].Group, points[i].Prepare, points[i].StateFile = "", nil, ""
			} else {
				points[i].Args = append(points[i].Args, "--load_state="+points[i].StateFile)
			}
		}
	} else {
		for i := range points {
			points[i].Group, points[i].Prepare, points[i].StateFile = "", nil, ""
		}
	}
	for i := range points {
		points[i].Hash = points[i].hash()
	}
	return points, nil
}

// point builds point i from its coordinates.
func (s *Sweep) point(i int, coords []Coord, rep int, base *yaml.Node, baseName string, baseSrc []byte) (Point, error) {
	settings := slices.Clone(s.Options)
	for _, c := range coords {
		if c.Axis == "rep" {
			continue
		}
		settings = append(settings, Setting{Key: c.Axis, Value: c.Value})
	}
	sc := s.Scenario
	for _, st := range settings {
		if st.Key == "scenario" {
			if _, err := workload.ScenarioByName(st.Value); err != nil {
				return Point{}, err
			}
			sc = st.Value
		}
	}
	type kv struct{ k, v string }
	var opts, params []kv
	var drive []kv
	set := func(list *[]kv, k, v string) {
		for j := range *list {
			if (*list)[j].k == k {
				(*list)[j].v = v
				return
			}
		}
		*list = append(*list, kv{k, v})
	}
	for _, st := range settings {
		kind, name, err := classify(st.Key, sc)
		if err != nil {
			if st.Line > 0 {
				return Point{}, fmt.Errorf("line %d: %w", st.Line, err)
			}
			return Point{}, err
		}
		switch kind {
		case kindOption:
			set(&opts, name, st.Value)
		case kindParam:
			set(&params, name, st.Value)
		case kindDrive:
			if err := checkDriveValue(name, st.Value); err != nil {
				if st.Line > 0 {
					return Point{}, fmt.Errorf("line %d: %w", st.Line, err)
				}
				return Point{}, err
			}
			set(&drive, name, st.Value)
		}
	}
	var cs []string
	for _, c := range coords {
		cs = append(cs, c.Axis+"="+c.Value)
	}
	p := Point{Index: i, Coords: coords, Rep: rep, Seed: seedOf(s.Seed, cs...)}
	// The drive: the base, or a description with the axes' fields set.
	driveArg, driveID := baseName, hashOf(baseSrc)
	if len(drive) > 0 {
		doc := cloneNode(base)
		for _, d := range drive {
			if err := setPath(doc, d.k, d.v); err != nil {
				return Point{}, err
			}
		}
		b, err := yaml.Marshal(doc)
		if err != nil {
			return Point{}, err
		}
		driveID = hashOf(b)
		p.Drive, p.DriveFile = b, "drives/"+driveID[:16]+".yaml"
		if _, err := controller.ParseConfig(p.DriveFile, b); err != nil {
			return Point{}, err
		}
		driveArg = p.DriveFile
	}
	seedGiven := false
	for _, o := range opts {
		if o.k == "randseed" {
			seedGiven = true
			if v, err := strconv.ParseUint(o.v, 0, 64); err == nil {
				p.Seed = v
			}
		}
	}
	var args []string
	if sc != "" {
		args = append(args, "scenario", sc)
	}
	args = append(args, "--drive="+driveArg)
	p.driveID = driveID
	for _, o := range params {
		args = append(args, "--"+o.k+"="+o.v)
	}
	var groupID []string
	precondition := false
	for _, o := range opts {
		args = append(args, "--"+o.k+"="+o.v)
		if !workloadOnly(o.k) {
			groupID = append(groupID, o.k+"="+o.v)
		}
		precondition = precondition || (o.k == "precondition" && o.v != "none")
	}
	if !seedGiven {
		args = append(args, "--randseed="+strconv.FormatUint(p.Seed, 10))
	}
	args = append(args, "--output-format=json")
	p.Args = args
	if sc == "" && precondition {
		g := hashOf([]byte(strings.Join(append([]string{"drive=" + driveID, "rep=" + strconv.Itoa(rep)}, groupID...), "\x00")))[:16]
		gseed := seedOf(s.Seed, "group", g)
		p.Group, p.StateFile = g, "states/"+g+".state"
		p.Prepare = []string{"--drive=" + driveArg}
		for _, o := range opts {
			if !workloadOnly(o.k) {
				p.Prepare = append(p.Prepare, "--"+o.k+"="+o.v)
			}
		}
		p.Prepare = append(p.Prepare, "--randseed="+strconv.FormatUint(gseed, 10), "--save_state="+p.StateFile, "--prepare_only")
	}
	return p, nil
}

func cloneNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = cloneNode(k)
	}
	return &c
}
