package dynamostore_test

import (
	"context"
	"maps"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// takePlate stores a new vehicle of the team holding plate and returns Create's error: nil when the
// plate was free (the new vehicle holds it now), KindDuplicate when another vehicle holds it. A
// refused vehicle must not have been stored.
func takePlate(t *testing.T, s *dynamostore.Store, teamID, plate string) error {
	t.Helper()
	v := newVehicle(t, teamID, plated(plate))
	_, err := s.Vehicles().Create(context.Background(), patio.Write[patio.Vehicle]{Record: v, Changed: true})
	if err != nil {
		wantMissing(t, s.Vehicles(), teamID, v.ID)
	}
	return err
}

// wantPlates checks that another vehicle of the team is refused each plate of taken, then that one
// can take each plate of free (which then holds it).
func wantPlates(t *testing.T, s *dynamostore.Store, teamID string, taken, free []string) {
	t.Helper()
	for _, plate := range taken {
		if err := takePlate(t, s, teamID, plate); !patio.IsKind(err, patio.KindDuplicate) {
			t.Errorf("Create(vehicle with plate %q) = %v; want KindDuplicate (the plate is held)", plate, err)
		}
	}
	for _, plate := range free {
		if err := takePlate(t, s, teamID, plate); err != nil {
			t.Errorf("Create(vehicle with plate %q) = %v; want nil (the plate is free)", plate, err)
		}
	}
}

// Plates are unique in a team whatever their spelling: ABC1234 and ABC1C34 are one plate.
func TestPlateUniqueInTeam(t *testing.T) {
	s := newStore(t)
	tests := []struct {
		name          string
		first, second string
		otherTeam     bool // the second vehicle is of another team
		archived      bool // the first vehicle is archived before the second is created
		wantDup       bool
	}{
		{name: "same spelling", first: "ABC1234", second: "ABC1234", wantDup: true},
		{name: "old then Mercosul", first: "ABC1234", second: "ABC1C34", wantDup: true},
		{name: "Mercosul then old", first: "ABC1C34", second: "ABC1234", wantDup: true},
		{name: "hyphen and lower case", first: "ABC1C34", second: "abc-1234", wantDup: true},
		{name: "held by an archived vehicle", first: "ABC1234", second: "ABC1C34", archived: true, wantDup: true},
		{name: "another team", first: "ABC1234", second: "ABC1C34", otherTeam: true},
		{name: "another plate", first: "ABC1234", second: "ABC1B34"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			team := newTeam()
			first := createVehicle(t, s, team, plated(tt.first))
			if tt.archived {
				if _, err := patio.NewVehicles(s.Vehicles()).Archive(ctx, team, first.ID); err != nil {
					t.Fatalf("Archive(%s) = %v; want nil", first.ID, err)
				}
			}
			secondTeam := team
			if tt.otherTeam {
				secondTeam = newTeam()
			}
			second := newVehicle(t, secondTeam, plated(tt.second))
			_, err := s.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: second, Changed: true})
			if tt.wantDup {
				if !patio.IsKind(err, patio.KindDuplicate) {
					t.Fatalf("Create(plate %q after %q) = %v; want KindDuplicate", tt.second, tt.first, err)
				}
				wantMissing(t, s.Vehicles(), secondTeam, second.ID)
				return
			}
			if err != nil {
				t.Fatalf("Create(plate %q after %q) = %v; want nil", tt.second, tt.first, err)
			}
			// The second vehicle holds its plate now.
			wantPlates(t, s, secondTeam, []string{tt.second}, nil)
		})
	}
}

// A vehicle's plate guard follows its plate: a new plate is reserved and the old one freed, in the
// update's write; a refused update leaves both as they were.
func TestPlateFollowsTheVehicle(t *testing.T) {
	s := newStore(t)
	vehicles := patio.NewVehicles(s.Vehicles())
	tests := []struct {
		name    string
		plate   string // the vehicle's plate when created ("" for none)
		other   string // a plate another vehicle of the team holds ("" for none)
		update  patio.VehicleInput
		wantDup bool     // the update is refused, leaving the vehicle as it was
		taken   []string // plates no other vehicle of the team can take afterwards
		free    []string // plates another vehicle of the team can take afterwards
	}{
		{name: "a new plate frees the old one", plate: "ABC1234", update: plated("DEF5F67"),
			taken: []string{"DEF5567"}, free: []string{"ABC1C34"}},
		{name: "the other spelling of its own plate", plate: "ABC1234", update: plated("ABC1C34"),
			taken: []string{"ABC1234"}},
		{name: "other members keep the plate", plate: "ABC1234", update: patio.VehicleInput{MileageKm: patio.Some(100)},
			taken: []string{"ABC1C34"}},
		{name: "archiving keeps the plate", plate: "ABC1234",
			update: patio.VehicleInput{Status: patio.Some(string(patio.VehicleArchived))}, taken: []string{"ABC1C34"}},
		{name: "clearing the plate frees it", plate: "ABC1234", update: patio.VehicleInput{Plate: patio.Null[string]()},
			free: []string{"ABC1C34"}},
		{name: "a first plate", update: plated("ABC1C34"), taken: []string{"ABC1234"}},
		{name: "the plate of another vehicle", plate: "ABC1234", other: "DEF5F67", update: plated("def-5567"),
			wantDup: true, taken: []string{"ABC1C34", "DEF5567"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			team := newTeam()
			var in patio.VehicleInput
			if tt.plate != "" {
				in = plated(tt.plate)
			}
			v := createVehicle(t, s, team, in)
			if tt.other != "" {
				createVehicle(t, s, team, plated(tt.other))
			}
			got, err := vehicles.Update(ctx, team, v.ID, tt.update)
			switch {
			case tt.wantDup:
				if !patio.IsKind(err, patio.KindDuplicate) {
					t.Fatalf("Update(%s) = %v; want KindDuplicate", v.ID, err)
				}
				wantStored(t, s.Vehicles(), team, v.ID, v)
			case err != nil:
				t.Fatalf("Update(%s) = %v; want nil", v.ID, err)
			default:
				wantStored(t, s.Vehicles(), team, v.ID, got)
			}
			wantPlates(t, s, team, tt.taken, tt.free)
		})
	}
}

