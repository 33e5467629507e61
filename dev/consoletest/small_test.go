package consoletest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/patio"
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

// TestDeliveriesShowEventID: a webhook's deliveries list each one's event id (as the receiver got
// it in webhook-id), and the id typed in capitals finds its delivery, in both languages.
func TestDeliveriesShowEventID(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(200))
	id, secret := createWebhook(t, ctx, r.url(), "deal.won")
	r.trust(secret)
	open(t, ctx, "/console/webhooks/"+id)
	with(t, ctx, chromedp.SetValue(chromedp.ID("test-type"), "deal.won"))
	submit(t, ctx, `form[action$="/test"] button`)
	waitFor(t, "the test event at the receiver", 15*time.Second, func() bool { return len(r.deliveries()) == 1 })
	eventID, _ := r.deliveries()[0].Event["id"].(string)

	list := "/console/webhooks/" + id + "/deliveries"
	for _, lang := range []string{"pt-BR", "en"} {
		if lang == "en" {
			with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), "en"))
			submit(t, ctx, `header form[action$="/console/language"] button`)
		}
		open(t, ctx, list)
		// Shown, not only read to a screen reader (the row's link names it too).
		if !value(t, ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll("main tbody tr code")].some(c => c.innerText === `+strconv.Quote(eventID)+`)`)) {
			t.Errorf("%s: the deliveries list reads %q; want the event id %s shown", lang, text(t, ctx, "main tbody tr"), eventID)
		}
		open(t, ctx, list+"?"+url.Values{"event": {strings.ToUpper(eventID)}}.Encode())
		if n := count(t, ctx, "main tbody tr"); n != 1 {
			t.Errorf("%s: the search by the event id in capitals lists %d rows; want its delivery", lang, n)
		}
	}
}

// TestFinancialSmallThings: a bookkeeper's cost in a revenue category is refused naming the cost
// categories by their labels, not their codes; a pending record past its due date is flagged
// overdue in the list; both in both languages.
func TestFinancialSmallThings(t *testing.T) {
	tm := newTeam(t)
	ctx, _ := invite(t, tm, patio.RoleMember)
	for _, lang := range []struct {
		code, label, late string
	}{{"pt-BR", "higienização", "vencido"}, {"en", "cleaning", "overdue"}} {
		if lang.code == "en" {
			with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), "en"))
			submit(t, ctx, `header form[action$="/console/language"] button`)
		}
		open(t, ctx, "/console/financial/new")
		with(t, ctx, chromedp.SetValue(chromedp.ID("type"), "cost"), chromedp.SetValue(chromedp.ID("category"), "comissao"),
			chromedp.SendKeys(chromedp.ID("description"), "Funilaria "+lang.code), chromedp.SendKeys(chromedp.ID("amount"), "100"),
			chromedp.SetValue(chromedp.ID("due_date"), "2020-01-15"))
		if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusUnprocessableEntity {
			t.Fatalf("%s: a cost in a revenue category = %d; want 422", lang.code, got)
		}
		if p := text(t, ctx, "#category-problem"); strings.Contains(p, "higienizacao") || !strings.Contains(p, lang.label) {
			t.Errorf("%s: the category problem reads %q; want the cost categories by their labels (%s)", lang.code, p, lang.label)
		}
		with(t, ctx, chromedp.SetValue(chromedp.ID("category"), "funilaria"))
		if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
			t.Fatalf("%s: a cost due in 2020 = %d; want it created: %s", lang.code, got, pageText(t, ctx))
		}
		open(t, ctx, "/console/financial")
		row := value(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("main tbody tr")].find(r => r.innerText.includes("Funilaria `+lang.code+`")).innerText`))
		if !strings.Contains(row, lang.late) {
			t.Errorf("%s: the list's row of a pending cost due in 2020 reads %q; want it flagged %q", lang.code, row, lang.late)
		}
	}
}

// TestTeamPageOneLanguage: the team page names the local stack, which made the first owner, in the
// page's language.
func TestTeamPageOneLanguage(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	open(t, ctx, "/console/team")
	if page := pageText(t, ctx); strings.Contains(page, "local stack") || !strings.Contains(page, "ambiente local") {
		t.Errorf("the Portuguese team page names its first owner's inviter in English: %s", page)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), "en"))
	submit(t, ctx, `header form[action$="/console/language"] button`)
	open(t, ctx, "/console/team")
	if page := pageText(t, ctx); !strings.Contains(page, "the local stack") {
		t.Errorf("the English team page does not name the local stack: %s", page)
	}
}
