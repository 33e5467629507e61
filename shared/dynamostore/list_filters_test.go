package dynamostore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// vehicleFleet stores n vehicles of varied brands, models, fuels, phases, prices (with ties),
// titles (with ties and accents), years and mileages (some without), plates and statuses, then
// moves some of them, and returns them as stored (oldest first) with an instant before the moves.
func vehicleFleet(t *testing.T, s *dynamostore.Store, team string, n int) ([]patio.Vehicle, patio.Timestamp) {
	t.Helper()
	ctx := context.Background()
	models := []struct{ brand, model, title string }{
		{"Toyota", "Corolla", ""}, {"Toyota", "Yaris", "GR-Yaris"}, {"Fiat", "Uno", ""}, {"Fiat", "Strada", "Ágil Strada"},
		{"Volkswagen", "Gol", ""}, {"Citroën", "C3", "Citroën C3 Feel"}, {"Honda", "Civic", "ágil civic"},
	}
	fuels := []string{"flex", "diesel", "", "gasolina"}
	statuses := []string{string(patio.VehicleActive), string(patio.VehicleActive), string(patio.VehicleReserved), string(patio.VehicleSold), string(patio.VehicleArchived)}
	var out []patio.Vehicle
	for i := range n {
		m := models[i%len(models)]
		in := patio.VehicleInput{Brand: patio.Some(m.brand), Model: patio.Some(m.model),
			Price: patio.Some(money.Cents(1_000_000 * (1 + i%9))), Phase: patio.Some(patio.VehiclePhases[i%len(patio.VehiclePhases)])}
		if m.title != "" {
			in.Title = patio.Some(m.title)
		}
		if f := fuels[i%len(fuels)]; f != "" {
			in.Fuel = patio.Some(f)
		}
		if i%3 != 0 {
			in.ModelYear, in.ManufactureYear = patio.Some(2010+i%11), patio.Some(2010+i%11)
		}
		if i%4 != 0 {
			in.MileageKm = patio.Some(1000 * (i % 13))
		}
		if i%5 != 0 {
			in.Plate = patio.Some(fmt.Sprintf("ABC%d%03d", i%10, i))
		}
		v := newVehicle(t, team, in)
		v.Status = patio.VehicleStatus(statuses[i%len(statuses)])
		got, err := s.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: v, Changed: true})
		if err != nil {
			t.Fatalf("Create(vehicle %d) = %v", i, err)
		}
		out = append(out, got)
	}
	time.Sleep(1100 * time.Millisecond) // updated_at has one-second precision
	since := patio.NewTimestamp(time.Now())
	svc := patio.NewVehicles(s.Vehicles())
	for i := 0; i < n; i += 6 {
		got, err := svc.Update(ctx, team, out[i].ID, patio.VehicleInput{Price: patio.Some(out[i].Price + 1)})
		if err != nil {
			t.Fatalf("Update(vehicle %d) = %v", i, err)
		}
		out[i] = got
	}
	return out, since
}

func vehicleQuery(q *patio.VehicleQuery) *patio.ListQuery { return &q.ListQuery }

