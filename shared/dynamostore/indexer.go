package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// streamKind is a kind the indexer keeps items of: its layout and its table.
type streamKind struct {
	layout *storeformat.Layout
	table  func(Tables) string
}

// streamKinds are the kinds with words (and, with storeformat.Layout.StreamFacets, open facets
// kept from the stream).
var streamKinds = []streamKind{
	{vehicleKind.layout, vehicleKind.table}, {clientKind.layout, clientKind.table}, {dealKind.layout, dealKind.table},
}

// Indexer keeps what a record's write leaves to its table's stream (Index), and mends it
// (RebuildIndex). It is apart from Store, and built only by IndexerOf, so that the programs that
// never index (the API functions, the console) do not link it.
type Indexer struct {
	*core
}

// IndexerOf returns the indexer on s's tables and clients.
func IndexerOf(s *Store) *Indexer { return &Indexer{s.core} }

// Index keeps, from a batch of records of the resource tables' streams as the indexer function
// receives them, the part of each record's family its write's transaction leaves to the stream
// (storeformat.Layout.Split; docs/storage.md): q's word items, for vehicles and deals the open
// facets' copies (brand, model; client_id, vehicle_id) and their counter items, and the counts
// of every word and range bucket (storeformat's tallies.go). For each insert, modification or
// removal of a record's row it derives that part of the old image's family and of the new one's
// (their counts as package migration says: a row of a previous format is counted in less); it
// deletes the items that went, puts every copy of the new one (they hold the row) and the words
// that came, and moves the counts by the difference. Other records (guards, copies, counts,
// kinds without words) are skipped by their keys, before an image is decoded.
//
// The batch's item writes are collapsed to each item's last, in the records' order (a record
// changed twice in a batch is written once, as its last change leaves it), and made 25 at a
// time without conditions: every one says what an item must be after its change, so one made
// again (the stream's retries of a batch) changes nothing. Counts are not so: each record's are
// moved in a transaction with its mark item (MarkKey), which keeps the sequence of the change
// whose counts were moved last (storeformat.CountSeq) and lets the transaction through only for
// a later one, so a change handed over again is counted once. The records of a team are counted
// together, their marks and counters in one transaction of up to 100 items, and one by one when
// a mark refuses it; a record counted in more items than a transaction holds moves them in
// chunks, each with its mark. A record's changes reach the stream in order, in one shard, and
// Lambda hands a shard's records over in that order. An error means some writes may not have
// been made: the whole batch is to be handled again.
func (s *Indexer) Index(ctx context.Context, recs []events.DynamoDBEventRecord) error {
	type target struct{ table, pk, sk string }
	type countMove struct {
		k        streamKind
		team, id string
		seq      int
		d        tally
	}
	last := map[target]dynamo.Item{} // each item's last write: nil deletes it
	var order []target
	var moves []countMove
	set := func(k streamKind, team, sk string, item dynamo.Item) {
		t := target{table: k.table(s.tables), pk: team, sk: sk}
		if _, ok := last[t]; !ok {
			order = append(order, t)
		}
		last[t] = item
	}
	for _, rec := range recs {
		k, ok := streamKindOf(rec.Change.Keys)
		if !ok {
			continue
		}
		before, err := streamItem(rec.Change.OldImage)
		var after dynamo.Item
		if err == nil {
			after, err = streamItem(rec.Change.NewImage)
		}
		if err != nil {
			return fmt.Errorf("dynamostore: index stream record %s: %w", rec.EventID, err)
		}
		var cur, next storeformat.Family
		if before != nil {
			// Items: whatever the old row's format could have (deleting one that is not there
			// is harmless); counts: what it was counted in (package migration: less for a row of
			// a previous format).
			_, cur = k.layout.Split(k.layout.Family(before))
			_, counted := k.layout.Split(migration.Family(k.layout, before))
			cur.Counts = counted.Counts
		}
		if after != nil {
			// Items: the current format's; counts: what the row's format is counted in.
			_, next = k.layout.Split(k.layout.Family(after))
			_, counted := k.layout.Split(migration.Family(k.layout, after))
			next.Counts = counted.Counts
		}
		row := after
		if row == nil {
			row = before
		}
		team := attrString(row, "pk")
		for _, items := range []map[string]dynamo.Item{cur.Copies, cur.Words} {
			for _, sk := range slices.Sorted(maps.Keys(items)) {
				if next.Copies[sk] == nil && next.Words[sk] == nil {
					set(k, team, sk, nil)
				}
			}
		}
		for _, sk := range slices.Sorted(maps.Keys(next.Copies)) {
			set(k, team, sk, next.Copies[sk])
		}
		for _, sk := range slices.Sorted(maps.Keys(next.Words)) {
			if cur.Words[sk] == nil {
				set(k, team, sk, next.Words[sk])
			}
		}
		if d := tally(next.Counts).minus(cur.Counts); len(d) > 0 {
			moves = append(moves, countMove{k: k, team: team, id: attrString(row, "id"), seq: storeformat.CountSeq(before, after), d: d})
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
			return wrap(err, "index items in table", table)
		}
	}
	// The records of one table and team are counted together, in transactions of up to 100 items
	// (their marks and the counters they add to, which they often share: a brand, a word, a
	// bucket); a group whose transaction a mark refuses (a change counted already) is counted
	// again record by record, each with its mark.
	mark := func(m countMove, n int) op {
		markIf, args := migration.MarkIf(m.seq)
		return op{put: s.db.Table(m.k.table(s.tables)).Put(m.k.layout.Mark(m.team, m.k.layout.ChunkMarkKey(m.id, n), m.seq)).If(markIf, args...),
			failed: errCounted}
	}
	one := func(m countMove) error {
		t := s.db.Table(m.k.table(s.tables))
		for n, part := range m.d.chunks() {
			err := s.run(ctx, append([]op{mark(m, n)}, s.countOps(t, m.team, part)...))
			if err != nil && !errors.Is(err, errCounted) {
				return wrap(err, "index the counts of", m.id)
			}
		}
		return nil
	}
	var group []countMove
	sum := tally{}
	flush := func() error {
		defer func() { group, sum = nil, tally{} }()
		if len(group) == 0 {
			return nil
		}
		var ops []op
		for _, m := range group {
			ops = append(ops, mark(m, 0))
		}
		err := s.run(ctx, append(ops, s.countOps(s.db.Table(group[0].k.table(s.tables)), group[0].team, sum)...))
		if !errors.Is(err, errCounted) {
			return wrap(err, "index the counts of", group[0].id)
		}
		for _, m := range group {
			if err := one(m); err != nil {
				return err
			}
		}
		return nil
	}
	for _, m := range moves {
		items := m.d.items()
		if len(items) > storeformat.MarkChunk {
			if err := one(m); err != nil {
				return err
			}
			continue
		}
		next := tally{}
		for k, n := range sum {
			next.add(k, n)
		}
		for k, n := range m.d {
			next.add(k, n)
		}
		again := slices.ContainsFunc(group, func(g countMove) bool { return g.id == m.id }) // one item, once a transaction
		if len(group) > 0 && (again || group[0].k.table(s.tables) != m.k.table(s.tables) || group[0].team != m.team ||
			len(group)+1+len(next.items()) > 100) {
			if err := flush(); err != nil {
				return err
			}
			next = m.d
		}
		group, sum = append(group, m), next
	}
	return flush()
}

