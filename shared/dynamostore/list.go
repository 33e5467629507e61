package dynamostore

import (
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// sortKey builds a record's index sort key for one sort field: "<status>#1#<value>\x01<id>" when
// the record has a value, "<status>#0#<id>" when it has none. The status prefix gives each status
// its own range, so a list reads only the statuses it shows (soft-deleted records are never read
// to serve a default list); the 1#/0# split lets it read records without a value after the others
// in either direction; the id breaks ties in the direction of the sort (docs/storage.md).
func sortKey(status string, value *string, id string) string {
	if value == nil {
		return status + "#0#" + id
	}
	return status + "#1#" + strings.Map(func(r rune) rune {
		if r < 0x20 {
			return -1
		}
		return r
	}, *value) + "\x01" + id
}

// legacySortKey reports an index sort key written before keys carried the status
// ("1#<value>\x01<id>", "0#<id>"): its record is not yet migrated (maintenance backfill).
func legacySortKey(key string) bool {
	return strings.HasPrefix(key, "1#") || strings.HasPrefix(key, "0#")
}

// currentRowCond is a write condition that a record of status has a row of the current format
// (the opposite of legacySortKey on its by_updated key, which starts with the status).
func currentRowCond(status string) (expr string, arg any) {
	return "begins_with('lsi_updated', ?)", status + "#"
}

func padded(width int, n int64) *string { s := fmt.Sprintf("%0*d", width, n); return &s }

func foldedText(s string) *string { f := patio.Fold(s); return &f }

// sortIndex says how to read a table in the order of one sort field.
type sortIndex struct {
	index    string // the local index; "" for creation order, read from the order items (docs/storage.md)
	attr     string // the index's sort key attribute
	optional bool   // records may lack the value: read the 0# range after the 1# range
}

// filter accumulates a DynamoDB filter expression in guregu/dynamo's placeholder syntax. The
// status condition is kept apart: a list reads one status's range at a time (index keys and order
// items start with the status), so its reads need no condition on it, and a list with no other
// condition is counted from the maintained counts. Only the legacy path, which reads every record
// of the team, filters by status (withStatus).
type filter struct {
	status []string
	parts  []string
	args   []any
}

func (f *filter) add(expr string, args ...any) {
	f.parts = append(f.parts, expr)
	f.args = append(f.args, args...)
}

// statusOnly reports a filter with no condition but the status one.
func (f filter) statusOnly() bool { return len(f.parts) == 0 }

// withStatus returns the filter with the status condition among its expressions.
func (f filter) withStatus() filter {
	if len(f.status) == 0 {
		return f
	}
	marks, args := placeholders(f.status)
	return filter{status: f.status, parts: append([]string{"'status' IN (" + marks + ")"}, f.parts...),
		args: append(args, f.args...)}
}

// in adds "attr IN (...)"; an empty list adds nothing.
func (f *filter) in(attr string, values []string) {
	if len(values) == 0 {
		return
	}
	marks, args := placeholders(values)
	f.add("'"+attr+"' IN ("+marks+")", args...)
}

// eq adds "attr = value" when value is set.
func (f *filter) eq(attr string, value *string) {
	if value != nil {
		f.add("'"+attr+"' = ?", *value)
	}
}

// cents compares a money attribute (stored in cents) with a bound, when set.
func (f *filter) cents(attr, op string, bound *money.Cents) {
	if bound != nil {
		f.add("'"+attr+"' "+op+" ?", int64(*bound))
	}
}

// common adds the filters every resource shares: status, the created_at day range and
// updated_since.
func (f *filter) common(q patio.ListQuery) {
	f.status = q.Status
	if q.CreatedFrom != nil {
		f.add("'created_at' >= ?", q.CreatedFrom.Start().Format(patio.TimestampLayout))
	}
	if q.CreatedTo != nil {
		f.add("'created_at' < ?", q.CreatedTo.Start().Add(24*time.Hour).Format(patio.TimestampLayout))
	}
	if q.UpdatedSince != nil {
		f.add("'updated_at' >= ?", q.UpdatedSince.String())
	}
}

func (f filter) apply(q *dynamo.Query) *dynamo.Query {
	if len(f.parts) == 0 {
		return q
	}
	return q.Filter(strings.Join(f.parts, " AND "), f.args...)
}
