package consoletest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/patio-dev/patio/shared/patio"
)

// TestStockAsMember: a salesperson finds the team's vehicles with the API's filters: the counts per
// status at the list's head, a brand, a word of the title, the plate typed in its old format; a
// vehicle's page shows the plate as it was registered and the vehicle's activities. A price range
// typed ambiguously is refused next to its field, with both readings.
func TestStockAsMember(t *testing.T) {
	tm := newTeam(t)
	argo := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","version":"Drive","price":79990,"plate":"RIO2A26","model_year":2024,"manufacture_year":2023}`)
	createVehicleJSON(t, tm.Key, `{"brand":"Toyota","model":"Corolla","price":119990.50,"plate":"ABC1234","status":"reservado"}`)
	createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Mobi","price":54990}`)
	ctx, _ := invite(t, tm, patio.RoleMember)

	if got := open(t, ctx, "/console/vehicles"); got != http.StatusOK {
		t.Fatalf("GET /console/vehicles = %d", got)
	}
	counts := text(t, ctx, "ul.counts")
	if !strings.Contains(counts, "ativo 2") || !strings.Contains(counts, "reservado 1") || !strings.Contains(counts, "vendido 0") {
		t.Errorf("the stock's counts read %q; want ativo 2, reservado 1, vendido 0", counts)
	}
	titles := func(query url.Values) []string {
		t.Helper()
		if got := open(t, ctx, "/console/vehicles?"+query.Encode()); got != http.StatusOK {
			t.Fatalf("GET /console/vehicles?%s = %d", query.Encode(), got)
		}
		return value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("main tbody tr td:first-child")].map(td => td.innerText)`))
	}
	// The search reads word items the indexer keeps from the stream: it finds a new vehicle within
	// the indexer's lag, not at once.
	// So do the lists by brand: the Mobi, written last, is the one to wait for.
	corolla := url.Values{"q": {"corol"}, "status": {"ativo", "reservado"}}
	waitFor(t, "the search to find the new Corolla and the Mobi by its brand", searchLag, func() bool {
		return len(titles(corolla)) == 1 && len(titles(url.Values{"brand": {"fiat"}})) == 2
	})
	for _, tc := range []struct {
		query url.Values
		want  int
	}{
		{url.Values{"brand": {"fiat"}}, 2},
		{url.Values{"q": {"corol"}, "status": {"ativo", "reservado"}}, 1},
		{url.Values{"plate": {"ABC-1234"}, "status": {""}}, 1}, // "any" status: the empty choice
		{url.Values{"plate": {"abc1c34"}, "status": {"reservado"}}, 1},
		{url.Values{"price_min": {"60.000,00"}, "status": {"ativo", "reservado"}}, 2},
	} {
		if got := titles(tc.query); len(got) != tc.want {
			t.Errorf("the stock filtered by %v lists %q; want %d vehicles", tc.query, got, tc.want)
		}
	}

	if got := open(t, ctx, "/console/vehicles?"+url.Values{"price_min": {"1,500"}}.Encode()); got != http.StatusBadRequest {
		t.Errorf("an ambiguous price_min = %d; want 400", got)
	}
	if p := text(t, ctx, "#price_min-problem"); !strings.Contains(p, "R$\u00a01.500,00") || !strings.Contains(p, "R$\u00a01,50") {
		t.Errorf("the ambiguous price's problem reads %q; want both readings", p)
	}

	open(t, ctx, "/console/vehicles/"+argo)
	page := pageText(t, ctx)
	for _, want := range []string{"Fiat Argo Drive 2024", "RIO2A26", "R$\u00a079.990,00", "2023/2024"} {
		if !strings.Contains(page, want) {
			t.Errorf("the vehicle's page does not show %q: %s", want, page)
		}
	}
	if got := open(t, ctx, "/console/vehicles/01a21edd-0000-7000-8000-000000000000"); got != http.StatusNotFound {
		t.Errorf("GET a vehicle of no team = %d; want 404", got)
	}
}

// TestClientsAndPipeline: a member finds a walk-in client by their CPF typed with its punctuation
// and sees it whole; a viewer sees it masked but for its last four characters, and no email; the
// pipeline shows the open deal in its phase's column with its value.
func TestClientsAndPipeline(t *testing.T) {
	tm := newTeam(t)
	r := hookFor(t, tm, "deal.phase_changed")
	maria := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Maria da Silva","cpf":"52998224725","email":"maria@example.com"}`)
	createJSON(t, tm.Key, "clients", `{"type":"company","name":"Auto Peças Ltda","cnpj":"12ABC34501DE35"}`)
	argo := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":79990}`)
	deal := createJSON(t, tm.Key, "deals", `{"title":"Argo da Maria","client_id":"`+maria+`","vehicle_id":"`+argo+`","phase":"visita"}`)

	member, _ := invite(t, tm, patio.RoleMember)
	open(t, member, "/console/clients?"+url.Values{"q": {"529.982.247-25"}}.Encode())
	if rows := count(t, member, "main tbody tr"); rows != 1 || !strings.Contains(text(t, member, "main tbody"), "529.982.247-25") {
		t.Errorf("a member's search by CPF lists %d rows (%q); want Maria, her CPF whole", rows, text(t, member, "main tbody"))
	}
	open(t, member, "/console/clients?"+url.Values{"q": {"12.abc.345/01de-35"}}.Encode())
	if !strings.Contains(text(t, member, "main tbody"), "12.ABC.345/01DE-35") {
		t.Errorf("a member's search by CNPJ shows %q; want the company, its CNPJ formatted", text(t, member, "main tbody"))
	}
	// The client's deals are a list by client_id, which follows the indexer's lag.
	var p string
	waitFor(t, "the client's page to list her new deal", searchLag, func() bool {
		open(t, member, "/console/clients/"+maria)
		p = pageText(t, member)
		return strings.Contains(p, "Argo da Maria")
	})
	if !strings.Contains(p, "maria@example.com") {
		t.Errorf("a member's view of the client: %s; want her email and her deal", p)
	}

	viewer, _ := invite(t, tm, patio.RoleViewer)
	open(t, viewer, "/console/clients/"+maria)
	p = pageText(t, viewer)
	if !strings.Contains(p, "***.***.*47-25") || strings.Contains(p, "529.982") || strings.Contains(p, "maria@example.com") {
		t.Errorf("a viewer's view of the client: %s; want the CPF masked but for its last four, and no email", p)
	}

	open(t, member, "/console/deals")
	col := text(t, member, "#phase-visita + p")
	if !strings.Contains(col, ": 1") || !strings.Contains(col, "R$\u00a079.990,00") {
		t.Errorf("the visita column's head reads %q; want 1 deal worth R$ 79.990,00", col)
	}
	if got := text(t, member, "section[aria-labelledby=phase-visita] article h3"); got != "Argo da Maria" {
		t.Errorf("the visita column's card = %q; want the deal", got)
	}

	// Moving the card is a form post of its new phase: the API reads it moved, and the team's
	// receiver gets deal.phase_changed with the phase it left.
	with(t, member, chromedp.SetValue(chromedp.ID("move-"+deal), "proposta"))
	submit(t, member, `form[action$="/deals/`+deal+`/phase"] button`)
	if got := text(t, member, "section[aria-labelledby=phase-proposta] article h3"); got != "Argo da Maria" {
		t.Errorf("after the move, the proposta column's card = %q; want the deal", got)
	}
	waitFor(t, "deal.phase_changed", 60*time.Second, func() bool { return len(r.events("deal.phase_changed")) > 0 })
	ev := r.events("deal.phase_changed")[0]
	data, _ := ev.Event["data"].(map[string]any)
	obj, _ := data["object"].(map[string]any)
	prev, _ := data["previous_attributes"].(map[string]any)
	if ev.Problem != "" || obj["phase"] != "proposta" || prev["phase"] != "visita" {
		t.Errorf("deal.phase_changed = %v (signature: %q); want the deal in proposta, previously visita, signed", ev.Event, ev.Problem)
	}

	// A viewer sees no move, and a forged one changes nothing.
	open(t, viewer, "/console/deals")
	if n := count(t, viewer, "form.move"); n != 0 {
		t.Errorf("a viewer sees %d move forms; want none", n)
	}
	_, viewerCookie := invite(t, tm, patio.RoleViewer)
	if resp, _ := newClient(t, viewerCookie).post("/console/deals/"+deal+"/phase", url.Values{"team": {tm.TeamID}, "phase": {"lead"}}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer's forged move = %d; want 403", resp.StatusCode)
	}
}

