package dynamostore

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
)

// BackfillReport is what one table's backfill did, or with check would do.
type BackfillReport = migration.Report

// Backfill brings the rows written by previous versions to the current format (package
// migration; docs/storage.md, "Migration"), table by table: the five listed tables, then the
// other parts' tables in more (the webhooks: webhookdb.Migration). With check, it writes
// nothing and reports what it would do. The resource tables must be configured; a module table or
// a table of more this configuration does not name is left out.
func (s *Store) Backfill(ctx context.Context, check bool, more ...migration.Table) ([]BackfillReport, error) {
	tables := []migration.Table{
		records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s.core, &vehicleKind}.migrationTable(),
		records[patio.Client, clientRow, patio.ClientQuery]{s.core, &clientKind}.migrationTable(),
		records[patio.Deal, dealRow, patio.DealQuery]{s.core, &dealKind}.migrationTable(),
		records[patio.Activity, activityRow, patio.ActivityQuery]{s.core, &activityKind}.migrationTable(),
		records[patio.FinancialRecord, financialRow, patio.FinancialQuery]{s.core, &financialKind}.migrationTable(),
	}
	tables = append(tables, more...)
	if s.db.Tables.Vehicles == "" || s.db.Tables.Clients == "" || s.db.Tables.Deals == "" {
		return nil, errors.New("dynamostore: backfill: the vehicles, clients and deals tables must be configured")
	}
	configured := tables[:0]
	for _, t := range tables {
		if t.Name != "" {
			configured = append(configured, t)
		}
	}
	return migration.Backfill(ctx, s.db.Dynamo, configured, check)
}

// migrationTable declares the kind's table to the backfill.
func (r records[T, R, Q]) migrationTable() migration.Table {
	return migration.Table{Name: r.k.table(r.s.db.Tables), Layout: r.k.Layout, Prefix: r.k.prefix,
		Alarms: r.k.alarmKey != nil, Rewrite: r.migrate}
}

// migrate rewrites one row of a previous format as it is, in the current format (with its whole
// family); false when a live write got there first.
func (r records[T, R, Q]) migrate(ctx context.Context, stored dynamo.Item) (bool, error) {
	var row R
	if err := dynamo.UnmarshalItem(stored, &row); err != nil {
		return false, err
	}
	rec, err := r.k.Decode(row)
	if err != nil {
		return false, err
	}
	teamID, _ := r.k.Key(rec)
	ops, err := r.replace(ctx, teamID, rec, stored, rec)
	if err != nil {
		return false, err
	}
	err = r.s.db.Run(ctx, ops)
	if errors.Is(err, storecore.ErrRevConflict) {
		return false, nil
	}
	return err == nil, err
}