// Every vehicle filter, alone and combined with status, sorts and each other, pages and counts as
// the oracle computed from every vehicle does, with cursors and page numbers.
func TestVehicleFiltersMatchTheOracle(t *testing.T) {
	s := newStore(t)
	team := newTeam()
	all, since := vehicleFleet(t, s, team, 90)
	plate := *all[1].Plate
	brand := func(b string) func(patio.Vehicle) bool {
		return func(v patio.Vehicle) bool { return patio.Fold(v.Brand) == b }
	}
	price := func(lo, hi money.Cents) func(patio.Vehicle) bool {
		return func(v patio.Vehicle) bool { return v.Price >= lo && v.Price <= hi }
	}
	lq := func(sort string, desc bool, status ...string) patio.ListQuery {
		return patio.ListQuery{Sort: sort, Desc: desc, Status: status}
	}
	cents := func(c money.Cents) *money.Cents { return &c }
	year := func(y int) *int { return &y }
	today := patio.DateOf(time.Now())
	yesterday := patio.DateOf(time.Now().Add(-24 * time.Hour))
	cases := []listCase[patio.VehicleQuery, patio.Vehicle]{
		{name: "default", q: patio.VehicleQuery{}},
		{name: "every status by price", q: patio.VehicleQuery{ListQuery: lq("price", false, patio.VehicleStatuses...)}},
		{name: "brand", q: patio.VehicleQuery{Brand: ptr("Toyota")}, keep: brand("toyota")},
		{name: "brand accent-insensitive", q: patio.VehicleQuery{Brand: ptr("CITROEN")}, keep: brand("citroen")},
		{name: "brand by price", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: lq("price", false)}, keep: brand("toyota")},
		{name: "brand by -title", q: patio.VehicleQuery{Brand: ptr("fiat"), ListQuery: lq("title", true)}, keep: brand("fiat")},
		{name: "brand by model_year", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: lq("model_year", false)}, keep: brand("toyota")},
		{name: "brand by -mileage_km", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: lq("mileage_km", true)}, keep: brand("toyota")},
		{name: "brand by updated_at", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: lq("updated_at", false)}, keep: brand("toyota")},
		{name: "brand and status", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: lq("", false, string(patio.VehicleActive))},
			keep: brand("toyota")},
		{name: "brand archived", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: lq("", false, string(patio.VehicleArchived))},
			keep: brand("toyota")},
		{name: "model by title", q: patio.VehicleQuery{Model: ptr("corolla"), ListQuery: lq("title", false)},
			keep: func(v patio.Vehicle) bool { return v.Model == "Corolla" }},
		{name: "phases", q: patio.VehicleQuery{Phase: []string{"disponivel", "preparacao"}},
			keep: func(v patio.Vehicle) bool { return v.Phase == "disponivel" || v.Phase == "preparacao" }},
		{name: "phases by -price, two statuses", q: patio.VehicleQuery{Phase: []string{"entregue", "avaliacao"},
			ListQuery: lq("price", true, string(patio.VehicleActive), string(patio.VehicleSold))},
			keep: func(v patio.Vehicle) bool { return v.Phase == "entregue" || v.Phase == "avaliacao" }},
		{name: "fuel by -price", q: patio.VehicleQuery{Fuel: []string{"diesel"}, ListQuery: lq("price", true)},
			keep: func(v patio.Vehicle) bool { return v.Fuel != nil && *v.Fuel == "diesel" }},
		{name: "brand and fuel", q: patio.VehicleQuery{Brand: ptr("toyota"), Fuel: []string{"flex", "gasolina"}},
			keep: func(v patio.Vehicle) bool { return brand("toyota")(v) && v.Fuel != nil && *v.Fuel != "diesel" }},
		{name: "price range", q: patio.VehicleQuery{PriceMin: cents(3_000_000), PriceMax: cents(5_000_000)},
			keep: price(3_000_000, 5_000_000)},
		// Ranges of a few buckets of their first two digits (R$ 1.000 wide at these prices; their
		// page merged from the buckets' items), with
		// prices held in part (read from the price index).
		{name: "price range of a bucket", q: patio.VehicleQuery{PriceMin: cents(2_000_000), PriceMax: cents(2_099_999)},
			keep: price(2_000_000, 2_099_999)},
		{name: "price range held in part", q: patio.VehicleQuery{PriceMin: cents(1_950_000), PriceMax: cents(2_000_000)},
			keep: price(1_950_000, 2_000_000)},
		{name: "price range of buckets and a part, one status, oldest first", q: patio.VehicleQuery{PriceMin: cents(1_000_000),
			PriceMax: cents(2_000_000), ListQuery: lq("created_at", false, string(patio.VehicleActive))}, keep: price(1_000_000, 2_000_000)},
		{name: "price range by price", q: patio.VehicleQuery{PriceMin: cents(3_000_000), PriceMax: cents(5_000_001), ListQuery: lq("price", false)},
			keep: price(3_000_000, 5_000_001)},
		{name: "price_min by -price", q: patio.VehicleQuery{PriceMin: cents(7_000_000), ListQuery: lq("price", true)},
			keep: price(7_000_000, 1<<50)},
		{name: "price_max by title", q: patio.VehicleQuery{PriceMax: cents(2_000_000), ListQuery: lq("title", false)},
			keep: price(0, 2_000_000)},
		{name: "years", q: patio.VehicleQuery{YearMin: year(2013), YearMax: year(2016)},
			keep: func(v patio.Vehicle) bool { return v.ModelYear != nil && *v.ModelYear >= 2013 && *v.ModelYear <= 2016 }},
		{name: "years by -model_year", q: patio.VehicleQuery{YearMin: year(2015), ListQuery: lq("model_year", true)},
			keep: func(v patio.Vehicle) bool { return v.ModelYear != nil && *v.ModelYear >= 2015 }},
		{name: "status, brand and price_max", q: patio.VehicleQuery{Brand: ptr("fiat"), PriceMax: cents(6_000_000),
			ListQuery: lq("", false, string(patio.VehicleActive))},
			keep: func(v patio.Vehicle) bool { return brand("fiat")(v) && v.Price <= 6_000_000 }},
		{name: "created today", q: patio.VehicleQuery{ListQuery: patio.ListQuery{CreatedFrom: &today, CreatedTo: &today}}},
		{name: "created today by price", q: patio.VehicleQuery{ListQuery: patio.ListQuery{CreatedFrom: &today, Sort: "price"}}},
		{name: "created before today", q: patio.VehicleQuery{ListQuery: patio.ListQuery{CreatedTo: &yesterday}},
			keep: func(patio.Vehicle) bool { return false }},
		{name: "sync", q: patio.VehicleQuery{ListQuery: patio.ListQuery{UpdatedSince: &since, Sort: "updated_at"}},
			keep: func(v patio.Vehicle) bool { return !v.UpdatedAt.Time().Before(since.Time()) }},
		{name: "sync in creation order", q: patio.VehicleQuery{ListQuery: patio.ListQuery{UpdatedSince: &since}},
			keep: func(v patio.Vehicle) bool { return !v.UpdatedAt.Time().Before(since.Time()) }},
		{name: "sync of one status by price", q: patio.VehicleQuery{ListQuery: patio.ListQuery{UpdatedSince: &since, Sort: "price",
			Status: []string{string(patio.VehicleActive)}}},
			keep: func(v patio.Vehicle) bool { return !v.UpdatedAt.Time().Before(since.Time()) }},
		{name: "sync and brand", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: patio.ListQuery{UpdatedSince: &since}},
			keep: func(v patio.Vehicle) bool { return brand("toyota")(v) && !v.UpdatedAt.Time().Before(since.Time()) }},
	}
	for _, q := range []struct {
		q    string
		sort string
		desc bool
	}{{"cor", "", false}, {"toyota cor", "price", true}, {"ÁGIL", "", false}, {"agil c", "title", false},
		{"c", "price", false}, {"gr-yaris", "", false}, {"abc1", "", false}, {strings.ToLower(plate), "mileage_km", false},
		{"rolla", "", false}, {"zzz", "", false}, {"2.0", "updated_at", true}} {
		cases = append(cases, listCase[patio.VehicleQuery, patio.Vehicle]{name: "q=" + q.q + " sort=" + q.sort,
			q: patio.VehicleQuery{Q: ptr(q.q), ListQuery: lq(q.sort, q.desc)}, keep: func(v patio.Vehicle) bool { return matchesQ(v.Words(), q.q) }})
	}
	cases = append(cases,
		listCase[patio.VehicleQuery, patio.Vehicle]{name: "q and brand by -price", q: patio.VehicleQuery{Q: ptr("agil"), Brand: ptr("fiat"),
			ListQuery: lq("price", true)}, keep: func(v patio.Vehicle) bool { return brand("fiat")(v) && matchesQ(v.Words(), "agil") }},
		listCase[patio.VehicleQuery, patio.Vehicle]{name: "q and price", q: patio.VehicleQuery{Q: ptr("toyota"), PriceMax: cents(4_000_000)},
			keep: func(v patio.Vehicle) bool { return matchesQ(v.Words(), "toyota") && v.Price <= 4_000_000 }},
		listCase[patio.VehicleQuery, patio.Vehicle]{name: "plate", q: patio.VehicleQuery{Plate: ptr(plate)},
			keep: func(v patio.Vehicle) bool { return v.ID == all[1].ID }},
		listCase[patio.VehicleQuery, patio.Vehicle]{name: "plate of another status", q: patio.VehicleQuery{Plate: ptr(plate),
			ListQuery: lq("", false, string(patio.VehicleArchived))}, keep: func(v patio.Vehicle) bool { return v.ID == all[1].ID }},
		listCase[patio.VehicleQuery, patio.Vehicle]{name: "plate and another brand", q: patio.VehicleQuery{Plate: ptr(plate), Brand: ptr("honda")},
			keep: func(v patio.Vehicle) bool { return false }},
		listCase[patio.VehicleQuery, patio.Vehicle]{name: "unknown plate", q: patio.VehicleQuery{Plate: ptr("ZZZ9Z99")},
			keep: func(v patio.Vehicle) bool { return false }},
	)
	svc := patio.NewVehicles(s.Vehicles())
	checkLists(t, svc, team, vehicleOracle, all, cases, vehicleQuery)

	// Read after write: a vehicle that changes brand, price or status is listed by its new values
	// at once, and no longer by its old ones.
	ctx := context.Background()
	moved, err := svc.Update(ctx, team, all[2].ID, patio.VehicleInput{Brand: patio.Some("Toyota"), Price: patio.Some(money.Cents(123))})
	if err != nil {
		t.Fatal(err)
	}
	all[2] = moved
	archived, err := svc.Archive(ctx, team, all[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	all[0] = archived
	checkLists(t, svc, team, vehicleOracle, all, []listCase[patio.VehicleQuery, patio.Vehicle]{
		{name: "after: brand", q: patio.VehicleQuery{Brand: ptr("toyota")}, keep: brand("toyota")},
		{name: "after: old brand", q: patio.VehicleQuery{Brand: ptr("fiat")}, keep: brand("fiat")},
		{name: "after: brand by price", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: lq("price", false)}, keep: brand("toyota")},
		{name: "after: q", q: patio.VehicleQuery{Q: ptr("toyota")}, keep: func(v patio.Vehicle) bool { return matchesQ(v.Words(), "toyota") }},
		{name: "after: archived", q: patio.VehicleQuery{ListQuery: lq("", false, string(patio.VehicleArchived))}},
	}, vehicleQuery)
}

