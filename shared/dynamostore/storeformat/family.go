package storeformat

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
// its word items (kept from the table's stream by the indexer, not by the record's write), and
// the counts it adds to.
type Family struct {
	Copies map[string]dynamo.Item // order item and facet items, by sort key
	Words  map[string]dynamo.Item // word items, by sort key
	Counts map[Count]int          // what the record adds to its counters
}

// Count is one number a record adds to: Attr of its status shard (Item "") or of an open facet
// value's counter item (Item "<facet>=<value>", FacetKey; see CounterKey).
type Count struct {
	Item, Attr string
}

// Attributes of a listed record's row beside its row struct's.
const (
	// WordsAttr holds a record's words (patio.Words) as " w1 w2 … ", in its row and every copy:
	// a term starts one of them where " <term>" occurs.
	WordsAttr = "words"
	// IndexedAttr marks a row whose family is complete (its facet items, word items and counts
	// written): rows written before facets have an order item and a status count only, until
	// the maintenance backfill (or their next write) completes them. Each record whose family
	// becomes complete adds one to the status shards' count of that name, so a partition whose
	// count equals its number of records is complete.
	IndexedAttr = "indexed"
	// SummedAttr marks a row of a kind that keeps sums (Layout.Sum, Layout.Months) whose amount
	// is in them: the status shards add it to "sum#<facet>=<value>#<status>" (SumPrefix) for each
	// closed facet (Sum), the month sums to its month's (Months, MonthSumsOf), and the status
	// shards count the row in SummedAttr, so that a partition whose SummedAttr count equals its
	// number of records has whole sums. Rows written before sums were kept lack it until the
	// backfill (or their next write) adds them.
	SummedAttr = "summed"
	// CountedAttr marks a row of a kind with Tallies whose words and range values are in the
	// indexer's counts (tallies.go). The indexer counts the marked rows by status in their own
	// counter item (CountedItem), so the statuses whose count there equals the status shards'
	// have every record counted, the indexer having caught up with their creations and status
	// changes. Rows written before these counts were kept lack it until the backfill (or their
	// next write) adds it.
	CountedAttr = "counted"
	// SumPrefix starts the status shards' attributes holding sums.
	SumPrefix = "sum#"
	// ByKeyAttr names, on a record's row, the API key whose request last wrote it
	// (patio.KeyActor's ID). Only the row holds it: a family's copies leave it out.
	ByKeyAttr = "by_key"
	// WrittenAttr names, on a record's row, when it was last written, in Unix milliseconds (its
	// updated_at is to the second): a webhook receives the changes written at or after its
	// creation, to the millisecond. Only the row holds it.
	WrittenAttr = "written_ms"
	// WriteTokenAttr names, on a record's row written by an update in place (a put without a
	// transaction), a token drawn for that write: a put whose answer was lost, and whose retry
	// then failed its condition, knows the row read back for its own by it. Only the row holds it.
	WriteTokenAttr = "write_token"
)

// Family derives the family a row of the current format has (rows of earlier formats have less:
// package migration tells what).
func (l *Layout) Family(row dynamo.Item) Family {
	f := Family{Copies: map[string]dynamo.Item{}, Counts: map[Count]int{}}
	status, id := attrString(row, "status"), attrString(row, "id")
	copied := l.copyOf(row)
	order := maps.Clone(copied)
	order["sk"] = str(l.OrderKey(status, id))
	f.Copies[attrString(order, "sk")] = order
	f.Counts[Count{Attr: status}]++
	f.Counts[Count{Attr: IndexedAttr}]++
	amount := 0
	if l.KeepsSums() && row[SummedAttr] != nil {
		f.Counts[Count{Attr: SummedAttr}]++
		if l.Sum != "" {
			amount = IntAttr(row, l.Sum)
		}
	}
	for _, fc := range l.Facets {
		value := attrString(row, fc.Attr)
		if value == "" {
			continue
		}
		key := FacetKey(fc.Name, value)
		item := maps.Clone(copied)
		item["sk"] = str(l.FacetPrefix(key, status) + id)
		for _, attr := range l.indexAttrs() {
			if v := attrString(row, attr); v != "" {
				item[attr] = str(key + "#" + v)
			}
		}
		f.Copies[attrString(item, "sk")] = item
		if fc.Closed && !fc.StreamCopies {
			f.Counts[Count{Attr: key + "#" + status}]++
			if amount != 0 {
				f.Counts[Count{Attr: SumPrefix + key + "#" + status}] += amount
			}
		} else {
			f.Counts[Count{Item: key, Attr: status}]++
		}
	}
	f.Words = l.Words(row)
	if l.Tallies && row[CountedAttr] != nil {
		f.Counts[Count{Item: CountedItem, Attr: status}]++
		for _, w := range strings.Fields(attrString(row, WordsAttr)) {
			f.Counts[Count{Item: WordCountKey(w), Attr: status}]++
		}
		for _, r := range l.Ranges {
			if v, ok := r.valueOf(row); ok {
				for _, b := range r.Buckets(v) {
					f.Counts[Count{Item: b, Attr: status}]++
				}
			}
		}
	}
	return f
}

