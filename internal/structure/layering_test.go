package structure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layers is the declared order of the module's packages, lowest first
// (paths relative to the module). A package may import the standard
// library, third-party modules (see thirdParty) and packages of lower
// layers only: never one of its own layer or of a higher one. The main
// line is the README's: blockio < nand < ftl < controller < workload <
// sim < sweep < report < cli < cmd/ftlsim < examples.
//
// Sub-packages and internal packages have places of their own. An
// internal package sits above what it imports and below the lowest
// package that imports it; a helper that imports nothing of the module
// sits at the bottom, where any package may use it. A new package must be
// placed here: the test fails on a package with no place. Entries naming
// no package (a package removed, or not yet merged) are ignored.
// A path ending in "/..." places every package under it.
var layers = [][]string{
	// Helpers that import nothing of the module (or only each other,
	// across layers).
	{"internal/units", "internal/prefetch", "internal/mintree", "internal/suggest", "internal/cmdline", "internal/testtier", "internal/snapshot", "internal/atomicfile", "internal/structure"},
	{"internal/fields"}, // the drive-description field table: imports units
	{"blockio"},
	{"nand"},
	{"ftl"},
	{"ftl/ftltest"}, // the policy checker kit, for tests
	{"controller"},
	{"internal/testdrive", "controller/internal/fielddoc"}, // test drives at the tier's size; the drive-field reference's writer
	{"workload"},
	{"workload/trace"},
	{"sim"},
	{"sim/analysis", "sim/fioreport"},
	{"internal/memlimit"}, // memory estimates of drives and runs, for every command that runs many
	{"internal/chart"},    // gonum/plot's house style: sweep's and report's charts
	{"sweep", "fit"},      // studies; fitting a drive to measured figures
	{"report"},
	{"cli"},
	{"cmd/ftlsim"},
	{"examples/..."},
}

// testSupport are packages for tests only (they import "testing"): other
// packages import them from their _test.go files, never from code that
// ships.
var testSupport = []string{"ftl/ftltest", "internal/testdrive", "internal/testtier"}

// thirdParty bounds where third-party modules may be imported: a path
// prefix and the lowest layer whose packages may import it. The core
// (through sim) draws nothing: charts need gonum/plot, which only the
// chart helper, the study and report packages and above import.
var thirdParty = []struct{ prefix, lowest string }{
	{"gonum.org/v1/plot", "internal/chart"},
	{"github.com/schollz/progressbar", "sweep"},
}

// goPackage is the part of go list -json's output the tests read.
type goPackage struct {
	ImportPath     string
	Dir            string
	Name           string
	GoFiles        []string
	CgoFiles       []string
	IgnoredGoFiles []string // files the build context leaves out: other systems, build tags
	TestGoFiles    []string
	XTestGoFiles   []string
	Module         *struct{ Path string }
}

// modulePackages lists the module's packages with the go command.
func modulePackages(t *testing.T) (module string, pkgs []goPackage) {
	t.Helper()
	out := goCommand(t, "list", "-json", "./...")
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "go list -json")
		if p.Module != nil {
			module = p.Module.Path
		}
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, module, "go list reports the module")
	return module, pkgs
}

// goCommand runs the go command at the module's root.
func goCommand(t *testing.T, args ...string) []byte {
	t.Helper()
	goBin := "go"
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			goBin = p
		}
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go %s: %s", strings.Join(args, " "), stderr.String())
	return out
}

// moduleRoot is the folder holding go.mod, found upwards from the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for !fileExists(filepath.Join(dir, "go.mod")) {
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test's folder")
		dir = parent
	}
	return dir
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// layerOf returns the layer of a package (relative to the module), or -1
// when the table gives it no place.
func layerOf(rel string) int {
	for i, layer := range layers {
		for _, p := range layer {
			if p == rel || (strings.HasSuffix(p, "/...") && strings.HasPrefix(rel+"/", strings.TrimSuffix(p, "..."))) {
				return i
			}
		}
	}
	return -1
}

// layerName describes a layer for messages: its packages.
func layerName(i int) string {
	return strings.Join(layers[i], ", ")
}