// TestRegisterVehicle: a salesperson registers a vehicle with an old-format plate and a price typed
// as people type it; its page shows the plate as registered and its Mercosul form, the API reads exactly what was
// saved, and the team's receiver gets vehicle.created, signed. The same plate again, in its other
// spelling, comes back next to its field with nothing created; an ambiguous price with both readings.
func TestRegisterVehicle(t *testing.T) {
	tm := newTeam(t)
	r := hookFor(t, tm, "vehicle.created")
	ctx, _ := invite(t, tm, patio.RoleMember)
	register := func(plate, price string) int64 {
		t.Helper()
		open(t, ctx, "/console/vehicles/new")
		with(t, ctx, chromedp.SendKeys(chromedp.ID("brand"), "Fiat"), chromedp.SendKeys(chromedp.ID("model"), "Argo"),
			chromedp.SendKeys(chromedp.ID("version"), "Drive 1.0"), chromedp.SendKeys(chromedp.ID("plate"), plate),
			chromedp.SendKeys(chromedp.ID("price"), price), chromedp.SendKeys(chromedp.ID("model_year"), "2024"),
			chromedp.SendKeys(chromedp.ID("manufacture_year"), "2024"), chromedp.SetValue(chromedp.ID("fuel"), "flex"))
		return submit(t, ctx, `main form button[type=submit]`)
	}
	if got := register("abc-1234", "84.990,90"); got != http.StatusOK || !strings.Contains(location(ctx), "/console/vehicles/") {
		t.Fatalf("register = %d at %s; want the vehicle's page", got, location(ctx))
	}
	page := pageText(t, ctx)
	for _, want := range []string{"Fiat Argo Drive 1.0 2024", "ABC1C34", "R$\u00a084.990,90", "flex"} {
		if !strings.Contains(page, want) {
			t.Errorf("the new vehicle's page does not show %q: %s", want, page)
		}
	}
	id := location(ctx)[strings.LastIndex(location(ctx), "/")+1:]
	id, _, _ = strings.Cut(id, "?")
	obj := apiGet(t, tm.Key, "/api/v1/vehicles/"+id)
	if obj["plate"] != "ABC1234" || obj["price"] != 84990.9 || obj["model_year"] != 2024.0 || obj["status"] != "ativo" {
		t.Errorf("the API reads %v; want plate ABC1234, price 84990.9, model year 2024, ativo", obj)
	}
	waitFor(t, "vehicle.created", 60*time.Second, func() bool { return len(r.events("vehicle.created")) > 0 })
	if ev := r.events("vehicle.created")[0]; ev.Problem != "" {
		t.Errorf("vehicle.created arrived unsigned: %s", ev.Problem)
	}

	if got := register("ABC1C34", "79.990,00"); got != http.StatusUnprocessableEntity {
		t.Errorf("the same plate again = %d; want 422", got)
	}
	if p := text(t, ctx, "#plate-problem"); !strings.Contains(p, "ABC1C34") {
		t.Errorf("the duplicate plate's problem reads %q; want it next to the plate, naming it", p)
	}
	if got := register("RIO2A26", "1,500"); got != http.StatusUnprocessableEntity {
		t.Errorf("an ambiguous price = %d; want 422", got)
	}
	if p := text(t, ctx, "#price-problem"); !strings.Contains(p, "R$\u00a01.500,00") || !strings.Contains(p, "R$\u00a01,50") {
		t.Errorf("the ambiguous price's problem reads %q; want both readings", p)
	}
	if v := value(t, ctx, chromedp.Value(chromedp.ID("plate"))); v != "RIO2A26" {
		t.Errorf("the refused form's plate = %q; want the value entered", v)
	}
	open(t, ctx, "/console/vehicles")
	if n := count(t, ctx, "main tbody tr"); n != 1 {
		t.Errorf("after the refused forms the stock lists %d vehicles; want 1", n)
	}
}

