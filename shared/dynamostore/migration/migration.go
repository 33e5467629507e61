// Package migration holds everything the store knows of the formats earlier versions wrote
// (docs/storage.md, "Migration"): how to tell such a row and what it has, and the maintenance
// backfill that rewrites each to the current format. Nothing else in the repository reads a
// previous format.
//
// A later release deletes it whole once `maintenance backfill --check` reports nothing left
// ("scanned" 0 in every table) in every deployment: with it go the store's Backfill
// (dynamostore/backfill.go), its calls to Family (a stored row's family is then always the
// current one, storeformat.Layout.Family), the indexer's call to Counted (every team has its
// stream mark once the indexer has followed one change of it), the `maintenance backfill` command, and
// the webhook row's two fields of the first rotation format (next_secret, rotates_at).
package migration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// Report is what one table's backfill did, or with check would do.
type Report struct {
	Table   string `json:"table"`
	Scanned int    `json:"scanned"` // rows, counter items and alarms of a previous format found
	// Legacy counts the record rows among them written before index keys carried the status:
	// lists of this version do not see them until they are migrated.
	Legacy   int `json:"legacy"`
	Migrated int `json:"migrated"` // rows rewritten in the current format (records with their whole family)
	Skipped  int `json:"skipped"`  // rows a live write rewrote first (already current)
	Folded   int `json:"folded"`   // counter items of the previous format folded into the current shards
	Moved    int `json:"moved"`    // pending alarms moved from a UTC day's partition of by_alarm to the current one
}

// Table is one table to bring to the current format, as the store declares it.
type Table struct {
	Name string
	// Layout is how its records are listed; nil for a table of unlisted rows (webhooks).
	Layout *storeformat.Layout
	// Prefix starts the sort keys of its rows.
	Prefix string
	// Alarms is set for the tables with timed events (the by_alarm index).
	Alarms bool
	// Rewrite writes a stored row as it is in the current format (with its whole family, the same
	// revision and updated_at, so no event fires), conditioned on its being unchanged since it
	// was read; false when a live write rewrote it first.
	Rewrite func(ctx context.Context, stored dynamo.Item) (bool, error)
}

