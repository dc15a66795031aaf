package fit

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/controller"
)

// Drive returns the fitted drive: base with the fitted values.
func (r *Result) Drive(base controller.Config) controller.Config {
	cfg := base
	for i, p := range r.Params {
		p.set(&cfg, r.Fitted[i])
	}
	return cfg
}

// DriveYAML writes the fitted drive's description, each fitted value
// with a comment: its value before, and the targets it moves most (or
// that the targets do not determine it).
func (r *Result) DriveYAML(base controller.Config, source string) ([]byte, error) {
	b, err := r.Drive(base).Marshal()
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	doc.HeadComment = fmt.Sprintf("Fitted by ftlsim fit to %s: %d targets, RMS relative error %.2f %%.\nEach fitted value says what it was and the targets that determine it.", source, len(r.Targets), 100*r.Objective)
	for i, p := range r.Params {
		n := lookupNode(&doc, p.Path)
		if n == nil {
			continue
		}
		n.LineComment = r.comment(i)
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return out.Bytes(), enc.Close()
}

// comment is the fitted value's comment.
func (r *Result) comment(i int) string {
	p := r.Params[i]
	was := fmt.Sprintf("was %s", p.Text(r.Start[i]))
	if r.isUnidentifiable(p.Path) {
		if p.round(r.Fitted[i]) == p.round(r.Start[i]) {
			return "not determined by the targets: kept"
		}
		return "not determined by the targets: values near it fit as well; " + was
	}
	type moved struct {
		j int
		s float64
	}
	var ms []moved
	if i < len(r.Moves) {
		for j, s := range r.Moves[i] {
			if s > FlatShare {
				ms = append(ms, moved{j, s})
			}
		}
	}
	sort.SliceStable(ms, func(a, b int) bool { return ms[a].s > ms[b].s })
	var names []string
	for _, m := range ms[:min(3, len(ms))] {
		t := r.Targets[m.j]
		names = append(names, fmt.Sprintf("%s (%s, fitted %s)", t.Name(), num(t.Value), num(r.After[m.j])))
	}
	if len(ms) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(ms)-3))
	}
	return fmt.Sprintf("fitted, %s; to %s", was, strings.Join(names, "; "))
}

func (r *Result) isUnidentifiable(path string) bool {
	for _, u := range r.Unidentifiable {
		if u == path {
			return true
		}
	}
	return false
}

// lookupNode returns the value node at a dotted path of a YAML document.
func lookupNode(doc *yaml.Node, path string) *yaml.Node {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, part := range strings.Split(path, ".") {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// WriteTable writes the fit as Markdown: the parameters (start, fitted,
// bounds, whether the targets determine them) and the targets (measured,
// the base drive's figure, the fitted one, its error, and the error of
// its leave-one-out prediction).
func (r *Result) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("| parameter | start | fitted | bounds | determined |\n|---|---|---|---|---|\n")
	for i, q := range r.Params {
		det := "yes"
		if r.isUnidentifiable(q.Path) {
			det = "**no** (flat objective)"
		}
		p("| %s | %s | %s | %s..%s | %s |\n", q.Path, q.Text(r.Start[i]), q.Text(r.Fitted[i]), q.Text(q.Lo), q.Text(q.Hi), det)
	}
	p("\n| target | measured | base drive | fitted | error | left out: predicted error |\n|---|---|---|---|---|---|\n")
	for i, t := range r.Targets {
		meas := num(t.Value)
		if t.Hi > t.Lo {
			meas = fmt.Sprintf("%s (%s..%s)", num(t.Value), num(t.Lo), num(t.Hi))
		}
		loo := "—"
		if i < len(r.LeaveOneOut) && !math.IsNaN(r.LeaveOneOut[i]) {
			loo = fmt.Sprintf("%+.2f %%", 100*r.LeaveOneOut[i])
		}
		p("| %s | %s | %s | %s | %+.2f %% | %s |\n", t.Name(), meas, num(r.Before[i]), num(r.After[i]), 100*r.Errors[i], loo)
	}
	p("\nRMS relative error %.2f %% over %d targets; %d evaluations (%d drives run).\n", 100*r.Objective, len(r.Targets), r.Evaluations, r.Runs)
	_, err := w.Write(b.Bytes())
	return err
}