// apiGet reads one record through the public API with the key and returns its data object.
func apiGet(t *testing.T, key, path string) map[string]any {
	t.Helper()
	var out struct {
		Data map[string]any `json:"data"`
	}
	apiRead(t, key, path, &out)
	return out.Data
}

// apiRead reads path through the public API with the key and decodes its answer into out,
// failing the test on any answer but 200.
func apiRead(t *testing.T, key, path string, out any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, stack.APIURL+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d, %v", path, resp.StatusCode, err)
	}
}

// TestRegisterClient: a walk-in client registered with a formatted CPF is stored bare (as the API
// reads it) and shown formatted, client.created reaches the receiver; the same CPF again, typed
// bare, comes back next to its field with nothing created; a company with an alphanumeric CNPJ.
func TestRegisterClient(t *testing.T) {
	tm := newTeam(t)
	r := hookFor(t, tm, "client.created")
	ctx, _ := invite(t, tm, patio.RoleMember)
	register := func(typ string, fields map[string]string) int64 {
		t.Helper()
		open(t, ctx, "/console/clients/new")
		with(t, ctx, chromedp.Click(chromedp.CSS(`input[name=type][value=`+typ+`]`)))
		for id, v := range fields {
			with(t, ctx, chromedp.SendKeys(chromedp.ID(id), v))
		}
		return submit(t, ctx, `main form button[type=submit]`)
	}
	if got := register("individual", map[string]string{"name": "Maria da Silva", "cpf": "529.982.247-25", "phone": "(11) 98765-4321"}); got != http.StatusOK {
		t.Fatalf("register = %d at %s", got, location(ctx))
	}
	if p := pageText(t, ctx); !strings.Contains(p, "529.982.247-25") || !strings.Contains(p, "+5511987654321") {
		t.Errorf("the new client's page: %s; want the CPF formatted and the phone", p)
	}
	id := location(ctx)[strings.LastIndex(location(ctx), "/")+1:]
	id, _, _ = strings.Cut(id, "?")
	if obj := apiGet(t, tm.Key, "/api/v1/clients/"+id); obj["cpf"] != "52998224725" || obj["name"] != "Maria da Silva" {
		t.Errorf("the API reads %v; want the CPF bare", obj)
	}
	waitFor(t, "client.created", 60*time.Second, func() bool { return len(r.events("client.created")) > 0 })

	if got := register("individual", map[string]string{"name": "Maria outra vez", "cpf": "52998224725"}); got != http.StatusUnprocessableEntity {
		t.Errorf("the same CPF again = %d; want 422", got)
	}
	if p := text(t, ctx, "#cpf-problem"); !strings.Contains(p, "52998224725") && !strings.Contains(p, "CPF") {
		t.Errorf("the duplicate CPF's problem reads %q; want it next to the CPF", p)
	}
	if got := register("company", map[string]string{"name": "Auto Peças Ltda", "cnpj": "12.abc.345/01de-35"}); got != http.StatusOK {
		t.Fatalf("register a company = %d at %s", got, location(ctx))
	}
	if p := pageText(t, ctx); !strings.Contains(p, "12.ABC.345/01DE-35") {
		t.Errorf("the company's page: %s; want its CNPJ formatted", p)
	}
	open(t, ctx, "/console/clients")
	if n := count(t, ctx, "main tbody tr"); n != 2 {
		t.Errorf("the clients list shows %d; want the two registered", n)
	}
}

