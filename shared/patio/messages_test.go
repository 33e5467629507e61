package patio

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The module's root, from this package's directory.
const moduleRoot = "../.."

// constructors are the functions of this package that take a format, by name, and the index of
// their format among their arguments. Problems.Add is "Add".
var constructors = map[string]int{"Errorf": 1, "Invalidf": 0, "Conflictf": 0, "NotFoundf": 0, "Add": 2}

// dynamicFormats are the places (a package's directory and a function) that may pass a format
// that is not a literal of the table, and why each is safe.
var dynamicFormats = map[string]string{
	// The reasons of the normalisers follow the member's name; TestEveryReasonHasACode keeps each
	// in the table.
	"shared/patio.addReason": "a normaliser's reason",
	// The message is already in the reader's language (the console's Printer.Error of another
	// error), recast as a conflict; without a code, it is shown as it is.
	"shared/console.recordAction": "a message already translated",
	// The operators' tool joins its flags' problems; it speaks English only, and never to the
	// console.
	"cmd/admin.err": "the operators' tool's own English",
}

// call is a call that passes a format to a constructor.
type call struct {
	pos    token.Position
	place  string // the package's directory and the function around the call, "shared/patio.invalid"
	format ast.Expr
	param  string // the format parameter of the function around the call, if it has one
}

// TestEveryFormatHasACode reads the module's sources (shared, functions and cmd, tests aside) and
// checks that every format passed to a constructor of this package, or to a function that passes
// its own format on to one, is in the table of messages, so that every problem the console can
// be shown has a code.
func TestEveryFormatHasACode(t *testing.T) {
	calls, wrappers := formatCalls(t)
	if len(calls) < 150 {
		t.Fatalf("found %d calls with a format; the scan lost some", len(calls))
	}
	used := map[string]bool{}
	dynamic := map[string]bool{}
	for _, c := range calls {
		if id, ok := c.format.(*ast.Ident); ok && id.Name == c.param && c.param != "" && wrappers[c.place] {
			continue // a wrapper passing its own format on: its callers are checked
		}
		format, literal := constant(c.format)
		switch {
		case literal && CodeOf(format) != "":
			used[format] = true
		case dynamicFormats[c.place] != "":
			dynamic[c.place] = true
		case literal:
			t.Errorf("%s: %q has no code: add it to messages (and to the console's catalogs)", c.pos, format)
		default:
			t.Errorf("%s: the format is not a literal: pass one from the table, or list the place (%s) in dynamicFormats with why", c.pos, c.place)
		}
	}
	for place := range dynamicFormats {
		if !dynamic[place] {
			t.Errorf("%s is listed in dynamicFormats but passes no format any more", place)
		}
	}
	for _, r := range reasons(t) {
		used["%s "+r] = true
	}
	for _, m := range messages {
		if !used[m.Format] {
			t.Errorf("message %s (%q) is used nowhere", m.Code, m.Format)
		}
	}
}

// TestEveryReasonHasACode: each reason of the normalisers makes a problem with a code.
func TestEveryReasonHasACode(t *testing.T) {
	rs := reasons(t)
	if len(rs) < 15 {
		t.Fatalf("found %d reasons; the scan lost some", len(rs))
	}
	for _, r := range rs {
		var p Problems
		addReason(&p, InBody, "plate", errors.New(r))
		var e *Error
		if !errors.As(p.Err(), &e) || e.Code == "" || e.Message != "plate "+r {
			t.Errorf("reason %q: %+v; want a code and the message %q", r, e, "plate "+r)
		}
	}
}

// TestMessages: a code is snake_case and names one format; a format outside the table still
// makes an error, without a code.
func TestMessages(t *testing.T) {
	for _, m := range Messages() {
		if strings.Trim(m.Code, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("code %q is not snake_case", m.Code)
		}
	}
	if e := Invalidf("title is required"); e.Code != "title_required" || e.Message != "title is required" {
		t.Errorf("Invalidf = %+v", e)
	}
	if e := Conflictf("no such message %d", 3); e.Code != "" || e.Message != "no such message 3" || e.Kind != KindConflict {
		t.Errorf("a format outside the table = %+v; want its message without a code", e)
	}
	var p Problems
	p.Add(InBody, "vin", "%s is required", "vin")
	var e *Error
	if !errors.As(p.Err(), &e) || e.Code != "required" || e.Details[0].Code != "required" || e.Details[0].Args[0] != "vin" {
		t.Errorf("Problems = %+v", e)
	}
	if ErrNotFound.Code != "resource_not_found" {
		t.Errorf("ErrNotFound.Code = %q", ErrNotFound.Code)
	}
}