// Backfill brings the rows written by previous versions to the current format, table by table.
// With check, it writes nothing and reports what it would do.
//
// A record row without its whole family (written before facets, or before index keys carried the
// status), a deal or financial record out of the sums, a vehicle, client or deal out of the
// indexer's word and bucket counts (storeformat.CountedAttr), and a webhook in the first
// rotation format are rewritten as they are by their table's Rewrite: a row a live write rewrote
// meanwhile (which wrote it in the current format) is skipped, and nothing is counted twice or
// lost. It is safe to run while the API serves, to interrupt and to run again (it finds only what
// is left).
//
// It also folds the counter items of the first counter format ("n#<status>#<shard>") into the
// current shards, each deleted, conditioned on the count read, in one transaction that adds its
// count to a current shard; and, in the tables with alarms, it moves the pending alarms indexed
// under their UTC day (the first format of by_alarm) to the index's one partition, each
// conditioned on the alarm being unchanged since it was read.
func Backfill(ctx context.Context, db *dynamo.DB, tables []Table, check bool) ([]Report, error) {
	var out []Report
	var errs []error
	for _, t := range tables {
		rep := Report{Table: t.Name}
		err := t.backfill(ctx, db, &rep, check)
		if err == nil && t.Alarms {
			err = moveAlarms(ctx, db.Table(t.Name), &rep, check)
		}
		out = append(out, rep)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// backfill scans one table for rows and counter items of a previous format.
func (t Table) backfill(ctx context.Context, db *dynamo.DB, rep *Report, check bool) error {
	table := db.Table(t.Name)
	scan := table.Scan().Filter("attribute_exists('next_secret')")
	if t.Layout != nil {
		stale := "attribute_not_exists('" + storeformat.IndexedAttr + "')"
		if t.Layout.KeepsSums() {
			stale += " OR attribute_not_exists('" + storeformat.SummedAttr + "')"
		}
		if t.Layout.Tallies {
			stale += " OR attribute_not_exists('" + storeformat.CountedAttr + "')"
		}
		stale = "(" + stale + ")"
		scan = table.Scan().Filter("(begins_with('sk', ?) AND "+stale+") OR (begins_with('sk', ?) AND attribute_exists('count'))",
			t.Prefix, storeformat.CountPrefix)
	}
	iter := scan.Consistent(true).Iter()
	var item dynamo.Item
	for iter.Next(ctx, &item) {
		rep.Scanned++
		if status, ok := perStatusCounter(attrString(item, "sk")); ok {
			if !check {
				folded, err := fold(ctx, db, table, item, status)
				if err != nil {
					return wrap(err, "backfill counts of", t.Name)
				}
				rep.Folded += btoi(folded)
			}
			item = nil
			continue
		}
		if t.Layout != nil && legacy(item) {
			rep.Legacy++
		}
		if !check {
			migrated, err := t.Rewrite(ctx, item)
			if err != nil {
				return wrap(err, "backfill rows of", t.Name)
			}
			rep.Migrated += btoi(migrated)
			rep.Skipped += btoi(!migrated)
		}
		item = nil
	}
	return wrap(iter.Err(), "scan rows of", t.Name)
}

// perStatusCounter reports a counter item of the first counter format by its sort key
// ("n#<status>#<shard>"), and its status.
func perStatusCounter(sk string) (status string, ok bool) {
	status, _, ok = strings.Cut(strings.TrimPrefix(sk, storeformat.CountPrefix), "#")
	return status, ok && strings.HasPrefix(sk, storeformat.CountPrefix)
}

// fold moves a counter item of the previous format into a random current shard: its deletion,
// conditioned on the count read, and the addition of that count, in one transaction. A write
// of the item since it was read (only a writer of the previous release would) makes it read the
// item again and retry; an item gone meanwhile (another backfill folded it) is not folded again.
func fold(ctx context.Context, db *dynamo.DB, t dynamo.Table, item dynamo.Item, status string) (bool, error) {
	teamID, sk := attrString(item, "pk"), attrString(item, "sk")
	for attempt := 1; ; attempt++ {
		var n int
		if err := dynamo.Unmarshal(item["count"], &n); err != nil {
			return false, wrap(err, "counter", sk)
		}
		tx := db.WriteTx().Delete(t.Delete("pk", teamID).Range("sk", sk).If("'count' = ?", n))
		if n != 0 {
			tx = tx.Update(t.Update("pk", teamID).Range("sk", storeformat.CounterKey("", rand.IntN(storeformat.CountShards))).Add(status, n))
		}
		err := tx.Run(ctx)
		if conflict(err) && attempt < maxFoldAttempts {
			continue // a live write's transaction on the shard: the same fold again
		}
		if !dynamo.IsCondCheckFailed(err) || attempt == maxFoldAttempts {
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

// conflict reports a transaction cancelled for another one in flight on one of its items.
func conflict(err error) bool {
	var txe *types.TransactionCanceledException
	if errors.As(err, &txe) {
		for _, r := range txe.CancellationReasons {
			if r.Code != nil && *r.Code == "TransactionConflict" {
				return true
			}
		}
	}
	return false
}

// maxFoldAttempts bounds fold's retries against writers of the previous release.
const maxFoldAttempts = 5

// moveAlarms moves a table's pending alarms indexed under their UTC day to the index's current
// partition (storeformat.AlarmSet): one conditional update each (a live write that re-armed the
// alarm meanwhile already put it there, and it is skipped). With check, it counts them.
func moveAlarms(ctx context.Context, t dynamo.Table, rep *Report, check bool) error {
	iter := t.Scan().Filter("attribute_exists('alarm_key') AND 'alarm_day' <> ?", storeformat.AlarmSet).
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
		err := t.Update("pk", row.PK).Range("sk", row.SK).Set("alarm_day", storeformat.AlarmSet).
			If("'alarm_key' = ?", row.AlarmKey).Run(ctx)
		switch {
		case dynamo.IsCondCheckFailed(err):
			rep.Skipped++
		case err != nil:
			return wrap(err, "move alarms of", t.Name())
		default:
			rep.Moved++
		}
	}
	return wrap(iter.Err(), "scan alarms of", t.Name())
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wrap names what failed, as the store's errors do.
func wrap(err error, what, name string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("migration: %s %s: %w", what, name, err)
}

// attrString returns a string attribute of an item, or "".
func attrString(item dynamo.Item, name string) string {
	var s string
	if v, ok := item[name]; ok {
		_ = dynamo.Unmarshal(v, &s)
	}
	return s
}