// TestDayAtTheDealership plays a salesperson's day in the console, signed in as member: a vehicle
// registered with an old-format plate, a walk-in client with a formatted CPF, a deal for them moved
// across the board to fechamento and won (the vehicle sold in the same transaction), the sale's
// revenue recorded from the win. The API reads what the console saved, and the team's HTTPS
// receiver gets every event of it, signed.
func TestDayAtTheDealership(t *testing.T) {
	tm := newTeam(t)
	r := hookFor(t, tm, "*")
	ctx, _ := invite(t, tm, patio.RoleMember)
	idOf := func() string {
		id := location(ctx)[strings.LastIndex(location(ctx), "/")+1:]
		id, _, _ = strings.Cut(id, "?")
		return id
	}

	open(t, ctx, "/console/vehicles/new")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("brand"), "Fiat"), chromedp.SendKeys(chromedp.ID("model"), "Argo"),
		chromedp.SendKeys(chromedp.ID("plate"), "ABC-1234"), chromedp.SendKeys(chromedp.ID("price"), "84.990,90"))
	submit(t, ctx, `main form button[type=submit]`)
	vehicle := idOf()

	open(t, ctx, "/console/clients/new")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("name"), "Maria da Silva"), chromedp.SendKeys(chromedp.ID("cpf"), "529.982.247-25"))
	submit(t, ctx, `main form button[type=submit]`)

	open(t, ctx, "/console/deals/new")
	with(t, ctx, chromedp.SendKeys(chromedp.ID("title"), "Argo da Maria"), chromedp.SendKeys(chromedp.ID("link-client"), "529.982.247-25"),
		chromedp.SendKeys(chromedp.ID("link-vehicle"), "ABC1234"))
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("create the deal = %d at %s: %s", got, location(ctx), pageText(t, ctx))
	}
	deal := idOf()
	if obj := apiGet(t, tm.Key, "/api/v1/deals/"+deal); obj["value"] != 84990.9 || obj["vehicle_id"] != vehicle {
		t.Errorf("the API reads the deal as %v; want the vehicle's price as its value", obj)
	}

	for _, phase := range []string{"contato", "visita", "proposta", "negociacao", "fechamento"} {
		open(t, ctx, "/console/deals")
		if phase == "contato" {
			// The card names the deal's client and its vehicle (its plate as it was registered).
			card := value(t, ctx, chromedp.Evaluate[string](`document.getElementById("move-`+deal+`").closest("article").innerText`))
			if !strings.Contains(card, "Maria da Silva") || !strings.Contains(card, "ABC1234") {
				t.Errorf("the deal's card on the board reads %q; want its client's name and its vehicle's plate", card)
			}
		}
		with(t, ctx, chromedp.SetValue(chromedp.ID("move-"+deal), phase))
		submit(t, ctx, `form[action$="/deals/`+deal+`/phase"] button`)
	}
	open(t, ctx, "/console/deals/"+deal)
	with(t, ctx, chromedp.SetValue(chromedp.ID("win-method"), "pix"))
	// Winning sells the vehicle for good: it asks first, naming the payment method.
	if got := confirmed(t, ctx, `form[action$="/win"] button`); got != http.StatusOK {
		t.Fatalf("win = %d: %s", got, pageText(t, ctx))
	}
	if obj := apiGet(t, tm.Key, "/api/v1/vehicles/"+vehicle); obj["status"] != "vendido" || obj["sold_deal_id"] != deal {
		t.Errorf("after the win the API reads the vehicle as %v; want vendido, sold by the deal", obj)
	}

	// One more step: the sale's revenue, prefilled from the deal.
	submit(t, ctx, `main .done a.button`)
	if v := value(t, ctx, chromedp.Value(chromedp.ID("amount"))); v != "84990,90" {
		t.Errorf("the revenue form's amount = %q; want the deal's value", v)
	}
	if got := submit(t, ctx, `main form button[type=submit]`); got != http.StatusOK {
		t.Fatalf("record the revenue = %d: %s", got, pageText(t, ctx))
	}
	if p := pageText(t, ctx); !strings.Contains(p, "R$\u00a084.990,90") || !strings.Contains(p, "Argo da Maria") {
		t.Errorf("the revenue record's page: %s; want the sale's amount and its deal", p)
	}

	for _, typ := range []string{"vehicle.created", "client.created", "deal.created", "deal.phase_changed", "deal.won", "vehicle.sold"} {
		waitFor(t, typ, 60*time.Second, func() bool { return len(r.events(typ)) > 0 })
		for _, ev := range r.events(typ) {
			if ev.Problem != "" {
				t.Errorf("%s arrived with a bad signature: %s", typ, ev.Problem)
			}
		}
	}
	if n := len(r.events("deal.phase_changed")); n != 5 {
		t.Errorf("deal.phase_changed arrived %d times; want one per move (5)", n)
	}
}