// reasons returns the reasons the normalisers give: the text of every package-level errors.New of
// shared/br, and errEmail's.
func reasons(t *testing.T) []string {
	t.Helper()
	out := []string{errEmail.Error()}
	for _, f := range parseDir(t, "shared/br") {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					c, ok := v.(*ast.CallExpr)
					if !ok || !isSelector(c.Fun, "errors", "New") || len(c.Args) != 1 {
						continue
					}
					if r, ok := constant(c.Args[0]); ok {
						out = append(out, r)
					} else {
						t.Errorf("shared/br: a reason that is not a literal")
					}
				}
			}
		}
	}
	return out
}

// formatCalls returns every call that passes a format to a constructor or to a wrapper of one (a
// function whose format parameter it passes on), and the wrappers, by place.
func formatCalls(t *testing.T) ([]call, map[string]bool) {
	t.Helper()
	type pkgFile struct {
		dir string
		f   *ast.File
	}
	var files []pkgFile
	for _, top := range []string{"shared", "functions", "cmd"} {
		err := filepath.WalkDir(filepath.Join(moduleRoot, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			rel, _ := filepath.Rel(moduleRoot, path)
			for _, f := range parseDir(t, filepath.ToSlash(rel)) {
				files = append(files, pkgFile{filepath.ToSlash(rel), f})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// wrapped: a package's directory and an unexported function's name → its format's index.
	wrapped := map[string]int{}
	wrappers := map[string]bool{}
	var calls []call
	for changed := true; changed; {
		changed, calls = false, nil
		for _, pf := range files {
			inPatio := pf.dir == "shared/patio"
			for _, d := range pf.f.Decls {
				var body ast.Node = d // a package-level declaration's values
				place, param, index := pf.dir+".(var)", "", 0
				if fn, ok := d.(*ast.FuncDecl); ok {
					body, place = fn.Body, pf.dir+"."+fn.Name.Name
					param, index = formatParam(fn)
				}
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Body == nil {
					continue
				}
				ast.Inspect(body, func(n ast.Node) bool {
					c, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					i, ok := takesFormat(c, pf.dir, inPatio, wrapped)
					if !ok || len(c.Args) <= i {
						return true
					}
					calls = append(calls, call{pos: fset.Position(c.Pos()), place: place, format: c.Args[i], param: param})
					if id, ok := c.Args[i].(*ast.Ident); ok && param != "" && id.Name == param && !wrappers[place] {
						wrappers[place], wrapped[place] = true, index
						changed = true
					}
					return true
				})
			}
		}
	}
	return calls, wrappers
}

var fset = token.NewFileSet()

// parseDir parses the Go files of a directory of the module, tests aside.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(moduleRoot, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// formatParam returns the name and index of a function's parameter named format, of type string.
func formatParam(fn *ast.FuncDecl) (string, int) {
	i := 0
	for _, field := range fn.Type.Params.List {
		names := len(field.Names)
		for _, n := range field.Names {
			if id, ok := field.Type.(*ast.Ident); ok && id.Name == "string" && n.Name == "format" {
				return n.Name, i
			}
			i++
		}
		if names == 0 {
			i++
		}
	}
	return "", 0
}

// takesFormat reports whether a call, in the package of directory dir, is to a constructor of this
// package or to a wrapper of one, and the index of its format.
func takesFormat(c *ast.CallExpr, dir string, inPatio bool, wrapped map[string]int) (int, bool) {
	switch fn := c.Fun.(type) {
	case *ast.Ident:
		if i, ok := wrapped[dir+"."+fn.Name]; ok {
			return i, true
		}
		if i, ok := constructors[fn.Name]; ok && inPatio && fn.Name != "Add" {
			return i, true
		}
	case *ast.SelectorExpr:
		name := fn.Sel.Name
		if x, ok := fn.X.(*ast.Ident); ok && x.Name == "patio" && name != "Add" {
			i, ok := constructors[name]
			return i, ok
		}
		// Problems.Add: the first argument says where the problem is (InBody, ..., or an in
		// passed on).
		if name == "Add" && len(c.Args) >= 3 && isWhere(c.Args[0]) {
			return constructors["Add"], true
		}
	}
	return 0, false
}

// isWhere reports whether e names where a problem is: one of the In constants, or a variable in.
func isWhere(e ast.Expr) bool {
	where := []string{"InBody", "InQuery", "InHeader", "InPath"}
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "in" || slices.Contains(where, x.Name)
	case *ast.SelectorExpr:
		return slices.Contains(where, x.Sel.Name)
	}
	return false
}

// isSelector reports whether e is pkg.name.
func isSelector(e ast.Expr, pkg, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == pkg && s.Sel.Name == name
}

// constant returns the value of a string literal, or of literals joined with +.
func constant(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, ok1 := constant(x.X)
		b, ok2 := constant(x.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return constant(x.X)
	}
	return "", false
}
