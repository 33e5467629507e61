package dynamostore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// newStore returns a store on this package's table set in DynamoDB Local, created once per test
// binary by testenv. Tests keep out of each other's way by working in teams of their own (newTeam):
// every record and guard item lives in its team's partition.
func newStore(t *testing.T) *dynamostore.Store {
	t.Helper()
	names := testenv.Tables(t)
	return dynamostore.New(testenv.AWSConfig(t), dynamostore.Tables{
		Vehicles: names["VehiclesTable"], Clients: names["ClientsTable"], Deals: names["DealsTable"],
		Accounts: names["AccountsTable"], Activities: names["ActivitiesTable"], Financial: names["FinancialTable"]})
}

// caughtUp waits for q's word items to follow every write made so far, as the indexer function
// keeps them from the streams on AWS (testenv.Index): a test calls it between its writes and
// a search that must find them.
func caughtUp(t *testing.T) {
	t.Helper()
	testenv.Index(t, dynamostore.IndexerOf(newStore(t)))
}

// newTeam returns the id of a team no other test uses.
func newTeam() string {
	id, _ := patio.NewID()
	return id
}

func ptr[T any](v T) *T { return &v }

// newVehicle builds, without storing it, a vehicle of the team with the domain's constructor: the
// input's members over a Fiat Argo priced R$ 80.000,00.
func newVehicle(t *testing.T, teamID string, in patio.VehicleInput) patio.Vehicle {
	t.Helper()
	if !in.Brand.Present {
		in.Brand = patio.Some("Fiat")
	}
	if !in.Model.Present {
		in.Model = patio.Some("Argo")
	}
	if !in.Price.Present {
		in.Price = patio.Some(money.Cents(8_000_000))
	}
	id, now := patio.NewID()
	v, err := patio.NewVehicle(teamID, id, now, in)
	if err != nil {
		t.Fatalf("NewVehicle = %v; want nil", err)
	}
	return v
}

// plated is a vehicle input setting the plate.
func plated(plate string) patio.VehicleInput { return patio.VehicleInput{Plate: patio.Some(plate)} }

// createVehicle stores a new vehicle of the team (newVehicle) and returns it as stored.
func createVehicle(t *testing.T, s *dynamostore.Store, teamID string, in patio.VehicleInput) patio.Vehicle {
	t.Helper()
	v := newVehicle(t, teamID, in)
	got, err := s.Vehicles().Create(context.Background(), patio.Write[patio.Vehicle]{Record: v, Changed: true})
	if err != nil {
		t.Fatalf("Create(vehicle %s) = %v; want nil", v.ID, err)
	}
	return got
}

// individual and company are client inputs of each type with their document.
func individual(name, cpf string) patio.ClientInput {
	return patio.ClientInput{Type: patio.Some(patio.ClientIndividual), Name: patio.Some(name), CPF: patio.Some(cpf)}
}

func company(name, cnpj string) patio.ClientInput {
	return patio.ClientInput{Type: patio.Some(patio.ClientCompany), Name: patio.Some(name), CNPJ: patio.Some(cnpj)}
}

// newClient builds, without storing it, a client of the team with the domain's constructor.
func newClient(t *testing.T, teamID string, in patio.ClientInput) patio.Client {
	t.Helper()
	id, now := patio.NewID()
	c, err := patio.NewClient(teamID, id, now, in)
	if err != nil {
		t.Fatalf("NewClient = %v; want nil", err)
	}
	return c
}

// createClient stores a new client of the team and returns it as stored.
func createClient(t *testing.T, s *dynamostore.Store, teamID string, in patio.ClientInput) patio.Client {
	t.Helper()
	c := newClient(t, teamID, in)
	got, err := s.Clients().Create(context.Background(), patio.Write[patio.Client]{Record: c, Changed: true})
	if err != nil {
		t.Fatalf("Create(client %s) = %v; want nil", c.ID, err)
	}
	return got
}

// newDeal builds, without storing it, an open deal of the team for the client, with no vehicle.
func newDeal(t *testing.T, teamID, clientID string) patio.Deal {
	t.Helper()
	id, now := patio.NewID()
	w, err := patio.NewDeal(context.Background(), teamID, id, now,
		patio.DealInput{Title: patio.Some("Argo for Ana"), ClientID: patio.Some(clientID)}, nil)
	if err != nil {
		t.Fatalf("NewDeal = %v; want nil", err)
	}
	return w.Record
}

