package archtest

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// maxMethods bounds the exported methods of each exported type of the packages in small: a type
// above it does too many things to read as one.
const maxMethods = 15

// small lists the packages whose exported types keep at most maxMethods exported methods: the
// store's (storeParts and what they stand on).
var small = append([]string{"shared/dynamostore/storecore", "shared/dynamostore/storeformat", "shared/dynamostore/migration",
	"shared/dynamostore/lists"}, storeParts...)

// largeTypes are the exported types allowed above maxMethods, each with why. The list only
// shrinks: a type leaves it when it is split.
var largeTypes = map[string]string{
	// It joins Webhooks and DeliveryLog, each within the budget, because the delivery engine's
	// ports (delivery.Deliveries, delivery.Rules) each span a webhook and its deliveries.
	"shared/dynamostore/webhookdb.Store": "a join of two parts",
	// A listed kind's whole format (keys, sorts, facets, family, month sums) in one value.
	"shared/dynamostore/storeformat.Layout": "to split by concern",
}

func TestTypesHaveFewMethods(t *testing.T) {
	for _, path := range small {
		t.Run(path, func(t *testing.T) {
			pkg := typeCheck(t, module+path)
			for name, n := range exportedMethods(pkg) {
				if _, ok := largeTypes[path+"."+name]; !ok && n > maxMethods {
					t.Errorf("%s.%s has %d exported methods (on T and *T); at most %d: make a part of it a type of its own",
						path, name, n, maxMethods)
				}
			}
		})
	}
}

// exportedMethods counts the exported methods of each exported named type of pkg: those of *T,
// which holds T's too, promoted ones included (an interface's own for an interface).
func exportedMethods(pkg *types.Package) map[string]int {
	out := map[string]int{}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() || tn.IsAlias() {
			continue
		}
		var set *types.MethodSet
		if types.IsInterface(tn.Type()) {
			set = types.NewMethodSet(tn.Type())
		} else {
			set = types.NewMethodSet(types.NewPointer(tn.Type()))
		}
		for i := range set.Len() {
			if set.At(i).Obj().Exported() {
				out[name]++
			}
		}
	}
	return out
}

// typeCheck type-checks a package of the module from its source, its imports from the export data
// `go list -export` writes.
func typeCheck(t *testing.T, importPath string) *types.Package {
	t.Helper()
	pkgs := list(t, "-export", "-deps", importPath)
	exports := map[string]string{}
	var target *pkg
	for i, p := range pkgs {
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if p.ImportPath == importPath {
			target = &pkgs[i]
		}
	}
	if target == nil {
		t.Fatalf("go list %s: no such package (update archtest if it moved)", importPath)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range target.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(target.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(importPath, fset, files, nil)
	if err != nil {
		t.Fatalf("type-check %s: %v", importPath, err)
	}
	return pkg
}
