package consoletest

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

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