// chunks divides a record's counts into the parts its transactions move, each with its mark:
// storeformat.MarkChunk counter items at most, in the items' order.
func (t tally) chunks() []tally {
	items := t.items()
	var out []tally
	for i := 0; i < len(items); i += storeformat.MarkChunk {
		part := tally{}
		for _, item := range items[i:min(i+storeformat.MarkChunk, len(items))] {
			for k, n := range t {
				if k.Item == item {
					part[k] = n
				}
			}
		}
		out = append(out, part)
	}
	return out
}

// items returns the counter items a tally adds to, sorted ("" for the status shards).
func (t tally) items() []string {
	seen := map[string]bool{}
	for k := range t {
		seen[k.Item] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// errCounted is a record's mark refusing a change whose counts were already moved.
var errCounted = errors.New("counted already")

// streamKindOf returns the kind whose record's row a stream record's keys are, when that kind has
// words; ok false otherwise.
func streamKindOf(keys map[string]events.DynamoDBAttributeValue) (streamKind, bool) {
	sk, ok := keys["sk"]
	if ok && sk.DataType() == events.DataTypeString {
		for _, k := range streamKinds {
			if strings.HasPrefix(sk.String(), k.layout.RowPrefix()) {
				return k, true
			}
		}
	}
	return streamKind{}, false
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

// IndexReport is what RebuildIndex found in one table, and without check mended.
type IndexReport struct {
	Table   string `json:"table"`
	Records int    `json:"records"` // record rows read
	Items   int    `json:"items"`   // the indexer's items read: word items, open facets' copies
	Missing int    `json:"missing"` // items a record should have and had not (put)
	Stale   int    `json:"stale"`   // items no record has, or holding an old copy of its row (deleted or rewritten)
	Counts  int    `json:"counts"`  // the indexer's counts (per open facet value, word or bucket, and status) that differed from the records (corrected)
}

// RebuildIndex compares what the indexer keeps (Index: word items, the open facets' copies, and
// the counts of open facet values, words and range buckets) with the records' rows of the
// vehicles, clients and deals tables (two scans of each: rows, then the indexer's items) and,
// without check, mends it: it puts the missing items, deletes or rewrites the stale ones, and
// adds to each of its counts the difference from the records. It is the operators' mend for a stretch of the indexer's batches that failed past
// their retries (its on-failure queue). A record whose items differ is read again (strongly
// consistent) just before they are written, so a live write between the scans and the mend is
// not undone; the counts are corrected from the scans, so a write the indexer counts meanwhile
// makes a difference a second run finds (run it when writes are few, --check first).
func (s *Indexer) RebuildIndex(ctx context.Context, check bool) ([]IndexReport, error) {
	var out []IndexReport
	for _, k := range streamKinds {
		rep, err := s.rebuildIndex(ctx, k, check)
		out = append(out, rep)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *Indexer) rebuildIndex(ctx context.Context, k streamKind, check bool) (IndexReport, error) {
	name := k.table(s.tables)
	rep := IndexReport{Table: name}
	table := s.db.Table(name)
	type key struct{ pk, sk string }
	want := map[key]dynamo.Item{} // the indexer's items the rows say
	owner := map[key]string{}     // their records' ids
	counts := map[string]tally{}  // the indexer's counts the rows say, by team
	rows := table.Scan().Filter("begins_with('sk', ?)", k.layout.RowPrefix()).Consistent(true).Iter()
	var row dynamo.Item
	for rows.Next(ctx, &row) {
		rep.Records++
		team, id := attrString(row, "pk"), attrString(row, "id")
		_, later := k.layout.Split(k.layout.Family(row))
		for _, items := range []map[string]dynamo.Item{later.Copies, later.Words} {
			for sk, item := range items {
				want[key{team, sk}], owner[key{team, sk}] = item, id
			}
		}
		if counts[team] == nil {
			counts[team] = tally{}
		}
		for c, n := range later.Counts {
			counts[team].add(c, n)
		}
		row = nil
	}
	if err := rows.Err(); err != nil {
		return rep, wrap(err, "rebuild the index: scan rows of", name)
	}
	// The indexer's items: word items, the open facets' copies and every counter of its own.
	filter, args := "begins_with('sk', ?)", []any{k.layout.Letter + "w#"}
	for _, fc := range k.layout.Facets {
		if fc.StreamCopies || (k.layout.StreamFacets && !fc.Closed) {
			filter, args = filter+" OR begins_with('sk', ?)", append(args, k.layout.Letter+"f#"+fc.Name+"=")
		}
	}
	if k.layout.StreamFacets || k.layout.Tallies {
		filter, args = filter+" OR begins_with('sk', ?)", append(args, storeformat.FacetCountPrefix)
	}
	mend := map[key][]string{} // records (team, id) to mend → their stale items
	have := map[string]tally{} // the indexer's counts stored, by team
	items := table.Scan().Filter(filter, args...).Consistent(true).Iter()
	var item dynamo.Item
	for items.Next(ctx, &item) {
		team, sk := attrString(item, "pk"), attrString(item, "sk")
		if counter, ok := strings.CutPrefix(sk, storeformat.FacetCountPrefix); ok {
			facet := counter[:max(strings.LastIndexByte(counter, '#'), 0)]
			if have[team] == nil {
				have[team] = tally{}
			}
			for attr := range item {
				if attr != "pk" && attr != "sk" {
					have[team].add(countKey{Item: facet, Attr: attr}, storeformat.IntAttr(item, attr))
				}
			}
			item = nil
			continue
		}
		rep.Items++
		w := key{team, sk}
		if exp, ok := want[w]; ok {
			if !reflect.DeepEqual(exp, item) {
				rep.Stale++
				rec := key{team, owner[w]}
				mend[rec] = append(mend[rec], sk)
			}
			delete(want, w)
		} else {
			rep.Stale++
			rec := key{team, sk[strings.LastIndexByte(sk, '#')+1:]}
			mend[rec] = append(mend[rec], sk)
		}
		item = nil
	}
	if err := items.Err(); err != nil {
		return rep, wrap(err, "rebuild the index: scan the indexer's items of", name)
	}
	rep.Missing = len(want)
	for w := range want {
		if rec := (key{w.pk, owner[w]}); mend[rec] == nil {
			mend[rec] = []string{}
		}
	}
	fixes := map[string]tally{}
	for team := range counts {
		if d := counts[team].minus(have[team]); len(d) > 0 {
			fixes[team], rep.Counts = d, rep.Counts+len(d)
		}
	}
	for team := range have {
		if _, ok := counts[team]; !ok {
			if d := (tally{}).minus(have[team]); len(d) > 0 {
				fixes[team], rep.Counts = d, rep.Counts+len(d)
			}
		}
	}
	if check {
		return rep, nil
	}
	for rec, stale := range mend {
		if err := s.mendIndex(ctx, k, table, rec.pk, rec.sk, stale); err != nil {
			return rep, err
		}
	}
	for team, d := range fixes {
		for _, o := range s.countOpsIn(table, team, d, 0) {
			if err := o.upd.Run(ctx); err != nil {
				return rep, wrap(err, "rebuild the index: correct the counts of team", team)
			}
		}
	}
	return rep, nil
}

// mendIndex makes one record's indexer items what its row says now: it reads the row, puts its
// copies and word items and deletes those of stale it has not.
func (s *Indexer) mendIndex(ctx context.Context, k streamKind, table dynamo.Table, teamID, id string, stale []string) error {
	var row dynamo.Item
	err := table.Get("pk", teamID).Range("sk", dynamo.Equal, k.layout.RowKey(id)).Consistent(true).One(ctx, &row)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return wrap(err, "rebuild the index: read", id)
	}
	var later storeformat.Family
	if row != nil {
		_, later = k.layout.Split(k.layout.Family(row))
	}
	w := table.Batch("pk", "sk").Write()
	for _, sk := range stale {
		if later.Copies[sk] == nil && later.Words[sk] == nil {
			w.Delete(dynamo.Keys{teamID, sk})
		}
	}
	for _, items := range []map[string]dynamo.Item{later.Copies, later.Words} {
		for _, it := range items {
			w.Put(it)
		}
	}
	_, err = w.Run(ctx)
	return wrap(err, "rebuild the index: write the items of", id)
}
