package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// streamKind is a kind the indexer keeps items of: its layout, its table, the words a row of it
// should store (its record's) and how a row is rewritten as it is (records.migrate), which
// RebuildIndex does to a row whose words were derived by an earlier rule.
type streamKind struct {
	layout  *storeformat.Layout
	table   func(Tables) string
	words   func(row dynamo.Item) (string, error)
	rewrite func(ctx context.Context, c *core, row dynamo.Item) (bool, error)
}

// streamKinds are the kinds with words (and, with storeformat.Layout.StreamFacets, open facets
// kept from the stream).
var streamKinds = []streamKind{indexedKind(&vehicleKind), indexedKind(&clientKind), indexedKind(&dealKind)}

// indexedKind returns the indexer's view of k.
func indexedKind[T, R, Q any](k *kind[T, R, Q]) streamKind {
	return streamKind{layout: k.Layout, table: k.table,
		words: func(row dynamo.Item) (string, error) {
			var r R
			if err := dynamo.UnmarshalItem(row, &r); err != nil {
				return "", err
			}
			rec, err := k.Decode(r)
			if err != nil {
				return "", err
			}
			return storeformat.JoinWords(k.List.Words(rec)), nil
		},
		rewrite: func(ctx context.Context, c *core, row dynamo.Item) (bool, error) {
			return records[T, R, Q]{c, k}.migrate(ctx, row)
		}}
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
// The batch's item writes are collapsed to each item's last (a record changed twice in a batch
// is written once, as its last change leaves it) and made 25 at a time, a few calls side by
// side, without conditions: every one says what an item must be after its change, so one made
// again (the stream's retries of a batch) changes nothing. Counts are not so: they are summed
// per team over the batch (a brand, a word, a bucket shared by many records is one addition) and
// moved with the team's stream mark (countTeam), which lets them through once per change. An
// error means some writes may not have been made: the whole batch is to be handled again.
func (s *Indexer) Index(ctx context.Context, recs []events.DynamoDBEventRecord) error {
	b := indexBatch{last: map[indexTarget]dynamo.Item{}, kept: map[indexTarget]dynamo.Item{}, teams: map[teamOf]*teamChanges{}}
	for _, rec := range recs {
		if err := b.derive(s.db.Tables, rec); err != nil {
			return err
		}
	}
	token := strconv.FormatUint(rand.Uint64(), 36)
	if err := s.fenceAll(ctx, b, token); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.writeItems(gctx, b) })
	g.Go(func() error { return s.mendCopies(gctx, b) })
	if err := g.Wait(); err != nil {
		return err
	}
	return s.countAll(ctx, b, token)
}

// indexTarget is an item the indexer writes.
type indexTarget struct{ table, pk, sk string }

// countMove is the difference one change makes to its team's counts.
type countMove struct {
	k        streamKind
	team, id string
	seq      int    // the change's sequence for its record (storeformat.CountSeq): the marks of the previous format
	pos      string // the change's position in the stream (storeformat.StreamPos)
	d        lists.Tally
}

// indexBatch is what a batch of stream records leaves to write: each item's last write (nil
// deletes it), in the order first written, and the counts' differences in the records' order.
type indexBatch struct {
	last  map[indexTarget]dynamo.Item
	order []indexTarget
	// kept: the copies an update in place writes after its row (inplace.go), as the batch's last
	// change of each record leaves them: mendCopies writes those a stopped process left older.
	kept  map[indexTarget]dynamo.Item
	teams map[teamOf]*teamChanges
	byAt  []teamOf // the teams in the order first changed
}

// teamOf is a team in one kind's table.
type teamOf struct{ table, team string }

// teamChanges is what a batch changes of one team: the counts' differences in the records'
// order, and the write time of its last change (storeformat.Fence's Through).
type teamChanges struct {
	k       streamKind
	moves   []countMove
	through time.Time
}

// changes returns what the batch changes of a team, added when first asked.
func (b *indexBatch) changes(k streamKind, tables Tables, team string) *teamChanges {
	key := teamOf{k.table(tables), team}
	if b.teams[key] == nil {
		b.teams[key] = &teamChanges{k: k}
		b.byAt = append(b.byAt, key)
	}
	return b.teams[key]
}

