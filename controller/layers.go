package controller

import (
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A preset drive is built from four layers, each in files of its own
// (docs/drives.md, "Layers"):
//
//   - a NAND part (presets/nand): datasheet values, shared by every drive
//     built on the part;
//   - a controller (presets/controllers): values shared by every drive on
//     that silicon;
//   - a product line (presets/lines): its firmware (fitted values, each
//     with its target) and its board (channels populated, dies per
//     channel, DRAM), and the capacity points, each a drive.
//
// The table of fields (Fields) says which layer each value belongs to;
// the loader holds every file to it: a file that sets a value of another
// layer is refused, naming the file, the line, the field and the layer
// the value belongs to. So two drives on one controller cannot disagree
// on a controller value, nor two drives on one part on a part value.

// layerFile is the kind of a preset file of one layer: which of the
// description's sections it may hold (under which name), which layers
// their values may belong to, and the keys of its own.
type layerFile struct {
	kind string // "NAND part", "controller", "product line"
	// sections maps a section of the file to the description's path of
	// it ("timing" → "nand.timing").
	sections map[string]string
	// allowed are the layers whose values the file may set.
	allowed []Layer
	// own are the file's own keys (its name, the part or controller it
	// builds on, the capacity points), which are not description fields.
	own []string
}

// The three kinds of layer file. Their keys are their types' own (the
// yaml names of NANDPart's, ControllerChip's and Line's fields), and the
// description's sections they fill are named by the table of fields
// (Config.FieldPath), so that no field's name is written twice.
var (
	partFile = newLayerFile[NANDPart]("NAND part", []Layer{LayerPart}, func(p *NANDPart, c *Config) []sectionPair {
		return []sectionPair{{&p.Die, &c.NAND.Geometry}, {&p.Timing, &c.NAND.Timing}, {&p.Interface, &c.NAND.Interface}, {&p.Reliability, &c.NAND.Reliability}, {&p.Power, &c.Power}}
	})
	chipFile = newLayerFile[ControllerChip]("controller", []Layer{LayerController}, func(p *ControllerChip, c *Config) []sectionPair {
		return []sectionPair{{&p.Interface, &c.NAND.Interface}, {&p.Host, &c.Host}, {&p.Firmware, &c.Firmware}, {&p.Power, &c.Power}}
	})
	lineFile = newLayerFile[Line]("product line", []Layer{LayerFirmware, LayerBoard, LayerDrive}, func(p *Line, c *Config) []sectionPair {
		return []sectionPair{{&p.Host, &c.Host}, {&p.Firmware, &c.Firmware}, {&p.Power, &c.Power}}
	})
)

// sectionPair is a section of a layer file (a pointer to its field) and
// the description's section it fills.
type sectionPair struct{ file, desc any }

// newLayerFile is the layer file of type T: its sections, given by
// pairs, and its other keys, its own.
func newLayerFile[T any](kind string, allowed []Layer, pairs func(*T, *Config) []sectionPair) layerFile {
	var f T
	var c Config
	k := layerFile{kind: kind, allowed: allowed, sections: map[string]string{}}
	for _, p := range pairs(&f, &c) {
		k.sections[yamlKeyOf(&f, p.file)] = c.FieldPath(p.desc)
	}
	t := reflect.TypeFor[T]()
	for i := range t.NumField() {
		name := yamlKey(t.Field(i))
		if _, section := k.sections[name]; name != "" && !section {
			k.own = append(k.own, name)
		}
	}
	return k
}

// yamlKey is the yaml name of struct field f ("" for an unexported or
// skipped field).
func yamlKey(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

// yamlKeyOf is the yaml name of the field ptr points at in root, a
// pointer to a struct; it panics when ptr is not one of root's fields,
// a programming error.
func yamlKeyOf(root, ptr any) string {
	rv, pv := reflect.ValueOf(root), reflect.ValueOf(ptr)
	t := rv.Type().Elem()
	for i := range t.NumField() {
		f := t.Field(i)
		if rv.Pointer()+f.Offset == pv.Pointer() && f.Type == pv.Type().Elem() {
			return yamlKey(f)
		}
	}
	panic(fmt.Sprintf("controller: %T is not a field of %T", ptr, root))
}

// presetDir is where the preset files are, as a path in the repository
// (errors name it so that a developer finds the file).
const presetDir = "controller/"

// whereSet says which file sets a value of layer l, for errors.
func whereSet(l Layer) string {
	switch l {
	case LayerPart:
		return "the NAND part's file (" + presetDir + "presets/nand), shared by every drive built on the part"
	case LayerController:
		return "the controller's file (" + presetDir + "presets/controllers), shared by every drive on that silicon"
	default:
		return "a product line's file (" + presetDir + "presets/lines), with its firmware and board"
	}
}

// check reads the text of a layer file called file: every key one of its
// own or a section it may hold, every section's fields fields of the
// table of their types (checkTree), and every value of a layer the file
// may set. It returns where each field is set, by description path.
func (k layerFile) check(file string, b []byte) (map[string]place, error) {
	places := map[string]place{}
	doc, err := parseDocument(file, b)
	if err != nil || doc == nil {
		return places, err
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, &FieldError{File: file, Line: top.Line, Msg: fmt.Sprintf("a %s file is a mapping (%s)", k.kind, strings.Join(k.keys(), ", "))}
	}
	// The sections, under their description paths, as one tree.
	tree := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		if contains(k.own, key.Value) {
			continue
		}
		to, ok := k.sections[key.Value]
		if !ok {
			return nil, &FieldError{File: file, Line: key.Line, Path: key.Value,
				Msg: fmt.Sprintf("a %s file has no key %q; allowed %s", k.kind, key.Value, strings.Join(k.keys(), ", "))}
		}
		at := tree
		parts := strings.Split(to, ".")
		for j, p := range parts {
			if j == len(parts)-1 {
				at.Content = append(at.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p, Line: key.Line}, val)
				break
			}
			next := keyIndex(at, p)
			if next < 0 {
				at.Content = append(at.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p, Line: key.Line}, &yaml.Node{Kind: yaml.MappingNode})
				next = len(at.Content) - 2
			}
			at = at.Content[next+1]
		}
	}
	if err := checkTree(file, tree, "", places); err != nil {
		return nil, err
	}
	// The first value (by line) of a layer the file may not set.
	paths := make([]string, 0, len(places))
	for p := range places {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		if places[paths[i]].line != places[paths[j]].line {
			return places[paths[i]].line < places[paths[j]].line
		}
		return paths[i] < paths[j]
	})
	for _, p := range paths {
		row, _ := LookupField(p)
		if row.Section || containsLayer(k.allowed, row.Layer) {
			continue
		}
		return nil, &FieldError{File: file, Line: places[p].line, Path: p,
			Msg: fmt.Sprintf("%s is a %s value: a %s file sets only %s values; set it in %s", p, row.Layer, k.kind, layerNames(k.allowed), whereSet(row.Layer))}
	}
	return places, nil
}

