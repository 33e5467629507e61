// Package lists is the list engine of the DynamoDB store's records: from a kind's storage format
// (storeformat.Layout) and its Listing, it plans and serves a list's page and exact total at the
// cost of the page (docs/storage.md), and keeps the counts a write moves in its transaction (its
// family's copies and counters: FamilyOps, CountOps). The records' own reads and writes are the
// store's (shared/dynamostore); the items the table's stream keeps, its indexer's.
package lists

import (
	"context"
	"sync"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Engine is what a store's lists learn as they go: the partitions ("<table>\x00<team>") a list
// found complete, every record with its whole family. They stay so (every write completes its
// record's family), so they are not asked again. The zero Engine is ready; it is safe for
// concurrent use and must not be copied.
type Engine struct {
	indexed sync.Map
}

// Kind is a listed record kind as the engine reads it: T the domain's record, R its row struct,
// Q its query.
type Kind[T, R, Q any] struct {
	What   string              // names the record in errors ("vehicle")
	Layout *storeformat.Layout // how its items are stored (their keys, sorts, facets and family)
	// Key returns a record's team and id.
	Key func(T) (teamID, id string)
	// Encode returns the row of a record; Decode the record of a row (revision included).
	Encode func(T) R
	Decode func(R) (T, error)
	// Brief are the attributes a page of cards reads (patio.ListQuery.Brief), the order's
	// attribute besides; nil reads whole items.
	Brief []string
	List  Listing[T, Q]
}

// Item returns a record's row as stored: its row struct's attributes and what
// storeformat.Layout.Item adds (its words and the marks of its family and sums).
func (k *Kind[T, R, Q]) Item(rec T) (dynamo.Item, error) {
	var words []string
	if k.List.Words != nil {
		words = k.List.Words(rec)
	}
	return k.Layout.Item(k.Encode(rec), words)
}

// Get returns a team's record in table t (strongly consistent) and its row's item as stored, or
// patio.KindNotFound.
func (k *Kind[T, R, Q]) Get(ctx context.Context, t dynamo.Table, teamID, id string) (T, dynamo.Item, error) {
	var item dynamo.Item
	sk := k.Layout.RowKey(id)
	var zero T
	if err := t.Get("pk", teamID).Range("sk", dynamo.Equal, sk).Consistent(true).One(ctx, &item); err != nil {
		return zero, nil, storecore.Wrap(storecore.NotFound(err, k.What), "get "+k.What, sk)
	}
	var row R
	if err := dynamo.UnmarshalItem(item, &row); err != nil {
		return zero, nil, storecore.Wrap(err, "decode "+k.What, sk)
	}
	rec, err := k.Decode(row)
	return rec, item, storecore.Wrap(err, "decode "+k.What, sk)
}

// Lister serves the lists of one kind's records in its table (Of).
type Lister[T, R, Q any] struct {
	e *Engine
	t dynamo.Table
	k *Kind[T, R, Q]
}

// Of returns the lister of kind k's records in table t, learning on e.
func Of[T, R, Q any](e *Engine, t dynamo.Table, k *Kind[T, R, Q]) Lister[T, R, Q] {
	return Lister[T, R, Q]{e: e, t: t, k: k}
}

// List returns one page of a team's records matching q, the total matching, and the position
// after the page; a list that reads what the indexer keeps says which state of it it read
// (patio.Listed.Index).
func (r Lister[T, R, Q]) List(ctx context.Context, teamID string, q Q) (patio.Listed[T], error) {
	return r.list(ctx, teamID, r.k.List.spec(r.k.Layout, q))
}