// TestArchiveAndRestore: archiving a vehicle, deactivating a client and archiving a deal each ask
// first (asking changes nothing), then act through the API's use cases; the vehicle and the client
// come back with a restore.
func TestArchiveAndRestore(t *testing.T) {
	tm := newTeam(t)
	vehicle := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Mobi","price":54990}`)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"João Souza","cpf":"39053344705"}`)
	deal := createJSON(t, tm.Key, "deals", `{"title":"Mobi do João","client_id":"`+client+`","vehicle_id":"`+vehicle+`"}`)
	ctx, _ := invite(t, tm, patio.RoleMember)
	for _, tc := range []struct {
		page, button, status string
		api                  string
	}{
		{"/console/vehicles/" + vehicle, "/archive", "arquivado", "/api/v1/vehicles/" + vehicle},
		{"/console/clients/" + client, "/deactivate", "inactive", "/api/v1/clients/" + client},
		{"/console/deals/" + deal, "/archive", "arquivado", "/api/v1/deals/" + deal},
	} {
		open(t, ctx, tc.page)
		submit(t, ctx, `form[action$="`+tc.button+`"] button`)
		if obj := apiGet(t, tm.Key, tc.api); obj["status"] == tc.status {
			t.Errorf("%s%s asked, not confirmed: the record is already %s", tc.page, tc.button, tc.status)
		}
		submit(t, ctx, `main .confirm button[type=submit]`)
		if obj := apiGet(t, tm.Key, tc.api); obj["status"] != tc.status {
			t.Errorf("%s%s confirmed: the API reads %v; want %s", tc.page, tc.button, obj["status"], tc.status)
		}
	}
	for _, tc := range []struct{ page, api, status string }{
		{"/console/vehicles/" + vehicle, "/api/v1/vehicles/" + vehicle, "ativo"},
		{"/console/clients/" + client, "/api/v1/clients/" + client, "active"},
	} {
		open(t, ctx, tc.page)
		submit(t, ctx, `form[action$="/restore"] button`)
		if obj := apiGet(t, tm.Key, tc.api); obj["status"] != tc.status {
			t.Errorf("restored from %s: the API reads %v; want %s", tc.page, obj["status"], tc.status)
		}
	}
}

