package consoletest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestKeyScopesReadable: the keys page names a key's scopes, in its list and its form, in the
// reader's language rather than by their codes.
func TestKeyScopesReadable(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	open(t, ctx, "/console/keys")
	row := text(t, ctx, "main tbody tr")
	label := text(t, ctx, `label:has(input[name=scopes][value="vehicles:write"])`)
	if strings.Contains(row, "vehicles:read") || !strings.Contains(row, "Veículos (ler)") || !strings.Contains(label, "Veículos (alterar)") {
		t.Errorf("the keys page reads the scopes as %q, the form as %q; want them named in Portuguese", row, label)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), "en"))
	submit(t, ctx, `header form[action$="/console/language"] button`)
	open(t, ctx, "/console/keys")
	if page := pageText(t, ctx); !strings.Contains(page, "Vehicles (read)") || !strings.Contains(page, "Deals (write)") {
		t.Errorf("the English keys page does not name the scopes in English: %s", page)
	}
}
