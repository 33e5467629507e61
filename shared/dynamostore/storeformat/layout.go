// Package storeformat is the store's item format (docs/storage.md): the sort keys of every item a
// team's records keep in their table (rows, order, facet and word items, counters, unique-value
// guards), the row of each record kind as shared/dynamostore writes it, the index sort keys, and
// the derivation of a row's family (its copies, word items and counts). The store and the bench
// both import it, so nothing else spells a key.
package storeformat

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
)

// Layout is how one listed record kind is stored: its row "<letter>#<id>", and beside it its
// order item "<letter>o#<status>#<id>", its facet items "<letter>f#<facet>=<value>#<status>#<id>"
// and its word items "<letter>w#<status>#<word>#<id>".
type Layout struct {
	// Letter names the kind's items ("v" for vehicles).
	Letter string
	// Sorts maps each sortable field to its index.
	Sorts map[string]SortIndex
	// Facets are the kind's equality filters with items and counts of their own, in a fixed order.
	Facets []Facet
	// Sum names the row's number attribute (a deal's value_cents) whose total the status shards
	// keep beside each count of a closed facet value and status, for the rows marked SummedAttr;
	// "" when the kind keeps none.
	Sum string
	// Months declares the totals by month the kind keeps (MonthSums), for the rows marked
	// SummedAttr; nil when it keeps none.
	Months *MonthSums
	// RowOnly names the attributes only the row carries, left out of its copies (a pending
	// alarm's index entry).
	RowOnly []string
	// StreamFacets says the indexer keeps the kind's open facets (their copies and counter
	// items) from the table's stream, as it keeps every kind's word items; otherwise a write's
	// transaction keeps them (Layout.Split).
	StreamFacets bool
	// Tallies says the indexer counts the kind's words and Ranges' values (tallies.go), for its
	// rows marked CountedAttr.
	Tallies bool
	// Ranges are the number attributes whose range filters are counted in buckets (with Tallies).
	Ranges []Range
}

// SortIndex says how to read a table in the order of one sort field.
type SortIndex struct {
	Index    string // the local index; "" for creation order, read from the order items
	Attr     string // the index's sort key attribute
	Optional bool   // records may lack the value: read the 0# range after the 1# range
}

// Facet is an equality filter: each value has its items (copies of the row, in every order) and
// its count.
type Facet struct {
	Name string // the key part, "brand"
	Attr string // the row attribute holding the record's value as the filter compares it
	// Closed facets (enums) are counted in the status shards; open ones (text, linked records) in
	// counter items of their own.
	Closed bool
	// StreamCopies says the indexer keeps a closed facet's copies from the table's stream, and
	// counts them in counter items as it counts an open facet's (a list reads its page and its
	// total from one view, both the indexer's). An open facet's copies and counts follow
	// Layout.StreamFacets.
	StreamCopies bool
}

// Vehicles is how vehicles are stored.
var Vehicles = &Layout{Letter: "v", StreamFacets: true, Tallies: true,
	Ranges: []Range{
		{Name: "price", Attr: "price_cents", Width: 12, Levels: []int{2, 3, 4}, PageLevel: 2},
		{Name: "model_year", Attr: "model_year", Width: 4, Levels: []int{4}},
	},
	Sorts: map[string]SortIndex{
		"created_at": {},
		"updated_at": {Index: "by_updated", Attr: "lsi_updated"},
		"price":      {Index: "by_price", Attr: "lsi_price"},
		"title":      {Index: "by_title", Attr: "lsi_title"},
		"model_year": {Index: "by_year", Attr: "lsi_year", Optional: true},
		"mileage_km": {Index: "by_mileage", Attr: "lsi_mileage", Optional: true},
	},
	Facets: []Facet{
		{Name: "phase", Attr: "phase", Closed: true, StreamCopies: true},
		{Name: "fuel", Attr: "fuel", Closed: true, StreamCopies: true},
		{Name: "brand", Attr: "f_brand"},
		{Name: "model", Attr: "f_model"},
	},
}

// Clients is how clients are stored.
var Clients = &Layout{Letter: "c", Tallies: true,
	Sorts: map[string]SortIndex{
		"created_at": {},
		"updated_at": {Index: "by_updated", Attr: "lsi_updated"},
		"name":       {Index: "by_name", Attr: "lsi_name"},
	},
	Facets: []Facet{{Name: "type", Attr: "type", Closed: true}},
}