// A team written in the previous format (no facet or word items) lists as the oracle says before
// the backfill (every record of the shown statuses read and filtered in memory) and after it.
func TestPreviousFormatMatchesTheOracle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	var all []patio.Vehicle
	for i := range 30 {
		v := newVehicle(t, team, patio.VehicleInput{Brand: patio.Some([]string{"Toyota", "Fiat", "Honda"}[i%3]),
			Model: patio.Some([]string{"Corolla", "Uno"}[i%2]), Price: patio.Some(money.Cents(100 * (1 + i%4))),
			Fuel: patio.Some([]string{"flex", "diesel"}[i%2])})
		v.Status = []patio.VehicleStatus{patio.VehicleActive, patio.VehicleSold, patio.VehicleArchived}[i%3]
		dynamostore.PutCounted(t, s, v)
		all = append(all, v)
	}
	all = append(all, createVehicle(t, s, team, patio.VehicleInput{Brand: patio.Some("Toyota")}))
	brand := func(v patio.Vehicle) bool { return v.Brand == "Toyota" }
	cases := []listCase[patio.VehicleQuery, patio.Vehicle]{
		{name: "default", q: patio.VehicleQuery{}},
		{name: "brand", q: patio.VehicleQuery{Brand: ptr("toyota")}, keep: brand},
		{name: "brand by price", q: patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: patio.ListQuery{Sort: "price"}}, keep: brand},
		{name: "fuel and status", q: patio.VehicleQuery{Fuel: []string{"diesel"}, ListQuery: patio.ListQuery{Status: []string{"vendido"}}},
			keep: func(v patio.Vehicle) bool { return v.Fuel != nil && *v.Fuel == "diesel" }},
		{name: "q", q: patio.VehicleQuery{Q: ptr("cor")}, keep: func(v patio.Vehicle) bool { return matchesQ(v.Words(), "cor") }},
		{name: "price", q: patio.VehicleQuery{PriceMax: ptr(money.Cents(200))}, keep: func(v patio.Vehicle) bool { return v.Price <= 200 }},
	}
	svc := patio.NewVehicles(s.Vehicles())
	t.Run("before the backfill", func(t *testing.T) { checkLists(t, svc, team, vehicleOracle, all, cases, vehicleQuery) })
	if _, err := s.Backfill(ctx, false); err != nil {
		t.Fatal(err)
	}
	t.Run("after the backfill", func(t *testing.T) { checkLists(t, svc, team, vehicleOracle, all, cases, vehicleQuery) })
}