// Words returns the word items of a row of the current format, by sort key (none for a kind
// without words, or a row without any): an item per word, holding its keys alone, and one per
// Range with a PageLevel the row has a value of, for its bucket's pseudo-word (Range.PageWord).
func (l *Layout) Words(row dynamo.Item) map[string]dynamo.Item {
	out := map[string]dynamo.Item{}
	status, id := attrString(row, "status"), attrString(row, "id")
	words := strings.Fields(attrString(row, WordsAttr))
	if l.Tallies {
		for _, r := range l.Ranges {
			if v, ok := r.valueOf(row); ok && r.PageLevel > 0 {
				words = append(words, r.PageWord(v))
			}
		}
	}
	for _, w := range words {
		sk := l.wordKey(status, w, id)
		out[sk] = dynamo.Item{"pk": row["pk"], "sk": str(sk)}
	}
	return out
}

// copyOf is a row's item as its copies hold it: without its index attributes (a copy sets its
// own) and what only the row carries.
func (l *Layout) copyOf(row dynamo.Item) dynamo.Item {
	out := maps.Clone(row)
	for _, attr := range l.indexAttrs() {
		delete(out, attr)
	}
	for _, attr := range l.RowOnly {
		delete(out, attr)
	}
	delete(out, IndexedAttr)
	delete(out, SummedAttr)
	delete(out, CountedAttr)
	delete(out, ByKeyAttr)
	delete(out, WrittenAttr)
	delete(out, WriteTokenAttr)
	return out
}

// indexAttrs returns the sort key attributes of the kind's local indexes, in a fixed order.
func (l *Layout) indexAttrs() []string {
	var out []string
	for _, ix := range l.Sorts {
		if ix.Index != "" {
			out = append(out, ix.Attr)
		}
	}
	slices.Sort(out)
	return out
}

// FacetKey is a facet value as keys hold it, "brand=toyota": control characters dropped and '#'
// (the keys' separator) replaced by one of them, so that no value's range holds another's.
func FacetKey(name, value string) string { return name + "=" + keyValue(value) }

// keyValue is a value as keys and counter attributes hold it: control characters dropped and '#'
// (their separator) replaced by one of them.
func keyValue(value string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '#':
			return 0x1e
		case r < 0x20:
			return -1
		}
		return r
	}, value)
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// attrString returns a string attribute of an item, or "".
func attrString(item dynamo.Item, name string) string {
	var s string
	if v, ok := item[name]; ok {
		_ = dynamo.Unmarshal(v, &s)
	}
	return s
}

// IntAttr returns a number attribute of an item, 0 when absent or not a whole number.
func IntAttr(item dynamo.Item, name string) int {
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

// Split divides a family into what a write's transaction keeps (now: the order item, the copies
// of the closed facets but those marked StreamCopies, every count of the status shards) and what
// the indexer keeps from the table's stream (later: the word items, the copies of the closed
// facets marked StreamCopies, with StreamFacets the open facets' copies and counter items, and
// the word and bucket counts).
func (l *Layout) Split(f Family) (now, later Family) {
	now = Family{Copies: map[string]dynamo.Item{}, Counts: map[Count]int{}}
	later = Family{Copies: map[string]dynamo.Item{}, Words: f.Words, Counts: map[Count]int{}}
	open := map[string]bool{} // the key prefixes of the facets whose copies the indexer keeps, "vf#brand="
	for _, fc := range l.Facets {
		if fc.StreamCopies || (l.StreamFacets && !fc.Closed) {
			open[l.Letter+"f#"+fc.Name+"="] = true
		}
	}
	for sk, item := range f.Copies {
		if open[openPrefix(l, sk)] {
			later.Copies[sk] = item
		} else {
			now.Copies[sk] = item
		}
	}
	for c, n := range f.Counts {
		if (l.StreamFacets && c.Item != "") || IsTally(c.Item) {
			later.Counts[c] = n
		} else {
			now.Counts[c] = n
		}
	}
	return now, later
}

// openPrefix returns the "<letter>f#<facet>=" start of a facet item's sort key, "" for another.
func openPrefix(l *Layout, sk string) string {
	rest, ok := strings.CutPrefix(sk, l.Letter+"f#")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "=")
	if !ok {
		return ""
	}
	return l.Letter + "f#" + name + "="
}
