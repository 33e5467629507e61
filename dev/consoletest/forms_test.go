package consoletest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// inEnglish switches a session to English and returns a console page's text as it reads then.
func inEnglish(t *testing.T, session, path string) string {
	t.Helper()
	c := newClient(t, session)
	c.post("/console/language", url.Values{"lang": {"en"}, "back": {path}}, nil)
	resp, body := c.get(path)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("English GET %s = %d", path, resp.StatusCode)
	}
	return body
}

// apiTotal returns the total of a list of the public API.
func apiTotal(t *testing.T, key, path string) int {
	t.Helper()
	var out struct {
		Pagination struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	apiRead(t, key, path, &out)
	return out.Pagination.Total
}

// pathOf is the browser's location without its origin and query.
func pathOf(ctx context.Context) string {
	p, _, _ := strings.Cut(strings.TrimPrefix(location(ctx), stack.ConsoleURL), "?")
	return p
}

// TestSaleRevenueRecordedOnce: a hurried salesperson records a won deal's revenue, goes Back and
// sends the same form again: the second post creates nothing and shows the record the first
// made; a reload of the form's page keeps it that way. The won deal then says its revenue was
// recorded and links to it, with no button to record it again, in both languages.
func TestSaleRevenueRecordedOnce(t *testing.T) {
	tm := newTeam(t)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Maria da Silva","cpf":"52998224725"}`)
	vehicle := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":65990}`)
	deal := createJSON(t, tm.Key, "deals", `{"title":"Argo da Maria","client_id":"`+client+`","vehicle_id":"`+vehicle+`","payment_method":"pix"}`)
	apiSend(t, tm.Key, http.MethodPut, "/api/v1/deals/"+deal, `{"status":"ganho"}`, http.StatusOK)
	ctx, session := invite(t, tm, patio.RoleMember)

	open(t, ctx, "/console/deals/"+deal)
	submit(t, ctx, `main .done a.button`)
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("record the revenue = %d: %s", got, pageText(t, ctx))
	}
	record := pathOf(ctx)
	if !strings.HasPrefix(record, "/console/financial/") {
		t.Fatalf("after recording the revenue the browser is at %s; want the record's page", record)
	}

	// Back to the form, and the same button again; then a reload of the form and once more.
	with(t, ctx, chromedp.NavigateBack())
	if got := submit(t, ctx, `main form[action$="/console/financial"] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("the form sent again = %d: %s", got, pageText(t, ctx))
	}
	if got := pathOf(ctx); got != record {
		t.Errorf("the form sent again leads to %s; want the record the first post made (%s)", got, record)
	}
	if p := pageText(t, ctx); !strings.Contains(p, "já tinha sido enviado") {
		t.Errorf("the form sent again does not say it was already sent: %s", p)
	}
	with(t, ctx, chromedp.NavigateBack(), chromedp.Reload())
	submit(t, ctx, `main form[action$="/console/financial"] button[type=submit]`)

	fin := patio.NewFinancial(stack.Store.Financial(), accountdb.NewAccounts(stack.Store.DB()).Team)
	page, err := fin.List(context.Background(), tm.TeamID, patio.FinancialQuery{DealID: &deal})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 {
		t.Fatalf("the deal has %d revenue records after Back and resubmit; want 1", len(page.Items))
	}

	open(t, ctx, "/console/deals/"+deal)
	if n := count(t, ctx, `main a[href*="/console/financial/new"]`); n != 0 {
		t.Errorf("the won deal still offers to record its revenue (%d links) after it was recorded", n)
	}
	link := `main .done a[href$="` + record + `"]`
	if n := count(t, ctx, link); n != 1 || !strings.Contains(text(t, ctx, "main .done"), "já foi registrada") {
		t.Errorf("the won deal's page does not say its revenue was recorded, with a link to it: %s", pageText(t, ctx))
	}
	if p := inEnglish(t, session, "/console/deals/"+deal); !strings.Contains(p, "revenue was recorded") || !strings.Contains(p, record) {
		t.Errorf("in English the won deal's page does not say its revenue was recorded, with a link to it")
	}
}

// TestNewFormBackAndResubmit: the same for every new-record form, here a vehicle: Back after
// creating it and the same form sent again creates no second vehicle.
func TestNewFormBackAndResubmit(t *testing.T) {
	tm := newTeam(t)
	ctx, _ := invite(t, tm, patio.RoleMember)
	open(t, ctx, "/console/vehicles/new")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("brand"), "Fiat"), chromedp.SendKeys(chromedp.ID("model"), "Pulse"),
		chromedp.SendKeys(chromedp.ID("price"), "99.990,00"))
	submit(t, ctx, `main form button[type=submit]`)
	first := pathOf(ctx)
	with(t, ctx, chromedp.NavigateBack())
	submit(t, ctx, `main form button[type=submit]`)
	if got := pathOf(ctx); got != first {
		t.Errorf("the vehicle form sent again leads to %s; want the vehicle the first post made (%s)", got, first)
	}
	if n := apiTotal(t, tm.Key, "/api/v1/vehicles"); n != 1 {
		t.Errorf("the API lists %d vehicles after Back and resubmit; want 1", n)
	}
}

// TestIrreversibleActionsAskFirst: winning a deal (it sells the vehicle for good), reversing a
// payment and disabling a webhook each ask first, and asking changes nothing. The win's question
// names the payment method, and asks for one when none was chosen.
func TestIrreversibleActionsAskFirst(t *testing.T) {
	tm := newTeam(t)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Maria da Silva","cpf":"52998224725"}`)
	argo := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":65990}`)
	mobi := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Mobi","price":54990}`)
	blank := createJSON(t, tm.Key, "deals", `{"title":"Argo da Maria","client_id":"`+client+`","vehicle_id":"`+argo+`"}`)
	chosen := createJSON(t, tm.Key, "deals", `{"title":"Mobi da Maria","client_id":"`+client+`","vehicle_id":"`+mobi+`"}`)
	ctx, session := invite(t, tm, patio.RoleOwner)

	// No payment method: the question asks for one.
	open(t, ctx, "/console/deals/"+blank)
	if got := submit(t, ctx, `form[action$="/win"] button`); got != http.StatusOK || count(t, ctx, "main .confirm form") != 1 {
		t.Fatalf("win = %d at %s; want the confirmation page", got, location(ctx))
	}
	if obj := apiGet(t, tm.Key, "/api/v1/deals/"+blank); obj["status"] != "ativo" {
		t.Fatalf("asking to win already won the deal: %v", obj["status"])
	}
	if n := count(t, ctx, `main .confirm select[name=payment_method][required]`); n != 1 {
		t.Fatalf("the win's question for a deal without a payment method does not ask for one: %s", pageText(t, ctx))
	}
	with(t, ctx, chromedp.SetValue(chromedp.CSS(`main .confirm select[name=payment_method]`), "boleto"))
	submit(t, ctx, `main .confirm button[type=submit]`)
	if obj := apiGet(t, tm.Key, "/api/v1/deals/"+blank); obj["status"] != "ganho" || obj["payment_method"] != "boleto" {
		t.Errorf("after confirming the API reads the deal as %v / %v; want ganho by boleto", obj["status"], obj["payment_method"])
	}

	// A method chosen on the deal's page: the question names it, in both languages.
	open(t, ctx, "/console/deals/"+chosen)
	with(t, ctx, chromedp.SetValue(chromedp.ID("win-method"), "financiamento"))
	submit(t, ctx, `form[action$="/win"] button`)
	if p := text(t, ctx, "main .confirm"); !strings.Contains(p, "Forma de pagamento: financiamento") || !strings.Contains(p, "Mobi") {
		t.Errorf("the win's question = %q; want the payment method and the vehicle named", p)
	}
	c := newClient(t, session)
	c.post("/console/language", url.Values{"lang": {"en"}, "back": {"/console/"}}, nil)
	if _, body := c.post("/console/deals/"+chosen+"/win", url.Values{"team": {tm.TeamID}, "payment_method": {"financiamento"}}, nil); !strings.Contains(body, "Payment method: financing") {
		t.Errorf("the English win question does not name the payment method")
	}
	c.post("/console/language", url.Values{"lang": {"pt-BR"}, "back": {"/console/"}}, nil)
	if obj := apiGet(t, tm.Key, "/api/v1/deals/"+chosen); obj["status"] != "ativo" {
		t.Errorf("asking to win already won the deal: %v", obj["status"])
	}

	// Reversing a payment.
	fin := patio.NewFinancial(stack.Store.Financial(), accountdb.NewAccounts(stack.Store.DB()).Team)
	due, _ := patio.ParseDate("2030-07-09")
	rec, err := fin.Create(context.Background(), tm.TeamID, patio.FinancialInput{Type: patio.Some("revenue"),
		Category: patio.Some("comissao"), Description: patio.Some("Comissão do Argo"), Amount: patio.Some(money.Cents(150000)),
		DueDate: patio.Some(due), PaymentMethod: patio.Some("pix")})
	if err != nil {
		t.Fatal(err)
	}
	if rec, err = fin.Update(context.Background(), tm.TeamID, rec.ID, patio.FinancialInput{Status: patio.Some(string(patio.FinancialPaid))}); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, "/console/financial/"+rec.ID)
	if got := submit(t, ctx, `form[action$="/reopen"] button`); got != http.StatusOK || count(t, ctx, "main .confirm form") != 1 {
		t.Fatalf("Estornar = %d at %s; want the confirmation page", got, location(ctx))
	}
	if got, _ := fin.Get(context.Background(), tm.TeamID, rec.ID); got.Status != patio.FinancialPaid {
		t.Fatalf("asking to reverse the payment already reversed it: %s", got.Status)
	}
	submit(t, ctx, `main .confirm button[type=submit]`)
	if got, _ := fin.Get(context.Background(), tm.TeamID, rec.ID); got.Status != patio.FinancialPending {
		t.Errorf("after confirming the reversal the record is %s; want pending", got.Status)
	}

	// Disabling a webhook.
	r := newReceiver(t, always(200))
	hook, _ := createWebhook(t, ctx, r.url(), "vehicle.created")
	open(t, ctx, "/console/webhooks/"+hook)
	if got := submit(t, ctx, `form[action$="/disable"] button`); got != http.StatusOK || count(t, ctx, "main .confirm form") != 1 {
		t.Fatalf("disable = %d at %s; want the confirmation page", got, location(ctx))
	}
	if w, _ := webhookdb.New(stack.Store.DB()).Webhook(context.Background(), tm.TeamID, hook); w.Status != "active" {
		t.Fatalf("asking to disable the webhook already disabled it: %s", w.Status)
	}
	submit(t, ctx, `main .confirm button[type=submit]`)
	if w, _ := webhookdb.New(stack.Store.DB()).Webhook(context.Background(), tm.TeamID, hook); w.Status != "disabled" {
		t.Errorf("after confirming the webhook is %s; want disabled", w.Status)
	}
}

