package consoletest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/patio"
)

// stockSearch types into the stock's filter form as a hurried person does (the search box, a
// field of it, the rest blank) and returns the titles listed.
func stockSearch(t *testing.T, ctx context.Context, field, typed string) []string {
	t.Helper()
	open(t, ctx, "/console/vehicles")
	with(t, ctx, chromedp.SendKeys(chromedp.ID(field), typed))
	if got := submit(t, ctx, `#filters button[type=submit]`); got != http.StatusOK {
		t.Fatalf("the stock filtered by %s %q = %d: %s", field, typed, got, pageText(t, ctx))
	}
	return value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("main tbody tr td:first-child")].map(td => td.innerText)`))
}

// TestPlateEitherWay: a salesperson registers a car with an old plate typed with its dash; its page
// shows the plate as registered with its Mercosul form beside it (in both languages); the stock's
// search and plate filter find it by either spelling, with or without the dash, in any case, and
// so does the API's q.
func TestPlateEitherWay(t *testing.T) {
	tm := newTeam(t)
	createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Mobi","price":54990,"plate":"RIO2K26"}`)
	ctx, _ := invite(t, tm, patio.RoleMember)
	open(t, ctx, "/console/vehicles/new")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("brand"), "Fiat"), chromedp.SendKeys(chromedp.ID("model"), "Uno"),
		chromedp.SendKeys(chromedp.ID("plate"), "xyz-9876"), chromedp.SendKeys(chromedp.ID("price"), "30000"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK || !strings.Contains(location(ctx), "/console/vehicles/") {
		t.Fatalf("register = %d at %s: %s", got, location(ctx), pageText(t, ctx))
	}
	vehiclePage := location(ctx)
	if page := pageText(t, ctx); !strings.Contains(page, "XYZ9876 (na forma Mercosul: XYZ9I76)") {
		t.Errorf("the vehicle's page does not show the plate as registered with its Mercosul form: %s", page)
	}

	var found []string
	waitFor(t, "the search to find the Uno by its plate (the indexer's lag)", searchLag, func() bool {
		found = stockSearch(t, ctx, "q", "xyz9876")
		return len(found) == 1
	})
	for _, tc := range []struct{ field, typed string }{
		{"q", "XYZ9I76"}, {"q", "xyz-9876"}, {"q", "XYZ-9I76"}, {"q", "xyz9i"}, {"q", "uno xyz-9876"},
		{"plate", "XYZ9I76"}, {"plate", "xyz-9876"}, {"plate", "xyz9876"},
	} {
		if got := stockSearch(t, ctx, tc.field, tc.typed); len(got) != 1 || !strings.Contains(got[0], "Uno") {
			t.Errorf("the stock searched by %s %q lists %q; want the Uno", tc.field, tc.typed, got)
		}
	}
	if got := stockSearch(t, ctx, "q", "rio2k26"); len(got) != 1 || !strings.Contains(got[0], "Mobi") {
		t.Errorf("the stock searched by the Mobi's Mercosul plate lists %q; want the Mobi", got)
	}
	for _, q := range []string{"XYZ9I76", "xyz-9876", "Xyz-9i76"} {
		if n := apiTotal(t, tm.Key, "/api/v1/vehicles?"+url.Values{"q": {q}}.Encode()); n != 1 {
			t.Errorf("the API's q=%s = %d vehicles; want the Uno", q, n)
		}
	}

	with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), "en"))
	submit(t, ctx, `header form[action$="/console/language"] button`)
	open(t, ctx, strings.TrimPrefix(vehiclePage, stack.ConsoleURL))
	if page := pageText(t, ctx); !strings.Contains(page, "XYZ9876 (Mercosul form: XYZ9I76)") {
		t.Errorf("the vehicle's English page does not show the plate as registered with its Mercosul form: %s", page)
	}
}

