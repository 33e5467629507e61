package dynamostore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Concurrent updates of one record all succeed, one after the other: each re-reads after a lost
// race, so no update is lost and each adds one revision. Counting with mileage (read cur, write
// cur+1) makes a lost update visible.
func TestConcurrentUpdates(t *testing.T) {
	s := newStore(t)
	// Sixteen: contention enough for many lost races, within the update's race budget on a small
	// machine running other tests against the same DynamoDB Local.
	const writers = 16
	// countPlate is the plate of the vehicle whose mileage is n, when the plate moves with it.
	countPlate := func(n int) string { return fmt.Sprintf("CNT%04d", n) }
	tests := []struct {
		name      string
		movePlate bool // each update also moves the plate, so it is a transaction with guard items
	}{
		{name: "single write"},
		{name: "transaction moving a unique value", movePlate: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			team := newTeam()
			in := patio.VehicleInput{MileageKm: patio.Some(0)}
			if tt.movePlate {
				in.Plate = patio.Some(countPlate(0))
			}
			v := createVehicle(t, s, team, in)

			increment := func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
				next := cur
				next.MileageKm = ptr(*cur.MileageKm + 1)
				if tt.movePlate {
					next.Plate = ptr(countPlate(*next.MileageKm))
				}
				return patio.Write[patio.Vehicle]{Record: next, Changed: true}, nil
			}
			got := make([]patio.Vehicle, writers)
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() { got[i], errs[i] = s.Vehicles().Update(ctx, team, v.ID, increment) })
			}
			wg.Wait()

			var revisions []int
			for i, err := range errs {
				if err != nil {
					t.Errorf("Update(%s) #%d = %v; want nil", v.ID, i, err)
					continue
				}
				if *got[i].MileageKm != got[i].Revision-1 {
					t.Errorf("Update(%s) #%d = mileage %d at revision %d; want mileage = revision - 1",
						v.ID, i, *got[i].MileageKm, got[i].Revision)
				}
				revisions = append(revisions, got[i].Revision)
			}
			slices.Sort(revisions)
			for i, r := range revisions {
				if r != i+2 {
					t.Fatalf("Update(%s) returned revisions %v; want each of 2..%d once", v.ID, revisions, writers+1)
				}
			}

			final, err := s.Vehicles().Get(ctx, team, v.ID)
			if err != nil {
				t.Fatalf("Get(%s) = %v; want nil", v.ID, err)
			}
			if final.Revision != 1+writers || *final.MileageKm != writers {
				t.Errorf("Get(%s) after %d updates = mileage %d revision %d; want mileage %d revision %d",
					v.ID, writers, *final.MileageKm, final.Revision, writers, 1+writers)
			}
			if tt.movePlate {
				// Only the last plate is held: every lost attempt's guard was rolled back, every
				// earlier plate released.
				var free []string
				for n := range writers {
					free = append(free, countPlate(n))
				}
				wantPlates(t, s, team, []string{countPlate(writers)}, free)
			}
		})
	}
}

// A change that reports no change (Changed false) writes nothing, whatever record it returns:
// Update returns the record read, at its revision and updated_at.
func TestUpdateWithoutChange(t *testing.T) {
	s := newStore(t)
	tests := []struct {
		name   string
		change func(cur patio.Vehicle) patio.Vehicle
	}{
		{name: "the record read", change: func(cur patio.Vehicle) patio.Vehicle { return cur }},
		{name: "a different record", change: func(cur patio.Vehicle) patio.Vehicle {
			cur.MileageKm = ptr(999)
			cur.UpdatedAt = patio.NewTimestamp(time.Now().Add(time.Hour))
			return cur
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			team := newTeam()
			v := createVehicle(t, s, team, patio.VehicleInput{MileageKm: patio.Some(10)})
			got, err := s.Vehicles().Update(ctx, team, v.ID, func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
				return patio.Write[patio.Vehicle]{Record: tt.change(cur), Changed: false}, nil
			})
			if err != nil {
				t.Fatalf("Update(%s) = %v; want nil", v.ID, err)
			}
			if got.Revision != 1 || got.UpdatedAt != v.UpdatedAt || *got.MileageKm != 10 {
				t.Errorf("Update(%s) = %s; want the record read %s", v.ID, show(got), show(v))
			}
			wantStored(t, s.Vehicles(), team, v.ID, v)
		})
	}
}