func (b *indexBatch) set(t indexTarget, item dynamo.Item) {
	if _, ok := b.last[t]; !ok {
		b.order = append(b.order, t)
	}
	b.last[t] = item
}

// derive adds one stream record's writes and counts to the batch.
func (b *indexBatch) derive(tables Tables, rec events.DynamoDBEventRecord) error {
	k, ok := streamKindOf(rec.Change.Keys)
	if !ok {
		return nil
	}
	before, err := streamItem(rec.Change.OldImage)
	var after dynamo.Item
	if err == nil {
		after, err = streamItem(rec.Change.NewImage)
	}
	var pos string
	if err == nil {
		pos, err = storeformat.StreamPos(rec.Change.SequenceNumber)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: index stream record %s: %w", rec.EventID, err)
	}
	cur, next := k.family(before), k.family(after)
	row := after
	if row == nil {
		row = before
	}
	table, team := k.table(tables), storecore.AttrString(row, "pk")
	b.keep(k, table, team, before, after)
	tc := b.changes(k, tables, team)
	written := rec.Change.ApproximateCreationDateTime.Time
	if ms := storeformat.IntAttr(row, storeformat.WrittenAttr); ms > 0 {
		written = time.UnixMilli(int64(ms))
	}
	if written.After(tc.through) {
		tc.through = written
	}
	for _, items := range []map[string]dynamo.Item{cur.Copies, cur.Words} {
		for _, sk := range slices.Sorted(maps.Keys(items)) {
			if next.Copies[sk] == nil && next.Words[sk] == nil {
				b.set(indexTarget{table, team, sk}, nil)
			}
		}
	}
	for _, sk := range slices.Sorted(maps.Keys(next.Copies)) {
		b.set(indexTarget{table, team, sk}, next.Copies[sk])
	}
	for _, sk := range slices.Sorted(maps.Keys(next.Words)) {
		if cur.Words[sk] == nil {
			b.set(indexTarget{table, team, sk}, next.Words[sk])
		}
	}
	if d := lists.Tally(next.Counts).Minus(cur.Counts); len(d) > 0 {
		tc.moves = append(tc.moves, countMove{k: k, team: team, id: storecore.AttrString(row, "id"), seq: storeformat.CountSeq(before, after),
			pos: pos, d: d})
	}
	return nil
}

// family returns the part of a row's family the indexer keeps (none for nil): its items whatever
// the row's format could have (deleting one that is not there is harmless), its counts what the
// row's format is counted in (package migration: less for a row of a previous format).
func (k streamKind) family(row dynamo.Item) storeformat.Family {
	if row == nil {
		return storeformat.Family{}
	}
	_, items := k.layout.Split(k.layout.Family(row))
	_, counted := k.layout.Split(migration.Family(k.layout, row))
	items.Counts = counted.Counts
	return items
}

// indexWriters is how many BatchWriteItem calls of a batch's items run side by side.
const indexWriters = 4

