package consoletest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/patio-dev/patio/shared/patio"
)

// lastToken is the one-time token of the last webhook form createWebhook sent.
var lastToken string

// createWebhook fills the new-webhook form for url with events and returns the secret shown.
func createWebhook(t *testing.T, ctx context.Context, target string, events ...string) (id, secret string) {
	t.Helper()
	if got := open(t, ctx, "/console/webhooks/new"); got != http.StatusOK {
		t.Fatalf("new webhook form = %d", got)
	}
	with(t, ctx, chromedp.SendKeys(chromedp.ID("url"), target))
	lastToken = value(t, ctx, chromedp.Value(chromedp.CSS(`input[name=form_token]`)))
	for _, e := range events {
		with(t, ctx, chromedp.Click(chromedp.CSS(`input[name=events][value="`+e+`"]`)))
	}
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("create webhook = %d; want 200 (the secret, once): %s", got, pageText(t, ctx))
	}
	secret = text(t, ctx, "#secret")
	href := value(t, ctx, chromedp.AttributeValue(chromedp.CSS("main a.button"), "href"))
	id = href.Value[strings.LastIndex(href.Value, "/")+1:]
	return id, secret
}

// TestWebhookCreateTestEvent: a webhook created in the console shows its secret once — on no page
// loaded later, and a second post of the same form (a reload) creates nothing and shows no secret;
// its test event reaches an HTTPS receiver that verifies the signature by both rules.
func TestWebhookCreateTestEvent(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(200))
	id, secret := createWebhook(t, ctx, r.url(), "vehicle.created", "deal.won")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret = %q; want whsec_…", secret)
	}
	r.trust(secret)

	// A reload posts the same form again: nothing more is created and the secret is not shown.
	c := newClient(t, sessionCookie(t, ctx).Value)
	resp, body := c.post("/console/webhooks", url.Values{"team": {tm.TeamID}, "form_token": {lastToken},
		"url": {r.url()}, "events": {"vehicle.created", "deal.won"}}, nil)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasSuffix(strings.SplitN(resp.Header.Get("Location"), "?", 2)[0], "/console/webhooks/"+id) ||
		strings.Contains(body, secret) {
		t.Errorf("the same form posted again = %d to %s; want 303 to the webhook, no secret", resp.StatusCode, resp.Header.Get("Location"))
	}
	open(t, ctx, "/console/webhooks")
	if n := count(t, ctx, "main tbody tr"); n != 1 {
		t.Errorf("webhooks after a reload of the creation = %d; want 1", n)
	}
	for _, p := range []string{"/console/webhooks", "/console/webhooks/" + id, "/console/webhooks/" + id + "/deliveries", "/console/"} {
		open(t, ctx, p)
		if html := value(t, ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, secret) {
			t.Errorf("%s shows the secret", p)
		}
	}

	// The test event, through the normal delivery path.
	open(t, ctx, "/console/webhooks/"+id)
	with(t, ctx, chromedp.SetValue(chromedp.ID("test-type"), "deal.won"))
	if got := submit(t, ctx, `form[action$="/test"] button`); got != http.StatusOK {
		t.Fatalf("send a test event = %d", got)
	}
	waitFor(t, "the test event at the receiver", 15*time.Second, func() bool { return len(r.deliveries()) == 1 })
	d := r.deliveries()[0]
	if d.Problem != "" {
		t.Errorf("the receiver could not verify the test event: %s", d.Problem)
	}
	if d.Event["type"] != "deal.won" || !strings.HasPrefix(d.Event["id"].(string), "evt_test_") {
		t.Errorf("test event = %v %v; want deal.won, evt_test_…", d.Event["type"], d.Event["id"])
	}
	// The delivery page reloads itself until the attempt is recorded, then shows it.
	waitFor(t, "the attempt on the delivery page", 15*time.Second, func() bool {
		return count(t, ctx, "main table tbody tr") == 1
	})
	row := text(t, ctx, "main table tbody tr")
	if !strings.Contains(row, "200") || !strings.Contains(row, "ms") || !strings.Contains(row, "receiver of the console test") {
		t.Errorf("attempt row = %q; want status 200, a duration and the response's start", row)
	}
	with(t, ctx, chromedp.Click(chromedp.CSS("details.headers summary")))
	headers := text(t, ctx, "details.headers pre")
	for _, name := range []string{"X-Service-Signature", "webhook-signature", "webhook-id", "webhook-timestamp", "User-Agent"} {
		if !strings.Contains(headers, name+": "+d.Header.Get(name)) {
			t.Errorf("the attempt's headers read\n%s\nwant %s: %s as the receiver got it", headers, name, d.Header.Get(name))
		}
	}
	if html := value(t, ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, secret) {
		t.Errorf("the delivery page shows the secret")
	}
	if sent := text(t, ctx, "#payload"); sent != string(d.Body) {
		t.Errorf("the delivery page's body reads\n%s\nthe receiver got\n%s\nwant the bytes as sent", sent, d.Body)
	}

	// A delivered event can be sent again: the same event id and body, signed anew.
	if got := submit(t, ctx, `form[action$="/replay"] button`); got != http.StatusOK {
		t.Fatalf("resend a delivered event = %d at %s", got, location(ctx))
	}
	waitFor(t, "the resent event at the receiver", 15*time.Second, func() bool { return len(r.deliveries()) == 2 })
	if again := r.deliveries()[1]; again.Problem != "" || again.Event["id"] != d.Event["id"] || string(again.Body) != string(d.Body) {
		t.Errorf("the resent event = %s (signature: %q); want the same event, verified", again.Body, again.Problem)
	}

	// The event id the receiver logged finds its delivery; another finds none.
	eventID, _ := d.Event["id"].(string)
	open(t, ctx, "/console/webhooks/"+id+"/deliveries?"+url.Values{"event": {" " + eventID + " "}}.Encode())
	if n, row := count(t, ctx, "main tbody tr"), text(t, ctx, "main"); n != 1 || !strings.Contains(row, "deal.won") {
		t.Errorf("the search by event id lists %d rows (%q); want the test event's delivery", n, row)
	}
	open(t, ctx, "/console/webhooks/"+id+"/deliveries?"+url.Values{"event": {"evt_test_0000"}}.Encode())
	if n := count(t, ctx, "main tbody tr"); n != 0 {
		t.Errorf("the search by an unknown event id lists %d rows; want none", n)
	}
}

