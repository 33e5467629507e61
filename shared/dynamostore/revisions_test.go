package dynamostore_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// roundTrip stores w with Create and checks that Create returns its record at revision 1 (at sets a
// record's revision), and that Get reads back exactly what Create returned.
func roundTrip[T, Q any](t *testing.T, store patio.Store[T, Q], w patio.Write[T], teamID, id string, at func(T, int) T) T {
	t.Helper()
	created, err := store.Create(context.Background(), w)
	if err != nil {
		t.Fatalf("Create(%s) = %v; want nil", id, err)
	}
	if want := at(w.Record, 1); !reflect.DeepEqual(created, want) {
		t.Errorf("Create(%s) = %s;\nwant %s", id, show(created), show(want))
	}
	wantStored(t, store, teamID, id, created)
	return created
}

// wantRevision checks the revision of a record an update returned, and that Get reads it back.
func wantRevision[T, Q any](t *testing.T, store patio.Store[T, Q], teamID, id string, got T, err error, revision func(T) int, want int) {
	t.Helper()
	if err != nil {
		t.Fatalf("Update(%s) = %v; want nil", id, err)
	}
	if r := revision(got); r != want {
		t.Errorf("Update(%s) revision = %d; want %d", id, r, want)
	}
	wantStored(t, store, teamID, id, got)
}

// Every member of every record type reads back as it was written, "" apart from null, at revision 1
// after Create and one more after each changing Update.
func TestRecordsReadBackAsWritten(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	vehicles, clients := patio.NewVehicles(s.Vehicles()), patio.NewClients(s.Clients())
	deals := patio.NewDeals(s.Deals(), s.Vehicles())
	renavam := validDocument(t, "123456789", br.ValidateRENAVAM)
	address := patio.AddressInput{Street: patio.Some("Av. Paulista"), Number: patio.Some("1000"),
		Complement: patio.Some("conj. 12"), District: patio.Some("Bela Vista"), City: patio.Some("São Paulo"),
		State: patio.Some("sp"), ZipCode: patio.Some("01310-100")}
	birth, _ := patio.ParseDate("1990-05-17")
	closeDate, _ := patio.ParseDate("2030-01-31")

	tests := []struct {
		name string
		run  func(t *testing.T, team string)
	}{
		{name: "vehicle with every member", run: func(t *testing.T, team string) {
			v := newVehicle(t, team, patio.VehicleInput{
				Title: patio.Some("Argo Drive"), Version: patio.Some("Drive 1.3"), Plate: patio.Some("abc-1d23"),
				Renavam: patio.Some(renavam), VIN: patio.Some("9BD358A4NHG123456"),
				ManufactureYear: patio.Some(2023), ModelYear: patio.Some(2024), MileageKm: patio.Some(12_000),
				Color: patio.Some("Prata"), Fuel: patio.Some("flex"), Transmission: patio.Some("manual"),
				PurchasePrice: patio.Some(money.Cents(6_500_050)), Phase: patio.Some("disponivel"),
				Status: patio.Some(string(patio.VehicleReserved)), Description: patio.Some("Único dono"),
			})
			roundTrip(t, s.Vehicles(), patio.Write[patio.Vehicle]{Record: v, Changed: true}, team, v.ID, vehicleAt)
			got, err := vehicles.Update(ctx, team, v.ID, patio.VehicleInput{Status: patio.Some(string(patio.VehicleSold))})
			wantRevision(t, s.Vehicles(), team, v.ID, got, err, vehicleRevision, 2)
		}},
		{name: "vehicle with empty text", run: func(t *testing.T, team string) {
			v := newVehicle(t, team, patio.VehicleInput{Version: patio.Some(""), Color: patio.Some(""),
				Description: patio.Some("")})
			roundTrip(t, s.Vehicles(), patio.Write[patio.Vehicle]{Record: v, Changed: true}, team, v.ID, vehicleAt)
			got, err := vehicles.Update(ctx, team, v.ID, patio.VehicleInput{Version: patio.Null[string](),
				Color: patio.Some("Preto")})
			wantRevision(t, s.Vehicles(), team, v.ID, got, err, vehicleRevision, 2)
		}},
		{name: "individual with every member", run: func(t *testing.T, team string) {
			in := individual("Ana Souza", cpfOf(t, "123456789"))
			in.Email, in.Phone = patio.Some("Ana@Example.com"), patio.Some("(11) 98765-4321")
			in.BirthDate, in.Address, in.Notes = patio.Some(birth), patio.Some(address), patio.Some("Prefere WhatsApp")
			c := newClient(t, team, in)
			roundTrip(t, s.Clients(), patio.Write[patio.Client]{Record: c, Changed: true}, team, c.ID, clientAt)
			got, err := clients.Update(ctx, team, c.ID, patio.ClientInput{Address: patio.Null[patio.AddressInput](),
				Status: patio.Some(string(patio.ClientInactive))})
			wantRevision(t, s.Clients(), team, c.ID, got, err, clientRevision, 2)
		}},
		{name: "company with every member", run: func(t *testing.T, team string) {
			in := company("Souza Veículos Ltda", cnpjOf(t, "12ABC34501DE"))
			in.TradeName, in.StateRegistration = patio.Some("Souza Motors"), patio.Some("isento")
			in.Email, in.Phone, in.Address = patio.Some("compras@souza.com.br"), patio.Some("1133334444"), patio.Some(address)
			c := newClient(t, team, in)
			roundTrip(t, s.Clients(), patio.Write[patio.Client]{Record: c, Changed: true}, team, c.ID, clientAt)
			got, err := clients.Update(ctx, team, c.ID, patio.ClientInput{
				Address: patio.Some(patio.AddressInput{Complement: patio.Null[string](), Number: patio.Some("")})})
			wantRevision(t, s.Clients(), team, c.ID, got, err, clientRevision, 2)
		}},
		{name: "client with empty text", run: func(t *testing.T, team string) {
			in := company("Souza Ltda", cnpjOf(t, "112223330001"))
			in.TradeName, in.Notes = patio.Some(""), patio.Some("")
			in.Address = patio.Some(patio.AddressInput{Street: patio.Some(""), City: patio.Some("Santos")})
			c := newClient(t, team, in)
			roundTrip(t, s.Clients(), patio.Write[patio.Client]{Record: c, Changed: true}, team, c.ID, clientAt)
		}},
		{name: "deal with every member", run: func(t *testing.T, team string) {
			c := createClient(t, s, team, individual("Ana", cpfOf(t, "123456789")))
			v := createVehicle(t, s, team, patio.VehicleInput{})
			// Created through the use case, whose write carries the deal's requirements.
			d, err := deals.Create(ctx, team, patio.DealInput{Title: patio.Some("Argo para Ana"),
				ClientID: patio.Some(c.ID), VehicleID: patio.Some(v.ID), Value: patio.Some(money.Cents(7_950_000)),
				Phase: patio.Some("proposta"), PaymentMethod: patio.Some("financiamento"),
				ExpectedCloseDate: patio.Some(closeDate), Notes: patio.Some("Entrada de 30%")})
			if err != nil {
				t.Fatalf("Create(deal) = %v; want nil", err)
			}
			if d.Revision != 1 {
				t.Errorf("Create(deal %s) revision = %d; want 1", d.ID, d.Revision)
			}
			wantStored(t, s.Deals(), team, d.ID, d)
			got, err := deals.Update(ctx, team, d.ID, patio.DealInput{Status: patio.Some(string(patio.DealLost)),
				LostReason: patio.Some("financiamento_reprovado"), Notes: patio.Some("")})
			wantRevision(t, s.Deals(), team, d.ID, got, err, dealRevision, 2)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newTeam()) })
	}
}