var clientOracle = oracle[patio.Client]{
	id:     func(c patio.Client) string { return c.ID },
	status: func(c patio.Client) string { return string(c.Status) },
	shown:  []string{string(patio.ClientActive)},
	value: func(c patio.Client, field string) (string, bool) {
		switch field {
		case "created_at":
			return c.ID, true
		case "updated_at":
			return c.UpdatedAt.String(), true
		}
		return patio.Fold(c.Name), true
	},
}

// Every client filter pages and counts as the oracle computed from every client does.
func TestClientFiltersMatchTheOracle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	var all []patio.Client
	names := []string{"Ágata Lima", "Bruno Costa", "ana maria", "Zeta Comércio Ltda", "Ômega S.A."}
	for i := range 40 {
		in := individual(names[i%len(names)], cpfOf(t, fmt.Sprintf("3%08d", i)))
		if i%3 == 0 {
			in = company(names[i%len(names)], cnpjOf(t, fmt.Sprintf("3%07d0001", i)))
			in.TradeName = patio.Some("Auto Peças " + names[(i+1)%len(names)])
		}
		if i%2 == 0 {
			in.Email = patio.Some(fmt.Sprintf("contato%d@loja-%d.example.com", i, i%3))
		}
		c := newClient(t, team, in)
		if i%4 == 0 {
			c.Status = patio.ClientInactive
		}
		got, err := s.Clients().Create(ctx, patio.Write[patio.Client]{Record: c, Changed: true})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got)
	}
	cpf, cnpj := *all[1].CPF, *all[3].CNPJ
	typ := func(kind string) func(patio.Client) bool { return func(c patio.Client) bool { return c.Type == kind } }
	q := func(s string) func(patio.Client) bool {
		return func(c patio.Client) bool { return matchesQ(c.Words(), s) }
	}
	lq := func(sort string, desc bool, status ...string) patio.ListQuery {
		return patio.ListQuery{Sort: sort, Desc: desc, Status: status}
	}
	cases := []listCase[patio.ClientQuery, patio.Client]{
		{name: "default", q: patio.ClientQuery{}},
		{name: "type", q: patio.ClientQuery{Type: []string{patio.ClientCompany}}, keep: typ(patio.ClientCompany)},
		{name: "type by name, every status", q: patio.ClientQuery{Type: []string{patio.ClientIndividual},
			ListQuery: lq("name", false, patio.ClientStatuses...)}, keep: typ(patio.ClientIndividual)},
		{name: "cpf", q: patio.ClientQuery{CPF: &cpf}, keep: func(c patio.Client) bool { return c.ID == all[1].ID }},
		{name: "cnpj inactive", q: patio.ClientQuery{CNPJ: &cnpj, ListQuery: lq("", false, string(patio.ClientInactive))},
			keep: func(c patio.Client) bool { return c.ID == all[3].ID }},
		{name: "q name", q: patio.ClientQuery{Q: ptr("ana")}, keep: q("ana")},
		{name: "q trade name by -name", q: patio.ClientQuery{Q: ptr("pecas ag"), ListQuery: lq("name", true)}, keep: q("pecas ag")},
		{name: "q email", q: patio.ClientQuery{Q: ptr("loja-1")}, keep: q("loja-1")},
		{name: "q cpf", q: patio.ClientQuery{Q: ptr(cpf[:6])}, keep: q(cpf[:6])},
		{name: "q and type", q: patio.ClientQuery{Q: ptr("zeta"), Type: []string{patio.ClientCompany}},
			keep: func(c patio.Client) bool { return q("zeta")(c) && typ(patio.ClientCompany)(c) }},
	}
	checkLists(t, patio.NewClients(s.Clients()), team, clientOracle, all, cases,
		func(q *patio.ClientQuery) *patio.ListQuery { return &q.ListQuery })
}

