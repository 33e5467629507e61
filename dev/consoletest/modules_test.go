package consoletest

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// hookFor registers, as the team's owner, a webhook of events to a new receiver.
func hookFor(t *testing.T, tm team, events ...string) *receiver {
	t.Helper()
	owner := browser(t)
	signIn(t, owner, tm.OwnerEmail, tm.OwnerPassword)
	r := newReceiver(t, always(200))
	_, secret := createWebhook(t, owner, r.url(), events...)
	r.trust(secret)
	return r
}

// events returns the receiver's events of type typ.
func (r *receiver) events(typ string) []delivery {
	var out []delivery
	for _, d := range r.deliveries() {
		if d.Event["type"] == typ {
			out = append(out, d)
		}
	}
	return out
}

// sao is the teams' default time zone.
var sao, _ = time.LoadLocation("America/Sao_Paulo")

// TestActivitiesAsMember plays a salesperson's day: an activity linked to a vehicle found by its
// plate, already past due, shows in the overdue view and leaves it once completed, and
// activity.completed reaches the team's HTTPS receiver.
func TestActivitiesAsMember(t *testing.T) {
	tm := newTeam(t)
	r := hookFor(t, tm, "activity.created", "activity.completed")
	createVehicle(t, tm.Key, "RIO2A26")
	ctx, _ := invite(t, tm, patio.RoleMember)

	open(t, ctx, "/console/activities/new")
	due := time.Now().In(sao).Add(-2 * time.Hour).Format("2006-01-02T15:04")
	with(t, ctx, chromedp.SetValue(chromedp.ID("type"), "call"),
		chromedp.SendKeys(chromedp.ID("title"), "Ligar para a Maria sobre o Argo"),
		chromedp.SetValue(chromedp.ID("due_at"), due),
		chromedp.SendKeys(chromedp.ID("link-vehicle"), "rio-2a26"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("create activity = %d: %s", got, pageText(t, ctx))
	}
	page := pageText(t, ctx)
	if !strings.Contains(page, "RIO2A26") || !strings.Contains(page, "ligação") {
		t.Errorf("the activity's page does not show its vehicle and type: %s", page)
	}
	activity, _, _ := strings.Cut(location(ctx), "?")

	open(t, ctx, "/console/activities?overdue=1")
	if !strings.Contains(pageText(t, ctx), "Ligar para a Maria") {
		t.Fatalf("the overdue view does not list the activity past due")
	}
	value(t, ctx, chromedp.NavigateResponse(activity))
	if got := submit(t, ctx, `form[action$="/complete"] button`); got != http.StatusOK {
		t.Fatalf("complete = %d", got)
	}
	if s := text(t, ctx, "dl.facts .badge"); s != "concluída" {
		t.Errorf("status after completing = %q; want concluída", s)
	}
	open(t, ctx, "/console/activities?overdue=1")
	if strings.Contains(pageText(t, ctx), "Ligar para a Maria") {
		t.Errorf("the overdue view still lists the completed activity")
	}
	waitFor(t, "activity.completed at the receiver", 20*time.Second, func() bool { return len(r.events("activity.completed")) == 1 })
	d := r.events("activity.completed")[0]
	if d.Problem != "" {
		t.Errorf("activity.completed did not verify: %s", d.Problem)
	}
	obj, _ := d.Event["data"].(map[string]any)["object"].(map[string]any)
	if obj["title"] != "Ligar para a Maria sobre o Argo" || obj["status"] != "completed" || obj["vehicle_id"] == nil {
		t.Errorf("activity.completed object = %v; want the activity, completed, with its vehicle", obj)
	}

	// A stale edit: the activity moved on since the form was loaded.
	value(t, ctx, chromedp.NavigateResponse(activity))
	c := newClient(t, sessionCookie(t, ctx).Value)
	if resp, _ := c.post(strings.TrimPrefix(activity, stack.ConsoleURL)+"/reopen", url.Values{"team": {tm.TeamID}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("reopen = %d", resp.StatusCode)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("title"), "Ligar amanhã"))
	if got := submit(t, ctx, `form[aria-labelledby=edit] button[type=submit]`); got != http.StatusConflict {
		t.Fatalf("the stale edit = %d; want 409", got)
	}
	if p := pageText(t, ctx); !strings.Contains(p, "Mudou desde então") || !strings.Contains(p, "Situação") {
		t.Errorf("the stale edit does not say the status changed: %s", p)
	}
}

// TestFinancialPaidAsMember: a bookkeeper pays a record in the console, with its method and the
// payment's date; financial.paid reaches the team's receiver with paid_at as given.
func TestFinancialPaidAsMember(t *testing.T) {
	tm := newTeam(t)
	r := hookFor(t, tm, "financial.paid")
	ctx, _ := invite(t, tm, patio.RoleMember)
	open(t, ctx, "/console/financial/new")
	with(t, ctx, chromedp.SetValue(chromedp.ID("type"), "cost"), chromedp.SetValue(chromedp.ID("category"), "comissao"),
		chromedp.SendKeys(chromedp.ID("description"), "Funilaria do Argo"), chromedp.SendKeys(chromedp.ID("amount"), "1.234,56"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusUnprocessableEntity {
		t.Fatalf("a cost in a revenue category = %d; want 422", got)
	}
	if p := text(t, ctx, "#category-problem"); !strings.Contains(p, "categoria") {
		t.Errorf("the category problem = %q; want it next to the category", p)
	}
	if v := value(t, ctx, chromedp.Value(chromedp.ID("amount"))); v != "1.234,56" {
		t.Errorf("the refused form's amount = %q; want the value entered", v)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("category"), "funilaria"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("create = %d: %s", got, pageText(t, ctx))
	}
	if p := pageText(t, ctx); !strings.Contains(p, "R$\u00a01.234,56") {
		t.Errorf("the record's page does not show R$ 1.234,56: %s", p)
	}
	paidAt := time.Now().In(sao).Add(-26 * time.Hour).Truncate(time.Minute)
	with(t, ctx, chromedp.SetValue(chromedp.ID("pay_method"), "pix"), chromedp.SetValue(chromedp.ID("paid_at"), paidAt.Format("2006-01-02T15:04")))
	if got := submit(t, ctx, `form[action$="/pay"] button`); got != http.StatusOK {
		t.Fatalf("pay = %d: %s", got, pageText(t, ctx))
	}
	if p := pageText(t, ctx); !strings.Contains(p, paidAt.Format("02/01/2006 15:04")) || !strings.Contains(p, "Pix") {
		t.Errorf("the paid record does not show its payment (%s, Pix): %s", paidAt.Format("02/01/2006 15:04"), p)
	}
	waitFor(t, "financial.paid at the receiver", 20*time.Second, func() bool { return len(r.events("financial.paid")) == 1 })
	obj, _ := r.events("financial.paid")[0].Event["data"].(map[string]any)["object"].(map[string]any)
	if obj["paid_at"] != patio.NewTimestamp(paidAt).String() || obj["payment_method"] != "pix" || obj["amount"] != 1234.56 {
		t.Errorf("financial.paid object = %v; want paid_at %s as given, pix, 1234.56", obj, patio.NewTimestamp(paidAt))
	}
}

// TestSummaryChartAndCSV: a period's summary totals equal the records created for it, the chart's
// bars hold the same totals per month, and the filtered list downloads as CSV that parses back to
// the same records, in Portuguese (";", decimal comma, byte order mark) and in English.
func TestSummaryChartAndCSV(t *testing.T) {
	tm := newTeam(t)
	fin := patio.NewFinancial(stack.Store.Financial(), accountdb.NewAccounts(stack.Store.DB()).Team)
	ctx := context.Background()
	records := []struct {
		typ, cat, due string
		cents         int64
	}{
		{"revenue", "venda-veiculo", "2030-03-05", 9999050}, {"revenue", "comissao", "2030-03-20", 150000},
		{"expense", "aluguel", "2030-03-10", 800000}, {"cost", "mecanica", "2030-04-02", 123456},
		{"revenue", "seguro", "2030-04-28", 50001}, {"expense", "marketing", "2030-05-15", 1},
	}
	want := map[string]int64{}
	for i, r := range records {
		due, _ := patio.ParseDate(r.due)
		_, err := fin.Create(ctx, tm.TeamID, patio.FinancialInput{Type: patio.Some(r.typ), Category: patio.Some(r.cat),
			Description: patio.Some(fmt.Sprintf("Lançamento %d; com \"aspas\"", i)), Amount: patio.Some(money.Cents(r.cents)),
			DueDate: patio.Some(due)})
		if err != nil {
			t.Fatal(err)
		}
		if r.due < "2030-05-01" {
			want[r.due[:7]+"/"+r.typ] += r.cents
			want[r.typ] += r.cents
		}
	}
	b := browser(t)
	signIn(t, b, tm.OwnerEmail, tm.OwnerPassword)
	open(t, b, "/console/financial/summary?from=2030-03-01&to=2030-04-30")
	for _, typ := range patio.FinancialTypes {
		got := value(t, b, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('#totals-by-type tr.total[data-type=%s] td[data-cents]').dataset.cents`, typ)))
		if got != strconv.FormatInt(want[typ], 10) {
			t.Errorf("summary total of %s = %s; want %d", typ, got, want[typ])
		}
	}
	bars := value(t, b, chromedp.Evaluate[[]map[string]string](`[...document.querySelectorAll("svg rect.bar")].map(r => ({month: r.dataset.month, type: r.dataset.type, cents: r.dataset.cents, h: r.getAttribute("height")}))`))
	if len(bars) != 6 {
		t.Fatalf("chart bars = %d; want 2 months × 3 types", len(bars))
	}
	for _, bar := range bars {
		if bar["cents"] != strconv.FormatInt(want[bar["month"]+"/"+bar["type"]], 10) {
			t.Errorf("bar %s %s = %s cents; want %d", bar["month"], bar["type"], bar["cents"], want[bar["month"]+"/"+bar["type"]])
		}
	}
	// Heights follow the totals: a larger total is never a shorter bar.
	for _, x := range bars {
		for _, y := range bars {
			cx, _ := strconv.ParseInt(x["cents"], 10, 64)
			cy, _ := strconv.ParseInt(y["cents"], 10, 64)
			hx, _ := strconv.Atoi(x["h"])
			hy, _ := strconv.Atoi(y["h"])
			if cx > cy && hx < hy {
				t.Errorf("bar %v is shorter than bar %v", x, y)
			}
		}
	}
	if p := pageText(t, b); !strings.Contains(p, "R$\u00a0101.490,50") {
		t.Errorf("the summary does not show March's revenue as R$ 101.490,50 (%s)", p)
	}

	session := sessionCookie(t, b).Value
	for _, lang := range []string{"pt-BR", "en"} {
		c := newClient(t, session)
		c.post("/console/language", url.Values{"lang": {lang}, "back": {"/console/financial"}}, nil)
		resp, body := c.get("/console/financial.csv?due_from=2030-03-01&due_to=2030-04-30&type=revenue&type=cost")
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/csv") {
			t.Fatalf("%s CSV = %d %s", lang, resp.StatusCode, ct)
		}
		data := []byte(body)
		comma, decimal := ',', "."
		if lang == "pt-BR" {
			if !bytes.HasPrefix(data, []byte("\ufeff")) {
				t.Errorf("the Portuguese CSV has no byte order mark")
			}
			data = bytes.TrimPrefix(data, []byte("\ufeff"))
			comma, decimal = ';', ","
		}
		cr := csv.NewReader(bytes.NewReader(data))
		cr.Comma = comma
		rows, err := cr.ReadAll()
		if err != nil {
			t.Fatalf("%s CSV does not parse: %v\n%s", lang, err, body)
		}
		// The header names the columns in the reader's language, as the page does.
		if header := map[string]string{"pt-BR": "Valor", "en": "Amount"}[lang]; len(rows) != 5 || rows[0][4] != header {
			t.Fatalf("%s CSV rows = %d (%v); want a header (%s) and 4 records", lang, len(rows), rows[0], header)
		}
		var sum int64
		for _, row := range rows[1:] {
			amount := strings.Replace(row[4], decimal, ".", 1)
			c, err := money.Parse(amount)
			if err != nil {
				t.Errorf("%s amount %q does not read back: %v", lang, row[4], err)
			}
			sum += int64(c)
			if !regexp.MustCompile(`^Lançamento \d; com "aspas"$`).MatchString(row[3]) {
				t.Errorf("%s description = %q; want it as stored", lang, row[3])
			}
		}
		if sum != want["revenue"]+want["cost"] {
			t.Errorf("%s CSV amounts add up to %d; want %d", lang, sum, want["revenue"]+want["cost"])
		}
	}
}

// TestModulesAsViewer: a viewer reads the modules but sees no control and cannot post one.
func TestModulesAsViewer(t *testing.T) {
	tm := newTeam(t)
	a, err := patio.NewActivities(stack.Store.Activities()).Create(context.Background(), tm.TeamID,
		patio.ActivityInput{Type: patio.Some("task"), Title: patio.Some("Lavar o Argo")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cookie := invite(t, tm, patio.RoleViewer)
	for _, p := range []string{"/console/activities", "/console/activities/" + a.ID, "/console/financial", "/console/financial/summary"} {
		if got := open(t, ctx, p); got != http.StatusOK {
			t.Errorf("viewer GET %s = %d", p, got)
		}
		if n := count(t, ctx, `main form[method=post]`); n != 0 {
			t.Errorf("viewer sees %d forms that change something on %s", n, p)
		}
	}
	c := newClient(t, cookie)
	for path, form := range map[string]url.Values{
		"/console/activities":                       {"type": {"task"}, "title": {"x"}, "form_token": {"v1"}},
		"/console/activities/" + a.ID + "/complete": {},
		"/console/financial":                        {"type": {"revenue"}, "category": {"comissao"}, "description": {"x"}, "amount": {"1"}, "due_date": {"2030-01-01"}, "form_token": {"v2"}},
	} {
		form.Set("team", tm.TeamID)
		if resp, _ := c.post(path, form, nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("viewer POST %s = %d; want 403", path, resp.StatusCode)
		}
	}
	if got, _ := patio.NewActivities(stack.Store.Activities()).Get(context.Background(), tm.TeamID, a.ID); got.Status != patio.ActivityPending {
		t.Errorf("after the viewer's posts the activity is %s; want pending", got.Status)
	}
}

// TestFormatsByLanguage: money and dates in pt-BR (R$ 1.234,56, dd/mm/aaaa), and in English after
// switching.
func TestFormatsByLanguage(t *testing.T) {
	tm := newTeam(t)
	due, _ := patio.ParseDate("2030-07-09")
	_, err := patio.NewFinancial(stack.Store.Financial(), accountdb.NewAccounts(stack.Store.DB()).Team).Create(context.Background(), tm.TeamID,
		patio.FinancialInput{Type: patio.Some("revenue"), Category: patio.Some("comissao"), Description: patio.Some("Comissão"),
			Amount: patio.Some(money.Cents(123456)), DueDate: patio.Some(due)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	signIn(t, ctx, tm.OwnerEmail, tm.OwnerPassword)
	open(t, ctx, "/console/financial")
	row := text(t, ctx, "main tbody tr")
	if !strings.Contains(row, "09/07/2030") || !strings.Contains(row, "R$\u00a01.234,56") || !strings.Contains(row, "receita") {
		t.Errorf("pt-BR row = %q; want 09/07/2030, R$ 1.234,56, receita", row)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), "en"))
	submit(t, ctx, `header form[action$="/console/language"] button`)
	row = text(t, ctx, "main tbody tr")
	if !strings.Contains(row, "Jul 9, 2030") || !strings.Contains(row, "R$1,234.56") || !strings.Contains(row, "revenue") {
		t.Errorf("English row = %q; want Jul 9, 2030, R$1,234.56, revenue", row)
	}
}
