package controller

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/internal/fields"
	"github.com/ftlsim/ftlsim/internal/units"
)

// maxBaseDepth bounds a chain of descriptions built on one another.
const maxBaseDepth = 16

// loader reads drive descriptions, following base.
type loader struct {
	// read returns the text of the description called name, and the
	// name errors and nested bases use for it.
	read  func(name, from string) ([]byte, string, error)
	chain []string
}

// parseTree parses description text into its merged YAML tree: the
// document with its base (and the base's base) merged under it. places
// gets where each field was set.
func (l *loader) parseTree(name string, b []byte, places map[string]place) (*yaml.Node, error) {
	if len(l.chain) >= maxBaseDepth {
		return nil, &FieldError{File: name, Msg: fmt.Sprintf("%s: more than %d descriptions built on one another", baseKey, maxBaseDepth)}
	}
	l.chain = append(l.chain, name)
	defer func() { l.chain = l.chain[:len(l.chain)-1] }()
	doc, err := parseDocument(name, b)
	if err != nil || doc == nil {
		return nil, err
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, &FieldError{File: name, Line: top.Line, Msg: "a drive description is a mapping of fields (name: …, nand: …)"}
	}
	baseNode := takeKey(top, baseKey)
	var merged *yaml.Node
	if baseNode != nil {
		if baseNode.Kind != yaml.ScalarNode || baseNode.Value == "" {
			return nil, &FieldError{File: name, Line: baseNode.Line, Path: baseKey,
				Msg: baseKey + ": allowed the name of a preset (ftlsim drives lists them) or of a description file"}
		}
		text, baseName, err := l.read(baseNode.Value, name)
		if err != nil {
			return nil, &FieldError{File: name, Line: baseNode.Line, Path: baseKey,
				Msg: fmt.Sprintf("%s: %s: %v; allowed the name of a preset (ftlsim drives lists them) or of a description file", baseKey, baseNode.Value, err)}
		}
		for _, n := range l.chain {
			if n == baseName {
				return nil, &FieldError{File: name, Line: baseNode.Line, Path: baseKey,
					Msg: fmt.Sprintf("%s: %s → %s: descriptions built on each other in a cycle", baseKey, strings.Join(l.chain, " → "), baseName)}
			}
		}
		if merged, err = l.parseTree(baseName, text, places); err != nil {
			return nil, err
		}
	}
	if err := checkTree(name, top, "", places); err != nil {
		return nil, err
	}
	if merged == nil {
		return top, nil
	}
	mergeInto(merged, top, "", places)
	return merged, nil
}

// baseKey is the key of a description that builds on another.
const baseKey = "base"

// takeKey removes key from mapping m and returns its value (nil when m
// has no such key).
func takeKey(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return v
		}
	}
	return nil
}

// mergeInto merges mapping over into mapping dst: a section merges field
// by field, any other value replaces dst's, and a null value removes the
// field (it takes its default).
func mergeInto(dst, over *yaml.Node, prefix string, places map[string]place) {
	for i := 0; i+1 < len(over.Content); i += 2 {
		k, v := over.Content[i], over.Content[i+1]
		p := joinPath(prefix, k.Value)
		j := keyIndex(dst, k.Value)
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			if j >= 0 {
				dst.Content = append(dst.Content[:j], dst.Content[j+2:]...)
			}
			for q := range places {
				if q == p || strings.HasPrefix(q, p+".") {
					delete(places, q)
				}
			}
		case j >= 0 && v.Kind == yaml.MappingNode && dst.Content[j+1].Kind == yaml.MappingNode:
			mergeInto(dst.Content[j+1], v, p, places)
		case j >= 0:
			dst.Content[j+1] = v
		default:
			dst.Content = append(dst.Content, k, v)
		}
	}
}

func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// parseDocument parses text holding one YAML document (nil for an empty
// text). A syntax error names the line where the text stops being YAML;
// a second document is an error.
func parseDocument(name string, b []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, syntaxError(name, b, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxError(name, b, err)
	default:
		return nil, &FieldError{File: name, Line: documentLine(b, &next),
			Msg: "a second YAML document (after ---); a drive description is one document (to build on another description, use base: NAME)"}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return &doc, nil
}

// documentLine is the line of the "---" that starts document n, or of its
// first node.
func documentLine(b []byte, n *yaml.Node) int {
	line := n.Line
	if len(n.Content) > 0 {
		line = n.Content[0].Line
	}
	lines := strings.Split(string(b), "\n")
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "---") {
			return i + 1
		}
	}
	return line
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError reports a YAML syntax error at the line where the text
// stops being YAML. The parser reports some errors (a key indented
// differently from its neighbours: "did not find expected key") at the
// line of the mapping that holds it, which may be many lines before; the
// line is found as the first after which every longer prefix of the text
// fails to parse.
func syntaxError(name string, b []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = err.Error()[len(m[0]):]
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if line > 0 && len(lines) <= 5000 {
		bad := len(lines)
		for bad > 1 && !parses(bytes.Join(lines[:bad-1], nil)) {
			bad--
		}
		if bad > line {
			if strings.Contains(msg, "did not find expected key") {
				msg += fmt.Sprintf(" (in the mapping that starts at line %d: is this line indented as the keys above it?)", line)
			}
			line = bad
		}
	}
	return &FieldError{File: name, Line: line, Msg: "YAML: " + msg}
}

// parses reports whether text is well-formed YAML.
func parses(text []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			return errors.Is(err, io.EOF)
		}
	}
}

// maxNodes bounds the nodes a description's tree may expand to through
// aliases (an alias bomb is refused, not expanded).
const maxNodes = 100_000