// TestFailingReceiver: a receiver that fails: the attempts appear with status, duration and the
// response's start; the list filters by status; after six failed attempts of an event the webhook
// is disabled and says why, and is enabled again; one delivery is replayed, then the others in bulk
// after a count and a confirmation.
func TestFailingReceiver(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	var failing atomic.Bool
	failing.Store(true)
	r := newReceiver(t, func(int) int {
		if failing.Load() {
			return 503
		}
		return 200
	})
	id, secret := createWebhook(t, ctx, r.url(), "vehicle.created")
	r.trust(secret)
	createVehicle(t, tm.Key, "ABC1D23")
	createVehicle(t, tm.Key, "ABC1D24")

	// Six failed attempts of one event disable the webhook; its page says why.
	waitFor(t, "the webhook disabled", 60*time.Second, func() bool {
		open(t, ctx, "/console/webhooks/"+id)
		return text(t, ctx, "dl.facts .badge") == "desativado"
	})
	if p := pageText(t, ctx); !strings.Contains(p, "Desativado porque") || !strings.Contains(p, "503") {
		t.Errorf("the disabled webhook's page does not say why: %s", p)
	}

	open(t, ctx, "/console/webhooks/"+id+"/deliveries?status=failed")
	failed := count(t, ctx, "main table tbody tr")
	if failed == 0 || count(t, ctx, "main table tbody .badge.failed") != failed {
		t.Fatalf("the failed filter lists %d rows, %d of them failed; want only failed ones", failed,
			count(t, ctx, "main table tbody .badge.failed"))
	}
	open(t, ctx, "/console/webhooks/"+id+"/deliveries?status=succeeded")
	if n := count(t, ctx, "main table tbody tr"); n != 0 {
		t.Errorf("succeeded deliveries = %d; want 0", n)
	}
	open(t, ctx, "/console/webhooks/"+id+"/deliveries?status=failed")
	with(t, ctx, chromedp.Click(chromedp.CSS("main table tbody tr a")))
	with(t, ctx, chromedp.WaitVisible(chromedp.CSS("main table tbody tr")))
	if n := count(t, ctx, "main table tbody tr"); n != 6 {
		t.Errorf("attempts of a failed delivery = %d; want 6", n)
	}
	row := text(t, ctx, "main table tbody tr")
	if !strings.Contains(row, "503") || !strings.Contains(row, "ms") || !strings.Contains(row, "receiver of the console test") {
		t.Errorf("failed attempt = %q; want 503, a duration and the response's start", row)
	}
	delivery := location(ctx)

	open(t, ctx, "/console/webhooks/"+id)
	failing.Store(false)
	if got := submit(t, ctx, `form[action$="/enable"] button`); got != http.StatusOK {
		t.Fatalf("enable = %d", got)
	}
	if s := text(t, ctx, "dl.facts .badge"); s != "ativo" {
		t.Errorf("status after enabling = %q; want ativo", s)
	}

	value(t, ctx, chromedp.NavigateResponse(delivery))
	if got := submit(t, ctx, `form[action$="/replay"] button`); got != http.StatusOK {
		t.Fatalf("replay one = %d", got)
	}
	waitFor(t, "the replayed delivery succeeded", 20*time.Second, func() bool {
		value(t, ctx, chromedp.NavigateResponse(delivery))
		return text(t, ctx, "dl.facts .badge") == "entregue"
	})

	// Bulk replay of the others: a count, then a confirmation.
	open(t, ctx, "/console/webhooks/"+id+"/deliveries")
	with(t, ctx, chromedp.Click(chromedp.CSS(`form[action$="/replay"] input[value=failed]`)),
		chromedp.Click(chromedp.CSS(`form[action$="/replay"] input[value=cancelled]`)))
	if got := submit(t, ctx, `form[action$="/replay"] button`); got != http.StatusOK {
		t.Fatalf("bulk replay count = %d", got)
	}
	if msg := text(t, ctx, "main .card p"); msg != "Entregas a reenviar, com os mesmos ids de evento: 1." {
		t.Errorf("bulk replay asks %q; want the one remaining delivery to confirm", msg)
	}
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("bulk replay confirm = %d", got)
	}
	if done := text(t, ctx, ".done"); done != "Entregas reenviadas: 1." {
		t.Errorf("after the bulk replay: %q; want the count", done)
	}
	waitFor(t, "every delivery succeeded", 20*time.Second, func() bool {
		open(t, ctx, "/console/webhooks/"+id+"/deliveries?status=succeeded")
		return count(t, ctx, "main table tbody tr") == 2
	})
}