// keys lists the keys a file of kind k may hold.
func (k layerFile) keys() []string {
	out := append([]string(nil), k.own...)
	for s := range k.sections {
		out = append(out, s)
	}
	sort.Strings(out[len(k.own):])
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsLayer(list []Layer, l Layer) bool {
	for _, x := range list {
		if x == l {
			return true
		}
	}
	return false
}

func layerNames(ls []Layer) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = string(l)
	}
	if len(s) > 1 {
		return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	return s[0]
}

// readLayerFile reads the preset file dir/name.yaml of kind k, checks it
// (layerFile.check) and decodes it into dst, refusing unknown keys. It
// returns the file's name as errors give it and where each field is set.
func readLayerFile(k layerFile, dir, name string, dst any) (string, map[string]place, error) {
	embedded := path.Join(dir, name+".yaml")
	file := presetDir + embedded
	b, err := presetFS.ReadFile(embedded)
	if err != nil {
		return file, nil, fmt.Errorf("no such %s preset (%s)", k.kind, file)
	}
	places, err := k.check(file, b)
	if err != nil {
		return file, nil, err
	}
	if err := decodeStrict(file, b, dst); err != nil {
		return file, nil, err
	}
	return file, places, nil
}

// fromLayer sets every field of dst that the table puts at one of layers
// to its value in src: the sections host, firmware and power, and the
// NAND part's timing and reliability. Fields of other layers are left as
// they are. Each layer file sets only its layer's fields, so composing
// the layers field by field is the same as merging the files.
func fromLayer(dst, src *Config, layers ...Layer) {
	for _, row := range table.rows {
		if row.Section || !containsLayer(layers, row.Layer) || !composed(row.Path) {
			continue
		}
		row.f.Value(reflect.ValueOf(dst)).Set(row.f.Value(reflect.ValueOf(src)))
	}
}

// composed reports whether the field at path is taken from the layers
// field by field (the geometry and the drive's own fields are built by
// Line.Expand).
func composed(p string) bool {
	for _, s := range []string{"host.", "firmware.", "power.", "nand.timing.", "nand.interface.", "nand.reliability."} {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}
