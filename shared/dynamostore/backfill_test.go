package dynamostore_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Data written by previous versions (the first list format, and the previous one without facet
// and word items) is listed correctly before the backfill, which brings it to the current format
// in place (no updated_at or revision moves) while a live write goes on; --check reports what is
// left without writing.
func TestBackfill(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	teamID, _ := patio.NewID()
	var old []patio.Vehicle
	for i, status := range []string{"ativo", "ativo", "reservado", "vendido", "arquivado", "arquivado"} {
		id, now := patio.NewID()
		v, err := patio.NewVehicle(teamID, id, now, patio.VehicleInput{Brand: patio.Some([]string{"Fiat", "Toyota"}[i%2]),
			Model: patio.Some("Uno"), Price: patio.Some(money.Cents(100 * (i + 1)))})
		if err != nil {
			t.Fatal(err)
		}
		v.Status, v.Revision = patio.VehicleStatus(status), 3
		if i < 2 {
			dynamostore.PutLegacy(t, s, v) // the first format: no status in its keys, no order item, not counted
		} else {
			dynamostore.PutCounted(t, s, v) // the previous one: no facet or word items
		}
		old = append(old, v)
	}
	current := createVehicle(t, s, teamID, patio.VehicleInput{Brand: patio.Some("Toyota")})
	vehicles := s.Vehicles()
	list := func(q patio.VehicleQuery) patio.Listed[patio.Vehicle] {
		t.Helper()
		q, err := q.Check()
		if err != nil {
			t.Fatal(err)
		}
		got, err := vehicles.List(ctx, teamID, q)
		if err != nil {
			t.Fatalf("List = %v", err)
		}
		return got
	}
	toyota := patio.VehicleQuery{Brand: ptr("toyota"), ListQuery: patio.ListQuery{Sort: "price", Desc: true}}
	// Before the backfill, the previous format's rows are listed (the first format's are not: a
	// table must hold none of them when this version serves, see --check).
	if got := list(toyota); got.Total != 2 || !reflect.DeepEqual(vehicleIDs(got.Items), []string{current.ID, old[3].ID}) {
		t.Errorf("brand=toyota before the backfill = %d %v; want the new Toyota, then the vendido one (its previous-format row)",
			got.Total, vehicleIDs(got.Items))
	}
	// A live write of a previous-format record completes its family.
	if _, err := vehicles.Update(ctx, teamID, old[2].ID, func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
		cur.Color = ptr("azul")
		return patio.Write[patio.Vehicle]{Record: cur, Changed: true}, nil
	}); err != nil {
		t.Fatal(err)
	}
	checked, err := s.Backfill(ctx, true)
	if err != nil || checked[0].Scanned != 5 || checked[0].Legacy != 2 || checked[0].Migrated != 0 {
		t.Errorf("Backfill(check) = %+v, %v; want 5 vehicle rows to migrate, 2 of the first format, nothing written", checked, err)
	}
	reports, err := s.Backfill(ctx, false)
	if err != nil {
		t.Fatalf("Backfill = %v", err)
	}
	if r := reports[0]; r.Migrated != 5 {
		t.Errorf("vehicles backfill = %+v; want the 5 rows still of a previous format migrated", r)
	}
	again, err := s.Backfill(ctx, true)
	if err != nil || again[0].Scanned != 0 {
		t.Errorf("Backfill(check) after the backfill = %+v, %v; want nothing left", again, err)
	}
	counts, indexed, err := dynamostore.VehicleCounts(ctx, s, teamID)
	if want := map[string]int{"ativo": 3, "reservado": 1, "vendido": 1, "arquivado": 2}; err != nil || !reflect.DeepEqual(counts, want) || indexed != 7 {
		t.Errorf("counts after the backfill = %v, %d complete, %v; want %v, all 7 complete", counts, indexed, err, want)
	}
	for _, v := range old[3:] {
		got, err := vehicles.Get(ctx, teamID, v.ID)
		if err != nil || got.Revision != v.Revision || got.UpdatedAt != v.UpdatedAt {
			t.Errorf("vehicle %s after the backfill: revision %d, updated_at %s (%v); want %d, %s unchanged",
				v.ID, got.Revision, got.UpdatedAt, err, v.Revision, v.UpdatedAt)
		}
	}
	caughtUp(t) // the backfill rewrote the rows: their open facets and words follow from the stream
	if got := list(toyota); got.Total != 3 || !reflect.DeepEqual(vehicleIDs(got.Items), []string{current.ID, old[3].ID, old[1].ID}) {
		t.Errorf("brand=toyota after the backfill = %d %v; want the three shown Toyotas, dearest first", got.Total, vehicleIDs(got.Items))
	}
	if got := list(patio.VehicleQuery{ListQuery: patio.ListQuery{Status: []string{"arquivado"}}, Q: ptr("uno")}); got.Total != 2 {
		t.Errorf("q=uno&status=arquivado after the backfill = %d %v; want the 2 archived", got.Total, vehicleIDs(got.Items))
	}
}

