// Package storeseed fills the store's tables with many new records at once, for measurements
// (cmd/bench) and the tests of lists at size: each record as the store's own write would leave it
// (dynamostore.Encode), in unconditional batches instead of a transaction per record.
package storeseed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// seedChunk is how many records one of Seed's workers encodes and writes at a time, and
// seedWorkers how many write side by side.
const (
	seedChunk   = 100
	seedWorkers = 8
)

// tally is a set of numbers by count key: what records add to their team's counters.
type tally map[storeformat.Count]int

// Seed writes new records of one listed kind (patio.Vehicle, Client, Deal, Activity or
// FinancialRecord) as the store would have written them one by one at revision 1 — each row,
// its family (order, facet and word items), the indexer's marks of its counts, its unique values'
// guards, and the counts and sums of them all, spread over the counter shards as concurrent
// writes leave them — but in unconditional batches (BatchWriteItem, 25 items a call) instead of
// a transaction per record, the counter items read, added to and written whole. It checks nothing
// and is not atomic, so the records must be new, valid and distinct in their unique values, and
// nothing else may write their team meanwhile, nor before (an indexer that followed a change of
// the team would count the seeded records again).
func Seed[T any](ctx context.Context, db *storecore.DB, recs []T) error {
	if len(recs) == 0 {
		return nil
	}
	first, err := dynamostore.Encode(db.Tables, recs[0])
	if err != nil {
		return err
	}
	table := db.Dynamo.Table(first.Table)
	counts := make([]map[string]tally, (len(recs)+seedChunk-1)/seedChunk) // per chunk, per team
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(seedWorkers)
	for c := range counts {
		g.Go(func() error {
			items, byTeam, err := chunkItems(db.Tables, recs[c*seedChunk:min((c+1)*seedChunk, len(recs))])
			if err != nil {
				return err
			}
			counts[c] = byTeam
			_, err = table.Batch().Write().Put(items...).Run(gctx)
			return storecore.Wrap(err, "seed "+first.As+"s", fmt.Sprint(len(items)))
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return writeCounts(ctx, table, first.As, counts)
}

// chunkItems returns the items of records (rows, families, marks, guards) and what they add to
// their teams' counters.
func chunkItems[T any](tables dynamostore.Tables, recs []T) ([]any, map[string]tally, error) {
	var items []any
	byTeam := map[string]tally{}
	for _, rec := range recs {
		e, err := dynamostore.Encode(tables, rec)
		if err != nil {
			return nil, nil, err
		}
		f := e.Layout.Family(e.Row)
		items = append(items, e.Row)
		for _, family := range []map[string]dynamo.Item{f.Copies, f.Words} {
			for _, sk := range slices.Sorted(maps.Keys(family)) {
				items = append(items, family[sk])
			}
		}
		// The mark of what was counted, per record, as the indexer kept it before its stream
		// marks (package migration): an indexer following the table finds the stream's INSERT of
		// a seeded row counted already, as long as it has not counted a change of the team since
		// (it then has a stream mark, and reads these no more).
		if _, later := e.Layout.Split(f); len(later.Counts) > 0 {
			items = append(items, e.Layout.Mark(e.TeamID, e.Layout.MarkKey(e.ID), storeformat.CountSeq(nil, e.Row)))
		}
		for _, gd := range e.Guards {
			items = append(items, gd)
		}
		if byTeam[e.TeamID] == nil {
			byTeam[e.TeamID] = tally{}
		}
		for k, v := range f.Counts {
			byTeam[e.TeamID][k] += v
		}
	}
	return items, byTeam, nil
}

// writeCounts adds the chunks' counts to the teams' counter items, spread over the shards: each
// counter item read, added to and written again, in batches (no other writer writes the team
// meanwhile).
func writeCounts(ctx context.Context, table dynamo.Table, what string, counts []map[string]tally) error {
	total := map[string]tally{}
	for _, byTeam := range counts {
		for team, t := range byTeam {
			if total[team] == nil {
				total[team] = tally{}
			}
			for k, v := range t {
				total[team][k] += v
			}
		}
	}
	var items []dynamo.Item
	for team, t := range total {
		for shard := range storeformat.CountShards {
			part := tally{}
			for k, v := range t {
				if n := v/storeformat.CountShards + btoi(shard < v%storeformat.CountShards); n != 0 {
					part[k] = n
				}
			}
			items = append(items, counterItems(team, part, shard)...)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(seedWorkers)
	for c := 0; c < len(items); c += 10 * seedChunk {
		g.Go(func() error {
			return storecore.Wrap(addCounters(gctx, table, items[c:min(c+10*seedChunk, len(items))]), "seed the counts of", what+"s")
		})
	}
	return g.Wait()
}

// counterItems are the counter items holding a tally's numbers in one shard.
func counterItems(teamID string, t tally, shard int) []dynamo.Item {
	byItem := map[string]dynamo.Item{}
	for k, n := range t {
		sk := storeformat.CounterKey(k.Item, shard)
		if byItem[sk] == nil {
			byItem[sk] = dynamo.Item{"pk": &types.AttributeValueMemberS{Value: teamID}, "sk": &types.AttributeValueMemberS{Value: sk}}
		}
		byItem[sk][k.Attr] = &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
	}
	return slices.Collect(maps.Values(byItem))
}

// addCounters adds counter items' numbers to those stored: it reads the stored items, adds, and
// writes them whole, in batches.
func addCounters(ctx context.Context, table dynamo.Table, items []dynamo.Item) error {
	keys := make([]dynamo.Keyed, len(items))
	for i, it := range items {
		keys[i] = dynamo.Keys{storecore.AttrString(it, "pk"), storecore.AttrString(it, "sk")}
	}
	var stored []dynamo.Item
	err := table.Batch("pk", "sk").Get(keys...).Consistent(true).All(ctx, &stored)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return err
	}
	have := map[[2]string]dynamo.Item{}
	for _, it := range stored {
		have[[2]string{storecore.AttrString(it, "pk"), storecore.AttrString(it, "sk")}] = it
	}
	puts := make([]any, len(items))
	for i, it := range items {
		if old := have[[2]string{storecore.AttrString(it, "pk"), storecore.AttrString(it, "sk")}]; old != nil {
			for attr, v := range old {
				if _, ok := it[attr]; !ok {
					it[attr] = v
				} else if attr != "pk" && attr != "sk" {
					it[attr] = &types.AttributeValueMemberN{Value: strconv.Itoa(storeformat.IntAttr(it, attr) + storeformat.IntAttr(old, attr))}
				}
			}
		}
		puts[i] = it
	}
	_, err = table.Batch().Write().Put(puts...).Run(ctx)
	return err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