// TestOverviewStockAndPipeline: the overview counts the stock by status and the pipeline's open
// deals by phase with their value, over every deal (more than a column shows), each linking to
// the list behind it; a won deal is no longer in the pipeline, its vehicle sold. The board's column heads carry the
// same count and value and say how many cards they show.
func TestOverviewStockAndPipeline(t *testing.T) {
	const shown = 10 // the cards a column of the board shows
	tm := newTeam(t)
	argo := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":79990}`)
	createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Mobi","price":54990}`)
	reserved := createVehicleJSON(t, tm.Key, `{"brand":"Toyota","model":"Corolla","price":119990,"status":"reservado"}`)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Maria da Silva","cpf":"52998224725"}`)
	const leads = shown + 2
	leadsValue := "R$\u00a0" + strconv.Itoa(leads) + ".000,00" // R$ 1.000,00 each
	for i := range leads {
		createJSON(t, tm.Key, "deals", `{"title":"Lead `+strconv.Itoa(i)+`","client_id":"`+client+`","value":1000,"phase":"lead"}`)
	}
	createJSON(t, tm.Key, "deals", `{"title":"Corolla","client_id":"`+client+`","vehicle_id":"`+reserved+`","value":119990,"phase":"negociacao"}`)
	won := createJSON(t, tm.Key, "deals", `{"title":"Argo vendido","client_id":"`+client+`","vehicle_id":"`+argo+`","value":79990,"phase":"fechamento"}`)
	apiSend(t, tm.Key, http.MethodPut, "/api/v1/deals/"+won, `{"status":"ganho"}`, http.StatusOK)
	lost := createJSON(t, tm.Key, "deals", `{"title":"Mobi perdido","client_id":"`+client+`","value":54990}`)
	apiSend(t, tm.Key, http.MethodPut, "/api/v1/deals/"+lost, `{"status":"perdido","lost_reason":"preco"}`, http.StatusOK)
	moved := createJSON(t, tm.Key, "deals", `{"title":"Movido","client_id":"`+client+`","phase":"contato"}`)
	apiSend(t, tm.Key, http.MethodPut, "/api/v1/deals/"+moved, `{"phase":"visita"}`, http.StatusOK)

	ctx, _ := invite(t, tm, patio.RoleViewer)
	open(t, ctx, "/console/")
	for id, want := range map[string]string{
		"#stock-ativo": "1", "#stock-reservado": "1", "#stock-vendido": "1",
		"#pipeline-lead": strconv.Itoa(leads), "#pipeline-lead-value": leadsValue,
		"#pipeline-negociacao": "1", "#pipeline-negociacao-value": "R$\u00a0119.990,00",
		"#pipeline-fechamento": "0", "#pipeline-fechamento-value": "R$\u00a00,00",
	} {
		if got := text(t, ctx, id); got != want {
			t.Errorf("the overview's %s reads %q; want %q", id, got, want)
		}
	}
	submit(t, ctx, "#stock-reservado")
	if rows := count(t, ctx, "main tbody tr"); rows != 1 || !strings.Contains(text(t, ctx, "main tbody"), "Corolla") {
		t.Errorf("the reserved count leads to %d rows (%q); want the Corolla", rows, text(t, ctx, "main tbody"))
	}

	open(t, ctx, "/console/deals")
	head := text(t, ctx, "#phase-lead + p")
	if !strings.Contains(head, ": "+strconv.Itoa(leads)) || !strings.Contains(head, leadsValue) || !strings.Contains(head, strconv.Itoa(shown)) {
		t.Errorf("the lead column's head reads %q; want %d deals worth %s, %d of them shown", head, leads, leadsValue, shown)
	}
	// The board's head says how the month went; each card how long it has been in its phase.
	if got, want := text(t, ctx, ".month-results"), "Este mês — ganhos: 1 (R$\u00a079.990,00) · perdidos: 1"; got != want {
		t.Errorf("the board's head reads %q; want %q", got, want)
	}
	if got := text(t, ctx, "section[aria-labelledby=phase-visita] article"); !strings.Contains(got, "nesta fase desde hoje") {
		t.Errorf("the card moved to visita today reads %q; want it to say it is in this phase since today", got)
	}
	if n := count(t, ctx, "section[aria-labelledby=phase-lead] article"); n != shown {
		t.Errorf("the lead column shows %d cards; want %d", n, shown)
	}
	// The column's link lists all its open deals.
	submit(t, ctx, "section[aria-labelledby=phase-lead] .more a")
	if rows := count(t, ctx, "main tbody tr"); rows != leads || !strings.Contains(text(t, ctx, "main tbody"), "Lead 0") {
		t.Errorf("the lead column's link lists %d deals (%q); want its %d", rows, text(t, ctx, "main tbody"), leads)
	}
}