// TestMoneyTypedTheBrazilianWay: on a Portuguese page a price typed "45.000", a filter "50.000"
// and an amount "R$ 2.500" are read as a Brazilian means them; "1,500" reads two ways and is
// refused with both, and "abc" with one message, never a second about zero; on an English page
// "1,500" is a thousand five hundred and "1.500" is the one refused.
func TestMoneyTypedTheBrazilianWay(t *testing.T) {
	tm := newTeam(t)
	ctx, _ := invite(t, tm, patio.RoleMember)
	register := func(model, price string) int64 {
		t.Helper()
		open(t, ctx, "/console/vehicles/new")
		with(t, ctx, chromedp.SendKeys(chromedp.ID("brand"), "Fiat"), chromedp.SendKeys(chromedp.ID("model"), model),
			chromedp.SendKeys(chromedp.ID("price"), price))
		return submit(t, ctx, `main form button[type=submit]`)
	}
	if got := register("Uno", "45.000"); got != http.StatusOK || !strings.Contains(location(ctx), "/console/vehicles/") {
		t.Fatalf("a price of 45.000 = %d at %s: %s", got, location(ctx), pageText(t, ctx))
	}
	if page := pageText(t, ctx); !strings.Contains(page, "R$\u00a045.000,00") {
		t.Errorf("the vehicle's page does not show R$ 45.000,00: %s", page)
	}
	if got := register("Palio", "1,500"); got != http.StatusUnprocessableEntity {
		t.Errorf("a price of 1,500 on a Portuguese page = %d; want 422", got)
	}
	if p := text(t, ctx, "#price-problem"); !strings.Contains(p, "R$\u00a01.500,00") || !strings.Contains(p, "R$\u00a01,50") {
		t.Errorf("the ambiguous price's problem reads %q; want both readings", p)
	}
	if got := register("Palio", "abc"); got != http.StatusUnprocessableEntity {
		t.Errorf("a price of abc = %d; want 422", got)
	}
	if p := text(t, ctx, "#price-problem"); !strings.Contains(p, "precisa ser um valor como") || strings.Contains(p, "zero") || strings.Contains(p, "obrigat") {
		t.Errorf("the price abc's problem reads %q; want one message", p)
	}
	if got := stockSearch(t, ctx, "price_max", "50.000"); len(got) != 1 {
		t.Errorf("the stock filtered by price_max 50.000 lists %q; want the Uno", got)
	}
	if got := stockSearch(t, ctx, "price_min", "R$ 50.000"); len(got) != 0 {
		t.Errorf("the stock filtered by price_min R$ 50.000 lists %q; want nothing", got)
	}

	amount := func(typed string) int64 {
		t.Helper()
		open(t, ctx, "/console/financial/new")
		with(t, ctx, chromedp.SetValue(chromedp.ID("type"), "expense"), chromedp.SetValue(chromedp.ID("category"), "aluguel"),
			chromedp.SendKeys(chromedp.ID("description"), "Aluguel do pátio"), chromedp.SendKeys(chromedp.ID("amount"), typed))
		return submit(t, ctx, `main form button[type=submit]`)
	}
	for _, typed := range []string{"abc", "1,500"} {
		if got := amount(typed); got != http.StatusUnprocessableEntity {
			t.Errorf("an amount of %s = %d; want 422", typed, got)
		}
		if p := text(t, ctx, "#amount-problem"); strings.Contains(p, "zero") || p == "" {
			t.Errorf("the amount %s's problem reads %q; want its own message alone, not also one about zero", typed, p)
		}
	}
	if got := amount("R$ 2.500"); got != http.StatusOK {
		t.Fatalf("an amount of R$ 2.500 = %d: %s", got, pageText(t, ctx))
	}
	if page := pageText(t, ctx); !strings.Contains(page, "R$\u00a02.500,00") {
		t.Errorf("the record's page does not show R$ 2.500,00: %s", page)
	}

	with(t, ctx, chromedp.SetValue(chromedp.ID("switch-lang"), "en"))
	submit(t, ctx, `header form[action$="/console/language"] button`)
	if got := register("Siena", "1,500"); got != http.StatusOK {
		t.Fatalf("a price of 1,500 on an English page = %d: %s", got, pageText(t, ctx))
	}
	if page := pageText(t, ctx); !strings.Contains(page, "R$1,500.00") {
		t.Errorf("the vehicle's English page does not show R$1,500.00: %s", page)
	}
	if got := register("Strada", "1.500"); got != http.StatusUnprocessableEntity {
		t.Errorf("a price of 1.500 on an English page = %d; want 422", got)
	}
	if p := text(t, ctx, "#price-problem"); !strings.Contains(p, "R$1,500.00") || !strings.Contains(p, "R$1.50") {
		t.Errorf("the English ambiguous price's problem reads %q; want both readings", p)
	}
}

// TestBrandFilterAsTheAPI: the stock's brand filter is the API's: the whole brand in any case,
// with or without accents ("toyota", "CITROEN"), both finding what the API's brand finds; part of
// a name ("volks") is the search's, which the field's hint says, and the search finds it.
func TestBrandFilterAsTheAPI(t *testing.T) {
	tm := newTeam(t)
	createVehicleJSON(t, tm.Key, `{"brand":"Toyota","model":"Corolla","price":119990}`)
	createVehicleJSON(t, tm.Key, `{"brand":"Citroën","model":"C3","price":70000}`)
	createVehicleJSON(t, tm.Key, `{"brand":"Volkswagen","model":"Gol","price":50000}`)
	ctx, _ := invite(t, tm, patio.RoleMember)
	var found []string
	waitFor(t, "the brand filter to find the Gol, written last (the indexer's lag)", searchLag, func() bool {
		found = stockSearch(t, ctx, "brand", "volkswagen")
		return len(found) == 1
	})
	for _, tc := range []struct {
		field, typed, want string
	}{
		{"brand", "toyota", "Corolla"}, {"brand", "TOYOTA ", "Corolla"}, {"brand", "CITROEN", "C3"}, {"brand", "citroën", "C3"},
		{"model", "gol", "Gol"}, {"q", "volks", "Gol"},
	} {
		if got := stockSearch(t, ctx, tc.field, tc.typed); len(got) != 1 || !strings.Contains(got[0], tc.want) {
			t.Errorf("the stock filtered by %s %q lists %q; want the %s", tc.field, tc.typed, got, tc.want)
		}
		if tc.field == "brand" {
			if n := apiTotal(t, tm.Key, "/api/v1/vehicles?"+url.Values{"brand": {tc.typed}}.Encode()); n != 1 {
				t.Errorf("the API's brand=%s = %d vehicles; want the %s, as the console", tc.typed, n, tc.want)
			}
		}
	}
	if got := stockSearch(t, ctx, "brand", "volks"); len(got) != 0 {
		t.Errorf("the stock filtered by brand volks lists %q; want nothing (a brand is matched whole, as in the API)", got)
	}
	if hint := text(t, ctx, "#brand-hint"); !strings.Contains(hint, "marca inteira") || !strings.Contains(hint, "busca") {
		t.Errorf("the brand field's hint reads %q; want it to say the whole brand, and the search for part of a name", hint)
	}
}
