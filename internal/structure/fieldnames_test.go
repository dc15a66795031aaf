package structure

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// typedFieldNames returns, for a Go file, each string literal outside
// struct tags whose value is one of names, as "path:line: name".
func typedFieldNames(fset *token.FileSet, path string, src []byte, names map[string]bool) ([]string, error) {
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return nil, err
	}
	tags := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if fl, ok := n.(*ast.Field); ok && fl.Tag != nil {
			tags[fl.Tag] = true
		}
		return true
	})
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || tags[lit] {
			return true
		}
		if v, err := strconv.Unquote(lit.Value); err == nil && names[v] {
			out = append(out, fset.Position(lit.Pos()).String()+": "+v)
		}
		return true
	})
	return out, nil
}

// TestNoFieldNamesTyped: no Go file outside tests writes a
// drive-description field's name as a string; each comes from the table
// of fields (the struct tags it is built from, Config.FieldPath, the
// table's rows). Names with an underscore are checked ("gc_low_water");
// one-word names ("channels", "seed") are common words, left out.
func TestNoFieldNamesTyped(t *testing.T) {
	names := map[string]bool{}
	for _, f := range controller.Fields() {
		leaf := f.Path[strings.LastIndex(f.Path, ".")+1:]
		if strings.Contains(leaf, "_") {
			names[leaf] = true
		}
	}
	require.NotEmpty(t, names)
	_, pkgs := modulePackages(t)
	root := moduleRoot(t)
	fset := token.NewFileSet()
	for _, p := range pkgs {
		files := slices.Concat(p.GoFiles, p.CgoFiles, p.IgnoredGoFiles)
		for _, name := range files {
			path := filepath.Join(p.Dir, name)
			rel, err := filepath.Rel(root, path)
			require.NoError(t, err)
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			found, err := typedFieldNames(fset, filepath.ToSlash(rel), src, names)
			require.NoError(t, err)
			for _, s := range found {
				t.Errorf("%s: a drive-description field's name written by hand; take it from the field table", s)
			}
		}
	}
}

// TestNoFieldNamesTypedCatches checks the checker: a literal is found,
// a struct tag and a comment are not.
func TestNoFieldNamesTypedCatches(t *testing.T) {
	src := "package p\n\n// gc_low_water in a comment\ntype T struct {\n\tX int `yaml:\"gc_low_water\"`\n}\n\nvar s = \"gc_low_water\"\n"
	found, err := typedFieldNames(token.NewFileSet(), "p.go", []byte(src), map[string]bool{"gc_low_water": true})
	require.NoError(t, err)
	require.Equal(t, []string{"p.go:8:9: gc_low_water"}, found)
}