// Deals is how deals are stored: the status shards keep their value's sums.
var Deals = &Layout{Letter: "d", Sum: "value_cents", StreamFacets: true, Tallies: true,
	Ranges: []Range{{Name: "value", Attr: "value_cents", Width: 12, Levels: []int{2, 3, 4}, PageLevel: 2}},
	Sorts: map[string]SortIndex{
		"created_at":          {},
		"updated_at":          {Index: "by_updated", Attr: "lsi_updated"},
		"value":               {Index: "by_value", Attr: "lsi_value", Optional: true},
		"title":               {Index: "by_title", Attr: "lsi_title"},
		"expected_close_date": {Index: "by_close_date", Attr: "lsi_close", Optional: true},
	},
	Facets: []Facet{
		{Name: "phase", Attr: "phase", Closed: true},
		{Name: "client_id", Attr: "client_id"},
		{Name: "vehicle_id", Attr: "vehicle_id"},
	},
}

// Activities is how activities are stored.
var Activities = &Layout{Letter: "a", RowOnly: []string{"alarm_day", "alarm_key"},
	Sorts: map[string]SortIndex{
		"created_at": {},
		"updated_at": {Index: "by_updated", Attr: "lsi_updated"},
		"due_at":     {Index: "by_due", Attr: "lsi_due", Optional: true},
	},
	Facets: []Facet{
		{Name: "type", Attr: "type", Closed: true},
		{Name: "vehicle_id", Attr: "vehicle_id"},
		{Name: "client_id", Attr: "client_id"},
		{Name: "deal_id", Attr: "deal_id"},
	},
}

// Financial is how financial records are stored: their totals are kept by due month, type,
// category and status (the period summaries').
var Financial = &Layout{Letter: "f", RowOnly: []string{"alarm_day", "alarm_key"},
	Months: &MonthSums{Date: "due_date", Amount: "amount_cents", By: []string{"type", "category", "status"}},
	Sorts: map[string]SortIndex{
		"created_at": {},
		"updated_at": {Index: "by_updated", Attr: "lsi_updated"},
		"due_date":   {Index: "by_due", Attr: "lsi_due"},
		"amount":     {Index: "by_amount", Attr: "lsi_amount"},
	},
	Facets: []Facet{
		{Name: "type", Attr: "type", Closed: true},
		{Name: "category", Attr: "category", Closed: true},
		{Name: "payment_method", Attr: "payment_method", Closed: true},
		{Name: "vehicle_id", Attr: "vehicle_id"},
		{Name: "client_id", Attr: "client_id"},
		{Name: "deal_id", Attr: "deal_id"},
	},
}

// Of returns the layout of a resource (patio.ResourceVehicle, ...), nil for one without.
func Of(resource string) *Layout {
	switch resource {
	case patio.ResourceVehicle:
		return Vehicles
	case patio.ResourceClient:
		return Clients
	case patio.ResourceDeal:
		return Deals
	case patio.ResourceActivity:
		return Activities
	case patio.ResourceFinancial:
		return Financial
	}
	return nil
}

// RowPrefix starts the sort keys of the kind's rows, "v#".
func (l *Layout) RowPrefix() string { return l.Letter + "#" }

// RowKey is the sort key of a record's row.
func (l *Layout) RowKey(id string) string { return l.RowPrefix() + id }

// OrderPrefix starts the sort keys of the order items of a status: they hold the records of the
// status in creation order (their ids').
func (l *Layout) OrderPrefix(status string) string { return l.Letter + "o#" + status + "#" }

// OrderKey is the sort key of a record's order item.
func (l *Layout) OrderKey(status, id string) string { return l.OrderPrefix(status) + id }

// FacetPrefix starts the sort keys of the facet items of a facet value (FacetKey) and a status,
// in creation order.
func (l *Layout) FacetPrefix(facetKey, status string) string {
	return l.Letter + "f#" + facetKey + "#" + status + "#"
}

// WordPrefix starts the sort keys of the word items of a status; a word item's key goes on with
// the word, "#" and the record's id.
func (l *Layout) WordPrefix(status string) string { return l.Letter + "w#" + status + "#" }

// IsWordKey reports whether sk is the sort key of one of the kind's word items, or starts one
// (a bound of a read of them): what tells a word read from the other reads of a team's items.
func (l *Layout) IsWordKey(sk string) bool { return strings.HasPrefix(sk, l.Letter+"w#") }

// wordKey is the sort key of a record's word item.
func (l *Layout) wordKey(status, word, id string) string {
	return l.WordPrefix(status) + word + "#" + id
}

