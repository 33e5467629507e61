// Package render holds the console's pages as files: the HTML templates (the common layout and
// pieces in templates/common, one view per page in templates/views), the helpers the templates
// call that need no request, and the stylesheet and script under static/, all embedded in the
// binary. A page's template set is parsed on the page's first use: a cold start parses only what
// it serves. Package console fills the templates with a request's view and writes the answer.
package render

import (
	"embed"
	"html/template"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/webhook"
)

//go:embed templates static
var assets embed.FS

// pages holds each page's template set (the common layout and pieces, and the page's view), parsed
// on the page's first use: a cold start parses only what it serves.
var pages sync.Map // name → *page

// page is one page's template set, made once however many requests ask for it at the same time.
type page struct {
	once sync.Once
	t    *template.Template
	err  error
}

// Page returns a page's template set, whose "layout" template writes the page; false when the
// console has no such view. The first call parses and escapes it; calls meanwhile wait for it.
func Page(name string) (*template.Template, bool) {
	e, _ := pages.LoadOrStore(name, new(page))
	p := e.(*page)
	p.once.Do(func() {
		if p.t, p.err = parsePage(name); p.err == nil {
			// html/template escapes a set on its first execution; done here, with no data (which
			// ends the execution at its first field), a page prepared while its request waits on
			// DynamoDB leaves the request only the writing.
			_ = p.t.ExecuteTemplate(io.Discard, "layout", nil)
		}
	})
	return p.t, p.err == nil
}

// parsePage parses a page's view with the common templates.
func parsePage(name string) (*template.Template, error) {
	view := "templates/views/" + name + ".html"
	if _, err := fs.Stat(assets, view); err != nil {
		return nil, err
	}
	return template.New(name).Funcs(Funcs).ParseFS(assets, "templates/common/*.html", view)
}

// Funcs are the templates' helpers that need no request.
var Funcs = template.FuncMap{
	"join":      strings.Join,
	"hasSuffix": strings.HasSuffix,
	"contains": func(list []string, s string) bool {
		return slices.Contains(list, s)
	},
	"query": query,
	// qs is a query string the console built with url.Values.Encode: escaped already, so the
	// template must not escape its = and & again.
	"qs":    func(s string) template.URL { return template.URL(s) }, //nolint:gosec // built by Encode
	"list":  func(s ...string) []string { return s },
	"cents": func(c money.Cents) int64 { return int64(c) },
	"str":   func(p *string) string { return derefOr(p, "") },
	"int":   func(r webhook.Rate) int { return int(r) },
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			m[k] = kv[i+1]
		}
		return m
	},
}

// query builds a link's query string from name/value pairs, already escaped (url.Values.Encode):
// typed as a URL so that the template does not escape its = and & a second time.
func query(kv ...string) template.URL {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return template.URL(v.Encode()) //nolint:gosec // every value is escaped by Encode
}

// derefOr is *s, or def when s is nil.
func derefOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}