var dealOracle = oracle[patio.Deal]{
	id:     func(d patio.Deal) string { return d.ID },
	status: func(d patio.Deal) string { return string(d.Status) },
	shown:  []string{string(patio.DealOpen), string(patio.DealWon), string(patio.DealLost)},
	value: func(d patio.Deal, field string) (string, bool) {
		switch field {
		case "created_at":
			return d.ID, true
		case "updated_at":
			return d.UpdatedAt.String(), true
		case "title":
			return patio.Fold(d.Title), true
		case "value":
			if d.Value == nil {
				return "", false
			}
			return fmt.Sprintf("%020d", *d.Value), true
		}
		if d.ExpectedCloseDate == nil {
			return "", false
		}
		return d.ExpectedCloseDate.String(), true
	},
}

// Every deal filter pages and counts as the oracle computed from every deal does.
func TestDealFiltersMatchTheOracle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	clients := []string{newTeam(), newTeam(), newTeam()} // ids: the store checks no link here
	vehicle := newTeam()
	var all []patio.Deal
	for i := range 45 {
		d := newDeal(t, team, clients[i%3])
		d.Title = []string{"Venda do Corolla", "Troca Civic à vista", "venda financiada"}[i%3]
		d.Phase = patio.DealPhases[i%len(patio.DealPhases)]
		d.Status = []patio.DealStatus{patio.DealOpen, patio.DealOpen, patio.DealWon, patio.DealLost, patio.DealArchived}[i%5]
		if i%4 != 0 {
			d.Value = ptr(money.Cents(1000 * (i % 7)))
		}
		if i%5 == 1 {
			d.VehicleID = &vehicle
		}
		if i%3 == 0 {
			d.ExpectedCloseDate = &patio.Date{Year: 2027, Month: time.Month(1 + i%12), Day: 1 + i%28}
		}
		got, err := s.Deals().Create(ctx, patio.Write[patio.Deal]{Record: d, Changed: true})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got)
	}
	client := func(d patio.Deal) bool { return d.ClientID == clients[1] }
	lq := func(sort string, desc bool, status ...string) patio.ListQuery {
		return patio.ListQuery{Sort: sort, Desc: desc, Status: status}
	}
	cases := []listCase[patio.DealQuery, patio.Deal]{
		{name: "client", q: patio.DealQuery{ClientID: &clients[1]}, keep: client},
		{name: "client by -value", q: patio.DealQuery{ClientID: &clients[1], ListQuery: lq("value", true)}, keep: client},
		{name: "client and status by close date", q: patio.DealQuery{ClientID: &clients[1],
			ListQuery: lq("expected_close_date", false, string(patio.DealOpen))}, keep: client},
		{name: "vehicle", q: patio.DealQuery{VehicleID: &vehicle}, keep: func(d patio.Deal) bool { return d.VehicleID != nil }},
		{name: "phase", q: patio.DealQuery{Phase: []string{"lead", "visita"}},
			keep: func(d patio.Deal) bool { return d.Phase == "lead" || d.Phase == "visita" }},
		{name: "value range by title", q: patio.DealQuery{ValueMin: ptr(money.Cents(2000)), ValueMax: ptr(money.Cents(4000)),
			ListQuery: lq("title", false)},
			keep: func(d patio.Deal) bool { return d.Value != nil && *d.Value >= 2000 && *d.Value <= 4000 }},
		{name: "q", q: patio.DealQuery{Q: ptr("venda")}, keep: func(d patio.Deal) bool { return matchesQ(d.Words(), "venda") }},
		{name: "q two terms by -title", q: patio.DealQuery{Q: ptr("VISTA troca"), ListQuery: lq("title", true)},
			keep: func(d patio.Deal) bool { return matchesQ(d.Words(), "vista troca") }},
		{name: "q and client", q: patio.DealQuery{Q: ptr("ven"), ClientID: &clients[1]},
			keep: func(d patio.Deal) bool { return client(d) && matchesQ(d.Words(), "ven") }},
	}
	checkLists(t, patio.NewDeals(s.Deals(), s.Vehicles()), team, dealOracle, all, cases,
		func(q *patio.DealQuery) *patio.ListQuery { return &q.ListQuery })
}

