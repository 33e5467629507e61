package render

import (
	"html/template"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/console/locale"
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
	if _, ok := Page("no-such-view"); ok {
		t.Error(`Page("no-such-view") found a view`)
	}
}

// TestLinksKeepTheirFilters: a link built from filters (the overview's, a list's next page) keeps
// them: its query string is escaped once, not twice.
func TestLinksKeepTheirFilters(t *testing.T) {
	tpl, err := template.New("x").Funcs(Funcs).Parse(`<a href="/console/financial?{{query "type" "revenue" "due_from" "2026-11-01"}}">a</a>` +
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

// TestTemplateKeysInBothCatalogs: every message key a template names literally ({{.T "key"}},
// {{$.T "key"}}) is in both languages' catalogs, so no page shows a raw key. The keys a template
// builds (print "delivery.status." .Status) are checked by the screens' browser test.
func TestTemplateKeysInBothCatalogs(t *testing.T) {
	files, err := fs.Glob(assets, "templates/*/*.html")
	if err != nil || len(files) == 0 {
		t.Fatalf("templates = %v, %v", files, err)
	}
	keyRE := regexp.MustCompile(`\.T "([a-z0-9_.]+)"`)
	have := map[string]map[string]bool{}
	for _, lang := range locale.Languages {
		have[lang] = map[string]bool{}
		for _, k := range locale.Keys(lang) {
			have[lang][k] = true
		}
	}
	n := 0
	for _, f := range files {
		data, err := fs.ReadFile(assets, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keyRE.FindAllStringSubmatch(string(data), -1) {
			n++
			for _, lang := range locale.Languages {
				if !have[lang][m[1]] {
					t.Errorf("%s names %q, which the %s catalog lacks", f, m[1], lang)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("found %d keys in the templates; want the console's hundreds (is the pattern still right?)", n)
	}
}