// A deal that wins its vehicle sells it in the same write: the vehicle gets one more revision,
// status vendido, sold_at and sold_deal_id, and nothing else changes.
func TestWinningDealRevisesItsVehicle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	deals := patio.NewDeals(s.Deals(), s.Vehicles())
	c := createClient(t, s, team, individual("Ana", cpfOf(t, "123456789")))
	v := createVehicle(t, s, team, plated("ABC1234"))
	// A first update, so that the vehicle's revision is not the one a new record has.
	before, err := patio.NewVehicles(s.Vehicles()).Update(ctx, team, v.ID, patio.VehicleInput{MileageKm: patio.Some(500)})
	if err != nil {
		t.Fatalf("Update(vehicle %s) = %v; want nil", v.ID, err)
	}
	d, err := deals.Create(ctx, team, patio.DealInput{Title: patio.Some("Argo"), ClientID: patio.Some(c.ID),
		VehicleID: patio.Some(v.ID)})
	if err != nil {
		t.Fatalf("Create(deal) = %v; want nil", err)
	}

	won, err := deals.Update(ctx, team, d.ID, patio.DealInput{Status: patio.Some(string(patio.DealWon))})
	wantRevision(t, s.Deals(), team, d.ID, won, err, dealRevision, 2)
	if won.ClosedAt == nil {
		t.Fatalf("Update(deal %s to ganho) closed_at = null; want set", d.ID)
	}

	want := before
	want.Status, want.SoldAt, want.SoldDealID = patio.VehicleSold, won.ClosedAt, ptr(d.ID)
	want.UpdatedAt, want.Revision = *won.ClosedAt, before.Revision+1
	wantStored(t, s.Vehicles(), team, v.ID, want)
	// The sold vehicle keeps its plate.
	wantPlates(t, s, team, []string{"ABC1C34"}, nil)
}