// TestEditRecords: a vehicle, a client and a deal edited from their pages through the API's use
// cases (the API reads what was saved); an edit whose record changed after its form was loaded
// saves nothing and names what changed.
func TestEditRecords(t *testing.T) {
	tm := newTeam(t)
	vehicle := createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Mobi","price":54990,"plate":"ABC1234"}`)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"João Souza","cpf":"39053344705","email":"joao@example.com"}`)
	deal := createJSON(t, tm.Key, "deals", `{"title":"Mobi do João","client_id":"`+client+`","vehicle_id":"`+vehicle+`"}`)
	ctx, _ := invite(t, tm, patio.RoleMember)

	// Each record's page holds its edit form (for members).
	open(t, ctx, "/console/vehicles/"+vehicle)
	if v := value(t, ctx, chromedp.Value(chromedp.ID("price"))); v != "54990,00" {
		t.Errorf("the edit form's price = %q; want the vehicle's price as the reader types it", v)
	}
	with(t, ctx, chromedp.SetValue(chromedp.ID("price"), "52.500,00"), chromedp.SetValue(chromedp.ID("color"), "Prata"))
	if got := submit(t, ctx, `form[action$="/vehicles/`+vehicle+`"] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("save the vehicle = %d: %s", got, pageText(t, ctx))
	}
	if obj := apiGet(t, tm.Key, "/api/v1/vehicles/"+vehicle); obj["price"] != 52500.0 || obj["color"] != "Prata" || obj["plate"] != "ABC1234" {
		t.Errorf("after the edit the API reads the vehicle as %v; want price 52500, color Prata, the plate kept", obj)
	}
	// The save leads back to the vehicle's page, whose history names the edit and its fields.
	if h := text(t, ctx, "main .history"); !strings.Contains(h, "Veículo editado") || !strings.Contains(h, "Cor, Preço") {
		t.Errorf("the vehicle's history reads %q; want the edit with its fields (Cor, Preço)", h)
	}

	// A stale edit: the client's email changes through the API while the form is open.
	open(t, ctx, "/console/clients/"+client)
	apiSend(t, tm.Key, http.MethodPut, "/api/v1/clients/"+client, `{"email":"joao.souza@example.com"}`, http.StatusOK)
	with(t, ctx, chromedp.SetValue(chromedp.ID("name"), "João Souza Filho"))
	clientForm := `form[action$="/clients/` + client + `"] button[type=submit]`
	if got := submit(t, ctx, clientForm); got != http.StatusConflict {
		t.Errorf("a stale client edit = %d; want 409", got)
	}
	if p := pageText(t, ctx); !strings.Contains(p, "Este registro mudou") || !strings.Contains(p, "E-mail") {
		t.Errorf("the stale edit's page: %s; want the stale message naming the email", p)
	}
	if obj := apiGet(t, tm.Key, "/api/v1/clients/"+client); obj["name"] != "João Souza" || obj["email"] != "joao.souza@example.com" {
		t.Errorf("after a stale edit the API reads the client as %v; want nothing overwritten", obj)
	}
	// The refused form shows the API's email (a field the reader did not touch) beside the name
	// they typed; sent again (now carrying the current revision), it saves both.
	if v := value(t, ctx, chromedp.Value(chromedp.ID("email"))); v != "joao.souza@example.com" {
		t.Errorf("the refused form's email = %q; want the current one", v)
	}
	if got := submit(t, ctx, clientForm); got != http.StatusOK {
		t.Fatalf("the edit sent again = %d: %s", got, pageText(t, ctx))
	}
	if obj := apiGet(t, tm.Key, "/api/v1/clients/"+client); obj["name"] != "João Souza Filho" || obj["email"] != "joao.souza@example.com" {
		t.Errorf("after the edit the API reads the client as %v; want the new name and the API's email", obj)
	}

	// The deal: a new title, its vehicle unlinked.
	open(t, ctx, "/console/deals/"+deal)
	with(t, ctx, chromedp.SetValue(chromedp.ID("title"), "Proposta do João"), chromedp.SetValue(chromedp.ID("link-vehicle"), " "))
	if got := submit(t, ctx, `form[action$="/deals/`+deal+`"] button[type=submit]`); got != http.StatusOK {
		t.Fatalf("save the deal = %d: %s", got, pageText(t, ctx))
	}
	if obj := apiGet(t, tm.Key, "/api/v1/deals/"+deal); obj["title"] != "Proposta do João" || obj["vehicle_id"] != nil || obj["client_id"] != client {
		t.Errorf("after the edit the API reads the deal as %v; want the new title, no vehicle, the client kept", obj)
	}
}

// TestAPIChangesInHistory: a vehicle created and repriced through the API, and a deal won through
// it, show in their pages' history and the audit log under the key that made them, shortly after.
func TestAPIChangesInHistory(t *testing.T) {
	tm := newTeam(t)
	vehicle := createVehicleJSON(t, tm.Key, `{"brand":"Jeep","model":"Renegade","price":99990}`)
	apiSend(t, tm.Key, http.MethodPut, "/api/v1/vehicles/"+vehicle, `{"price":97500}`, http.StatusOK)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Paula Lima","cpf":"11144477735"}`)
	deal := createJSON(t, tm.Key, "deals", `{"title":"Renegade da Paula","client_id":"`+client+`","vehicle_id":"`+vehicle+`","value":97500}`)
	apiSend(t, tm.Key, http.MethodPut, "/api/v1/deals/"+deal, `{"status":"ganho"}`, http.StatusOK)
	ctx, _ := invite(t, tm, patio.RoleViewer)

	// The dispatcher writes the entries from the stream: the page shows them a moment later.
	history := func(page string, want ...string) {
		t.Helper()
		h := ""
		waitFor(t, page+"'s history of API changes", 30*time.Second, func() bool {
			open(t, ctx, page)
			h = text(t, ctx, "main .history")
			for _, w := range want {
				if !strings.Contains(h, w) {
					return false
				}
			}
			return true
		})
	}
	history("/console/vehicles/"+vehicle, "Veículo cadastrado", "Veículo editado", "(Preço)", "Veículo vendido",
		"local (", "chave de API")
	history("/console/deals/"+deal, "Negócio criado", "Negócio ganho", "chave de API")

	open(t, ctx, "/console/audit?action=vehicle.update")
	if log := text(t, ctx, "main tbody"); !strings.Contains(log, "chave de API") || !strings.Contains(log, "Veículo editado") {
		t.Errorf("the audit log's vehicle edits read %q; want the API key's price change", log)
	}
}