// TestPayFormDefaultsToRecordMethod: the pay form offers the record's own payment method first.
func TestPayFormDefaultsToRecordMethod(t *testing.T) {
	tm := newTeam(t)
	due, _ := patio.ParseDate("2030-07-09")
	rec, err := patio.NewFinancial(stack.Store.Financial(), accountdb.NewAccounts(stack.Store.DB()).Team).Create(context.Background(), tm.TeamID,
		patio.FinancialInput{Type: patio.Some("revenue"), Category: patio.Some("venda-veiculo"), Description: patio.Some("Venda do Argo"),
			Amount: patio.Some(money.Cents(6599000)), DueDate: patio.Some(due), PaymentMethod: patio.Some("boleto")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ := invite(t, tm, patio.RoleMember)
	open(t, ctx, "/console/financial/"+rec.ID)
	if v := value(t, ctx, chromedp.Value(chromedp.ID("pay_method"))); v != "boleto" {
		t.Errorf("the pay form's method = %q; want the record's own (boleto)", v)
	}
}

// TestBackAfterRemovingMember: Back after removing a member (asked first, then a 303 to the team
// page) lands on a console page, never on a form the browser offers to send again.
func TestBackAfterRemovingMember(t *testing.T) {
	tm := newTeam(t)
	ctx, _ := invite(t, tm, patio.RoleOwner)
	email := "vendedor@dealer.example"
	if _, err := stack.Owner(context.Background(), tm.TeamID, email, "Member-Password-3!"); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, "/console/team")
	confirmed(t, ctx, `form[action$="/members/`+email+`/remove"] button`)
	if got := pathOf(ctx); got != "/console/team" {
		t.Fatalf("after removing the member the browser is at %s; want the team page", got)
	}
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, _ = chromedp.Run(c, chromedp.NavigateBack())
	cancel()
	if u := location(ctx); !strings.HasPrefix(u, stack.ConsoleURL) {
		t.Errorf("Back after removing a member shows %q; want a console page, not a resubmission", u)
	}
}

// TestBoardSmallThings: a new card's age reads "hoje" ("today"), not "há 0 dias"; moving a card
// to its own phase says nothing changed; a deal's page shows its expected close date.
func TestBoardSmallThings(t *testing.T) {
	tm := newTeam(t)
	ctx, session := invite(t, tm, patio.RoleMember)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Maria da Silva","cpf":"52998224725"}`)
	deal := createJSON(t, tm.Key, "deals", `{"title":"Argo da Maria","client_id":"`+client+`","phase":"visita","expected_close_date":"2030-12-20"}`)
	open(t, ctx, "/console/deals")
	card := value(t, ctx, chromedp.Evaluate[string](`document.getElementById("move-`+deal+`").closest("article").innerText`))
	if !strings.Contains(card, "hoje") || strings.Contains(card, "0 dias") {
		t.Errorf("a new card's age reads %q; want hoje", card)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("move-"+deal), "visita"))
	submit(t, ctx, `form[action$="/deals/`+deal+`/phase"] button`)
	if d := text(t, ctx, "p.done"); strings.Contains(d, "movido") || !strings.Contains(d, "já estava") {
		t.Errorf("moving a card to its own phase says %q; want that nothing changed", d)
	}
	open(t, ctx, "/console/deals/"+deal)
	if p := pageText(t, ctx); !strings.Contains(p, "20/12/2030") {
		t.Errorf("the deal's page does not show its expected close date 20/12/2030: %s", p)
	}
	if en := inEnglish(t, session, "/console/deals"); !strings.Contains(en, "today") || strings.Contains(en, "0 days") {
		t.Errorf("in English a new card's age does not read today")
	}
	if en := inEnglish(t, session, "/console/deals/"+deal); !strings.Contains(en, "Dec 20, 2030") {
		t.Errorf("in English the deal's page does not show its expected close date Dec 20, 2030")
	}
}

