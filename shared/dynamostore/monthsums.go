package dynamostore

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Month sums (storeformat.MonthSums; docs/storage.md, "Sums"): the totals by due month, type,
// category and status of a team's financial records, moved by every write of a record in its
// transaction, so that a period's summary reads a few small items per month, not its records.

// monthSumOps moves a record's part of its kind's month sums from the row stored (nil for a
// creation) to the row next: one update of each month whose totals change, in one shard number
// drawn at random. A write that changes no summed value (a description, a payment method) has
// none; a due date moved to another month has two.
func (r records[T, R, Q]) monthSumOps(teamID string, stored, next dynamo.Item) []storecore.Op {
	if r.k.Layout == nil || r.k.Layout.Months == nil {
		return nil
	}
	d := r.k.Layout.MonthSumsDiff(stored, next)
	shard := rand.IntN(storeformat.CountShards)
	var ops []storecore.Op
	for _, month := range slices.Sorted(maps.Keys(d)) {
		u := r.table().Update("pk", teamID).Range("sk", storeformat.MonthSumKey(month, shard))
		for _, attr := range slices.Sorted(maps.Keys(d[month])) {
			u = u.Add("'"+attr+"'", d[month][attr]) // quoted: the name holds "#"
		}
		ops = append(ops, storecore.Op{Upd: u})
	}
	return ops
}

// monthSums reads the team's month sums of the months from first to last ("2026-01", "2026-03"),
// by month and attribute: ok is false while some record of the team is not in them. The status
// shards are read first, then the months (one strongly consistent query each): a write that adds
// a record to the sums (counting it in the shards and adding it to its month in one transaction)
// between the two reads finds the count short, never the count whole and the record missing.
func (r records[T, R, Q]) monthSums(ctx context.Context, teamID, first, last string) (map[string]map[string]int, bool, error) {
	t, err := lists.Tallies(ctx, r.table(), teamID, true, nil)
	if err != nil || t[storeformat.Count{Attr: storeformat.SummedAttr}] < t.Status(r.k.List.Statuses) {
		return nil, false, err
	}
	lo, hi := storeformat.MonthSumRange(first, last)
	iter := r.table().Get("pk", teamID).Range("sk", dynamo.Between, lo, hi).Consistent(true).Iter()
	out := map[string]map[string]int{}
	var item dynamo.Item
	for iter.Next(ctx, &item) {
		sk := storecore.AttrString(item, "sk")
		month, ok := storeformat.MonthOfSumKey(sk)
		if !ok {
			continue
		}
		if out[month] == nil {
			out[month] = map[string]int{}
		}
		for name, v := range item {
			if name == "pk" || name == "sk" {
				continue
			}
			var n int
			if err := dynamo.Unmarshal(v, &n); err != nil {
				return nil, false, fmt.Errorf("dynamostore: month sums %s, %s: %w", sk, name, err)
			}
			out[month][name] += n
		}
		item = nil
	}
	return out, true, iter.Err()
}

// financialRecords is the financial record store: the records, and their totals by due month.
type financialRecords struct {
	records[patio.FinancialRecord, financialRow, patio.FinancialQuery]
}

// MonthTotals returns the team's financial totals of the months from first's to last's, from the
// month sums (patio.FinancialMonthSums): the status shards and each month's shards, no record; ok
// is false while some record of the team is not in them (written before they were kept, until the
// backfill or its next write adds it).
func (f financialRecords) MonthTotals(ctx context.Context, teamID string, first, last patio.Date) ([]patio.FinancialTotal, bool, error) {
	sums, ok, err := f.monthSums(ctx, teamID, monthKey(first), monthKey(last))
	if err != nil || !ok {
		return nil, false, storecore.Wrap(err, "sum financial records of team", teamID)
	}
	var out []patio.FinancialTotal
	for _, month := range slices.Sorted(maps.Keys(sums)) {
		start, err := patio.ParseDate(month + "-01")
		if err != nil {
			return nil, false, storecore.Wrap(err, "sum financial records of team", teamID)
		}
		at := map[string]int{}
		for _, attr := range slices.Sorted(maps.Keys(sums[month])) {
			values, sum := storeformat.MonthTotalOf(attr)
			if len(values) != 3 {
				continue
			}
			name := strings.Join(values, "#")
			i, seen := at[name]
			if !seen {
				i = len(out)
				at[name] = i
				out = append(out, patio.FinancialTotal{Month: start, Type: values[0], Category: values[1], Status: values[2]})
			}
			if sum {
				out[i].Amount = money.Cents(sums[month][attr])
			} else {
				out[i].Count = sums[month][attr]
			}
		}
	}
	return out, true, nil
}

// monthKey is a date's month as the month sums' keys hold it, "2026-03".
func monthKey(d patio.Date) string { return d.String()[:len("2006-01")] }
