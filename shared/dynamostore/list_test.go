package dynamostore_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

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
		{name: "archived", q: patio.VehicleQuery{ListQuery: patio.ListQuery{Status: []string{patio.VehicleArchived}}},
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
		out[i] = v.Title + " (" + v.Status + ")"
	}
	return out
}
