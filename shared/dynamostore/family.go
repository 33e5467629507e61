package dynamostore

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

// A record's family is everything it stores beside its row, all derived from the row's item
// (docs/storage.md): its order item and facet items (copies of the row, rewritten by every write),
// its word items, and the counts it adds to. A write puts its next family and deletes what its
// previous one had that the next has not, and moves the counts by the difference, in the
// record's transaction.
type family struct {
	copies map[string]dynamo.Item // order item and facet items, by sort key
	words  map[string]dynamo.Item // word items, by sort key
	counts tally
}

// indexedAttr marks a row whose family is complete (its facet items, word items and counts
// written): rows written before facets have an order item and a status count only, until the
// maintenance backfill (or their next write) completes them. Each record whose family becomes
// complete adds one to the status shards' count of that name, so a partition whose count equals
// its number of records is complete (tally.complete).
const indexedAttr = "indexed"

// summedAttr marks a row of a kind that keeps sums (listing.sum) whose amount is in them: the
// status shards add it to "sum#<facet>=<value>#<status>" for each closed facet, and count the
// row in summedAttr, so that a partition whose summedAttr count equals its number of records has
// whole sums (tally.summed). Rows written before sums were kept lack it until the backfill (or
// their next write) adds them.
const summedAttr = "summed"

// sumPrefix starts the status shards' attributes holding sums.
const sumPrefix = "sum#"

// rowFormat is what a stored row's family holds.
type rowFormat int

const (
	formatIndexed rowFormat = iota // the whole family
	formatCounted                  // an order item and the status count (rows written before facets)
	formatLegacy                   // nothing (rows written before status ranges; the backfill's)
)

// formatOf tells a stored row's format.
func formatOf(item dynamo.Item) rowFormat {
	switch {
	case item[indexedAttr] != nil:
		return formatIndexed
	case legacySortKey(attrString(item, "lsi_updated")):
		return formatLegacy
	}
	return formatCounted
}

// family derives a row's family, as far as its format has it.
func (r records[T, R, Q]) family(row dynamo.Item, format rowFormat) family {
	l := r.k.list
	f := family{copies: map[string]dynamo.Item{}, words: map[string]dynamo.Item{}, counts: tally{}}
	if format == formatLegacy {
		return f
	}
	status, id := attrString(row, "status"), attrString(row, "id")
	copied := r.copyOf(row)
	order := maps.Clone(copied)
	order["sk"] = str(l.letter + "o#" + status + "#" + id)
	f.copies[attrString(order, "sk")] = order
	f.counts.add(countKey{attr: status}, 1)
	if format == formatCounted {
		return f
	}
	f.counts.add(countKey{attr: indexedAttr}, 1)
	amount := 0
	if l.sum != "" && row[summedAttr] != nil {
		f.counts.add(countKey{attr: summedAttr}, 1)
		amount = attrInt(row, l.sum)
	}
	for _, fc := range l.facets {
		value := attrString(row, fc.attr)
		if value == "" {
			continue
		}
		key := facetKey(fc.name, value)
		item := maps.Clone(copied)
		item["sk"] = str(l.letter + "f#" + key + "#" + status + "#" + id)
		for _, attr := range r.indexAttrs() {
			if v := attrString(row, attr); v != "" {
				item[attr] = str(key + "#" + v)
			}
		}
		f.copies[attrString(item, "sk")] = item
		if fc.closed {
			f.counts.add(countKey{attr: key + "#" + status}, 1)
			if amount != 0 {
				f.counts.add(countKey{attr: sumPrefix + key + "#" + status}, amount)
			}
		} else {
			f.counts.add(countKey{item: key, attr: status}, 1)
		}
	}
	for _, w := range strings.Fields(attrString(row, wordsAttr)) {
		sk := l.letter + "w#" + status + "#" + w + "#" + id
		f.words[sk] = dynamo.Item{"pk": row["pk"], "sk": str(sk)}
	}
	return f
}

// copyOf is a row's item as its copies hold it: without its index attributes (a copy sets its
// own) and what only the row carries.
func (r records[T, R, Q]) copyOf(row dynamo.Item) dynamo.Item {
	out := maps.Clone(row)
	for _, attr := range r.indexAttrs() {
		delete(out, attr)
	}
	for _, attr := range r.k.list.rowOnly {
		delete(out, attr)
	}
	delete(out, indexedAttr)
	delete(out, summedAttr)
	delete(out, byKeyAttr)
	return out
}

// indexAttrs returns the sort key attributes of the kind's local indexes, in a fixed order.
func (r records[T, R, Q]) indexAttrs() []string {
	var out []string
	for _, ix := range r.k.sorts {
		if ix.index != "" {
			out = append(out, ix.attr)
		}
	}
	slices.Sort(out)
	return out
}

// facetKey is a facet value as keys hold it, "brand=toyota": control characters dropped and '#'
// (the keys' separator) replaced by one of them, so that no value's range holds another's.
func facetKey(name, value string) string {
	return name + "=" + strings.Map(func(r rune) rune {
		switch {
		case r == '#':
			return 0x1e
		case r < 0x20:
			return -1
		}
		return r
	}, value)
}

// familyOps is the write of next's family over cur's: every copy put, the word items cur had not
// put, what cur had and next has not deleted, and the counts moved by the difference.
func (r records[T, R, Q]) familyOps(teamID string, cur, next family) []op {
	t := r.table()
	var ops []op
	for _, sk := range slices.Sorted(maps.Keys(next.copies)) {
		ops = append(ops, op{put: t.Put(next.copies[sk])})
	}
	for _, sk := range slices.Sorted(maps.Keys(next.words)) {
		if cur.words[sk] == nil {
			ops = append(ops, op{put: t.Put(next.words[sk])})
		}
	}
	for _, items := range []map[string]dynamo.Item{cur.copies, cur.words} {
		for _, sk := range slices.Sorted(maps.Keys(items)) {
			if next.copies[sk] == nil && next.words[sk] == nil {
				ops = append(ops, op{del: t.Delete("pk", teamID).Range("sk", sk)})
			}
		}
	}
	return append(ops, r.s.countOps(t, teamID, next.counts.minus(cur.counts))...)
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// attrInt returns a number attribute of an item, 0 when absent or not a whole number.
func attrInt(item dynamo.Item, name string) int {
	n, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		return 0
	}
	return v
}