// imports returns every import of a package's non-test files, whatever
// their build constraints (a file for another system or under a build
// tag is checked too), with the position of each. Files that are
// programs of their own (//go:build ignore) are left out.
func imports(t *testing.T, p goPackage) map[string][]string {
	t.Helper()
	files := slices.Concat(p.GoFiles, p.CgoFiles)
	for _, f := range p.IgnoredGoFiles {
		if !strings.HasSuffix(f, "_test.go") {
			files = append(files, f)
		}
	}
	fset := token.NewFileSet()
	at := map[string][]string{}
	for _, name := range files {
		path := filepath.Join(p.Dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		require.NoError(t, err)
		if ignoredProgram(f.Comments, f.Package) {
			continue
		}
		for _, s := range f.Imports {
			ip, err := strconv.Unquote(s.Path.Value)
			require.NoError(t, err)
			pos := fset.Position(s.Pos())
			at[ip] = append(at[ip], fmt.Sprintf("%s:%d", relPath(p, name), pos.Line))
		}
	}
	return at
}

// relPath names a file of a package relative to the module's root, as
// messages show it.
func relPath(p goPackage, name string) string {
	if p.Module == nil {
		return name
	}
	rel := strings.TrimPrefix(p.ImportPath, p.Module.Path)
	return strings.TrimPrefix(rel+"/"+name, "/")
}

// TestLayering fails on an import that points up the declared layers, on
// a package the table does not place, on shipping code that imports a
// test-support package, and on a third-party module imported below its
// bound (see layers, testSupport and thirdParty).
func TestLayering(t *testing.T) {
	module, pkgs := modulePackages(t)
	for _, p := range pkgs {
		self := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if layerOf(self) < 0 {
			t.Errorf("package %s has no place in the layers of internal/structure/layering_test.go: add it above what it imports and below what imports it", self)
			continue
		}
		at := imports(t, p)
		for _, ip := range slices.Sorted(maps.Keys(at)) {
			if msg := forbidden(module, self, ip); msg != "" {
				t.Errorf("%s imports %s: %s", at[ip][0], ip, msg)
			}
		}
	}
}

// forbidden says why package self (relative to the module) may not import
// ip (an import path), or returns "" when it may.
func forbidden(module, self, ip string) string {
	from := layerOf(self)
	other, ok := strings.CutPrefix(ip, module+"/")
	if !ok {
		for _, b := range thirdParty {
			if strings.HasPrefix(ip, b.prefix) && from < layerOf(b.lowest) {
				return fmt.Sprintf("%s is for %s and the layers above it, not %s", b.prefix, b.lowest, self)
			}
		}
		return ""
	}
	to := layerOf(other)
	switch {
	case to < 0:
		return "" // reported as a package with no place
	case slices.Contains(testSupport, other) && !slices.Contains(testSupport, self):
		return fmt.Sprintf("%s is for tests only: import it from _test.go files", other)
	case to >= from:
		return fmt.Sprintf("%s (layer %d: %s) may import only lower layers, and %s is in layer %d (%s)",
			self, from, layerName(from), other, to, layerName(to))
	}
	return ""
}

// TestLayeringCatches checks the checker: every pair of the main line in
// the wrong direction is refused and the declared direction allowed, and
// the test-support and third-party rules refuse what they should.
func TestLayeringCatches(t *testing.T) {
	const m = "example.com/m"
	main := []string{"blockio", "nand", "ftl", "controller", "workload", "sim", "sweep", "report", "cli", "cmd/ftlsim", "examples/power"}
	for i, lo := range main {
		for _, hi := range main[i+1:] {
			require.Empty(t, forbidden(m, hi, m+"/"+lo), "%s may import %s", hi, lo)
			require.Contains(t, forbidden(m, lo, m+"/"+hi), "may import only lower layers", "%s may not import %s", lo, hi)
		}
	}
	require.Contains(t, forbidden(m, "ftl", m+"/ftl"), "may import only lower layers", "nor its own layer")
	require.Contains(t, forbidden(m, "controller", m+"/ftl/ftltest"), "for tests only")
	require.Empty(t, forbidden(m, "internal/testdrive", m+"/internal/testtier"), "test support may use test support")
	require.Contains(t, forbidden(m, "sim", "gonum.org/v1/plot/vg"), "gonum.org/v1/plot is for internal/chart")
	require.Empty(t, forbidden(m, "report", "gonum.org/v1/plot/vg"))
	require.Empty(t, forbidden(m, "sim", "gonum.org/v1/gonum/stat"), "gonum's statistics are for anyone")
	require.Equal(t, -1, layerOf("newpkg"), "a package the table does not name has no place")
	require.Equal(t, layerOf("examples/power"), layerOf("examples/sweeps"), "examples/... places every example")
}

// ignoredProgram reports whether a file is built only by hand
// (//go:build ignore before its package clause): a generator, not part of
// the package.
func ignoredProgram(comments []*ast.CommentGroup, pkg token.Pos) bool {
	for _, g := range comments {
		if g.Pos() >= pkg {
			break
		}
		for _, c := range g.List {
			if c.Text == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}