// StreamMarkKey is the sort key of a team's stream mark: the item in which the indexer keeps how
// far in the table's stream it has moved the team's counts (StreamPosAttr, StreamPartAttr), so
// that it moves them once per change. A team's records share one item collection, which DynamoDB
// keeps in one partition (the tables have local indexes), so the team's changes reach the stream
// in one shard at a time, in order; a split's child shards are read after their parent.
func (l *Layout) StreamMarkKey() string { return l.Letter + "x#stream" }

// The attributes of a stream mark (StreamMarkKey).
const (
	// StreamPosAttr holds the position (StreamPos) of the last change whose counts were moved,
	// wholly or in part.
	StreamPosAttr = "pos"
	// StreamPartAttr, present only while a change's counts are moved in several transactions
	// (more than MarkChunk counter items), holds how many of its chunks were moved.
	StreamPartAttr = "part"
	// Attributes of the mark's fence (Fence).
	fenceWriting   = "writing"
	fenceWritingMS = "writing_ms"
	fenceWrote     = "wrote"
	fenceThrough   = "through_ms"
	fenceLag       = "lag_ms"
)

// Fence is what a team's stream mark says of the indexer's writes of the team's items and
// counts, so that a list reading them can tell it read one view of them: the indexer sets
// Writing (a token of its handling of a batch) before it writes the first of them, and clears it
// with the last, naming the token in Wrote. A list that reads the mark before and after its
// reads, with no token writing and the same mark both times, read items and counts that agree.
// Through and Lag say how current they are: the write time of the last change they hold, and
// how long it took to reach them.
type Fence struct {
	Writing string
	Since   time.Time // when Writing was set
	Wrote   string
	Through time.Time
	Lag     time.Duration
}

// Busy reports a fence whose writes are under way at now: set, and not older than a handling of
// a batch takes (an older one is a handling that failed, whose batch the stream hands over again
// or, past its retries, the operators' mend completes).
func (f Fence) Busy(now time.Time) bool {
	return f.Writing != "" && now.Sub(f.Since) < FenceTimeout
}

// FenceTimeout is how long a fence's writes may be under way before lists take them for a failed
// handling's and read through them.
const FenceTimeout = 10 * time.Second

// FenceOf reads the fence of a stream mark as stored (nil: no mark yet).
func FenceOf(mark dynamo.Item) Fence {
	f := Fence{Writing: attrString(mark, fenceWriting), Wrote: attrString(mark, fenceWrote),
		Lag: time.Duration(IntAttr(mark, fenceLag)) * time.Millisecond}
	if ms := IntAttr(mark, fenceWritingMS); ms > 0 {
		f.Since = time.UnixMilli(int64(ms))
	}
	if ms := IntAttr(mark, fenceThrough); ms > 0 {
		f.Through = time.UnixMilli(int64(ms))
	}
	return f
}

// StreamMark is a team's stream mark standing at the change of position pos, part of its chunks
// counted (0: all of them), with its fence.
func (l *Layout) StreamMark(teamID, pos string, part int, f Fence) dynamo.Item {
	mark := dynamo.Item{"pk": str(teamID), "sk": str(l.StreamMarkKey()), StreamPosAttr: str(pos)}
	if part > 0 {
		mark[StreamPartAttr] = num(part)
	}
	for attr, v := range f.attrs() {
		mark[attr] = v
	}
	return mark
}

// attrs are a fence's attributes as a mark holds them (those it has).
func (f Fence) attrs() dynamo.Item {
	out := dynamo.Item{}
	if f.Writing != "" {
		out[fenceWriting], out[fenceWritingMS] = str(f.Writing), num(int(f.Since.UnixMilli()))
	}
	if f.Wrote != "" {
		out[fenceWrote] = str(f.Wrote)
	}
	if !f.Through.IsZero() {
		out[fenceThrough], out[fenceLag] = num(int(f.Through.UnixMilli())), num(int(f.Lag.Milliseconds()))
	}
	return out
}

// FenceUpdate returns what an update of a stream mark sets and removes to hold fence f, its
// position and chunks left as they are (and, when f has none, its Wrote and Through).
func FenceUpdate(f Fence) (set dynamo.Item, remove []string) {
	set = f.attrs()
	if f.Writing == "" {
		remove = []string{fenceWriting, fenceWritingMS}
	}
	return set, remove
}

func num(n int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(n)} }

// StreamPos turns a stream record's sequence number (decimal digits, growing along a shard and
// from a parent shard to its children) into a string that sorts as the number does: its length in
// three digits, then its digits without leading zeros.
func StreamPos(seq string) (string, error) {
	digits := strings.TrimLeft(seq, "0")
	if seq == "" || strings.Trim(seq, "0123456789") != "" || len(digits) > 999 {
		return "", fmt.Errorf("storeformat: stream sequence number %q is not a decimal number", seq)
	}
	return fmt.Sprintf("%03d%s", len(digits), digits), nil
}

