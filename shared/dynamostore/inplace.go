package dynamostore

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// An update in place is the usual edit of a record: it leaves the record where it is in its
// family (same status, so the same order item; no unique value, count, month sum, alarm or other
// record moves), and only the row and the copies of it the write keeps (the order item, a closed
// facet's copy) change. It needs no transaction: the row is put conditioned on the revision read,
// then its copies, side by side, each conditioned on being there and older than the write
// (docs/storage.md, "Updates in place"). One put and one round of copies instead of a
// transaction of both, which on DynamoDB costs about three puts' time and twice the units.
//
// What a transaction gave is kept so:
//   - a lost race: the row's condition fails, the update re-reads (ErrRevConflict) and nothing
//     of the losing write was written (the copies go after the row);
//   - an answer lost after the row was written (the SDK retries the put, whose condition then
//     fails): the row read back holds this write's token (storeformat.WriteTokenAttr), so the
//     update succeeded;
//   - two writers' copies arriving out of order: a copy is only written over an older one;
//   - a writer that moved the record meanwhile (a status change, a removal): its copies are
//     gone from where this one would write, and the condition "it is there" leaves them gone;
//   - a process stopped between the row and its copies: the indexer, which sees the row's
//     change on the stream, finds the copies older than the row and writes them (mendCopies).

// updateInPlace returns next's row and the copies an update of the row stored to next writes when
// it is an update in place, and false when it is not (the update then runs as one transaction).
func (r records[T, R, Q]) updateInPlace(teamID string, w patio.Write[T], stored dynamo.Item, cur, next T) (dynamo.Item, []dynamo.Item, bool) {
	// A kind with alarms conditions its writes on them too, and is not indexed from the stream
	// (so nothing would mend its copies): its updates keep the transaction.
	if r.k.Layout == nil || r.k.alarmKey != nil || len(w.Requires) > 0 || len(w.Also) > 0 {
		return nil, nil, false
	}
	row, err := r.rowItem(next)
	if err != nil || len(r.monthSumOps(teamID, stored, row)) > 0 || len(r.guardOps(teamID, "", r.k.guards(cur), r.k.guards(next))) > 0 {
		return nil, nil, false // an encoding error is answered by the transaction's path
	}
	was, _ := r.k.Layout.Split(migration.Family(r.k.Layout, stored))
	now, _ := r.k.Layout.Split(r.k.Layout.Family(row))
	if !sameCopies(was, now) ||
		len(lists.Tally(now.Counts).Minus(was.Counts)) > 0 {
		return nil, nil, false
	}
	copies := make([]dynamo.Item, 0, len(now.Copies))
	for _, sk := range slices.Sorted(maps.Keys(now.Copies)) {
		copies = append(copies, now.Copies[sk])
	}
	return row, copies, true
}

// writeInPlace writes an update in place: row (stamped) over the revision rev read, then its
// copies side by side.
func (r records[T, R, Q]) writeInPlace(ctx context.Context, teamID, id string, rev int, row dynamo.Item, copies []dynamo.Item) error {
	row = storecore.Stamped(ctx, row)
	token := strconv.FormatUint(rand.Uint64(), 36)
	row[storeformat.WriteTokenAttr] = &types.AttributeValueMemberS{Value: token}
	err := r.table().Put(row).If("'rev' = ?", revAttr(rev)).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		var now dynamo.Item
		err = r.table().Get("pk", teamID).Range("sk", dynamo.Equal, r.k.prefix+id).Consistent(true).One(ctx, &now)
		if err == nil && storecore.AttrString(now, storeformat.WriteTokenAttr) != token {
			return storecore.ErrRevConflict
		}
	}
	if err != nil {
		return err
	}
	return putNewerCopies(ctx, r.table(), revAttr(rev+1), copies)
}

// putNewerCopies puts each copy of a row at stored revision attribute rev where a copy older than
// it is, side by side; a copy that is not there, or not older, is left as it is.
func putNewerCopies(ctx context.Context, t dynamo.Table, rev int, copies []dynamo.Item) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range copies {
		g.Go(func() error {
			err := t.Put(c).If("attribute_exists('rev') AND 'rev' < ?", rev).Run(gctx)
			if dynamo.IsCondCheckFailed(err) {
				return nil
			}
			return err
		})
	}
	return g.Wait()
}

// copyRev is the stored revision attribute of a row or copy, -1 for none.
func copyRev(item dynamo.Item) int {
	if item["rev"] == nil {
		return -1
	}
	return storeformat.IntAttr(item, "rev")
}

// keep notes, for a change of a row whose transaction's copies stayed where they were (an update
// in place, or any write that left them so), the copies its new image makes.
func (b *indexBatch) keep(k streamKind, table, team string, before, after dynamo.Item) {
	if before == nil || after == nil {
		return
	}
	was, _ := k.layout.Split(k.layout.Family(before))
	now, _ := k.layout.Split(k.layout.Family(after))
	if !sameCopies(was, now) {
		return
	}
	for sk, c := range now.Copies {
		b.kept[indexTarget{table, team, sk}] = c
	}
}

// mendCopies reads the copies the batch's updates in place keep (strongly consistent, 100 a
// call) and puts again those older than their row's change: the copies of a write whose process
// stopped after its row. A copy not there was moved or removed by a later write, and stays so.
func (s *Indexer) mendCopies(ctx context.Context, b indexBatch) error {
	byTable := map[string][]dynamo.Keyed{}
	for t := range b.kept {
		byTable[t.table] = append(byTable[t.table], dynamo.Keys{t.pk, t.sk})
	}
	for table, keys := range byTable {
		t := s.db.Dynamo.Table(table)
		for part := range slices.Chunk(keys, 100) {
			var got []dynamo.Item
			err := t.Batch("pk", "sk").Get(part...).Consistent(true).All(ctx, &got)
			if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
				return storecore.Wrap(err, "index: read the copies in table", table)
			}
			for _, have := range got {
				want := b.kept[indexTarget{table, storecore.AttrString(have, "pk"), storecore.AttrString(have, "sk")}]
				if rev := copyRev(want); copyRev(have) < rev {
					if err := putNewerCopies(ctx, t, rev, []dynamo.Item{want}); err != nil {
						return storecore.Wrap(err, "index: mend a copy in table", table)
					}
				}
			}
		}
	}
	return nil
}

// sameCopies reports whether two families' copies have the same keys: a write from one to the
// other rewrites its copies where they are.
func sameCopies(was, now storeformat.Family) bool {
	return slices.Equal(slices.Sorted(maps.Keys(was.Copies)), slices.Sorted(maps.Keys(now.Copies)))
}