// vehicleWithStatus stores a new vehicle of the team and brings it to status through the use cases.
func vehicleWithStatus(t *testing.T, s *dynamostore.Store, teamID, status string) patio.Vehicle {
	t.Helper()
	v := createVehicle(t, s, teamID, patio.VehicleInput{})
	if status == string(v.Status) {
		return v
	}
	got, err := patio.NewVehicles(s.Vehicles()).Update(context.Background(), teamID, v.ID,
		patio.VehicleInput{Status: patio.Some(status)})
	if err != nil {
		t.Fatalf("Update(vehicle %s to %s) = %v; want nil", v.ID, status, err)
	}
	return got
}

// inactiveClient stores a new client of the team and deactivates it.
func inactiveClient(t *testing.T, s *dynamostore.Store, teamID string) patio.Client {
	t.Helper()
	c := createClient(t, s, teamID, individual("Ana", cpfOf(t, "123456789")))
	got, err := patio.NewClients(s.Clients()).Archive(context.Background(), teamID, c.ID)
	if err != nil {
		t.Fatalf("Archive(client %s) = %v; want nil", c.ID, err)
	}
	return got
}

// createDealFor stores a new deal of the team for an active client.
func createDealFor(t *testing.T, s *dynamostore.Store, teamID, clientID string) patio.Deal {
	t.Helper()
	got, err := s.Deals().Create(context.Background(), patio.Write[patio.Deal]{Record: newDeal(t, teamID, clientID), Changed: true})
	if err != nil {
		t.Fatalf("Create(deal) = %v; want nil", err)
	}
	return got
}

// vehicleAt, clientAt and dealAt return a record at revision n, as the store returns it.
func vehicleAt(v patio.Vehicle, n int) patio.Vehicle { v.Revision = n; return v }
func clientAt(c patio.Client, n int) patio.Client    { c.Revision = n; return c }
func dealAt(d patio.Deal, n int) patio.Deal          { d.Revision = n; return d }

// vehicleRevision, clientRevision and dealRevision read a record's revision.
func vehicleRevision(v patio.Vehicle) int { return v.Revision }
func clientRevision(c patio.Client) int   { return c.Revision }
func dealRevision(d patio.Deal) int       { return d.Revision }

// cpfOf returns the valid CPF whose first nine digits are base9.
func cpfOf(t *testing.T, base9 string) string { return validDocument(t, base9, br.NormalizeCPF) }

// cnpjOf returns the valid CNPJ whose first twelve characters are base12.
func cnpjOf(t *testing.T, base12 string) string { return validDocument(t, base12, br.NormalizeCNPJ) }

// validDocument completes base with the check digits normalize accepts, so that the tests hold no
// copy of the check digit algorithms.
func validDocument(t *testing.T, base string, normalize func(string) (string, error)) string {
	t.Helper()
	for d := range 100 {
		if v, err := normalize(fmt.Sprintf("%s%02d", base, d)); err == nil {
			return v
		}
	}
	t.Fatalf("no valid document starts with %s", base)
	return ""
}

// wantMissing checks that the team has no record id: a write that was refused left nothing behind.
func wantMissing[T, Q any](t *testing.T, store patio.Store[T, Q], teamID, id string) {
	t.Helper()
	if got, err := store.Get(context.Background(), teamID, id); !patio.IsKind(err, patio.KindNotFound) {
		t.Errorf("Get(%s) = %s, %v; want KindNotFound (the refused write stored it)", id, show(got), err)
	}
}

// wantStored checks that Get reads back exactly want (revision included).
func wantStored[T, Q any](t *testing.T, store patio.Store[T, Q], teamID, id string, want T) {
	t.Helper()
	got, err := store.Get(context.Background(), teamID, id)
	if err != nil {
		t.Fatalf("Get(%s) = %v; want nil", id, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get(%s) = %s;\nwant %s", id, show(got), show(want))
	}
}

// show renders a record for failure messages: its JSON form (pointers followed) and the fields
// JSON leaves out.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct || !rv.FieldByName("Revision").IsValid() {
		return string(b)
	}
	return fmt.Sprintf("%s team=%v revision=%v", b, rv.FieldByName("TeamID"), rv.FieldByName("Revision"))
}