// createVehicle registers a vehicle through the public API with key.
func createVehicle(t *testing.T, key, plate string) string {
	t.Helper()
	return createVehicleJSON(t, key, `{"brand":"Fiat","model":"Argo","price":79990,"plate":"`+plate+`"}`)
}

// createVehicleJSON creates a vehicle of the key's team through the API and returns its id.
func createVehicleJSON(t *testing.T, key, body string) string {
	t.Helper()
	return createJSON(t, key, "vehicles", body)
}

// createJSON creates a record of the key's team through the API (resource: vehicles, clients,
// deals) and returns its id.
func createJSON(t *testing.T, key, resource, body string) string {
	t.Helper()
	return apiSend(t, key, http.MethodPost, "/api/v1/"+resource, body, http.StatusCreated)
}

// apiSend sends a JSON body to the public API with the key, fails the test unless the answer has
// the status want, and returns the id of the record it names.
func apiSend(t *testing.T, key, method, path, body string, want int) string {
	t.Helper()
	req, _ := http.NewRequest(method, stack.APIURL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != want {
		t.Fatalf("%s %s %s = %d, %v; want %d", method, path, body, resp.StatusCode, err, want)
	}
	return out.Data.ID
}

// TestRotation: after a rotation in the console, the new secret shows once with its grace period,
// and the receiver sees both signatures during the grace: X-Service-Signature by the old secret,
// X-Service-Signature-Next by the new, webhook-signature by both.
func TestRotation(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	oldR := newReceiver(t, always(200))
	id, old := createWebhook(t, ctx, oldR.url(), "*")
	open(t, ctx, "/console/webhooks/"+id)
	if got := confirmed(t, ctx, `form[action$="/rotate"] button`); got != http.StatusOK {
		t.Fatalf("rotate = %d; want 200 (the new secret, once)", got)
	}
	nu := text(t, ctx, "#secret")
	if nu == old || !strings.HasPrefix(nu, "whsec_") {
		t.Fatalf("new secret %q; want a new whsec_ secret", nu)
	}
	if !strings.Contains(pageText(t, ctx), "continua assinando até") {
		t.Errorf("the rotation page does not state the grace period")
	}
	open(t, ctx, "/console/webhooks/"+id)
	if strings.Contains(pageText(t, ctx), nu) {
		t.Errorf("the webhook's page shows the new secret")
	}
	submit(t, ctx, `form[action$="/test"] button`)
	waitFor(t, "the test event", 15*time.Second, func() bool { return len(oldR.deliveries()) == 1 })
	d := oldR.deliveries()[0]
	if p := verify([]string{old}, d.Header, d.Body, time.Now()); p != "" {
		t.Errorf("the old secret does not verify during the grace: %s", p)
	}
	if p := verify([]string{nu}, d.Header, d.Body, time.Now()); p != "" {
		t.Errorf("the new secret does not verify during the grace: %s", p)
	}
	if d.Header.Get("X-Service-Signature-Next") == "" || len(strings.Fields(d.Header.Get("webhook-signature"))) != 2 {
		t.Errorf("headers = %v; want X-Service-Signature-Next and two webhook-signature entries", d.Header)
	}
}

// TestStaleWebhookEdit: an edit of a webhook that changed since its form was loaded (in another
// tab) is refused with the fields that changed, and nothing is overwritten.
func TestStaleWebhookEdit(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(200))
	id, _ := createWebhook(t, ctx, r.url(), "vehicle.created")
	open(t, ctx, "/console/webhooks/"+id)
	// Meanwhile, another tab of the same session changes the webhook's events.
	other := newClient(t, sessionCookie(t, ctx).Value)
	_, page := other.get("/console/webhooks/" + id)
	resp, _ := other.post("/console/webhooks/"+id, url.Values{"team": {tm.TeamID}, "revision": {hidden(page, "revision")},
		"url": {r.url()}, "events": {"vehicle.created", "deal.won"}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the other tab's edit = %d; want 303", resp.StatusCode)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("url"), r.url()+"/v2"))
	if got := submit(t, ctx, `form[aria-labelledby=edit] button[type=submit]`); got != http.StatusConflict {
		t.Fatalf("the stale edit = %d; want 409", got)
	}
	p := value(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("form[aria-labelledby=edit] .problems")].map(e => e.innerText).join(" ")`))
	if !strings.Contains(p, "Mudou desde então") || !strings.Contains(p, "Eventos") || strings.Contains(p, "URL") {
		t.Errorf("the stale edit says %q; want it to name the events, which changed, and not the URL", p)
	}
	if v := value(t, ctx, chromedp.Value(chromedp.ID("url"))); v != r.url()+"/v2" {
		t.Errorf("the refused form's URL = %q; want the value entered", v)
	}
	open(t, ctx, "/console/webhooks/"+id)
	if u := text(t, ctx, "dl.facts dd"); u != r.url() {
		t.Errorf("after the refused edit the URL is %q; want %q", u, r.url())
	}
	// The form came back with the current revision: sending it again applies it.
	with(t, ctx, chromedp.SetValue(chromedp.ID("url"), r.url()+"/v2"))
	if got := submit(t, ctx, `form[aria-labelledby=edit] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("the edit after reloading = %d", got)
	}
	if u := text(t, ctx, "dl.facts dd"); u != r.url()+"/v2" {
		t.Errorf("URL = %q; want the edit", u)
	}
}

// TestWebhookFormByKeyboard: the webhook form can be filled and sent with the keyboard alone.
func TestWebhookFormByKeyboard(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(200))
	open(t, ctx, "/console/webhooks/new")
	with(t, ctx, chromedp.Focus(chromedp.ID("url")), chromedp.KeyEvent(r.url()))
	// Tab past the description to the first event ("*", every event) and tick it with the space
	// bar.
	with(t, ctx, chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent("ERP"), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(" "))
	focused := value(t, ctx, chromedp.Evaluate[string](`document.activeElement.value`))
	if focused != "*" {
		t.Fatalf("after the URL and the description, Tab reaches %q; want the every-event box", focused)
	}
	resp := value(t, ctx, func(ctx context.Context, tg *chromedp.Target) (int64, error) {
		r, err := chromedp.RunResponse(ctx, chromedp.KeyEvent(kb.Enter))
		if err != nil {
			return 0, err
		}
		return r.Status, nil
	})
	if resp != http.StatusOK || !strings.HasPrefix(text(t, ctx, "#secret"), "whsec_") {
		t.Errorf("Enter in the form = %d; want the created webhook's secret", resp)
	}
}

