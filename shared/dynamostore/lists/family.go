package lists

import (
	"maps"
	"slices"

	"github.com/guregu/dynamo/v2"

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
