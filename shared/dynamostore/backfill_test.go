package dynamostore_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Data written before lists kept counts and order items is listed correctly the old way, and the
// backfill upgrades it in place (no updated_at or revision moves) while a live write goes on.
func TestBackfill(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	teamID, _ := patio.NewID()
	var legacy []patio.Vehicle
	for i, status := range []string{"ativo", "ativo", "reservado", "arquivado", "vendido", "arquivado"} {
		id, now := patio.NewID()
		v, err := patio.NewVehicle(teamID, id, now, patio.VehicleInput{Brand: patio.Some("Fiat"),
			Model: patio.Some("Uno"), Price: patio.Some(money.Cents(100 * (i + 1)))})
		if err != nil {
			t.Fatal(err)
		}
		v.Status, v.Revision = status, 3
		dynamostore.PutLegacy(t, s, v)
		legacy = append(legacy, v)
	}
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
	byPrice := patio.VehicleQuery{ListQuery: patio.ListQuery{Sort: "price", Desc: true}}
	before := list(byPrice)
	if before.Total != 4 || len(before.Items) != 4 || before.Items[0].ID != legacy[4].ID {
		t.Fatalf("legacy list = total %d %v; want the 4 shown vehicles, dearest (vendido) first", before.Total, vehicleIDs(before.Items))
	}
	// A live write of a legacy record counts it and writes its order item.
	if _, err := vehicles.Update(ctx, teamID, legacy[0].ID, func(cur patio.Vehicle) (patio.Write[patio.Vehicle], error) {
		cur.Color = ptr("azul")
		return patio.Write[patio.Vehicle]{Record: cur, Changed: true}, nil
	}); err != nil {
		t.Fatal(err)
	}
	reports, err := s.Backfill(ctx)
	if err != nil {
		t.Fatalf("Backfill = %v", err)
	}
	if r := reports[0]; r.Migrated != 5 {
		t.Errorf("vehicles backfill = %+v; want the 5 rows still legacy migrated", r)
	}
	again, err := s.Backfill(ctx)
	if err != nil || again[0].Scanned != 0 {
		t.Errorf("second Backfill = %+v, %v; want nothing left", again, err)
	}
	counts, legacyLeft, err := dynamostore.VehicleCounts(ctx, s, teamID)
	if err != nil || legacyLeft {
		t.Fatalf("legacy rows left after the backfill = %v, %v; want none", legacyLeft, err)
	}
	after := list(byPrice)
	if after.Total != before.Total || !reflect.DeepEqual(vehicleIDs(after.Items), vehicleIDs(before.Items)) {
		t.Errorf("list after the backfill = %d %v; want as before: %d %v", after.Total, vehicleIDs(after.Items), before.Total, vehicleIDs(before.Items))
	}
	if want := map[string]int{"ativo": 2, "reservado": 1, "vendido": 1, "arquivado": 2}; !reflect.DeepEqual(counts, want) {
		t.Errorf("counts after the backfill = %v; want %v", counts, want)
	}
	for _, v := range legacy[1:] {
		got, err := vehicles.Get(ctx, teamID, v.ID)
		if err != nil || got.Revision != v.Revision || got.UpdatedAt != v.UpdatedAt {
			t.Errorf("vehicle %s after the backfill: revision %d, updated_at %s (%v); want %d, %s unchanged",
				v.ID, got.Revision, got.UpdatedAt, err, v.Revision, v.UpdatedAt)
		}
	}
	archived := list(patio.VehicleQuery{ListQuery: patio.ListQuery{Status: []string{"arquivado"}}})
	if archived.Total != 2 || len(archived.Items) != 2 {
		t.Errorf("archived after the backfill = %d %v; want 2", archived.Total, vehicleIDs(archived.Items))
	}
}

func vehicleIDs(vs []patio.Vehicle) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}

// Imported vehicles are listed and counted as created ones are.
func TestImportVehicles(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	var vs []patio.Vehicle
	for i := range 60 {
		v := newVehicle(t, team, patio.VehicleInput{Plate: patio.Some(fmt.Sprintf("IMP%04d", i))})
		v.Status = []string{"ativo", "vendido", "arquivado"}[i%3]
		vs = append(vs, v)
	}
	if err := s.ImportVehicles(ctx, team, vs); err != nil {
		t.Fatal(err)
	}
	counts, legacy, err := dynamostore.VehicleCounts(ctx, s, team)
	if want := map[string]int{"ativo": 20, "vendido": 20, "arquivado": 20}; err != nil || legacy || !reflect.DeepEqual(counts, want) {
		t.Errorf("counts after import = %v (legacy %v, %v); want %v", counts, legacy, err, want)
	}
	q, _ := patio.VehicleQuery{ListQuery: patio.ListQuery{Limit: patio.Some(100)}}.Check()
	got, err := s.Vehicles().List(ctx, team, q)
	if err != nil || got.Total != 40 || len(got.Items) != 40 {
		t.Errorf("default list after import = %d items, total %d, %v; want the 40 not archived", len(got.Items), got.Total, err)
	}
	dup := newVehicle(t, team, patio.VehicleInput{Plate: patio.Some("IMP0007")})
	if _, err := s.Vehicles().Create(ctx, patio.Write[patio.Vehicle]{Record: dup, Changed: true}); !patio.IsKind(err, patio.KindDuplicate) {
		t.Errorf("Create with an imported plate = %v; want KindDuplicate", err)
	}
}
