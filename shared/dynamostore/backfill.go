package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// BackfillReport is what one table's backfill did, or with check would do.
type BackfillReport struct {
	Table   string `json:"table"`
	Scanned int    `json:"scanned"` // record rows, counter items and alarms of a previous format found
	// Legacy counts the record rows among them written before index keys carried the status:
	// lists of this version do not see them until they are migrated.
	Legacy   int `json:"legacy"`
	Migrated int `json:"migrated"` // record rows rewritten with their whole family (order, facet and word items, counts)
	Skipped  int `json:"skipped"`  // rows a live write rewrote first (already current)
	Folded   int `json:"folded"`   // counter items of the previous format folded into the current shards
	Moved    int `json:"moved"`    // pending alarms moved from a UTC day's partition of by_alarm to alarmSet's
}

// Backfill brings the rows written by previous versions to the current format (docs/storage.md,
// "Migration"), table by table. With check, it writes nothing and reports what it would do.
//
// A record row without its whole family (written before facets, or before index keys carried the
// status) is rewritten as it is (same updated_at, same revision, so no webhook event fires) with
// its order item, facet items, word items and counts, in one transaction conditioned on its
// revision (and its pending alarm) being unchanged since it was read: a row a live write
// rewrote meanwhile (which completed its family) is skipped, and nothing is counted twice or lost.
// It is safe to run while the API serves, to interrupt and to run again (it finds only what is
// left). Until a partition's records all have their family, its filtered lists read every record
// of the statuses they show.
//
// It also folds the counter items of the first counter format ("n#<status>#<shard>") into the
// current shards, each deleted, conditioned on the count read, in one transaction that adds its
// count to a current shard; and, in the activities and financial tables, it moves the pending
// alarms indexed under their UTC day (the first format of by_alarm) to the index's one partition
// (alarms.go), each conditioned on the alarm being unchanged since it was read.
func (s *Store) Backfill(ctx context.Context, check bool) ([]BackfillReport, error) {
	var out []BackfillReport
	var errs []error
	for _, b := range []func(context.Context, bool) (BackfillReport, error){
		records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s.core, &vehicleKind}.backfill,
		records[patio.Client, clientRow, patio.ClientQuery]{s.core, &clientKind}.backfill,
		records[patio.Deal, dealRow, patio.DealQuery]{s.core, &dealKind}.backfill,
		records[patio.Activity, activityRow, patio.ActivityQuery]{s.core, &activityKind}.backfill,
		records[patio.FinancialRecord, financialRow, patio.FinancialQuery]{s.core, &financialKind}.backfill,
	} {
		rep, err := b(ctx, check)
		if rep.Table == "" && err == nil {
			continue // a module table this configuration does not name
		}
		if err == nil && slices.Contains(s.alarmTables(), rep.Table) {
			err = s.moveAlarms(ctx, &rep, check)
		}
		out = append(out, rep)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// backfill scans one table for record rows and counter items of a previous format. The resource
// tables must be configured; the module tables may not be.
func (r records[T, R, Q]) backfill(ctx context.Context, check bool) (BackfillReport, error) {
	rep := BackfillReport{Table: r.k.table(r.s.tables)}
	if rep.Table == "" {
		if r.k.alarmKey != nil {
			return rep, nil
		}
		return rep, errors.New("dynamostore: backfill: the " + r.k.what + "s table is not configured")
	}
	t := r.table()
	stale := "attribute_not_exists('" + indexedAttr + "')"
	if r.k.list != nil && r.k.layout.KeepsSums() {
		stale = "(" + stale + " OR attribute_not_exists('" + summedAttr + "'))"
	}
	iter := t.Scan().Filter("(begins_with('sk', ?) AND "+stale+") OR (begins_with('sk', ?) AND attribute_exists('count'))",
		r.k.prefix, countPrefix).Consistent(true).Iter()
	var item dynamo.Item
	for iter.Next(ctx, &item) {
		rep.Scanned++
		if status, ok := perStatusCounter(attrString(item, "sk")); ok {
			if !check {
				folded, err := r.fold(ctx, item, status)
				if err != nil {
					return rep, wrap(err, "backfill counts of", rep.Table)
				}
				rep.Folded += btoi(folded)
			}
			item = nil
			continue
		}
		if storeformat.FormatOf(item) == storeformat.FormatLegacy {
			rep.Legacy++
		}
		if !check {
			migrated, err := r.migrate(ctx, item)
			if err != nil {
				return rep, wrap(err, "backfill rows of", rep.Table)
			}
			rep.Migrated += btoi(migrated)
			rep.Skipped += btoi(!migrated)
		}
		item = nil
	}
	return rep, wrap(iter.Err(), "scan rows of", rep.Table)
}

// perStatusCounter reports a counter item of the first counter format by its sort key
// ("n#<status>#<shard>"), and its status.
func perStatusCounter(sk string) (status string, ok bool) {
	status, _, ok = strings.Cut(strings.TrimPrefix(sk, countPrefix), "#")
	return status, ok && strings.HasPrefix(sk, countPrefix)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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
			ops = append(ops, op{upd: t.Update("pk", teamID).Range("sk", storeformat.CounterKey("", rand.IntN(countShards))).Add(status, n)})
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

// migrate rewrites one row of a previous format as it is, with its whole family; false when a
// live write got there first.
func (r records[T, R, Q]) migrate(ctx context.Context, stored dynamo.Item) (bool, error) {
	var row R
	if err := dynamo.UnmarshalItem(stored, &row); err != nil {
		return false, err
	}
	rec, err := r.k.decode(row)
	if err != nil {
		return false, err
	}
	teamID, _ := r.k.key(rec)
	ops, err := r.replace(ctx, teamID, rec, stored, rec)
	if err != nil {
		return false, err
	}
	err = r.s.run(ctx, ops)
	if errors.Is(err, errRevConflict) {
		return false, nil
	}
	return err == nil, err
}

// moveAlarms moves a table's pending alarms indexed under their UTC day to alarmSet's partition:
// one conditional update each (a live write that re-armed the alarm meanwhile already put it
// there, and it is skipped). With check, it counts them.
func (s *core) moveAlarms(ctx context.Context, rep *BackfillReport, check bool) error {
	table := rep.Table
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
		if check {
			continue
		}
		err := t.Update("pk", row.PK).Range("sk", row.SK).Set("alarm_day", alarmSet).
			If("'alarm_key' = ?", row.AlarmKey).Run(ctx)
		switch {
		case dynamo.IsCondCheckFailed(err):
			rep.Skipped++
		case err != nil:
			return wrap(err, "move alarms of", table)
		default:
			rep.Moved++
		}
	}
	return wrap(iter.Err(), "scan alarms of", table)
}
