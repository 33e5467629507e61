package dynamostore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Each requirement of a write is checked in the write's transaction, and one that does not hold
// answers its own Err, whatever else the transaction holds; nothing is written then.
func TestRequirementsAnswerTheirErr(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	active := createClient(t, s, team, individual("Bia", cpfOf(t, "987654321")))
	inactive := inactiveClient(t, s, team)
	foreign := createClient(t, s, newTeam(), individual("Caio", cpfOf(t, "111444777")))
	vehicles := map[string]string{} // status → id
	for _, status := range patio.VehicleStatuses {
		vehicles[status] = vehicleWithStatus(t, s, team, status).ID
	}
	unknown, _ := patio.NewID()

	errClient := patio.Conflictf("the client requirement does not hold")
	errVehicle := patio.Conflictf("the vehicle requirement does not hold")
	tests := []struct {
		name      string
		clientID  string
		vehicleID string
		want      error
	}{
		{name: "both hold", clientID: active.ID, vehicleID: vehicles[string(patio.VehicleActive)]},
		{name: "reserved vehicle", clientID: active.ID, vehicleID: vehicles[string(patio.VehicleReserved)]},
		{name: "inactive client", clientID: inactive.ID, vehicleID: vehicles[string(patio.VehicleActive)], want: errClient},
		{name: "unknown client", clientID: unknown, vehicleID: vehicles[string(patio.VehicleActive)], want: errClient},
		{name: "client of another team", clientID: foreign.ID, vehicleID: vehicles[string(patio.VehicleActive)], want: errClient},
		{name: "sold vehicle", clientID: active.ID, vehicleID: vehicles[string(patio.VehicleSold)], want: errVehicle},
		{name: "archived vehicle", clientID: active.ID, vehicleID: vehicles[string(patio.VehicleArchived)], want: errVehicle},
		{name: "unknown vehicle", clientID: active.ID, vehicleID: unknown, want: errVehicle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeal(t, team, tt.clientID)
			d.VehicleID = ptr(tt.vehicleID)
			w := patio.Write[patio.Deal]{Record: d, Changed: true, Requires: []patio.Requirement{
				{Resource: patio.ResourceClient, ID: tt.clientID, Statuses: []string{string(patio.ClientActive)}, Err: errClient},
				{Resource: patio.ResourceVehicle, ID: tt.vehicleID,
					Statuses: []string{string(patio.VehicleActive), string(patio.VehicleReserved)}, Err: errVehicle},
			}}
			_, err := s.Deals().Create(ctx, w)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Create(deal) = %v; want nil", err)
				}
				wantStored(t, s.Deals(), team, d.ID, dealAt(d, 1))
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Create(deal) = %v; want %v", err, tt.want)
			}
			wantMissing(t, s.Deals(), team, d.ID)

			// On the update path too: the deal's change is refused and the deal left as it was.
			stored := createDealFor(t, s, team, active.ID)
			_, err = s.Deals().Update(ctx, team, stored.ID, func(cur patio.Deal) (patio.Write[patio.Deal], error) {
				next := cur
				next.ClientID, next.VehicleID = tt.clientID, ptr(tt.vehicleID)
				w.Record = next
				return w, nil
			})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Update(deal %s) = %v; want %v", stored.ID, err, tt.want)
			}
			wantStored(t, s.Deals(), team, stored.ID, stored)
		})
	}
}

// A failed requirement cancels the whole write: neither the record nor the unique value it would
// reserve is stored, and an update keeps its old value reserved.
func TestFailedRequirementWritesNothing(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	inactive := inactiveClient(t, s, team)
	errClient := patio.Conflictf("the client requirement does not hold")
	requires := []patio.Requirement{
		{Resource: patio.ResourceClient, ID: inactive.ID, Statuses: []string{string(patio.ClientActive)}, Err: errClient}}

	t.Run("create", func(t *testing.T) {
		v := newVehicle(t, team, plated("ABC1234"))
		_, err := s.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: v, Requires: requires, Changed: true})
		if !errors.Is(err, errClient) {
			t.Fatalf("Create(vehicle) = %v; want %v", err, errClient)
		}
		wantMissing(t, s.Vehicles(), team, v.ID)
		wantPlates(t, s, team, nil, []string{"ABC1C34"})
	})
	t.Run("update", func(t *testing.T) {
		v := createVehicle(t, s, team, plated("DEF5567"))
		_, err := s.Vehicles().Update(ctx, team, v.ID, func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
			next := cur
			next.Plate = ptr("GHI7H89")
			return patio.Write[patio.Vehicle]{Record: next, Requires: requires, Changed: true}, nil
		})
		if !errors.Is(err, errClient) {
			t.Fatalf("Update(vehicle %s) = %v; want %v", v.ID, err, errClient)
		}
		wantStored(t, s.Vehicles(), team, v.ID, v)
		wantPlates(t, s, team, []string{"DEF5F67"}, []string{"GHI7789"})
	})
}

// Through the use cases: a deal for an inactive client is refused with the requirement's message
// (an active client), checked by the store, since the use case does not read the client.
func TestDealForInactiveClient(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	inactive := inactiveClient(t, s, team)
	deals := patio.NewDeals(s.Deals(), s.Vehicles())

	_, err := deals.Create(ctx, team, patio.DealInput{Title: patio.Some("Argo"), ClientID: patio.Some(inactive.ID)})
	var pe *patio.Error
	const want = "client_id must name an active client of this team"
	if !errors.As(err, &pe) || pe.Kind != patio.KindConflict || pe.Message != want {
		t.Fatalf("Create(deal for inactive client) = %v; want KindConflict %q", err, want)
	}
	q, _ := patio.DealQuery{}.Check()
	if got, err := s.Deals().List(ctx, team, q); err != nil || got.Total != 0 {
		t.Errorf("List(deals) = %d deals (total %d), %v; want none", len(got.Items), got.Total, err)
	}
}