// writeItems makes a batch's item writes, 25 a call, indexWriters calls at a time.
func (s *Indexer) writeItems(ctx context.Context, b indexBatch) error {
	byTable := map[string][]indexTarget{}
	for _, t := range b.order {
		byTable[t.table] = append(byTable[t.table], t)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(indexWriters)
	for table, targets := range byTable {
		for part := range slices.Chunk(targets, 25) {
			g.Go(func() error {
				w := s.db.Dynamo.Table(table).Batch("pk", "sk").Write()
				for _, t := range part {
					if item := b.last[t]; item != nil {
						w.Put(item)
					} else {
						w.Delete(dynamo.Keys{t.pk, t.sk})
					}
				}
				_, err := w.Run(gctx)
				return storecore.Wrap(err, "index items in table", table)
			})
		}
	}
	return g.Wait()
}

// fenceAll sets the fence of every team the batch changes (storeformat.Fence) before any of its
// items is written, a few teams side by side: a list reading them waits for their counts.
func (s *Indexer) fenceAll(ctx context.Context, b indexBatch, token string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(indexWriters)
	now := time.Now()
	for _, key := range b.byAt {
		g.Go(func() error {
			return s.setFence(gctx, b.teams[key].k, key.team, storeformat.Fence{Writing: token, Since: now})
		})
	}
	return g.Wait()
}

// setFence updates a team's stream mark to hold a fence, its position as it is.
func (s *Indexer) setFence(ctx context.Context, k streamKind, team string, f storeformat.Fence) error {
	set, remove := storeformat.FenceUpdate(f)
	u := s.db.Dynamo.Table(k.table(s.db.Tables)).Update("pk", team).Range("sk", k.layout.StreamMarkKey())
	for _, attr := range slices.Sorted(maps.Keys(set)) {
		u = u.Set(attr, set[attr])
	}
	for _, attr := range remove {
		u = u.Remove(attr)
	}
	return storecore.Wrap(u.Run(ctx), "index: fence the items of team", team)
}

// countAll moves a batch's counts and lifts its fences, team by team (a few teams side by side).
func (s *Indexer) countAll(ctx context.Context, b indexBatch, token string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(indexWriters)
	for _, key := range b.byAt {
		tc := b.teams[key]
		done := storeformat.Fence{Wrote: token, Through: tc.through, Lag: time.Since(tc.through)}
		g.Go(func() error { return s.countTeam(gctx, tc.k, key.team, tc.moves, token, done) })
	}
	return g.Wait()
}

// countTeam moves one team's counts of a batch, in the stream's order, once per change: it reads
// the team's stream mark (storeformat.Layout.StreamMarkKey), leaves out the changes at or before
// its position (a batch handed over again), and moves the others' counts summed, in
// transactions of at most 100 items, each with the mark moved to its last change and conditioned
// on the mark being as read. A change whose counts are more counter items than a transaction
// holds (a client with very many words) moves them in chunks, the mark counting the chunks moved
// (storeformat.StreamPartAttr). The last transaction lifts the team's fence (done), which stays
// set, as token, in those before; with nothing to count, an update lifts it. A team whose mark
// has no position yet may have changes the previous release counted with a mark per record:
// those marks are read (unmarkedByRecord).
func (s *Indexer) countTeam(ctx context.Context, k streamKind, team string, moves []countMove, token string, done storeformat.Fence) error {
	t := s.db.Dynamo.Table(k.table(s.db.Tables))
	var mark dynamo.Item
	err := t.Get("pk", team).Range("sk", dynamo.Equal, k.layout.StreamMarkKey()).Consistent(true).One(ctx, &mark)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return storecore.Wrap(err, "index: read the stream mark of team", team)
	}
	at := streamAt{pos: storecore.AttrString(mark, storeformat.StreamPosAttr), part: storeformat.IntAttr(mark, storeformat.StreamPartAttr)}
	if at.pos == "" && len(moves) > 0 {
		if moves, err = s.unmarkedByRecord(ctx, t, k, team, moves); err != nil {
			return err
		}
	}
	steps := countSteps(at, moves)
	if len(steps) == 0 {
		return s.setFence(ctx, k, team, done)
	}
	fence := storeformat.Fence{Writing: token, Since: storeformat.FenceOf(mark).Since}
	for i, st := range steps {
		if i == len(steps)-1 {
			fence = done
		}
		if err := s.moveCounts(ctx, t, k, team, at, st.next, st.d, fence); err != nil {
			return err
		}
		at = st.next
	}
	return nil
}

// countStep is one transaction of a team's counts: the counts it adds, and where it moves the
// team's stream mark.
type countStep struct {
	next streamAt
	d    lists.Tally
}

// countSteps returns the transactions that move the counts of the changes past at: the changes'
// counts summed while they fit in one (storeformat.MarkChunk counter items), and a change of more
// in chunks, from the chunk at says is next.
func countSteps(at streamAt, moves []countMove) []countStep {
	var steps []countStep
	run := -1 // the step summing changes, if the last one does
	for _, m := range moves {
		if m.pos < at.pos || m.pos == at.pos && at.part == 0 {
			continue // counted already
		}
		if len(m.d.Items()) > storeformat.MarkChunk {
			run = -1
			chunks := chunks(m.d)
			first := 0
			if m.pos == at.pos {
				first = at.part
			}
			for n := first; n < len(chunks); n++ {
				next := streamAt{pos: m.pos}
				if n+1 < len(chunks) {
					next.part = n + 1
				}
				steps = append(steps, countStep{next, chunks[n]})
			}
			continue
		}
		if run >= 0 {
			joined := maps.Clone(steps[run].d)
			for c, n := range m.d {
				joined.Add(c, n)
			}
			if len(joined.Items()) <= storeformat.MarkChunk {
				steps[run] = countStep{streamAt{pos: m.pos}, joined}
				continue
			}
		}
		steps = append(steps, countStep{streamAt{pos: m.pos}, maps.Clone(m.d)})
		run = len(steps) - 1
	}
	return steps
}