var activityOracle = oracle[patio.Activity]{
	id:     func(a patio.Activity) string { return a.ID },
	status: func(a patio.Activity) string { return string(a.Status) },
	shown:  []string{string(patio.ActivityPending), string(patio.ActivityInProgress), string(patio.ActivityCompleted)},
	value: func(a patio.Activity, field string) (string, bool) {
		switch field {
		case "created_at":
			return a.ID, true
		case "updated_at":
			return a.UpdatedAt.String(), true
		}
		if a.DueAt == nil {
			return "", false
		}
		return a.DueAt.String(), true
	},
}

// Every activity filter (type, due window, linked records, the overdue view) pages and counts as
// the oracle computed from every activity does, in every order.
func TestActivityFiltersMatchTheOracle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	now := time.Now().UTC().Truncate(time.Second)
	links := []string{newTeam(), newTeam()}
	var all []patio.Activity
	for i := range 48 {
		id, created := patio.NewID()
		in := patio.ActivityInput{Type: patio.Some(patio.ActivityTypes[i%len(patio.ActivityTypes)]), Title: patio.Some(fmt.Sprintf("Ligar %d", i))}
		if i%5 != 0 {
			in.DueAt = patio.Some(patio.NewTimestamp(now.Add(time.Duration(i%11-5) * 24 * time.Hour)))
		}
		w, err := patio.NewActivity(team, id, created, in)
		if err != nil {
			t.Fatal(err)
		}
		a := w.Record
		a.Status = patio.ActivityStatus(patio.ActivityStatuses[i%len(patio.ActivityStatuses)])
		switch i % 3 {
		case 0:
			a.VehicleID = &links[0]
		case 1:
			a.ClientID, a.DealID = &links[1], &links[0]
		}
		got, err := s.Activities().Create(ctx, patio.Write[patio.Activity]{Record: a, Changed: true})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got)
	}
	from, to := patio.NewTimestamp(now.Add(-2*24*time.Hour)), patio.NewTimestamp(now.Add(3*24*time.Hour))
	due := func(a patio.Activity) bool {
		return a.DueAt != nil && !a.DueAt.Time().Before(from.Time()) && !a.DueAt.Time().After(to.Time())
	}
	overdue := func(a patio.Activity) bool { return a.Open() && a.DueAt != nil && !a.DueAt.Time().After(now) }
	lq := func(sort string, desc bool) patio.ListQuery { return patio.ListQuery{Sort: sort, Desc: desc} }
	cases := []listCase[patio.ActivityQuery, patio.Activity]{
		{name: "default", q: patio.ActivityQuery{}},
		{name: "by due", q: patio.ActivityQuery{ListQuery: lq("due_at", false)}},
		{name: "type by -due", q: patio.ActivityQuery{Type: []string{"call", "task"}, ListQuery: lq("due_at", true)},
			keep: func(a patio.Activity) bool { return a.Type == "call" || a.Type == "task" }},
		{name: "due window by due", q: patio.ActivityQuery{DueFrom: &from, DueTo: &to, ListQuery: lq("due_at", false)}, keep: due},
		{name: "due window", q: patio.ActivityQuery{DueFrom: &from, DueTo: &to}, keep: due},
		{name: "vehicle", q: patio.ActivityQuery{VehicleID: &links[0]}, keep: func(a patio.Activity) bool { return a.VehicleID != nil }},
		{name: "client and deal by due", q: patio.ActivityQuery{ClientID: &links[1], DealID: &links[0], ListQuery: lq("due_at", false)},
			keep: func(a patio.Activity) bool { return a.ClientID != nil }},
		{name: "deal and due window", q: patio.ActivityQuery{DealID: &links[0], DueTo: &to},
			keep: func(a patio.Activity) bool {
				return a.DealID != nil && a.DueAt != nil && !a.DueAt.Time().After(to.Time())
			}},
		{name: "overdue by due", q: patio.ActivityQuery{Overdue: true, Now: now, ListQuery: lq("due_at", false)}, keep: overdue},
		{name: "overdue of a type", q: patio.ActivityQuery{Overdue: true, Now: now, Type: []string{"meeting"}},
			keep: func(a patio.Activity) bool { return overdue(a) && a.Type == "meeting" }},
	}
	checkLists(t, patio.NewActivities(s.Activities()), team, activityOracle, all, cases,
		func(q *patio.ActivityQuery) *patio.ListQuery { return &q.ListQuery })
}

