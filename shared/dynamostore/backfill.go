package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
)

// BackfillReport is what one resource table's backfill did.
type BackfillReport struct {
	Table    string `json:"table"`
	Scanned  int    `json:"scanned"`  // record rows (or, in a module table, alarms) of the previous format found
	Migrated int    `json:"migrated"` // rows rewritten in the current format, with order item and count
	Skipped  int    `json:"skipped"`  // rows a live write rewrote first (already current)
	Folded   int    `json:"folded"`   // counter items of the previous format folded into the current shards
	Moved    int    `json:"moved"`    // pending alarms moved from a UTC day's partition of by_alarm to alarmSet's
}

// Backfill migrates the rows written before lists kept status-prefixed index keys, order items and
// counts (docs/storage.md, "Migration"): each such row is rewritten in the current format in one
// transaction with its order item and its status's count, conditioned on the row being unchanged
// since it was read, so a row a live write rewrote meanwhile (which counted it) is skipped and
// nothing is counted twice or lost. The rewrite keeps the record as it is (same updated_at, same
// revision), so it fires no webhook event. It is safe to run while the API serves, to interrupt
// and to run again (it finds only what is left). Until a team's partition holds no row of the
// previous format, its lists are served, and counted, the old way.
//
// It also folds the counter items of the previous counter format (one item per status and shard,
// "n#<status>#<shard>") into the current shards: each is deleted, conditioned on the count read,
// in one transaction that adds its count to a current shard. Lists sum both formats, so they count
// right before, during and after.
//
// In the activities and financial tables, it moves the pending alarms indexed under their UTC day
// (the first format of by_alarm) to the index's one partition (alarms.go), each conditioned on
// the alarm being unchanged since it was read; like the rest, it changes no record.
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
	for _, table := range s.alarmTables() {
		rep, err := s.moveAlarms(ctx, table)
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
	// One scan finds both: record rows of the previous format, and counter items of the previous
	// format (the only counter items with a "count" attribute; current shards hold statuses).
	iter := t.Scan().Filter("(begins_with('sk', ?) AND (begins_with('lsi_updated', ?) OR begins_with('lsi_updated', ?))) OR "+
		"(begins_with('sk', ?) AND attribute_exists('count'))", r.k.prefix, "0#", "1#", countPrefix).Consistent(true).Iter()
	var item dynamo.Item
	for iter.Next(ctx, &item) {
		if status, ok := perStatusCounter(attrString(item, "sk")); ok {
			folded, err := r.fold(ctx, item, status)
			if err != nil {
				return rep, wrap(err, "backfill "+r.k.what+" counts of", rep.Table)
			}
			if folded {
				rep.Folded++
			}
			item = nil
			continue
		}
		rep.Scanned++
		var row R
		if err := dynamo.UnmarshalItem(item, &row); err != nil {
			return rep, wrap(err, "backfill "+r.k.what+"s of", rep.Table)
		}
		migrated, err := r.migrate(ctx, row)
		if err != nil {
			return rep, wrap(err, "backfill "+r.k.what+"s of", rep.Table)
		}
		if migrated {
			rep.Migrated++
		} else {
			rep.Skipped++
		}
		item = nil
	}
	return rep, wrap(iter.Err(), "scan "+r.k.what+"s of", rep.Table)
}

// fold moves a counter item of the previous format into a random current shard: its deletion,
// conditioned on the count read, and the addition of that count, in one transaction. A write
// of the item since it was read (only a writer of the previous release would) makes it read the
// item again and retry; an item gone meanwhile (another backfill folded it) is not folded again.
func (r records[T, R, Q]) fold(ctx context.Context, item dynamo.Item, status string) (bool, error) {
	t := r.table()
	teamID, sk := attrString(item, "pk"), attrString(item, "sk")
	for attempt := 1; ; attempt++ {
		var n int
		if err := dynamo.Unmarshal(item["count"], &n); err != nil {
			return false, fmt.Errorf("counter %s: %w", sk, err)
		}
		ops := []op{{del: t.Delete("pk", teamID).Range("sk", sk).If("'count' = ?", n), failed: errRevConflict}}
		if n != 0 {
			ops = append(ops, op{upd: t.Update("pk", teamID).Range("sk", countKey(rand.IntN(countShards))).Add(status, n)})
		}
		err := r.s.run(ctx, ops)
		if !errors.Is(err, errRevConflict) || attempt == maxFoldAttempts {
			return err == nil, err
		}
		item = nil
		err = t.Get("pk", teamID).Range("sk", dynamo.Equal, sk).Consistent(true).One(ctx, &item)
		if errors.Is(err, dynamo.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// maxFoldAttempts bounds fold's retries against writers of the previous release.
const maxFoldAttempts = 5

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

// moveAlarms moves a table's pending alarms indexed under their UTC day to alarmSet's partition:
// one conditional update each (a live write that re-armed the alarm meanwhile already put it
// there, and it is skipped).
func (s *Store) moveAlarms(ctx context.Context, table string) (BackfillReport, error) {
	rep := BackfillReport{Table: table}
	t := s.db.Table(table)
	iter := t.Scan().Filter("attribute_exists('alarm_key') AND 'alarm_day' <> ?", alarmSet).
		Project("pk", "sk", "alarm_key").Consistent(true).Iter()
	var row struct {
		PK       string `dynamo:"pk"`
		SK       string `dynamo:"sk"`
		AlarmKey string `dynamo:"alarm_key"`
	}
	for iter.Next(ctx, &row) {
		rep.Scanned++
		err := t.Update("pk", row.PK).Range("sk", row.SK).Set("alarm_day", alarmSet).
			If("'alarm_key' = ?", row.AlarmKey).Run(ctx)
		switch {
		case dynamo.IsCondCheckFailed(err):
			rep.Skipped++
		case err != nil:
			return rep, wrap(err, "move alarms of", table)
		default:
			rep.Moved++
		}
	}
	return rep, wrap(iter.Err(), "scan alarms of", table)
}
