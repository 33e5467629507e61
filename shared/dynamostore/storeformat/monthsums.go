package storeformat

import (
	"maps"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
)

// Month sums (docs/storage.md, "Sums"). A kind that declares them (Layout.Months: financial
// records, by due month) keeps, per team and month of a row's date, CountShards counter items
// "nm#<YYYY-MM>#<shard>" (MonthSumKey), each holding, for every combination of the values of the
// declared attributes ("revenue#comissao#paid"), the number of rows marked SummedAttr that hold it
// and, under SumPrefix and the same name, the sum of their amounts. A write adds its difference to
// one shard of each month whose totals it changes, in its transaction (a due date moved to another
// month touches two). The status shards count the marked rows (SummedAttr), so a partition whose
// count equals its number of records has whole month sums.

// MonthSums declares the totals by month a kind keeps.
type MonthSums struct {
	// Date names the row's date attribute (YYYY-MM-DD) whose month holds the row's totals.
	Date string
	// Amount names the row's number attribute summed.
	Amount string
	// By names the row's attributes whose values, in order, name a total.
	By []string
}

// MonthSumPrefix starts the sort keys of the month sums' counter items. It sorts after the status
// shards' range (CounterRange("")) and the open facets' counters, so no read of those sees them.
const MonthSumPrefix = "nm#"

// MonthSumKey is the sort key of shard number shard of a month's sums (month as "2026-03").
func MonthSumKey(month string, shard int) string {
	return MonthSumPrefix + month + "#" + strconv.Itoa(shard)
}

// MonthSumRange returns the inclusive bounds of the sort keys of every shard of the months from
// first to last ("2026-01", "2026-03").
func MonthSumRange(first, last string) (lo, hi string) {
	return MonthSumPrefix + first + "#", MonthSumPrefix + last + "$"
}

// MonthOfSumKey tells a month sums' counter item by its sort key, and its month ("2026-03").
func MonthOfSumKey(sk string) (month string, ok bool) {
	rest, ok := strings.CutPrefix(sk, MonthSumPrefix)
	if !ok {
		return "", false
	}
	month, _, ok = strings.Cut(rest, "#")
	return month, ok
}

// KeepsSums reports whether the kind's rows carry SummedAttr: it keeps sums in its status shards
// (Sum) or by month (Months).
func (l *Layout) KeepsSums() bool { return l.Sum != "" || l.Months != nil }

// MonthSumsOf returns what a row adds to its kind's month sums, by month ("2026-03") and
// attribute: one to the count of its values' combination and its amount to their sum. It is nil
// for a row not marked SummedAttr (not in the sums), of a kind without month sums, or without a
// date.
func (l *Layout) MonthSumsOf(row dynamo.Item) map[string]map[string]int {
	if l.Months == nil || row == nil || row[SummedAttr] == nil {
		return nil
	}
	date := attrString(row, l.Months.Date)
	if len(date) < len("2006-01") {
		return nil
	}
	values := make([]string, len(l.Months.By))
	for i, attr := range l.Months.By {
		values[i] = keyValue(attrString(row, attr))
	}
	name := strings.Join(values, "#")
	return map[string]map[string]int{date[:len("2006-01")]: {name: 1, SumPrefix + name: IntAttr(row, l.Months.Amount)}}
}

// MonthSumsDiff returns what a write of the row next over the row stored (nil for a creation)
// moves in the month sums, by month and attribute, without zeros: a month whose totals do not
// change is left out.
func (l *Layout) MonthSumsDiff(stored, next dynamo.Item) map[string]map[string]int {
	out := map[string]map[string]int{}
	for sign, row := range map[int]dynamo.Item{1: next, -1: stored} {
		for month, attrs := range l.MonthSumsOf(row) {
			if out[month] == nil {
				out[month] = map[string]int{}
			}
			for attr, n := range attrs {
				out[month][attr] += sign * n
			}
		}
	}
	for month, attrs := range out {
		maps.DeleteFunc(attrs, func(_ string, n int) bool { return n == 0 })
		if len(attrs) == 0 {
			delete(out, month)
		}
	}
	return out
}

// MonthTotalOf tells a month sums' attribute: the values it names (Months.By's, in order) and
// whether it holds their sum (else their count).
func MonthTotalOf(attr string) (values []string, sum bool) {
	name, sum := strings.CutPrefix(attr, SumPrefix)
	return strings.Split(name, "#"), sum
}
