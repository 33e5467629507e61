package docblocks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The project's docs, the ones a newcomer reads.
var projectDocs = []string{"README.md", "docs/*.md", "openapi.yaml", "template.yaml"}

// TestDocsStandAlone: the project's docs cite no file a reader of the repository does not have
// (the planning documents kept outside it), and every relative Markdown link names a file of the
// repository.
func TestDocsStandAlone(t *testing.T) {
	root := filepath.Join("..", "..")
	outside := regexp.MustCompile(`\b(CONTRACT|SPEC|STYLE)\.md\b|/work/`)
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)\s]*)?\)`)
	files := 0
	for _, pattern := range projectDocs {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range matches {
			files++
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, path)
			for i, line := range strings.Split(string(data), "\n") {
				if m := outside.FindString(line); m != "" {
					t.Errorf("%s:%d cites %s, which is not in the repository: say the rule in the doc's own words", rel, i+1, m)
				}
				if !strings.HasSuffix(path, ".md") {
					continue
				}
				for _, m := range link.FindAllStringSubmatch(line, -1) {
					target := m[1]
					if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
						continue
					}
					if _, err := os.Stat(filepath.Join(filepath.Dir(path), target)); err != nil {
						t.Errorf("%s:%d links to %s, which the repository does not have", rel, i+1, target)
					}
				}
			}
		}
	}
	if files < 8 {
		t.Errorf("read %d files of %v; the docs moved?", files, projectDocs)
	}
}
