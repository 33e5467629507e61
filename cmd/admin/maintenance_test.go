package main

import (
	"context"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// maintenance backfill reports what it did per table, finds nothing of a previous format in data
// written by this version, and with --check says so without writing.
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
	for run, args := range [][]string{{"maintenance", "backfill"}, {"maintenance", "backfill"}, {"maintenance", "backfill", "--check"}} {
		got, _ := adminOK[report](t, args...)
		if len(got.Tables) != 6 {
			t.Fatalf("maintenance backfill (run %d) = %+v; want a report per resource table, module table and the webhooks table", run+1, got)
		}
		for _, r := range got.Tables {
			if r.Table == "" || r.Scanned != 0 || r.Migrated != 0 || r.Moved != 0 {
				t.Errorf("maintenance backfill (run %d) = %+v; want each table named, nothing to migrate or move in data written by this version", run+1, r)
			}
		}
	}
}