// checkTree checks the fields of mapping m (the description's top, or a
// section at prefix): every key a field of the table, every section a
// mapping, every value one of its field's type — whole numbers for
// integer fields. places gets where each field is set.
func checkTree(file string, m *yaml.Node, prefix string, places map[string]place) error {
	budget := maxNodes
	return checkMapping(file, m, prefix, places, &budget)
}

func checkMapping(file string, m *yaml.Node, prefix string, places map[string]place, budget *int) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if *budget--; *budget < 0 {
			return &FieldError{File: file, Line: k.Line, Msg: fmt.Sprintf("more than %d values (aliases expanding without bound?)", maxNodes)}
		}
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if k.Value == "<<" && v.Kind == yaml.MappingNode { // a YAML merge key
			if err := checkMapping(file, v, prefix, places, budget); err != nil {
				return err
			}
			continue
		}
		p := joinPath(prefix, k.Value)
		row, ok := LookupField(p)
		if !ok {
			return &FieldError{File: file, Line: k.Line, Path: p, Msg: unknownField(prefix, k.Value)}
		}
		places[p] = place{file, k.Line}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue // left at its default
		}
		if row.Section {
			if v.Kind != yaml.MappingNode {
				return &FieldError{File: file, Line: v.Line, Path: p, Msg: fmt.Sprintf("%s is a section: give its fields, indented below it", p)}
			}
			if err := checkMapping(file, v, p, places, budget); err != nil {
				return err
			}
			continue
		}
		if _, err := decodeLeaf(row.f, v); err != nil {
			msg := fmt.Sprintf("%s = %s: %s, allowed %s", p, nodeText(v), err, row.allowed())
			if strings.Contains(err.Error(), "allowed") {
				msg = fmt.Sprintf("%s = %s: %s", p, nodeText(v), err)
				if row.Range != "" {
					msg = fmt.Sprintf("%s = %s, allowed %s", p, nodeText(v), row.Range)
				}
			}
			return &FieldError{File: file, Line: v.Line, Path: p, Msg: msg}
		}
	}
	return nil
}

// nodeText is a value as the description writes it.
func nodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	b, _ := yaml.Marshal(n)
	return strings.Join(strings.Fields(string(b)), " ")
}

// decodeLeaf decodes node n as a value of field f: integers must be
// whole numbers (4.5 is not an integer, 1e6 is).
func decodeLeaf(f fields.Field, n *yaml.Node) (reflect.Value, error) {
	v := reflect.New(f.Type)
	if err := wholeNumbers(f.Type, n); err != nil {
		return v.Elem(), err
	}
	if err := n.Decode(v.Interface()); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return v.Elem(), fmt.Errorf("not %s", kindName(f.Type))
		}
		return v.Elem(), errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return v.Elem(), nil
}

// wholeNumbers reports a number that is not whole given for an integer
// field (or for an element of a list of integers).
func wholeNumbers(t reflect.Type, n *yaml.Node) error {
	if t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode {
		for _, e := range n.Content {
			if err := wholeNumbers(t.Elem(), e); err != nil {
				return err
			}
		}
		return nil
	}
	if !isInteger(t) || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!float" {
		return nil
	}
	x, err := units.ParseFloat(n.Value)
	if err == nil && x == float64(int64(x)) {
		return nil
	}
	if t == reflect.TypeFor[Size]() {
		return nil // a size in bytes may be written 1.5e9; Size checks it is whole
	}
	return errors.New("not a whole number")
}

// unknownField says that section prefix has no field called key, and
// which fields it has (the nearest first).
func unknownField(prefix, key string) string {
	var names []string
	for _, f := range table.rows {
		if parentPath(f.Path) == prefix {
			names = append(names, f.f.Name)
		}
	}
	where := "the description"
	if prefix != "" {
		where = prefix
	}
	if near := nearest(key, names); near != "" {
		return fmt.Sprintf("%s has no field %q; did you mean %s? (see docs/drive-fields.md)", where, key, joinPath(prefix, near))
	}
	return fmt.Sprintf("%s has no field %q; allowed %s", where, key, strings.Join(names, ", "))
}

// nearest returns the name closest to key by edit distance, if close
// enough to be a misspelling.
func nearest(key string, names []string) string {
	best, bestD := "", max(2, len(key)/3)+1
	for _, n := range names {
		if d := editDistance(key, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// decodeConfig parses a description into a Config, following base with
// l, and records where each field was set.
func (l *loader) decodeConfig(name string, b []byte) (Config, error) {
	places := map[string]place{}
	top, err := l.parseTree(name, b, places)
	if err != nil || top == nil {
		return Config{}, err
	}
	var c Config
	if err := top.Decode(&c); err != nil {
		return Config{}, &FieldError{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	c.origin = &origin{file: name, places: places, loaded: c}
	return c, nil
}

// presetLoader reads the built-in descriptions: a base is another
// preset.
func presetLoader() *loader {
	return &loader{read: func(name, _ string) ([]byte, string, error) {
		b, err := presetFS.ReadFile(path.Join("presets", name+".yaml"))
		if err != nil {
			return nil, "", fmt.Errorf("no such preset")
		}
		return b, name, nil
	}}
}

// fileLoader reads descriptions from files: a base is a preset, or else a
// file named relative to the description that names it.
func fileLoader() *loader {
	presets := presetLoader()
	return &loader{read: func(name, from string) ([]byte, string, error) {
		if b, n, err := presets.read(name, from); err == nil {
			return b, n, nil
		}
		file := name
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(from), file)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, "", fmt.Errorf("neither a preset nor a readable file (%w)", errors.Unwrap(err))
		}
		return b, file, nil
	}}
}