// MarkKey is the sort key of the item in which the indexer kept, before it kept one stream mark
// per team (StreamMarkKey), the sequence of the change of a record whose counts it moved last
// (MarkSeqAttr, CountSeq): package migration reads it, for a team without a stream mark yet.
func (l *Layout) MarkKey(id string) string { return l.Letter + "x#" + id }

// MarkChunk is the number of counter items whose counts move in one transaction with the
// team's stream mark (a transaction holds at most 100 items).
const MarkChunk = 99

// MarkSeqAttr holds, on a record's mark item (MarkKey), the sequence (CountSeq) of the change
// whose counts the indexer moved last (marks of the first format held its revision instead:
// package migration).
const MarkSeqAttr = "seq"

// Mark is a record's mark item (MarkKey: sk) holding seq.
func (l *Layout) Mark(teamID, sk string, seq int) dynamo.Item {
	return dynamo.Item{"pk": str(teamID), "sk": str(sk),
		MarkSeqAttr: &types.AttributeValueMemberN{Value: strconv.Itoa(seq)}}
}

// CountSeq orders the changes of a record's row (before → after, nil for none) as the indexer
// counts them: twice the new revision, plus one when the row is in the indexer's word and bucket
// counts (CountedAttr), so that the backfill's rewrite of a row into them, which keeps its
// revision, still comes after the row it rewrites; a removal comes after the last revision.
func CountSeq(before, after dynamo.Item) int {
	if after == nil {
		return 2 * (Revision(before) + 1)
	}
	seq := 2 * Revision(after)
	if after[CountedAttr] != nil {
		seq++
	}
	return seq
}

// Revision is the revision of the record whose row (or its stream image) is row; 0 for none.
func Revision(row dynamo.Item) int {
	if row == nil {
		return 0
	}
	return RevisionOf(IntAttr(row, "rev"))
}

// PlateGuardKey is the sort key of the guard item reserving a plate in a team (its plate key,
// patio.Vehicle.PlateKey).
func PlateGuardKey(plateKey string) string { return "plate#" + plateKey }

// DocumentGuardKey is the sort key of the guard item reserving a client's document in a team
// (patio.Client.Document: "cpf" or "cnpj", and its digits).
func DocumentGuardKey(kind, value string) string { return kind + "#" + value }

// Counters. A team's counts in a table live in CountShards status shards "n#<shard>", each
// holding one number per status, per closed facet value and status ("phase=disponivel#ativo"),
// the number of records whose family is complete (IndexedAttr) and, for kinds with sums, the
// number of rows in them (SummedAttr) and the sums "sum#<facet>=<value>#<status>"; and, for each
// value of an open facet, in as many counter items "nf#<facet>=<value>#<shard>", one number per
// status. A write adds to one shard number of each item it counts in.

// CountShards is the number of shards of each counter item.
const CountShards = 4

// CountPrefix starts the status shards' sort keys.
const CountPrefix = "n#"

// countsEnd is past the status shards' sort keys (reads use BETWEEN, CounterRange).
const countsEnd = "n$"

// FacetCountPrefix starts the sort keys of open facet values' counter items.
const FacetCountPrefix = "nf#"

// CounterKey is the sort key of shard number shard of a counter item: of the status shards for
// item "", of an open facet value's counter for item "<facet>=<value>" (FacetKey).
func CounterKey(item string, shard int) string {
	if item == "" {
		return CountPrefix + strconv.Itoa(shard)
	}
	return FacetCountPrefix + item + "#" + strconv.Itoa(shard)
}

// CounterRange returns the inclusive bounds of the sort keys of every shard of a counter item
// (item as CounterKey's).
func CounterRange(item string) (lo, hi string) {
	if item == "" {
		return CountPrefix, countsEnd
	}
	return FacetCountPrefix + item + "#", FacetCountPrefix + item + "$"
}

// CounterOf tells a counter item by its sort key, and what it counts (item as CounterKey's).
func CounterOf(sk string) (item string, ok bool) {
	switch {
	case strings.HasPrefix(sk, CountPrefix):
		return "", true
	case strings.HasPrefix(sk, FacetCountPrefix):
		return sk[len(FacetCountPrefix):strings.LastIndexByte(sk, '#')], true
	}
	return "", false
}

// AlarmSet is the one value of alarm_day, the partition key of the module tables' by_alarm
// index, in every pending alarm's entry (the store's alarms.go).
const AlarmSet = "pending"
