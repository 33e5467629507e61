package dynamostore

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

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// seedChunk is how many records one of Seed's workers encodes and writes at a time, and
// seedWorkers how many write side by side.
const (
	seedChunk   = 100
	seedWorkers = 8
)

// Seed writes new records of one listed kind (patio.Vehicle, Client, Deal, Activity or
// FinancialRecord) as the store would have written them one by one at revision 1 — each row,
// its family (order, facet and word items), the indexer's marks of its counts, its unique values'
// guards, and the counts and sums of them all, spread over the counter shards as concurrent
// writes leave them — but in unconditional batches (BatchWriteItem, 25 items a call) instead of
// a transaction per record, the counter items read, added to and written whole. It is for
// filling tables for measurements (cmd/bench): it checks nothing and is not atomic, so the
// records must be new, valid and distinct in their unique values, and nothing else may write
// their team meanwhile, nor before (an indexer that followed a change of the team would count the
// seeded records again).
func Seed[T any](ctx context.Context, s *Store, recs []T) error {
	switch rs := any(recs).(type) {
	case []patio.Vehicle:
		return seed(ctx, records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s.core, &vehicleKind}, rs)
	case []patio.Client:
		return seed(ctx, records[patio.Client, clientRow, patio.ClientQuery]{s.core, &clientKind}, rs)
	case []patio.Deal:
		return seed(ctx, records[patio.Deal, dealRow, patio.DealQuery]{s.core, &dealKind}, rs)
	case []patio.Activity:
		return seed(ctx, records[patio.Activity, activityRow, patio.ActivityQuery]{s.core, &activityKind}, rs)
	case []patio.FinancialRecord:
		return seed(ctx, records[patio.FinancialRecord, financialRow, patio.FinancialQuery]{s.core, &financialKind}, rs)
	}
	return fmt.Errorf("dynamostore: Seed of %T: not a listed record type", recs)
}

func seed[T, R, Q any](ctx context.Context, r records[T, R, Q], recs []T) error {
	counts := make([]map[string]tally, (len(recs)+seedChunk-1)/seedChunk) // per chunk, per team
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(seedWorkers)
	for c := range counts {
		g.Go(func() error {
			counts[c] = map[string]tally{}
			var items []any
			for _, rec := range recs[c*seedChunk : min((c+1)*seedChunk, len(recs))] {
				rec = r.k.withRevision(rec, 1)
				teamID, id := r.k.key(rec)
				row, err := r.rowItem(rec)
				if err != nil {
					return storecore.Wrap(err, "encode "+r.k.what, id)
				}
				f := r.k.layout.Family(row)
				items = append(items, row)
				for _, family := range []map[string]dynamo.Item{f.Copies, f.Words} {
					for _, sk := range slices.Sorted(maps.Keys(family)) {
						items = append(items, family[sk])
					}
				}
				// The mark of what was counted, per record, as the indexer kept it before its
				// stream marks (package migration): an indexer following the table finds the
				// stream's INSERT of a seeded row counted already, as long as it has not counted
				// a change of the team since (it then has a stream mark, and reads these no more).
				if _, later := r.k.layout.Split(f); len(later.Counts) > 0 {
					items = append(items, r.k.layout.Mark(teamID, r.k.layout.MarkKey(id), storeformat.CountSeq(nil, row)))
				}
				for _, gd := range r.k.guards(rec) {
					items = append(items, guardRow{PK: teamID, SK: gd.sk, Owner: id})
				}
				if counts[c][teamID] == nil {
					counts[c][teamID] = tally{}
				}
				for k, v := range f.Counts {
					counts[c][teamID].add(k, v)
				}
			}
			_, err := r.table().Batch().Write().Put(items...).Run(gctx)
			return storecore.Wrap(err, "seed "+r.k.what+"s", fmt.Sprint(len(items)))
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	total := map[string]tally{}
	for _, byTeam := range counts {
		for team, t := range byTeam {
			if total[team] == nil {
				total[team] = tally{}
			}
			for k, v := range t {
				total[team].add(k, v)
			}
		}
	}
	// The counts, spread over the shards: each counter item read, added to and written again, in
	// batches (no other writer writes the team meanwhile).
	var items []dynamo.Item
	for team, t := range total {
		for shard := range countShards {
			part := tally{}
			for k, v := range t {
				if n := v/countShards + btoi(shard < v%countShards); n != 0 {
					part[k] = n
				}
			}
			items = append(items, counterItems(team, part, shard)...)
		}
	}
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(seedWorkers)
	for c := 0; c < len(items); c += 10 * seedChunk {
		g.Go(func() error {
			return storecore.Wrap(r.addCounters(gctx, items[c:min(c+10*seedChunk, len(items))]), "seed the counts of", r.k.what+"s")
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
			byItem[sk] = dynamo.Item{"pk": str(teamID), "sk": str(sk)}
		}
		byItem[sk][k.Attr] = &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
	}
	return slices.Collect(maps.Values(byItem))
}

// addCounters adds counter items' numbers to those stored: it reads the stored items, adds, and
// writes them whole, in batches.
func (r records[T, R, Q]) addCounters(ctx context.Context, items []dynamo.Item) error {
	keys := make([]dynamo.Keyed, len(items))
	for i, it := range items {
		keys[i] = dynamo.Keys{storecore.AttrString(it, "pk"), storecore.AttrString(it, "sk")}
	}
	var stored []dynamo.Item
	err := r.table().Batch("pk", "sk").Get(keys...).Consistent(true).All(ctx, &stored)
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
	_, err = r.table().Batch().Write().Put(puts...).Run(ctx)
	return err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