// TestBulkReplayNeedsConfirm: a bulk replay posted without confirm only counts.
func TestBulkReplayNeedsConfirm(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(500))
	id, secret := createWebhook(t, ctx, r.url(), "*")
	r.trust(secret)
	open(t, ctx, "/console/webhooks/"+id)
	submit(t, ctx, `form[action$="/test"] button`)
	waitFor(t, "the failed test", 15*time.Second, func() bool { return len(r.deliveries()) == 1 })
	c := newClient(t, sessionCookie(t, ctx).Value)
	form := url.Values{"team": {tm.TeamID}, "status": {"failed"}}
	resp, body := c.post("/console/webhooks/"+id+"/replay", form, nil)
	if resp.StatusCode != http.StatusOK || !regexp.MustCompile(`Entregas a reenviar, com os mesmos ids de evento: \d+`).MatchString(body) {
		t.Errorf("bulk replay without confirm = %d; want the count to confirm", resp.StatusCode)
	}
	// A replay puts its deliveries back to pending before the answer; a count leaves them failed.
	open(t, ctx, "/console/webhooks/"+id+"/deliveries?status=failed")
	if n := count(t, ctx, "main table tbody tr"); n != 1 {
		t.Errorf("failed deliveries after a count = %d; want the one still failed", n)
	}
	open(t, ctx, "/console/webhooks/"+id+"/deliveries?status=pending")
	if n := count(t, ctx, "main table tbody tr"); n != 0 {
		t.Errorf("pending deliveries after a count = %d; want none replayed", n)
	}
}

