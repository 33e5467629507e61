package console

import (
	"html/template"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"testing"
)

// TestEveryViewParses: pages are parsed on first use, so a broken template would wait for its
// page's first request; every view is parsed here instead.
func TestEveryViewParses(t *testing.T) {
	views, err := fs.Glob(assets, "templates/views/*.html")
	if err != nil || len(views) < 20 {
		t.Fatalf("views = %d, %v; want the console's pages", len(views), err)
	}
	for _, v := range views {
		name := strings.TrimSuffix(path.Base(v), ".html")
		if _, err := parsePage(name); err != nil {
			t.Errorf("parse %s: %v", name, err)
		}
	}
	if _, ok := page("no-such-view"); ok {
		t.Error(`page("no-such-view") found a view`)
	}
}

// TestLinksKeepTheirFilters: a link built from filters (the overview's, a list's next page) keeps
// them: its query string is escaped once, not twice.
func TestLinksKeepTheirFilters(t *testing.T) {
	tpl, err := template.New("x").Funcs(funcs).Parse(`<a href="/console/financial?{{query "type" "revenue" "due_from" "2026-11-01"}}">a</a>` +
		`<a href="/console/audit?{{qs .}}">b</a>`)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tpl.Execute(&b, url.Values{"action": {"key.revoke"}, "cursor": {"a=b"}}.Encode()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`href="/console/financial?due_from=2026-11-01&amp;type=revenue"`,
		`href="/console/audit?action=key.revoke&amp;cursor=a%3Db"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("rendered %s; want %s", b.String(), want)
		}
	}
}