// A record a write revises (Also) is replaced only at the revision the change read: when another
// writer moved it, the store re-reads and asks the change again rather than failing or
// overwriting the other write.
func TestRevisedRecordMovedRereads(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	c := createClient(t, s, team, individual("Ana", cpfOf(t, "123456789")))
	v := createVehicle(t, s, team, patio.VehicleInput{MileageKm: patio.Some(10)})
	d := createDealFor(t, s, team, c.ID)

	calls := 0
	got, err := s.Deals().Update(ctx, team, d.ID, func(cur patio.Deal) (patio.Write[patio.Deal], error) {
		calls++
		veh, err := s.Vehicles().Get(ctx, team, v.ID)
		if err != nil {
			return patio.Write[patio.Deal]{}, err
		}
		if calls == 1 {
			// Another writer revises the vehicle after this change read it.
			if _, err := s.Vehicles().Update(ctx, team, v.ID, addMileage(5)); err != nil {
				return patio.Write[patio.Deal]{}, err
			}
		}
		sold, err := veh.SellTo(cur.ID, time.Now())
		if err != nil {
			return patio.Write[patio.Deal]{}, err
		}
		next := cur
		next.Status, next.VehicleID = patio.DealWon, ptr(v.ID)
		return patio.Write[patio.Deal]{Record: next, Also: []patio.Revised{{Cur: veh, Next: sold}}, Changed: true}, nil
	})
	if err != nil {
		t.Fatalf("Update(deal %s) = %v; want nil", d.ID, err)
	}
	if calls != 2 {
		t.Errorf("Update(deal %s) called change %d times; want 2 (a re-read after the lost race)", d.ID, calls)
	}
	if got.Revision != 2 || got.Status != patio.DealWon {
		t.Errorf("Update(deal %s) = status %s revision %d; want %s revision 2", d.ID, got.Status, got.Revision, patio.DealWon)
	}
	veh, err := s.Vehicles().Get(ctx, team, v.ID)
	if err != nil {
		t.Fatalf("Get(vehicle %s) = %v; want nil", v.ID, err)
	}
	if veh.Revision != 3 || veh.Status != patio.VehicleSold || veh.MileageKm == nil || *veh.MileageKm != 15 {
		t.Errorf("Get(vehicle %s) = status %s mileage %v revision %d; want %s mileage 15 (the other write kept) revision 3",
			v.ID, veh.Status, show(veh.MileageKm), veh.Revision, patio.VehicleSold)
	}
}

// addMileage is a change adding km to a vehicle's mileage.
func addMileage(km int) func(patio.Vehicle) (patio.Write[patio.Vehicle], error) {
	return func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
		next := cur
		next.MileageKm = ptr(km)
		if cur.MileageKm != nil {
			next.MileageKm = ptr(*cur.MileageKm + km)
		}
		return patio.Write[patio.Vehicle]{Record: next, Changed: true}, nil
	}
}

// Of deals racing to win one vehicle, exactly one wins it; the others are refused (KindConflict)
// and left as they were.
func TestDealsRaceForOneVehicle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	c := createClient(t, s, team, individual("Ana", cpfOf(t, "123456789")))
	v := createVehicle(t, s, team, patio.VehicleInput{})
	deals := patio.NewDeals(s.Deals(), s.Vehicles())
	const n = 6
	racers := make([]patio.Deal, n)
	for i := range racers {
		d, err := deals.Create(ctx, team, patio.DealInput{Title: patio.Some("Argo"), ClientID: patio.Some(c.ID),
			VehicleID: patio.Some(v.ID)})
		if err != nil {
			t.Fatalf("Create(deal) = %v; want nil", err)
		}
		racers[i] = d
	}

	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, d := range racers {
		wg.Go(func() {
			_, errs[i] = deals.Update(ctx, team, d.ID, patio.DealInput{Status: patio.Some(string(patio.DealWon))})
		})
	}
	wg.Wait()

	winner := ""
	for i, err := range errs {
		switch {
		case err == nil && winner == "":
			winner = racers[i].ID
		case err == nil:
			t.Errorf("Update(deal %s to ganho) = nil after deal %s won; want KindConflict", racers[i].ID, winner)
		case !patio.IsKind(err, patio.KindConflict):
			t.Errorf("Update(deal %s to ganho) = %v; want nil or KindConflict", racers[i].ID, err)
		default:
			wantStored(t, s.Deals(), team, racers[i].ID, racers[i])
		}
	}
	if winner == "" {
		t.Fatalf("no deal of %d racing for vehicle %s won it; want one", n, v.ID)
	}
	got, err := s.Vehicles().Get(ctx, team, v.ID)
	if err != nil {
		t.Fatalf("Get(vehicle %s) = %v; want nil", v.ID, err)
	}
	if got.Status != patio.VehicleSold || got.SoldDealID == nil || *got.SoldDealID != winner || got.Revision != 2 {
		t.Errorf("Get(vehicle %s) = status %s sold_deal_id %v revision %d; want %s by %s, revision 2",
			v.ID, got.Status, show(got.SoldDealID), got.Revision, patio.VehicleSold, winner)
	}
}