// takeDocument stores a new client of the team holding the CPF (11 characters) or CNPJ and returns
// Create's error, as takePlate does for plates.
func takeDocument(t *testing.T, s *dynamostore.Store, teamID, doc string) error {
	t.Helper()
	in := individual("Ana", doc)
	if len(doc) != 11 {
		in = company("Ana Ltda", doc)
	}
	c := newClient(t, teamID, in)
	_, err := s.Clients().Create(context.Background(), patio.Write[patio.Client]{Record: c, Changed: true})
	if err != nil {
		wantMissing(t, s.Clients(), teamID, c.ID)
	}
	return err
}

// wantDocuments is wantPlates for CPFs and CNPJs.
func wantDocuments(t *testing.T, s *dynamostore.Store, teamID string, taken, free []string) {
	t.Helper()
	for _, doc := range taken {
		if err := takeDocument(t, s, teamID, doc); !patio.IsKind(err, patio.KindDuplicate) {
			t.Errorf("Create(client with document %q) = %v; want KindDuplicate (the document is held)", doc, err)
		}
	}
	for _, doc := range free {
		if err := takeDocument(t, s, teamID, doc); err != nil {
			t.Errorf("Create(client with document %q) = %v; want nil (the document is free)", doc, err)
		}
	}
}

// CPF and CNPJ are unique in a team, inactive clients included.
func TestDocumentUniqueInTeam(t *testing.T) {
	s := newStore(t)
	cpf, cnpj := cpfOf(t, "123456789"), cnpjOf(t, "12ABC34501DE")
	tests := []struct {
		name          string
		first, second patio.ClientInput
		otherTeam     bool // the second client is of another team
		inactive      bool // the first client is deactivated before the second is created
		wantDup       bool
	}{
		{name: "same CPF", first: individual("Ana", cpf), second: individual("Bia", cpf), wantDup: true},
		{name: "same CNPJ", first: company("A Ltda", cnpj), second: company("B Ltda", cnpj), wantDup: true},
		{name: "CPF of an inactive client", first: individual("Ana", cpf), second: individual("Bia", cpf),
			inactive: true, wantDup: true},
		{name: "CNPJ of an inactive client", first: company("A Ltda", cnpj), second: company("B Ltda", cnpj),
			inactive: true, wantDup: true},
		{name: "CPF in another team", first: individual("Ana", cpf), second: individual("Bia", cpf), otherTeam: true},
		{name: "CNPJ in another team", first: company("A Ltda", cnpj), second: company("B Ltda", cnpj), otherTeam: true},
		{name: "another CPF", first: individual("Ana", cpf), second: individual("Bia", cpfOf(t, "123456780"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			team := newTeam()
			first := createClient(t, s, team, tt.first)
			if tt.inactive {
				if _, err := patio.NewClients(s.Clients()).Archive(ctx, team, first.ID); err != nil {
					t.Fatalf("Archive(%s) = %v; want nil", first.ID, err)
				}
			}
			secondTeam := team
			if tt.otherTeam {
				secondTeam = newTeam()
			}
			second := newClient(t, secondTeam, tt.second)
			_, err := s.Clients().Create(ctx, patio.Write[patio.Client]{Record: second, Changed: true})
			_, doc := second.Document()
			if tt.wantDup {
				if !patio.IsKind(err, patio.KindDuplicate) {
					t.Fatalf("Create(client with %q) = %v; want KindDuplicate", doc, err)
				}
				wantMissing(t, s.Clients(), secondTeam, second.ID)
				return
			}
			if err != nil {
				t.Fatalf("Create(client with %q) = %v; want nil", doc, err)
			}
			wantDocuments(t, s, secondTeam, []string{doc}, nil)
		})
	}
}

// A client's document guard follows its document, and deactivation keeps it.
func TestDocumentFollowsTheClient(t *testing.T) {
	s := newStore(t)
	clients := patio.NewClients(s.Clients())
	cpf1, cpf2 := cpfOf(t, "123456789"), cpfOf(t, "987654321")
	cnpj1, cnpj2 := cnpjOf(t, "112223330001"), cnpjOf(t, "12ABC34501DE")
	tests := []struct {
		name    string
		client  patio.ClientInput
		other   string // a document another client of the team holds ("" for none)
		update  patio.ClientInput
		wantDup bool
		taken   []string
		free    []string
	}{
		{name: "a new CPF frees the old one", client: individual("Ana", cpf1), update: patio.ClientInput{CPF: patio.Some(cpf2)},
			taken: []string{cpf2}, free: []string{cpf1}},
		{name: "a new CNPJ frees the old one", client: company("A Ltda", cnpj1), update: patio.ClientInput{CNPJ: patio.Some(cnpj2)},
			taken: []string{cnpj2}, free: []string{cnpj1}},
		{name: "other members keep the CPF", client: individual("Ana", cpf1), update: patio.ClientInput{Name: patio.Some("Ana Maria")},
			taken: []string{cpf1}},
		{name: "deactivating keeps the CPF", client: individual("Ana", cpf1),
			update: patio.ClientInput{Status: patio.Some(string(patio.ClientInactive))}, taken: []string{cpf1}},
		{name: "deactivating keeps the CNPJ", client: company("A Ltda", cnpj1),
			update: patio.ClientInput{Status: patio.Some(string(patio.ClientInactive))}, taken: []string{cnpj1}},
		{name: "the CPF of another client", client: individual("Ana", cpf1), other: cpf2, update: patio.ClientInput{CPF: patio.Some(cpf2)},
			wantDup: true, taken: []string{cpf1, cpf2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			team := newTeam()
			c := createClient(t, s, team, tt.client)
			if tt.other != "" {
				if err := takeDocument(t, s, team, tt.other); err != nil {
					t.Fatalf("Create(client with %q) = %v; want nil", tt.other, err)
				}
			}
			got, err := clients.Update(ctx, team, c.ID, tt.update)
			switch {
			case tt.wantDup:
				if !patio.IsKind(err, patio.KindDuplicate) {
					t.Fatalf("Update(%s) = %v; want KindDuplicate", c.ID, err)
				}
				wantStored(t, s.Clients(), team, c.ID, c)
			case err != nil:
				t.Fatalf("Update(%s) = %v; want nil", c.ID, err)
			default:
				wantStored(t, s.Clients(), team, c.ID, got)
			}
			wantDocuments(t, s, team, tt.taken, tt.free)
		})
	}
}

// Names reads a team's records by id in batches: the ones that exist, each once, never another
// team's.
func TestNamesReadsTheTeamsRecords(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	team, other := newTeam(), newTeam()
	var ids []string
	want := map[string]string{}
	for _, plate := range []string{"ABC1234", "DEF5678"} {
		v := newVehicle(t, team, plated(plate))
		want[v.ID] = plate + " " + v.Title
		if _, err := s.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: v, Changed: true}); err != nil {
			t.Fatalf("Create = %v", err)
		}
		ids = append(ids, v.ID)
	}
	theirs := newVehicle(t, other, plated("GHI9012"))
	if _, err := s.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: theirs, Changed: true}); err != nil {
		t.Fatalf("Create = %v", err)
	}
	unknown, _ := patio.NewID()
	// An id given twice (a client with two deals on the board) is read once; more than a batch's
	// 100 keys take more calls.
	asked := append(ids, theirs.ID, unknown, ids[0])
	for range 120 {
		id, _ := patio.NewID()
		asked = append(asked, id)
	}
	got, err := s.Vehicles().Names(ctx, team, asked)
	if err != nil {
		t.Fatalf("Names = %v", err)
	}
	names := map[string]string{}
	for _, v := range got {
		names[v.ID] = *v.Plate + " " + v.Title
	}
	if !maps.Equal(names, want) {
		t.Errorf("Names = %v; want the team's two vehicles only, by plate and title: %v", names, want)
	}
}

// Counts tells how many of a team's records have each status, as creates and archives change them.
func TestCountsByStatus(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	team := newTeam()
	svc := patio.NewVehicles(s.Vehicles())
	var ids []string
	for range 3 {
		v, err := svc.Create(ctx, team, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Argo"), Price: patio.Some(money.Cents(100))})
		if err != nil {
			t.Fatalf("Create = %v", err)
		}
		ids = append(ids, v.ID)
	}
	if _, err := svc.Update(ctx, team, ids[0], patio.VehicleInput{Status: patio.Some(string(patio.VehicleReserved))}); err != nil {
		t.Fatalf("Update = %v", err)
	}
	got, err := s.Vehicles().Counts(ctx, team)
	if err != nil {
		t.Fatalf("Counts = %v", err)
	}
	if got[string(patio.VehicleActive)] != 2 || got[string(patio.VehicleReserved)] != 1 || got[string(patio.VehicleSold)] != 0 {
		t.Errorf("Counts = %v; want 2 ativo, 1 reservado, 0 vendido", got)
	}
}