var financialOracle = oracle[patio.FinancialRecord]{
	id:     func(f patio.FinancialRecord) string { return f.ID },
	status: func(f patio.FinancialRecord) string { return string(f.Status) },
	shown:  []string{string(patio.FinancialPending), string(patio.FinancialPaid)},
	value: func(f patio.FinancialRecord, field string) (string, bool) {
		switch field {
		case "created_at":
			return f.ID, true
		case "updated_at":
			return f.UpdatedAt.String(), true
		case "amount":
			return fmt.Sprintf("%020d", f.Amount), true
		}
		return f.DueDate.String(), true
	},
}

// Every financial filter (type, category, payment method, due window, linked records, the overdue
// view) pages and counts as the oracle computed from every record does, in every order.
func TestFinancialFiltersMatchTheOracle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	today := patio.DateOf(time.Now())
	deal := newTeam()
	var all []patio.FinancialRecord
	for i := range 48 {
		id, created := patio.NewID()
		typ := patio.FinancialTypes[i%len(patio.FinancialTypes)]
		in := patio.FinancialInput{Type: patio.Some(typ), Category: patio.Some(patio.FinancialCategories[typ][i%4]),
			Description: patio.Some(fmt.Sprintf("Lançamento %d", i)), Amount: patio.Some(money.Cents(100 * (1 + i%6))),
			DueDate: patio.Some(patio.DateOf(today.Start().Add(time.Duration(i%9-4) * 24 * time.Hour)))}
		if i%3 != 0 {
			in.PaymentMethod = patio.Some(patio.DealPaymentMethods[i%len(patio.DealPaymentMethods)])
		}
		w, err := patio.NewFinancialRecord(team, id, created, in)
		if err != nil {
			t.Fatal(err)
		}
		f := w.Record
		f.Zone = patio.DefaultTimeZone
		f.Status = patio.FinancialStatus(patio.FinancialStatuses[i%len(patio.FinancialStatuses)])
		if i%4 == 0 {
			f.DealID = &deal
		}
		got, err := s.Financial().Create(ctx, patio.Write[patio.FinancialRecord]{Record: f, Changed: true})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got)
	}
	method := func(f patio.FinancialRecord) bool { return f.PaymentMethod != nil && *f.PaymentMethod == "pix" }
	overdue := func(f patio.FinancialRecord) bool {
		return f.Status == patio.FinancialPending && f.DueDate.Start().Before(today.Start())
	}
	lq := func(sort string, desc bool, status ...string) patio.ListQuery {
		return patio.ListQuery{Sort: sort, Desc: desc, Status: status}
	}
	from, to := patio.DateOf(today.Start().Add(-48*time.Hour)), today
	cases := []listCase[patio.FinancialQuery, patio.FinancialRecord]{
		{name: "default by due", q: patio.FinancialQuery{ListQuery: lq("due_date", false)}},
		{name: "type by -amount", q: patio.FinancialQuery{Type: []string{"cost"}, ListQuery: lq("amount", true)},
			keep: func(f patio.FinancialRecord) bool { return f.Type == "cost" }},
		{name: "categories", q: patio.FinancialQuery{Category: []string{"aluguel", "funilaria"}},
			keep: func(f patio.FinancialRecord) bool { return f.Category == "aluguel" || f.Category == "funilaria" }},
		{name: "payment method by due", q: patio.FinancialQuery{PaymentMethod: []string{"pix"}, ListQuery: lq("due_date", true)}, keep: method},
		{name: "payment method and type", q: patio.FinancialQuery{PaymentMethod: []string{"pix"}, Type: []string{"revenue"}},
			keep: func(f patio.FinancialRecord) bool { return method(f) && f.Type == "revenue" }},
		{name: "due window", q: patio.FinancialQuery{DueFrom: &from, DueTo: &to},
			keep: func(f patio.FinancialRecord) bool {
				return !f.DueDate.Start().Before(from.Start()) && !f.DueDate.Start().After(to.Start())
			}},
		{name: "deal every status", q: patio.FinancialQuery{DealID: &deal, ListQuery: lq("amount", false, patio.FinancialStatuses...)},
			keep: func(f patio.FinancialRecord) bool { return f.DealID != nil }},
		{name: "overdue by due", q: patio.FinancialQuery{Overdue: true, Today: today, ListQuery: lq("due_date", false)}, keep: overdue},
		{name: "overdue expenses", q: patio.FinancialQuery{Overdue: true, Today: today, Type: []string{"expense"}},
			keep: func(f patio.FinancialRecord) bool { return overdue(f) && f.Type == "expense" }},
	}
	checkLists(t, patio.NewFinancial(s.Financial(), accountdb.NewAccounts(s.DB()).Team), team, financialOracle, all, cases,
		func(q *patio.FinancialQuery) *patio.ListQuery { return &q.ListQuery })
}
