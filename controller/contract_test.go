package controller

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOnlyTheFTLWritesTheDevice: the controller holds the flash array's
// state only as a deviceReader, which has none of nand.Device's changing
// methods; the one *nand.Device it hands out (Device, for its callers'
// reads) it takes from the FTL, and it never calls the FTL's Device
// itself. A change to the device the controller needs goes through the
// FTL's reports (see "The contract" in the package documentation).
func TestOnlyTheFTLWritesTheDevice(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name == "Device" && fn.Recv != nil {
				continue // the accessor itself
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "nand" && x.Sel.Name == "Device" {
						t.Errorf("%s: the controller names nand.Device: it reads the device through deviceReader", fset.Position(x.Pos()))
					}
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Device" && len(x.Args) == 0 {
						t.Errorf("%s: the controller takes the device from the FTL: it reads it through c.dev", fset.Position(x.Pos()))
					}
				}
				return true
			})
		}
	}
}
