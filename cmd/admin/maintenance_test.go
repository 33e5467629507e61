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

// maintenance index reports, per table the indexer keeps, the records and items it read; with
// --check it mends nothing, and a run leaves nothing missing, stale or miscounted in the data.
// (Its rules are tested with the store: shared/dynamostore/words_test.go.)
func TestMaintenanceIndex(t *testing.T) {
	store := setup(t)
	team := newTeam(t)
	if _, err := patio.NewVehicles(store.Vehicles()).Create(context.Background(), team, patio.VehicleInput{
		Brand: patio.Some("Fiat"), Model: patio.Some("Uno"), Price: patio.Some(money.Cents(100))}); err != nil {
		t.Fatal(err)
	}
	type report struct {
		Tables []dynamostore.IndexReport `json:"tables"`
		Check  bool                      `json:"check"`
	}
	// Nothing runs the indexer here: the new vehicle's words, brand and model are missing until the run.
	checked, _ := adminOK[report](t, "maintenance", "index", "--check")
	if len(checked.Tables) != 3 || !checked.Check || checked.Tables[0].Records < 1 || checked.Tables[0].Missing < 6 || checked.Tables[0].Counts < 2 {
		t.Fatalf("maintenance index --check = %+v; want the vehicles, clients and deals tables, the Uno's items and counts missing", checked)
	}
	adminOK[report](t, "maintenance", "index")
	again, _ := adminOK[report](t, "maintenance", "index", "--check")
	for _, r := range again.Tables {
		if r.Missing != 0 || r.Stale != 0 || r.Counts != 0 {
			t.Errorf("maintenance index --check after a run = %+v; want nothing missing, stale or miscounted", r)
		}
	}
}
