package console

import (
	"io/fs"
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