// TestWebhookMaxRate: the webhook form takes max_rate (1 to 1,000 a second; empty: none), refuses
// another value next to its field, shows it on the webhook's page, and clears it when emptied.
func TestWebhookMaxRate(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(200))
	open(t, ctx, "/console/webhooks/new")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("url"), r.url()), chromedp.Click(chromedp.CSS(`input[name=events][value="*"]`)),
		chromedp.SetAttributeValue(chromedp.ID("max_rate"), "max", "100000"), chromedp.SetValue(chromedp.ID("max_rate"), "5000"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusUnprocessableEntity {
		t.Fatalf("max_rate 5000 = %d; want 422", got)
	}
	if p := text(t, ctx, "#max_rate-problem"); !strings.Contains(p, "1000") {
		t.Errorf("the max_rate problem = %q; want its range next to the field", p)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("max_rate"), "25"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("create with max_rate 25 = %d", got)
	}
	with(t, ctx, chromedp.Click(chromedp.CSS("main a.button")))
	with(t, ctx, chromedp.WaitVisible(chromedp.CSS("dl.facts")))
	if p := pageText(t, ctx); !strings.Contains(p, "25 por segundo") {
		t.Errorf("the webhook's page does not show its max_rate: %s", p)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("max_rate"), ""))
	if got := submit(t, ctx, `form[aria-labelledby=edit] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("clear max_rate = %d", got)
	}
	if p := pageText(t, ctx); !strings.Contains(p, "sem limite") {
		t.Errorf("after clearing, the page does not say there is no limit: %s", p)
	}
}

// TestDeliveryLogAndTypeFilter: the team's log lists the deliveries of every webhook, each naming
// its webhook; the event-type filter narrows it, and a webhook's own list, to that type.
func TestDeliveryLogAndTypeFilter(t *testing.T) {
	tm := newTeam(t)
	all := hookFor(t, tm, "*")
	deals := hookFor(t, tm, "deal.created")
	vehicle := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Mobi","price":54990}`)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"João Souza","cpf":"39053344705"}`)
	createJSON(t, tm.Key, "deals", `{"title":"Mobi do João","client_id":"`+client+`","vehicle_id":"`+vehicle+`"}`)
	waitFor(t, "the events at both receivers", 60*time.Second, func() bool {
		return len(all.events("deal.created")) == 1 && len(all.events("vehicle.created")) == 1 && len(deals.events("deal.created")) == 1
	})
	ctx, _ := invite(t, tm, patio.RoleViewer)

	rows := func(path string) []string {
		t.Helper()
		if got := open(t, ctx, path); got != http.StatusOK {
			t.Fatalf("GET %s = %d", path, got)
		}
		return value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("main tbody tr")].map(r => r.innerText)`))
	}
	log := rows("/console/deliveries")
	var toAll, toDeals int
	for _, r := range log {
		switch {
		case strings.Contains(r, all.url()):
			toAll++
		case strings.Contains(r, deals.url()):
			toDeals++
		}
	}
	if toAll != 3 || toDeals != 1 {
		t.Errorf("the log lists %d deliveries to the * webhook and %d to the deal.created one (%q); want 3 and 1", toAll, toDeals, log)
	}
	if got := rows("/console/deliveries?type=deal.created"); len(got) != 2 || !strings.Contains(got[0], "deal.created") || !strings.Contains(got[1], "deal.created") {
		t.Errorf("the log filtered by deal.created lists %q; want the event's two deliveries", got)
	}
	open(t, ctx, "/console/deliveries")
	href := value(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("main tbody tr a")].find(a => a.innerText.includes("`+all.url()+`")).pathname`))
	if got := rows(href + "/deliveries?type=vehicle.created"); len(got) != 1 || !strings.Contains(got[0], "vehicle.created") {
		t.Errorf("the * webhook's list filtered by vehicle.created lists %q; want its one delivery", got)
	}
	if got := open(t, ctx, "/console/deliveries?type=vehicle.crashed"); got != http.StatusBadRequest {
		t.Errorf("an unknown event type = %d; want 400", got)
	}
}

// TestWebhookDescription: a webhook's optional description, given when it is created, shows in the
// list and on its page, and is edited there like its other settings (and audited).
func TestWebhookDescription(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(200))
	open(t, ctx, "/console/webhooks/new")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("url"), r.url()), chromedp.SendKeys(chromedp.ID("description"), "Sincronização do ERP"),
		chromedp.Click(chromedp.CSS(`input[name=events][value="*"]`)))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("create webhook = %d: %s", got, pageText(t, ctx))
	}
	open(t, ctx, "/console/webhooks")
	if row := text(t, ctx, "main tbody tr"); !strings.Contains(row, "Sincronização do ERP") {
		t.Errorf("the webhooks list reads %q; want the description", row)
	}
	submit(t, ctx, `main tbody tr a`)
	with(t, ctx, chromedp.SetValue(chromedp.ID("description"), "Estoque para o marketplace"))
	if got := submit(t, ctx, `form[aria-labelledby=edit] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("save webhook = %d: %s", got, pageText(t, ctx))
	}
	if facts := text(t, ctx, "main dl"); !strings.Contains(facts, "Estoque para o marketplace") {
		t.Errorf("the webhook's page reads %q; want the new description", facts)
	}
	open(t, ctx, "/console/audit?action=webhook.update")
	if row := text(t, ctx, "main tbody tr"); !strings.Contains(row, "Descrição") {
		t.Errorf("the audit log's webhook.update reads %q; want the description among its fields", row)
	}
}
