package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines bounds a shipped function: about a screen, so that it reads at once.
const maxLines = 60

// unshipped are the module's trees whose code never runs in a deployment: the local stack, the
// tests' environments and the bench.
var unshipped = []string{"dev/", "cmd/local", "cmd/bench"}

// longFuncs are the shipped functions allowed above maxLines ("<package dir> <Type.>Func"), each
// with what it is. The list only shrinks: an entry that fits a screen (or is gone) fails the test
// until it is removed.
var longFuncs = map[string]string{
	"shared/webhook SampleEvent":    "the sample payload of each event type, a table",
	"shared/console Console.routes": "the console's routes, a table",
	"shared/httpapi bind":           "the API's routes, a table",
}

func TestShippedFunctionsFitAScreen(t *testing.T) {
	long := map[string]int{}
	for _, p := range list(t, module+"...") {
		rel := strings.TrimPrefix(p.ImportPath, module)
		if p.Error != nil || hasAnyPrefix(rel, unshipped) {
			continue
		}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
					if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxLines {
						long[rel+" "+funcName(fd)] = n
					}
				}
			}
		}
	}
	for name, n := range long {
		if _, ok := longFuncs[name]; !ok {
			t.Errorf("%s has %d lines; at most %d: split it (or, for a table, name it in longFuncs)", name, n, maxLines)
		}
	}
	for name := range longFuncs {
		if _, ok := long[name]; !ok {
			t.Errorf("longFuncs names %s, which fits a screen now (or is gone): remove it from the list", name)
		}
	}
}

// funcName is a function's name, with its receiver's type for a method ("Type.Method").
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	return fmt.Sprintf("%s.%s", t.(*ast.Ident).Name, fd.Name.Name)
}
