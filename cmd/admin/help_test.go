package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpDescribesEveryGroup: `admin --help` names every command group in its description and
// lists each with a summary, so a group added later must be described too.
func TestHelpDescribesEveryGroup(t *testing.T) {
	var out bytes.Buffer
	root, _ := newRoot(&out)
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	groups := 0
	for _, cmd := range root.Commands() {
		if cmd.Name() == "help" || cmd.Name() == "completion" {
			continue
		}
		groups++
		if !strings.Contains(root.Long, cmd.Name()) {
			t.Errorf("admin's description does not mention %q:\n%s", cmd.Name(), root.Long)
		}
		if cmd.Short == "" || !strings.Contains(help, cmd.Short) {
			t.Errorf("admin --help does not summarize %q (Short %q)", cmd.Name(), cmd.Short)
		}
	}
	if groups < 7 {
		t.Errorf("admin has %d command groups; want at least teams, keys, webhooks, deliveries, activities, financial, maintenance", groups)
	}
}

// TestOperatorWithoutUSER: with $USER unset (a container, cron), the audit log names the account
// the tool runs as, not "@host".
func TestOperatorWithoutUSER(t *testing.T) {
	t.Setenv("PATIO_OPERATOR", "")
	t.Setenv("USER", "")
	if id := operator().ID; strings.HasPrefix(id, "@") || id == "" {
		t.Errorf("operator() with USER unset = %q; want the process's user name", id)
	}
}
