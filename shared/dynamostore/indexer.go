package dynamostore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// wordKind is a kind whose records have words for q: its layout and its table.
type wordKind struct {
	layout *storeformat.Layout
	table  func(Tables) string
}

// wordKinds are the kinds with words.
var wordKinds = []wordKind{
	{vehicleKind.layout, vehicleKind.table}, {clientKind.layout, clientKind.table}, {dealKind.layout, dealKind.table},
}

// IndexWords keeps q's word items (docs/storage.md, "Words") from a batch of records of the
// resource tables' streams, as the indexer function receives them: for each insert,
// modification or removal of a record's row, the word items its old image has and its new one
// has not are deleted, and those its new one has are put. Other records (guards, copies,
// counts, kinds without words) are skipped by their keys, before an image is decoded.
//
// The batch's writes are collapsed to each item's last, in the records' order (a record changed
// twice in a batch is written once, as its last change leaves it), and made 25 at a time without
// conditions: every write says what an item must be after its change, so one made again (the
// stream's retries of a batch) changes nothing. A record's changes reach the stream in order, in
// one shard, and Lambda hands a shard's records over in that order. An error means some writes
// may not have been made: the whole batch is to be handled again.
func (s *Store) IndexWords(ctx context.Context, recs []events.DynamoDBEventRecord) error {
	type target struct{ table, pk, sk string }
	last := map[target]dynamo.Item{} // each item's last write: nil deletes it
	var order []target
	set := func(k wordKind, sk string, pk types.AttributeValue, item dynamo.Item) {
		t := target{table: k.table(s.tables), sk: sk}
		_ = dynamo.Unmarshal(pk, &t.pk)
		if _, ok := last[t]; !ok {
			order = append(order, t)
		}
		last[t] = item
	}
	for _, rec := range recs {
		k, ok := wordKindOf(rec.Change.Keys)
		if !ok {
			continue
		}
		before, err := streamItem(rec.Change.OldImage)
		if err == nil {
			var after dynamo.Item
			if after, err = streamItem(rec.Change.NewImage); err == nil {
				cur, next := k.layout.Words(before), k.layout.Words(after)
				for _, sk := range slices.Sorted(maps.Keys(cur)) {
					if next[sk] == nil {
						set(k, sk, cur[sk]["pk"], nil)
					}
				}
				for _, sk := range slices.Sorted(maps.Keys(next)) {
					if cur[sk] == nil {
						set(k, sk, next[sk]["pk"], next[sk])
					}
				}
			}
		}
		if err != nil {
			return fmt.Errorf("dynamostore: index the words of stream record %s: %w", rec.EventID, err)
		}
	}
	byTable := map[string]*dynamo.BatchWrite{}
	var tables []string
	for _, t := range order {
		w := byTable[t.table]
		if w == nil {
			w = s.db.Table(t.table).Batch("pk", "sk").Write()
			byTable[t.table], tables = w, append(tables, t.table)
		}
		if item := last[t]; item != nil {
			w.Put(item)
		} else {
			w.Delete(dynamo.Keys{t.pk, t.sk})
		}
	}
	for _, table := range tables {
		if _, err := byTable[table].Run(ctx); err != nil {
			return wrap(err, "index words in table", table)
		}
	}
	return nil
}

// wordKindOf returns the kind whose record's row a stream record's keys are, when that kind has
// words; ok false otherwise.
func wordKindOf(keys map[string]events.DynamoDBAttributeValue) (wordKind, bool) {
	sk, ok := keys["sk"]
	if ok && sk.DataType() == events.DataTypeString {
		for _, k := range wordKinds {
			if strings.HasPrefix(sk.String(), k.layout.RowPrefix()) {
				return k, true
			}
		}
	}
	return wordKind{}, false
}

// streamItem converts a stream record's image to an item (nil for none).
func streamItem(image map[string]events.DynamoDBAttributeValue) (dynamo.Item, error) {
	if len(image) == 0 {
		return nil, nil
	}
	item := make(dynamo.Item, len(image))
	for k, v := range image {
		var err error
		if item[k], err = fromStream(v); err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
	}
	return item, nil
}
