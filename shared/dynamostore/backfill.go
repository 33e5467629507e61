package dynamostore

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
)

// BackfillReport is what one resource table's backfill did.
type BackfillReport struct {
	Table    string `json:"table"`
	Scanned  int    `json:"scanned"`  // record rows of the previous format found
	Migrated int    `json:"migrated"` // rows rewritten in the current format, with order item and count
	Skipped  int    `json:"skipped"`  // rows a live write rewrote first (already current)
}

// Backfill migrates the rows written before lists kept status-prefixed index keys, order items and
// counts (docs/storage.md, "Migration"): each such row is rewritten in the current format in one
// transaction with its order item and its status's count, conditioned on the row being unchanged
// since it was read, so a row a live write rewrote meanwhile (which counted it) is skipped and
// nothing is counted twice or lost. The rewrite keeps the record as it is (same updated_at, same
// revision), so it fires no webhook event. It is safe to run while the API serves, to interrupt
// and to run again (it finds only what is left). Until a team's partition holds no row of the
// previous format, its lists are served, and counted, the old way.
func (s *Store) Backfill(ctx context.Context) ([]BackfillReport, error) {
	var out []BackfillReport
	var errs []error
	for _, b := range []func(context.Context) (BackfillReport, error){
		records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s, &vehicleKind}.backfill,
		records[patio.Client, clientRow, patio.ClientQuery]{s, &clientKind}.backfill,
		records[patio.Deal, dealRow, patio.DealQuery]{s, &dealKind}.backfill,
	} {
		rep, err := b(ctx)
		out = append(out, rep)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

func (r records[T, R, Q]) backfill(ctx context.Context) (BackfillReport, error) {
	rep := BackfillReport{Table: r.k.table(r.s.tables)}
	if rep.Table == "" {
		return rep, errors.New("dynamostore: backfill: the " + r.k.what + "s table is not configured")
	}
	t := r.table()
	iter := t.Scan().Filter("begins_with('sk', ?) AND (begins_with('lsi_updated', ?) OR begins_with('lsi_updated', ?))",
		r.k.prefix, "0#", "1#").Consistent(true).Iter()
	var row R
	for iter.Next(ctx, &row) {
		rep.Scanned++
		migrated, err := r.migrate(ctx, row)
		if err != nil {
			return rep, wrap(err, "backfill "+r.k.what+"s of", rep.Table)
		}
		if migrated {
			rep.Migrated++
		} else {
			rep.Skipped++
		}
		var zero R
		row = zero
	}
	return rep, wrap(iter.Err(), "scan "+r.k.what+"s of", rep.Table)
}

// migrate rewrites one row of the previous format; false when a live write got there first.
func (r records[T, R, Q]) migrate(ctx context.Context, row R) (bool, error) {
	rec, err := r.k.decode(row)
	if err != nil {
		return false, err
	}
	teamID, _ := r.k.key(rec)
	item, err := dynamo.MarshalItem(row)
	if err != nil {
		return false, err
	}
	old := attrString(item, "lsi_updated")
	put := r.table().Put(r.k.encode(rec)).If("'rev' = ? AND 'lsi_updated' = ?", revAttr(r.k.revision(rec)), old)
	ops := append([]op{{put: put, failed: errRevConflict}}, r.trackOps(teamID, nil, false, rec)...)
	err = r.s.run(ctx, ops)
	if errors.Is(err, errRevConflict) {
		return false, nil
	}
	return err == nil, err
}
