package main

import (
	"context"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// maintenance backfill reports what it did per table and finds nothing left the second time.
// (Its rules are tested with the store: shared/dynamostore/backfill_test.go.)
func TestMaintenanceBackfill(t *testing.T) {
	store := setup(t)
	team := newTeam(t)
	if _, err := patio.NewVehicles(store.Vehicles()).Create(context.Background(), team, patio.VehicleInput{
		Brand: patio.Some("Fiat"), Model: patio.Some("Uno"), Price: patio.Some(money.Cents(100))}); err != nil {
		t.Fatal(err)
	}
	type report struct {
		Tables []dynamostore.BackfillReport `json:"tables"`
	}
	for run := range 2 {
		got, _ := adminOK[report](t, "maintenance", "backfill")
		if len(got.Tables) != 5 {
			t.Fatalf("maintenance backfill (run %d) = %+v; want a report per resource table and module table", run+1, got)
		}
		for _, r := range got.Tables {
			if r.Table == "" || r.Migrated != 0 || r.Moved != 0 {
				t.Errorf("maintenance backfill (run %d) = %+v; want each table named, nothing to migrate or move in data written by this version", run+1, r)
			}
		}
	}
}