// streamAt is where a team's stream mark stands: the position of the last change counted, and
// how many of its chunks were counted when not all (0 when all).
type streamAt struct {
	pos  string
	part int
}

// moveCounts adds d to a team's counters and moves its stream mark from at to next, with its
// fence f, in one transaction conditioned on the mark being at at.
func (s *Indexer) moveCounts(ctx context.Context, t dynamo.Table, k streamKind, team string, at, next streamAt, d lists.Tally, f storeformat.Fence) error {
	put := t.Put(k.layout.StreamMark(team, next.pos, next.part, f))
	switch {
	case at.pos == "":
		put = put.If("attribute_not_exists($)", storeformat.StreamPosAttr)
	case at.part > 0:
		put = put.If("$ = ? AND $ = ?", storeformat.StreamPosAttr, at.pos, storeformat.StreamPartAttr, at.part)
	default:
		put = put.If("$ = ? AND attribute_not_exists($)", storeformat.StreamPosAttr, at.pos, storeformat.StreamPartAttr)
	}
	err := s.db.Run(ctx, append([]storecore.Op{{Put: put, Failed: errMarkMoved}}, lists.CountOps(t, team, d)...))
	return storecore.Wrap(err, "index the counts of team", team)
}

// errMarkMoved is a team's stream mark found elsewhere than where it was read: another handler
// of the same changes moved it meanwhile. The batch is handled again, from the mark as it is.
var errMarkMoved = errors.New("the team's stream mark moved meanwhile")

// unmarkedByRecord returns the moves whose changes the marks kept per record, before the indexer
// kept one stream mark per team (package migration), do not say were counted.
func (s *Indexer) unmarkedByRecord(ctx context.Context, t dynamo.Table, k streamKind, team string, moves []countMove) ([]countMove, error) {
	var keys []dynamo.Keyed
	seen := map[string]bool{}
	for _, m := range moves {
		if !seen[m.id] {
			seen[m.id] = true
			keys = append(keys, dynamo.Keys{team, k.layout.MarkKey(m.id)})
		}
	}
	var marks []dynamo.Item
	err := t.Batch("pk", "sk").Get(keys...).Consistent(true).All(ctx, &marks)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, storecore.Wrap(err, "index: read the record marks of team", team)
	}
	byID := map[string]dynamo.Item{}
	for _, mark := range marks {
		byID[strings.TrimPrefix(storecore.AttrString(mark, "sk"), k.layout.MarkKey(""))] = mark
	}
	return slices.DeleteFunc(moves, func(m countMove) bool { return migration.Counted(byID[m.id], m.seq) }), nil
}

