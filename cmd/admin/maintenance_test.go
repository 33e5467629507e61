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

// maintenance words reports, per table with words, the records and word items it read; with
// --check it mends nothing, and a run leaves nothing missing or stale in this team's data.
// (Its rules are tested with the store: shared/dynamostore/words_test.go.)
func TestMaintenanceWords(t *testing.T) {
	store := setup(t)
	team := newTeam(t)
	if _, err := patio.NewVehicles(store.Vehicles()).Create(context.Background(), team, patio.VehicleInput{
		Brand: patio.Some("Fiat"), Model: patio.Some("Uno"), Price: patio.Some(money.Cents(100))}); err != nil {
		t.Fatal(err)
	}
	type report struct {
		Tables []dynamostore.WordsReport `json:"tables"`
		Check  bool                      `json:"check"`
	}
	// Nothing runs the indexer here: the new vehicle's word items are missing until the run.
	checked, _ := adminOK[report](t, "maintenance", "words", "--check")
	if len(checked.Tables) != 3 || !checked.Check || checked.Tables[0].Records < 1 || checked.Tables[0].Missing < 4 {
		t.Fatalf("maintenance words --check = %+v; want the vehicles, clients and deals tables, the Uno's words missing", checked)
	}
	adminOK[report](t, "maintenance", "words")
	again, _ := adminOK[report](t, "maintenance", "words", "--check")
	for _, r := range again.Tables {
		if r.Missing != 0 || r.Stale != 0 {
			t.Errorf("maintenance words --check after a run = %+v; want nothing missing or stale", r)
		}
	}
}
