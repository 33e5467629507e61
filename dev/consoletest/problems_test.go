package consoletest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/patio"
)

// summary returns the refused form's summary of problems (its items), failing the test unless the
// page has one that holds the keyboard's focus.
func summary(t *testing.T, ctx context.Context) []string {
	t.Helper()
	if !value(t, ctx, chromedp.Evaluate[bool](`!!document.activeElement && document.activeElement.matches(".problems[tabindex='-1']")`)) {
		t.Errorf("the refused form's summary does not have the focus (focused: %s)",
			value(t, ctx, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : "none"`)))
	}
	return value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".problems li")].map(li => li.innerText)`))
}

// TestProblemsAllAtOnce: a hurried salesperson sends a vehicle with an unreadable price and years
// that do not agree, an empty deal, and a loss without its reason: each refused form lists every
// problem next to its field and in a summary at the top that takes the focus, in both languages.
func TestProblemsAllAtOnce(t *testing.T) {
	tm := newTeam(t)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Maria da Silva","cpf":"52998224725"}`)
	deal := createJSON(t, tm.Key, "deals", `{"title":"Argo da Maria","client_id":"`+client+`"}`)
	ctx, _ := invite(t, tm, patio.RoleMember)

	vehicle := func() {
		t.Helper()
		open(t, ctx, "/console/vehicles/new")
		with(t, ctx, chromedp.SendKeys(chromedp.ID("brand"), "Fiat"), chromedp.SendKeys(chromedp.ID("model"), "Argo"),
			chromedp.SendKeys(chromedp.ID("price"), "abc"), chromedp.SendKeys(chromedp.ID("model_year"), "2024"),
			chromedp.SendKeys(chromedp.ID("manufacture_year"), "2020"))
		if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusUnprocessableEntity {
			t.Fatalf("a vehicle with an unreadable price and years apart = %d; want 422", got)
		}
		for _, field := range []string{"price", "model_year"} {
			if n := count(t, ctx, "#"+field+"-problem"); n != 1 {
				t.Errorf("the refused vehicle has %d problems next to %s; want 1: %s", n, field, pageText(t, ctx))
			}
		}
		if got := summary(t, ctx); len(got) != 2 {
			t.Errorf("the refused vehicle's summary lists %q; want the price's and the years' problems", got)
		}
	}
	emptyDeal := func() []string {
		t.Helper()
		open(t, ctx, "/console/deals/new")
		if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusUnprocessableEntity {
			t.Fatalf("an empty deal = %d; want 422", got)
		}
		for _, field := range []string{"title", "client"} {
			if n := count(t, ctx, "#"+field+"-problem"); n != 1 {
				t.Errorf("the empty deal has %d problems next to %s; want 1: %s", n, field, pageText(t, ctx))
			}
		}
		got := summary(t, ctx)
		if len(got) != 2 {
			t.Errorf("the empty deal's summary lists %q; want the title's and the client's problems", got)
		}
		return got
	}
	lose := func() string {
		t.Helper()
		open(t, ctx, "/console/deals/"+deal)
		if got := submit(t, ctx, `form[action$="/lose"] button[type=submit]`); got != http.StatusUnprocessableEntity {
			t.Fatalf("losing a deal without a reason = %d; want 422", got)
		}
		p := text(t, ctx, "#lost_reason-problem")
		if got := summary(t, ctx); len(got) != 1 || got[0] != p {
			t.Errorf("losing without a reason: summary %q, next to the field %q; want the one problem in both", got, p)
		}
		return p
	}

	vehicle()
	if got := emptyDeal(); !strings.Contains(strings.Join(got, " "), "Cliente") {
		t.Errorf("the empty deal's summary reads %q; want the client named by its label", got)
	}
	if p := lose(); !strings.Contains(p, "motivo") {
		t.Errorf("the loss without a reason reads %q; want it to ask for the reason in Portuguese", p)
	}

	with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), "en"))
	submit(t, ctx, `header form[action$="/console/language"] button`)
	vehicle()
	if got := emptyDeal(); !strings.Contains(strings.Join(got, " "), "Client") {
		t.Errorf("the empty deal's English summary reads %q; want the client named by its label", got)
	}
	if p := lose(); !strings.Contains(p, "reason") || strings.Contains(p, "lost_reason") {
		t.Errorf("the English loss without a reason reads %q; want it to ask for the reason by its label", p)
	}
	if h := text(t, ctx, ".problems"); !strings.Contains(h, "Fix") {
		t.Errorf("the English summary reads %q; want its heading in English", h)
	}
}
