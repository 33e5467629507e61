package lists

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/guregu/dynamo/v2"

	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// A record's family is everything it stores beside its row, all derived from the row's item
// (storeformat.Layout.Family): its order item and facet items, its word items, and the counts it
// adds to. A write puts its next family's copies and deletes those its previous one had that the
// next has not, and moves the counts by the difference, in the record's transaction. Its word
// items are not in the transaction: the indexer keeps them from the table's stream,
// so q's word lists follow a write within the stream's lag.

// The row attributes the store reads beside its row structs' (storeformat).
const (
	indexedAttr = storeformat.IndexedAttr
	wordsAttr   = storeformat.WordsAttr
)

// FamilyOps is the write of next's family over cur's in table t: every copy put, what cur had
// and next has not deleted, and the counts moved by the difference (what the indexer keeps
// aside: the store's Indexer).
func FamilyOps(t dynamo.Table, teamID string, cur, next storeformat.Family) []storecore.Op {
	var ops []storecore.Op
	for _, sk := range slices.Sorted(maps.Keys(next.Copies)) {
		ops = append(ops, storecore.Op{Put: t.Put(next.Copies[sk])})
	}
	for _, sk := range slices.Sorted(maps.Keys(cur.Copies)) {
		if next.Copies[sk] == nil {
			ops = append(ops, storecore.Op{Del: t.Delete("pk", teamID).Range("sk", sk)})
		}
	}
	return append(ops, CountOps(t, teamID, Tally(next.Counts).Minus(cur.Counts))...)
}

// Maintained counts (docs/storage.md, "Totals without counting" and "Facet counts"), in the
// counter items storeformat.CounterKey names: a team's status shards and its open facet values'
// counters. A write adds to one shard number, drawn at random, of each item it counts in, so that
// concurrent writers of a team rarely update the same item (which would make their transactions
// conflict on DynamoDB); a list reads every shard of what it counts, each an item examined of its
// budget, hence few. Reads use BETWEEN (storeformat.CounterRange), not the equivalent
// begins_with, which DynamoDB Local serves by reading the whole partition.
const countShards = storeformat.CountShards

// countKey is one number a record adds to (storeformat.Count).
type countKey = storeformat.Count

// Tally is a set of numbers by count key: what a record adds, or what a partition holds.
type Tally map[storeformat.Count]int

// Add adds n to k's number.
func (t Tally) Add(k storeformat.Count, n int) { t[k] += n }

// Minus returns t − o, without zeros.
func (t Tally) Minus(o Tally) Tally {
	out := Tally{}
	for k, n := range t {
		out.Add(k, n)
	}
	for k, n := range o {
		out.Add(k, -n)
	}
	maps.DeleteFunc(out, func(_ countKey, n int) bool { return n == 0 })
	return out
}

// CountOps writes a difference of counts in a write's transaction: one update per item counted
// in, all in one shard number drawn at random, so a status change moves a record's count within
// one item, atomically for any reader.
func CountOps(t dynamo.Table, teamID string, d Tally) []storecore.Op {
	return CountOpsIn(t, teamID, d, rand.IntN(countShards))
}

// CountOpsIn writes a difference of counts in one shard number (CountOps draws it).
func CountOpsIn(t dynamo.Table, teamID string, d Tally, shard int) []storecore.Op {
	byItem := map[string][]countKey{}
	for k := range d {
		byItem[k.Item] = append(byItem[k.Item], k)
	}
	var ops []storecore.Op
	for _, item := range slices.Sorted(maps.Keys(byItem)) {
		u := t.Update("pk", teamID).Range("sk", storeformat.CounterKey(item, shard))
		keys := byItem[item]
		slices.SortFunc(keys, func(a, b countKey) int { return strings.Compare(a.Attr, b.Attr) })
		for _, k := range keys {
			u = u.Add("'"+k.Attr+"'", d[k]) // quoted: the name may hold "=" and "#"
		}
		ops = append(ops, storecore.Op{Upd: u})
	}
	return ops
}

// Tallies reads a partition's counts: its status shards (withShards) and the counter items of
// the given open facet values ("<facet>=<value>"), side by side, strongly consistent.
func Tallies(ctx context.Context, t dynamo.Table, teamID string, withShards bool, open []string) (Tally, error) {
	ranges := make([][2]string, 0, len(open)+1)
	if withShards {
		lo, hi := storeformat.CounterRange("")
		ranges = append(ranges, [2]string{lo, hi})
	}
	for _, key := range open {
		lo, hi := storeformat.CounterRange(key)
		ranges = append(ranges, [2]string{lo, hi})
	}
	parts := make([]Tally, len(ranges))
	g, gctx := errgroup.WithContext(ctx)
	for i, rg := range ranges {
		g.Go(func() error {
			var err error
			parts[i], err = readCounters(gctx, t, teamID, rg[0], rg[1])
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := Tally{}
	for _, p := range parts {
		for k, n := range p {
			out.Add(k, n)
		}
	}
	return out, nil
}

// readCounters sums the counter items between lo and hi.
func readCounters(ctx context.Context, t dynamo.Table, teamID, lo, hi string) (Tally, error) {
	var items []dynamo.Item
	err := t.Get("pk", teamID).Range("sk", dynamo.Between, lo, hi).Consistent(true).All(ctx, &items)
	return counterTally(items), err
}

// Status returns the number of records of the statuses.
func (t Tally) Status(statuses []string) int {
	n := 0
	for _, s := range statuses {
		n += t[countKey{Attr: s}]
	}
	return n
}

// facet returns the number of records of the statuses with one of a facet's values.
func (t Tally) facet(f facetFilter, statuses []string) int {
	n := 0
	for _, v := range f.values {
		key := storeformat.FacetKey(f.name, v)
		for _, s := range statuses {
			if f.closed {
				n += t[countKey{Attr: key + "#" + s}]
			} else {
				n += t[countKey{Item: key, Attr: s}]
			}
		}
	}
	return n
}

// Complete reports whether every record of the partition has its whole family: as many were
// counted complete as there are records (statuses lists every status of the kind).
func (t Tally) Complete(statuses []string) bool {
	return t[countKey{Attr: indexedAttr}] >= t.Status(statuses)
}

// Items returns the counter items a tally adds to, sorted ("" for the status shards).
func (t Tally) Items() []string {
	seen := map[string]bool{}
	for k := range t {
		seen[k.Item] = true
	}
	return slices.Sorted(maps.Keys(seen))
}