// Counts kept in the first counter format (one item per status and shard) are folded by the
// backfill into the current shards (one item per shard for every status), while live writes count
// in the current format.
func TestBackfillFoldsPerStatusCounters(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	a := createVehicle(t, s, team, patio.VehicleInput{})
	createVehicle(t, s, team, patio.VehicleInput{})
	// As the previous release left a team's counts, for vehicles of its own.
	for _, c := range []struct {
		status   string
		shard, n int
	}{{"ativo", 3, 5}, {"ativo", 11, 1}, {"vendido", 0, 2}, {"arquivado", 7, 4}, {"reservado", 15, 0}} {
		dynamostore.PutPerStatusCount(t, s, team, c.status, c.shard, c.n)
	}
	if _, err := patio.NewVehicles(s.Vehicles()).Archive(ctx, team, a.ID); err != nil {
		t.Fatalf("Archive = %v", err)
	}
	want := map[string]int{"ativo": 7, "vendido": 2, "arquivado": 5}
	totals := func() (int, int) {
		t.Helper()
		var out [2]int
		for i, status := range [][]string{nil, {string(patio.VehicleArchived)}} {
			q, err := patio.VehicleQuery{ListQuery: patio.ListQuery{Status: status}}.Check()
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Vehicles().List(ctx, team, q)
			if err != nil {
				t.Fatalf("List(%v) = %v", status, err)
			}
			out[i] = got.Total
		}
		return out[0], out[1]
	}
	reports, err := s.Backfill(ctx, false)
	if err != nil {
		t.Fatalf("Backfill = %v", err)
	}
	if r := reports[0]; r.Folded < 5 {
		t.Errorf("vehicles backfill = %+v; want at least this team's 5 counter items folded", r)
	}
	if shown, archived := totals(); shown != 9 || archived != 5 {
		t.Errorf("totals after the backfill = %d shown, %d archived; want 9, 5", shown, archived)
	}
	counts, _, err := dynamostore.VehicleCounts(ctx, s, team)
	if err != nil || !reflect.DeepEqual(counts, want) {
		t.Errorf("counts after the backfill = %v, %v; want %v", counts, err, want)
	}
	keys, err := dynamostore.VehicleCounterKeys(ctx, s, team)
	if err != nil || len(keys) > dynamostore.CountShards {
		t.Errorf("counter items after the backfill = %v, %v; want at most %d", keys, err, dynamostore.CountShards)
	}
	for _, k := range keys {
		if strings.Count(k, "#") != 1 || !strings.HasPrefix(k, "n#") {
			t.Errorf("counter item %q left after the backfill; want only current shards (n#<shard>)", k)
		}
	}
	if again, err := s.Backfill(ctx, false); err != nil || again[0].Folded != 0 {
		t.Errorf("second Backfill = %+v, %v; want nothing left to fold", again, err)
	}
}

func vehicleIDs(vs []patio.Vehicle) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}

// A deal that wins a vehicle whose row awaits the backfill sells it and counts it once: the
// store's first attempt takes the row to have its whole family, its condition says otherwise, and
// the next attempt reads the row and completes it.
func TestWinningDealSellsALegacyVehicle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	c := createClient(t, s, team, individual("Ana", cpfOf(t, "987654321")))
	v := newVehicle(t, team, patio.VehicleInput{})
	v.Revision = 2
	dynamostore.PutCounted(t, s, v)
	deals := patio.NewDeals(s.Deals(), s.Vehicles())
	d, err := deals.Create(ctx, team, patio.DealInput{Title: patio.Some("Argo"), ClientID: patio.Some(c.ID), VehicleID: patio.Some(v.ID)})
	if err != nil {
		t.Fatalf("Create(deal) = %v", err)
	}
	if _, err := deals.Update(ctx, team, d.ID, patio.DealInput{Status: patio.Some(string(patio.DealWon))}); err != nil {
		t.Fatalf("Update(deal to ganho) over a legacy vehicle = %v; want nil", err)
	}
	sold, err := s.Vehicles().Get(ctx, team, v.ID)
	if err != nil || sold.Status != patio.VehicleSold || sold.Revision != 3 {
		t.Errorf("vehicle after the win = %+v, %v; want vendido at revision 3", sold, err)
	}
	counts, indexed, err := dynamostore.VehicleCounts(ctx, s, team)
	if err != nil || indexed != 1 || !reflect.DeepEqual(counts, map[string]int{string(patio.VehicleSold): 1}) {
		t.Errorf("counts = %v (%d complete), %v; want vendido 1 and nothing else, complete", counts, indexed, err)
	}
	q, err := patio.VehicleQuery{ListQuery: patio.ListQuery{Status: []string{string(patio.VehicleSold)}}}.Check()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Vehicles().List(ctx, team, q); err != nil || got.Total != 1 || len(got.Items) != 1 || got.Items[0].ID != v.ID {
		t.Errorf("List(vendido) = %+v, %v; want the sold vehicle, total 1", got, err)
	}
}