// A change that fails writes nothing and Update returns its error, even when the change also
// returned a write.
func TestUpdateChangeFails(t *testing.T) {
	s := newStore(t)
	errChange := patio.Conflictf("the change refuses")
	tests := []struct {
		name string
		w    func(cur patio.Vehicle) patio.Write[patio.Vehicle]
	}{
		{name: "no write", w: func(patio.Vehicle) patio.Write[patio.Vehicle] { return patio.Write[patio.Vehicle]{} }},
		{name: "with a changed write", w: func(cur patio.Vehicle) patio.Write[patio.Vehicle] {
			cur.Plate = ptr("XYZ9A87")
			return patio.Write[patio.Vehicle]{Record: cur, Changed: true}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			team := newTeam()
			v := createVehicle(t, s, team, plated("ABC1234"))
			_, err := s.Vehicles().Update(ctx, team, v.ID, func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
				return tt.w(cur), errChange
			})
			if !errors.Is(err, errChange) {
				t.Fatalf("Update(%s) = %v; want %v", v.ID, err, errChange)
			}
			wantStored(t, s.Vehicles(), team, v.ID, v)
			wantPlates(t, s, team, []string{"ABC1C34"}, []string{"XYZ9087"})
		})
	}
}

// A record the team does not have is KindNotFound, on Get and on Update, which then never asks
// its change: an unknown id, or the id of another team's record.
func TestMissingRecord(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	unknown, _ := patio.NewID()
	c := createClient(t, s, team, individual("Ana", cpfOf(t, "123456789")))
	v := createVehicle(t, s, team, patio.VehicleInput{})
	d := createDealFor(t, s, team, c.ID)
	other := newTeam()

	type op struct {
		get    func(teamID, id string) error
		update func(teamID, id string, called *bool) error
	}
	vehicles := op{
		get: func(teamID, id string) error { _, err := s.Vehicles().Get(ctx, teamID, id); return err },
		update: func(teamID, id string, called *bool) error {
			_, err := s.Vehicles().Update(ctx, teamID, id, func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
				*called = true
				return patio.Write[patio.Vehicle]{Record: cur, Changed: true}, nil
			})
			return err
		},
	}
	clients := op{
		get: func(teamID, id string) error { _, err := s.Clients().Get(ctx, teamID, id); return err },
		update: func(teamID, id string, called *bool) error {
			_, err := s.Clients().Update(ctx, teamID, id, func(cur patio.Client) (patio.Write[patio.Client], error) {
				*called = true
				return patio.Write[patio.Client]{Record: cur, Changed: true}, nil
			})
			return err
		},
	}
	deals := op{
		get: func(teamID, id string) error { _, err := s.Deals().Get(ctx, teamID, id); return err },
		update: func(teamID, id string, called *bool) error {
			_, err := s.Deals().Update(ctx, teamID, id, func(cur patio.Deal) (patio.Write[patio.Deal], error) {
				*called = true
				return patio.Write[patio.Deal]{Record: cur, Changed: true}, nil
			})
			return err
		},
	}
	tests := []struct {
		name   string
		op     op
		teamID string
		id     string
	}{
		{name: "unknown vehicle", op: vehicles, teamID: team, id: unknown},
		{name: "vehicle of another team", op: vehicles, teamID: other, id: v.ID},
		{name: "unknown client", op: clients, teamID: team, id: unknown},
		{name: "client of another team", op: clients, teamID: other, id: c.ID},
		{name: "unknown deal", op: deals, teamID: team, id: unknown},
		{name: "deal of another team", op: deals, teamID: other, id: d.ID},
		// A vehicle's id names no client: each resource has its own records.
		{name: "a vehicle's id as a client", op: clients, teamID: team, id: v.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.op.get(tt.teamID, tt.id); !patio.IsKind(err, patio.KindNotFound) {
				t.Errorf("Get(%s) = %v; want KindNotFound", tt.id, err)
			}
			called := false
			if err := tt.op.update(tt.teamID, tt.id, &called); !patio.IsKind(err, patio.KindNotFound) {
				t.Errorf("Update(%s) = %v; want KindNotFound", tt.id, err)
			}
			if called {
				t.Errorf("Update(%s) asked its change; want not (there is no record)", tt.id)
			}
			// The update created nothing either.
			if err := tt.op.get(tt.teamID, tt.id); !patio.IsKind(err, patio.KindNotFound) {
				t.Errorf("Get(%s) after Update = %v; want KindNotFound", tt.id, err)
			}
		})
	}
}