// TestActivityDuePastWarns: an activity saved with a due time in the past (2020, a year typed
// wrong) is saved, as the domain allows, and the message says its due time has passed.
func TestActivityDuePastWarns(t *testing.T) {
	tm := newTeam(t)
	ctx, session := invite(t, tm, patio.RoleMember)
	open(t, ctx, "/console/activities/new")
	with(t, ctx, chromedp.SetValue(chromedp.ID("type"), "call"), chromedp.SendKeys(chromedp.ID("title"), "Ligar para a Maria"),
		chromedp.SetValue(chromedp.ID("due_at"), "2020-01-10T10:00"))
	submit(t, ctx, `main form button[type=submit]`)
	if d := text(t, ctx, "p.done"); !strings.Contains(d, "já passou") {
		t.Errorf("an activity due in 2020 is created saying %q; want a warning that its due time has passed", d)
	}
	if en := inEnglish(t, session, strings.TrimPrefix(location(ctx), stack.ConsoleURL)); !strings.Contains(en, "already passed") {
		t.Errorf("in English the past due warning is missing")
	}
}

// TestSecretFormsBackAndResubmit: Back after creating an API key or a webhook (whose answer shows
// its secret once) and the same form sent again creates no second one and shows no secret.
func TestSecretFormsBackAndResubmit(t *testing.T) {
	tm := newTeam(t)
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)

	open(t, ctx, "/console/keys")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("name"), "marketplace"),
		chromedp.Click(chromedp.CSS(`input[name=scopes][value="vehicles:read"]`)))
	if got := submit(t, ctx, `form[aria-labelledby=new-key-title] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("create key = %d", got)
	}
	key := text(t, ctx, "#new-key")
	with(t, ctx, chromedp.NavigateBack())
	submit(t, ctx, `form[aria-labelledby=new-key-title] button[type=submit]`)
	if n := count(t, ctx, "#new-key"); n != 0 || !strings.Contains(pageText(t, ctx), "já tinha sido enviado") {
		t.Errorf("the key form sent again after Back shows %d new keys and says %q; want none, and that it was already sent",
			n, text(t, ctx, "main"))
	}
	open(t, ctx, "/console/keys")
	rows := value(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("main tbody tr")].filter(r => r.innerText.includes("marketplace")).length`))
	if rows != 1 {
		t.Errorf("the keys page lists %d keys named marketplace after Back and resubmit; want 1 (%s…)", rows, key[:12])
	}

	r := newReceiver(t, always(200))
	id, _ := createWebhook(t, ctx, r.url(), "vehicle.created")
	with(t, ctx, chromedp.NavigateBack())
	submit(t, ctx, `main form button[type=submit]`)
	if got := pathOf(ctx); got != "/console/webhooks/"+id || count(t, ctx, "#secret") != 0 {
		t.Errorf("the webhook form sent again after Back leads to %s (secret shown: %d); want the first webhook, no secret",
			got, count(t, ctx, "#secret"))
	}
	open(t, ctx, "/console/webhooks")
	if n := count(t, ctx, `main tbody tr`); n != 1 {
		t.Errorf("the webhooks page lists %d webhooks after Back and resubmit; want 1", n)
	}
}