// chunks divides a change's counts into the parts its transactions move, each with the mark:
// storeformat.MarkChunk counter items at most, in the items' order.
func chunks(t lists.Tally) []lists.Tally {
	items := t.Items()
	var out []lists.Tally
	for i := 0; i < len(items); i += storeformat.MarkChunk {
		part := lists.Tally{}
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
	Words   int    `json:"words"`   // rows whose stored words are not their record's, derived by an earlier rule (rewritten; the indexer then follows)
}

// RebuildIndex compares what the indexer keeps (Index: word items, the open facets' copies, and
// the counts of open facet values, words and range buckets) with the records' rows of the
// vehicles, clients and deals tables (two scans of each: rows, then the indexer's items) and,
// without check, mends it: it puts the missing items, deletes or rewrites the stale ones, and
// adds to each of its counts the difference from the records. It is the operators' mend for a stretch of the indexer's batches that failed past
// their retries (its on-failure queue). A record whose items differ is read again (strongly
// consistent) just before they are written, so a live write between the scans and the mend is
// not undone; the counts are corrected from the scans, so a write the indexer counts meanwhile
// makes a difference a second run finds (run it when writes are few, --check first). A row whose
// stored words are not its record's (derived by an earlier rule: a plate in one spelling) is
// rewritten as it is, same revision (records.migrate), after the rest: the indexer follows that
// change from the stream, so its word items and counts are mended once it has caught up.
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

// rebuild is one table's RebuildIndex: what its rows say the indexer keeps, what it keeps, and the
// report of their differences.
type rebuild struct {
	k       streamKind
	table   dynamo.Table
	rep     IndexReport
	want    map[itemKey]dynamo.Item // the indexer's items the rows say
	owner   map[itemKey]string      // their records' ids
	counts  map[string]lists.Tally  // the indexer's counts the rows say, by team
	rewords []dynamo.Item           // rows whose words are not their record's
	mend    map[itemKey][]string    // records (team, id) to mend → their stale items
	have    map[string]lists.Tally  // the indexer's counts stored, by team
}

// itemKey is an item's key (or a record's: team and id).
type itemKey struct{ pk, sk string }

func (s *Indexer) rebuildIndex(ctx context.Context, k streamKind, check bool) (IndexReport, error) {
	name := k.table(s.db.Tables)
	b := &rebuild{k: k, table: s.db.Dynamo.Table(name), rep: IndexReport{Table: name}, want: map[itemKey]dynamo.Item{},
		owner: map[itemKey]string{}, counts: map[string]lists.Tally{}, mend: map[itemKey][]string{}, have: map[string]lists.Tally{}}
	if err := b.readRows(ctx); err != nil {
		return b.rep, err
	}
	if err := b.readItems(ctx); err != nil {
		return b.rep, err
	}
	fixes := b.countFixes()
	b.rep.Words = len(b.rewords)
	if check {
		return b.rep, nil
	}
	for rec, stale := range b.mend {
		if err := s.mendIndex(ctx, k, b.table, rec.pk, rec.sk, stale); err != nil {
			return b.rep, err
		}
	}
	for team, d := range fixes {
		for _, o := range lists.CountOpsIn(b.table, team, d, 0) {
			if err := o.Upd.Run(ctx); err != nil {
				return b.rep, storecore.Wrap(err, "rebuild the index: correct the counts of team", team)
			}
		}
	}
	// The items and counts above are those of the words rows store. A row whose words are not its
	// record's is rewritten as it is (same revision and updated_at: no event, no audit entry),
	// with the copies its write's transaction keeps; the indexer follows that change from the
	// stream like any other, moving its word items and counts.
	for _, row := range b.rewords {
		if _, err := k.rewrite(ctx, s.core, row); err != nil {
			return b.rep, storecore.Wrap(err, "rebuild the index: rewrite the words of", storecore.AttrString(row, "id"))
		}
	}
	return b.rep, nil
}

// readRows scans the table's record rows for the items and counts the indexer should keep, and
// the rows whose stored words are not their record's.
func (b *rebuild) readRows(ctx context.Context) error {
	rows := b.table.Scan().Filter("begins_with('sk', ?)", b.k.layout.RowPrefix()).Consistent(true).Iter()
	var row dynamo.Item
	for rows.Next(ctx, &row) {
		b.rep.Records++
		team, id := storecore.AttrString(row, "pk"), storecore.AttrString(row, "id")
		if row[storeformat.IndexedAttr] != nil { // a row without its family is the backfill's
			words, err := b.k.words(row)
			if err != nil {
				return storecore.Wrap(err, "rebuild the index: decode", id)
			}
			if storecore.AttrString(row, storeformat.WordsAttr) != words {
				b.rewords = append(b.rewords, row)
			}
		}
		_, later := b.k.layout.Split(b.k.layout.Family(row))
		for _, items := range []map[string]dynamo.Item{later.Copies, later.Words} {
			for sk, item := range items {
				b.want[itemKey{team, sk}], b.owner[itemKey{team, sk}] = item, id
			}
		}
		if b.counts[team] == nil {
			b.counts[team] = lists.Tally{}
		}
		for c, n := range later.Counts {
			b.counts[team].Add(c, n)
		}
		row = nil
	}
	return storecore.Wrap(rows.Err(), "rebuild the index: scan rows of", b.table.Name())
}

// readItems scans the indexer's items (word items, the open facets' copies and its counters):
// the counters into have, each other item checked against want, a stale one's record to mend;
// what want has left is missing, its records to mend too.
func (b *rebuild) readItems(ctx context.Context) error {
	l := b.k.layout
	filter, args := "begins_with('sk', ?)", []any{l.Letter + "w#"}
	for _, fc := range l.Facets {
		if fc.StreamCopies || (l.StreamFacets && !fc.Closed) {
			filter, args = filter+" OR begins_with('sk', ?)", append(args, l.Letter+"f#"+fc.Name+"=")
		}
	}
	if l.StreamFacets || l.Tallies {
		filter, args = filter+" OR begins_with('sk', ?)", append(args, storeformat.FacetCountPrefix)
	}
	items := b.table.Scan().Filter(filter, args...).Consistent(true).Iter()
	var item dynamo.Item
	for items.Next(ctx, &item) {
		b.readItem(item)
		item = nil
	}
	if err := items.Err(); err != nil {
		return storecore.Wrap(err, "rebuild the index: scan the indexer's items of", b.table.Name())
	}
	b.rep.Missing = len(b.want)
	for w := range b.want {
		if rec := (itemKey{w.pk, b.owner[w]}); b.mend[rec] == nil {
			b.mend[rec] = []string{}
		}
	}
	return nil
}

// readItem takes one of the indexer's items: a counter's numbers into have, any other checked
// against want.
func (b *rebuild) readItem(item dynamo.Item) {
	team, sk := storecore.AttrString(item, "pk"), storecore.AttrString(item, "sk")
	if counter, ok := strings.CutPrefix(sk, storeformat.FacetCountPrefix); ok {
		facet := counter[:max(strings.LastIndexByte(counter, '#'), 0)]
		if b.have[team] == nil {
			b.have[team] = lists.Tally{}
		}
		for attr := range item {
			if attr != "pk" && attr != "sk" {
				b.have[team].Add(storeformat.Count{Item: facet, Attr: attr}, storeformat.IntAttr(item, attr))
			}
		}
		return
	}
	b.rep.Items++
	w := itemKey{team, sk}
	exp, ok := b.want[w]
	switch {
	case !ok:
		b.rep.Stale++
		rec := itemKey{team, sk[strings.LastIndexByte(sk, '#')+1:]}
		b.mend[rec] = append(b.mend[rec], sk)
	case !reflect.DeepEqual(exp, item):
		b.rep.Stale++
		rec := itemKey{team, b.owner[w]}
		b.mend[rec] = append(b.mend[rec], sk)
	}
	delete(b.want, w)
}

// countFixes returns, by team, what to add to the indexer's counts to make them the rows'.
func (b *rebuild) countFixes() map[string]lists.Tally {
	fixes := map[string]lists.Tally{}
	for team := range b.counts {
		if d := b.counts[team].Minus(b.have[team]); len(d) > 0 {
			fixes[team], b.rep.Counts = d, b.rep.Counts+len(d)
		}
	}
	for team := range b.have {
		if _, ok := b.counts[team]; !ok {
			if d := (lists.Tally{}).Minus(b.have[team]); len(d) > 0 {
				fixes[team], b.rep.Counts = d, b.rep.Counts+len(d)
			}
		}
	}
	return fixes
}

// mendIndex makes one record's indexer items what its row says now: it reads the row, puts its
// copies and word items and deletes those of stale it has not.
func (s *Indexer) mendIndex(ctx context.Context, k streamKind, table dynamo.Table, teamID, id string, stale []string) error {
	var row dynamo.Item
	err := table.Get("pk", teamID).Range("sk", dynamo.Equal, k.layout.RowKey(id)).Consistent(true).One(ctx, &row)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return storecore.Wrap(err, "rebuild the index: read", id)
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
	return storecore.Wrap(err, "rebuild the index: write the items of", id)
}
