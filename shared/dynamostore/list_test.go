package dynamostore_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// A list returns the team's records as stored, newest first by default, leaves archived vehicles
// out unless the status filter asks for them, and counts every match beyond the page.
func TestListVehicles(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	var v []patio.Vehicle // oldest first
	for i := range 4 {
		v = append(v, createVehicle(t, s, team, patio.VehicleInput{Title: patio.Some(fmt.Sprintf("Argo %d", i))}))
	}
	archived, err := patio.NewVehicles(s.Vehicles()).Archive(ctx, team, v[1].ID)
	if err != nil {
		t.Fatalf("Archive(%s) = %v; want nil", v[1].ID, err)
	}
	createVehicle(t, s, newTeam(), patio.VehicleInput{}) // another team's vehicle is never listed

	page := func(page, limit int) patio.ListQuery {
		return patio.ListQuery{Page: patio.Some(page), Limit: patio.Some(limit)}
	}
	tests := []struct {
		name  string
		q     patio.VehicleQuery
		want  []patio.Vehicle
		total int
	}{
		{name: "default", want: []patio.Vehicle{v[3], v[2], v[0]}, total: 3},
		{name: "archived", q: patio.VehicleQuery{ListQuery: patio.ListQuery{Status: []string{string(patio.VehicleArchived)}}},
			want: []patio.Vehicle{archived}, total: 1},
		{name: "every status", q: patio.VehicleQuery{ListQuery: patio.ListQuery{Status: patio.VehicleStatuses}},
			want: []patio.Vehicle{v[3], v[2], archived, v[0]}, total: 4},
		{name: "first page", q: patio.VehicleQuery{ListQuery: page(1, 2)}, want: []patio.Vehicle{v[3], v[2]}, total: 3},
		{name: "last page", q: patio.VehicleQuery{ListQuery: page(2, 2)}, want: []patio.Vehicle{v[0]}, total: 3},
		{name: "oldest first", q: patio.VehicleQuery{ListQuery: patio.ListQuery{Sort: "created_at"}},
			want: []patio.Vehicle{v[0], v[2], v[3]}, total: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := tt.q.Check()
			if err != nil {
				t.Fatalf("Check(%+v) = %v; want nil", tt.q, err)
			}
			listed, err := s.Vehicles().List(ctx, team, q)
			got, total := listed.Items, listed.Total
			if err != nil {
				t.Fatalf("List(%s) = %v; want nil", tt.name, err)
			}
			if total != tt.total {
				t.Errorf("List(%s) total = %d; want %d", tt.name, total, tt.total)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("List(%s) = %v; want %v", tt.name, titles(got), titles(tt.want))
				for i := range min(len(got), len(tt.want)) {
					if !reflect.DeepEqual(got[i], tt.want[i]) {
						t.Errorf("List(%s)[%d] = %s;\nwant %s", tt.name, i, show(got[i]), show(tt.want[i]))
					}
				}
			}
		})
	}
}

// titles names vehicles in failure messages.
func titles(vs []patio.Vehicle) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Title + " (" + string(v.Status) + ")"
	}
	return out
}

// A brief page (the board's columns) lists the same deals in the same order, page after page, as
// a whole one, each with every field a card shows: its id, title, links, value, phase, status,
// times and revision.
func TestBriefPageShowsTheCards(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team, vehicle := newTeam(), newTeam()
	for i := range 7 {
		d := newDeal(t, team, newTeam())
		d.Title = fmt.Sprintf("Negócio %d", i)
		d.Phase = patio.DealPhases[i%2]
		notes := "Cliente quer financiar em 48 vezes"
		d.Notes = &notes
		if i%2 == 0 {
			d.Value, d.VehicleID = ptr(money.Cents(150000+i)), &vehicle
		}
		if _, err := s.Deals().Create(ctx, patio.Write[patio.Deal]{Record: d, Changed: true}); err != nil {
			t.Fatal(err)
		}
	}
	card := func(d patio.Deal) patio.Deal {
		return patio.Deal{ID: d.ID, TeamID: d.TeamID, Title: d.Title, ClientID: d.ClientID, VehicleID: d.VehicleID, Value: d.Value,
			Phase: d.Phase, Status: d.Status, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, Revision: d.Revision}
	}
	for _, phase := range patio.DealPhases[:2] {
		q, err := patio.DealQuery{ListQuery: patio.ListQuery{Limit: patio.Some(10), Status: []string{string(patio.DealOpen)}},
			Phase: []string{phase}}.Check()
		if err != nil {
			t.Fatal(err)
		}
		whole, err := s.Deals().List(ctx, team, q)
		if err != nil || len(whole.Items) < 3 {
			t.Fatalf("List(%s) = %d deals, %v; want at least 3", phase, len(whole.Items), err)
		}
		var got []patio.Deal
		for after := ""; ; {
			bq := q
			bq.Limit, bq.Brief, bq.NoTotal, bq.After = patio.Some(2), true, true, after
			page, err := s.Deals().List(ctx, team, bq)
			if err != nil {
				t.Fatalf("List(%s, brief, after %q) = %v; want nil", phase, after, err)
			}
			for _, d := range page.Items {
				got = append(got, card(d))
			}
			if page.After == "" || len(page.Items) < 2 {
				break
			}
			after = page.After
		}
		var want []patio.Deal
		for _, d := range whole.Items {
			want = append(want, card(d))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("brief pages of %s =\n%v\nwant\n%v", phase, got, want)
		}
	}
}