// TestPipelineListView: the pipeline's list view shows deals of every status with their client,
// and filters them as the API does (status, value typed as people type money, title words).
func TestPipelineListView(t *testing.T) {
	tm := newTeam(t)
	client := createJSON(t, tm.Key, "clients", `{"type":"individual","name":"Ana Ribeiro","cpf":"39053344705"}`)
	small := createJSON(t, tm.Key, "deals", `{"title":"Mobi da Ana","client_id":"`+client+`","value":50000}`)
	big := createJSON(t, tm.Key, "deals", `{"title":"Compass da Ana","client_id":"`+client+`","value":90000}`)
	apiSend(t, tm.Key, http.MethodPut, "/api/v1/deals/"+big, `{"status":"perdido","lost_reason":"preco"}`, http.StatusOK)
	ctx, _ := invite(t, tm, patio.RoleViewer)

	rows := func(query string) []string {
		t.Helper()
		if got := open(t, ctx, "/console/deals?view=list&"+query); got != http.StatusOK {
			t.Fatalf("the list view with %s = %d: %s", query, got, pageText(t, ctx))
		}
		return value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("main tbody tr")].map(r => r.innerText)`))
	}
	if got := rows(""); len(got) != 2 || !strings.Contains(strings.Join(got, "\n"), "Ana Ribeiro") {
		t.Errorf("the list view lists %q; want both deals, open and lost, with their client", got)
	}
	if got := rows("status=perdido"); len(got) != 1 || !strings.Contains(got[0], "Compass da Ana") {
		t.Errorf("status=perdido lists %q; want the lost deal", got)
	}
	if got := rows("value_max=" + url.QueryEscape("60.000,00")); len(got) != 1 || !strings.Contains(got[0], "Mobi da Ana") {
		t.Errorf("value_max=60.000,00 lists %q; want the R$ 50.000 deal (%s)", got, small)
	}
	var found []string
	waitFor(t, "the search to find the new deal (the indexer's lag)", searchLag, func() bool {
		found = rows("q=compass")
		return len(found) > 0
	})
	if len(found) != 1 || !strings.Contains(found[0], "Compass da Ana") {
		t.Errorf("q=compass lists %q; want the deal titled so", found)
	}
	if got := open(t, ctx, "/console/deals?view=list&value_min=1,500"); got != http.StatusBadRequest {
		t.Errorf("an ambiguous amount = %d; want 400 with both readings", got)
	}
}

// TestStockListColumns: the stock's list shows each vehicle's plate (as registered), year, mileage
// and whole days in stock, on the desktop and on a phone (where each row is a card, each value
// after its column's name): a salesperson on the lot reads them without opening the vehicle.
func TestStockListColumns(t *testing.T) {
	tm := newTeam(t)
	createVehicleJSON(t, tm.Key, `{"brand":"Fiat","model":"Argo","price":79990,"plate":"rio-2a26","model_year":2024,"mileage_km":42000}`)
	ctx, _ := invite(t, tm, patio.RoleMember)
	if got := open(t, ctx, "/console/vehicles"); got != http.StatusOK {
		t.Fatalf("GET /console/vehicles = %d", got)
	}
	// The visible cells of the list's first row, by their column's name.
	const cells = `Object.fromEntries([...document.querySelectorAll("main tbody tr:first-child td")]
	  .filter(td => td.getClientRects().length > 0)
	  .map((td, i) => [document.querySelectorAll("main thead th")[[...td.parentElement.children].indexOf(td)].innerText.trim(), td.innerText.trim()]))`
	want := map[string]string{"Placa": "RIO2A26", "Ano": "2024", "Quilometragem": "42.000 km", "Dias em estoque": "0"}
	for _, width := range []int64{1280, 390, 360} {
		with(t, ctx, chromedp.EmulateViewport(width, 800, chromedp.EmulateMobile))
		got := value(t, ctx, chromedp.Evaluate[map[string]string](cells))
		for col, w := range want {
			if got[col] != w {
				t.Errorf("at %d px the stock's row shows %s %q; want %q (row %v)", width, col, got[col], w, got)
			}
		}
	}
	with(t, ctx, chromedp.EmulateReset())
}
