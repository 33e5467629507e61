package dynamostore

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/patio"
)

// How a list is read (docs/storage.md, "Lists at any size"):
//
//   - Each status a list shows has its own range in every index (index sort keys start with the
//     status) and in the base table's order items (sort key "<orderPrefix><status>#<id>", a copy of
//     the record that serves creation order). A page reads each shown status's range in order and
//     merges them, so it reads at most about k × limit items for k statuses, whatever the team's
//     history; soft-deleted records are never read to serve a list that does not show them.
//   - Totals of lists filtered by status alone come from maintained counts: countShards counter
//     items "n#<shard>", each with one number attribute per status, of which every write that
//     creates a record or changes its status updates one (in the write's transaction), and a list
//     reads all (one query). Other filters count the shown statuses' ranges.
//   - A position (a cursor's) is the order key of the last record served: a following page reads
//     each range from just after it, at a cost that does not depend on depth.
//   - A partition that still holds rows of the previous format (index keys without the status,
//     no order item, not counted; see maintenance backfill) is listed the old way: every record of
//     the team read and sorted, and counted. Such rows sort first in by_updated (digits before the
//     status names), so one query of at most one item tells; it runs beside the page's reads,
//     whose result is discarded for such a partition.

// countShards is the number of counter items a team's maintained counts are spread over in a
// table: "n#<shard>", each holding one number attribute per status. A write adds to one shard
// chosen at random (a status change moves one from the old status to the new within that item),
// so that concurrent writers of a team rarely update the same item, which would make their
// transactions conflict on DynamoDB; a list reads every shard, each an item examined of its
// budget (k × limit + 10), hence few.
const countShards = 4

// countPrefix starts the sort key of every counter item, of this format ("n#<shard>") and of the
// previous one ("n#<status>#<shard>", one item per status and shard, the count in "count"), which
// lists still sum until the maintenance backfill folds them into the current shards.
const countPrefix = "n#"

// countsEnd is past every counter item's sort key.
const countsEnd = "n$"

func countKey(shard int) string { return countPrefix + strconv.Itoa(shard) }

// perStatusCounter reports a counter item of the previous format by its sort key, and its status.
func perStatusCounter(sk string) (status string, ok bool) {
	status, _, ok = strings.Cut(strings.TrimPrefix(sk, countPrefix), "#")
	return status, ok && strings.HasPrefix(sk, countPrefix)
}

// counts reads a partition's maintained counts of every status: one strongly consistent query of
// its counter items (countShards of them, plus any of the previous format not yet folded). The
// key condition is a BETWEEN ('$' follows '#'), not the equivalent begins_with, which DynamoDB
// Local serves by reading the whole partition (9 ms rather than 1 at 10,000 vehicles).
func (s *Store) counts(ctx context.Context, t dynamo.Table, teamID string) (map[string]int, error) {
	iter := t.Get("pk", teamID).Range("sk", dynamo.Between, countPrefix, countsEnd).Consistent(true).Iter()
	counts := map[string]int{}
	var item dynamo.Item
	for iter.Next(ctx, &item) {
		if err := addCounts(counts, item); err != nil {
			return nil, err
		}
		item = nil
	}
	return counts, iter.Err()
}

// addCounts adds what a counter item holds to counts: every status attribute of a shard, or the
// count of an item of the previous format.
func addCounts(counts map[string]int, item dynamo.Item) error {
	sk := attrString(item, "sk")
	if status, ok := perStatusCounter(sk); ok {
		var n int
		if err := dynamo.Unmarshal(item["count"], &n); err != nil {
			return fmt.Errorf("dynamostore: counter %s: %w", sk, err)
		}
		counts[status] += n
		return nil
	}
	for name, v := range item {
		if name == "pk" || name == "sk" {
			continue
		}
		var n int
		if err := dynamo.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("dynamostore: counter %s, %s: %w", sk, name, err)
		}
		counts[name] += n
	}
	return nil
}

// hasLegacy reports whether a partition still holds a row of the previous format: such rows'
// by_updated keys start with a digit ("1#…"), before every status name.
func (s *Store) hasLegacy(ctx context.Context, t dynamo.Table, teamID string) (bool, error) {
	n, err := t.Get("pk", teamID).Index("by_updated").Range("lsi_updated", dynamo.Between, "0#", "1$").
		Consistent(true).SearchLimit(1).Limit(1).Count(ctx)
	return n > 0, err
}

// countOp counts a record as of status rather than old ("" for a record not counted yet: new, or
// of the previous format), in a write's transaction: one update of a random shard, so that a
// status change moves the record's count within one item, atomically for any reader.
func (s *Store) countOp(t dynamo.Table, teamID, old, status string) op {
	u := t.Update("pk", teamID).Range("sk", countKey(rand.IntN(countShards))).Add(status, 1)
	if old != "" {
		u = u.Add(old, -1)
	}
	return op{upd: u}
}

// orderKey is an item's place in a list's order, without its status: "1#<value>\x01<id>" or
// "0#<id>" in an index, "1#<id>" for creation order. Records with a value come first in either
// direction; the rest compares in the list's direction.
type orderKey string

func compareOrder(a, b orderKey, desc bool) int {
	if a[0] != b[0] {
		return -cmp.Compare(a[0], b[0]) // '1' before '0'
	}
	if desc {
		return -cmp.Compare(a[1:], b[1:])
	}
	return cmp.Compare(a[1:], b[1:])
}

// plan says where a list's order lives: an index's sort attribute, or the order items.
type plan struct {
	index, attr string // attr "sk" with index "" for the order items
	prefix      string // before the status in the sort key: "" in an index, the order prefix in the base table
	optional    bool
}

func (r records[T, R, Q]) plan(sort string) plan {
	ix := r.k.sorts[sort]
	if ix.index == "" {
		return plan{attr: "sk", prefix: r.k.orderPrefix}
	}
	return plan{index: ix.index, attr: ix.attr, optional: ix.optional}
}

// segment is one range of one status in a list's order: its bounds and where a position leaves it.
type segment struct {
	lo, hi string // inclusive bounds of the sort attribute
	seg    byte   // '1' or '0'
	status string
}

// ranges returns the segments a status's records occupy, in the list's order.
func (p plan) ranges(status string) []segment {
	base := p.prefix + status + "#"
	if p.index == "" {
		return []segment{{lo: base, hi: base + "\U0010FFFF", seg: '1', status: status}}
	}
	segs := []segment{{lo: base + "1#", hi: base + "1$", seg: '1', status: status}}
	if p.optional {
		segs = append(segs, segment{lo: base + "0#", hi: base + "0$", seg: '0', status: status})
	}
	return segs
}

// key returns an item's order key from its sort attribute's value.
func (p plan) key(status, value string) orderKey {
	rest := strings.TrimPrefix(value, p.prefix+status+"#")
	if p.index == "" {
		return orderKey("1#" + rest)
	}
	return orderKey(rest)
}

// stream reads one status's records in the list's order, a batch at a time, from just after a
// position. It hands out items as read: only those a page keeps are decoded (a page reads up to
// k × limit items to keep limit of them).
type stream struct {
	r     func(seg segment, lo, hi string, start dynamo.PagingKey, batch int) ([]dynamo.Item, dynamo.PagingKey, error)
	plan  plan
	desc  bool
	segs  []segment
	after orderKey // "" for the start
	batch int

	buf   []streamed
	start dynamo.PagingKey
}

type streamed struct {
	item dynamo.Item
	key  orderKey
}

// next returns the stream's next record, or false at its end.
func (st *stream) next() (streamed, bool, error) {
	for len(st.buf) == 0 {
		if len(st.segs) == 0 {
			return streamed{}, false, nil
		}
		seg := st.segs[0]
		lo, hi := seg.lo, seg.hi
		if st.after != "" && st.after[0] == seg.seg {
			// Resume inside this segment: the position's own item is skipped below.
			pos := seg.lo + string(st.after[2:])
			if st.desc {
				hi = pos
			} else {
				lo = pos
			}
		}
		items, lek, err := st.r(seg, lo, hi, st.start, st.batch)
		if err != nil {
			return streamed{}, false, err
		}
		for _, it := range items {
			value := attrString(it, st.plan.attr)
			k := st.plan.key(seg.status, value)
			if st.after != "" && k == st.after {
				continue
			}
			st.buf = append(st.buf, streamed{item: it, key: k})
		}
		st.start = lek
		if lek == nil {
			st.segs = st.segs[1:]
		}
		st.batch = min(st.batch*2, 1000)
	}
	out := st.buf[0]
	st.buf = st.buf[1:]
	return out, true, nil
}

// skipSegmentsBefore drops the segments a position has already passed (a position in the 0#
// segment has passed the 1# one).
func skipSegmentsBefore(segs []segment, after orderKey) []segment {
	if after == "" {
		return segs
	}
	for len(segs) > 0 && segs[0].seg != after[0] {
		segs = segs[1:]
	}
	return segs
}

// attrString returns a string attribute of an item, or "".
func attrString(item dynamo.Item, name string) string {
	var s string
	if v, ok := item[name]; ok {
		_ = dynamo.Unmarshal(v, &s)
	}
	return s
}

// page reads one page of a ready partition: the offset-th to (offset+limit)-th records after the
// position, merged from the shown statuses' ranges.
func (r records[T, R, Q]) page(ctx context.Context, teamID string, p plan, lq patio.ListQuery, f filter,
	offset, limit int) ([]T, orderKey, error) {
	t := r.table()
	order := dynamo.Ascending
	if lq.Desc {
		order = dynamo.Descending
	}
	read := func(seg segment, lo, hi string, start dynamo.PagingKey, batch int) ([]dynamo.Item, dynamo.PagingKey, error) {
		q := t.Get("pk", teamID).Consistent(true).Order(order).Range(p.attr, dynamo.Between, lo, hi)
		if p.index != "" {
			q = q.Index(p.index)
		}
		q = f.apply(q).SearchLimit(batch)
		if start != nil {
			q = q.StartFrom(start)
		}
		var items []dynamo.Item
		iter := q.Iter()
		var it dynamo.Item
		for iter.Next(ctx, &it) {
			items = append(items, it)
			it = nil
		}
		if err := iter.Err(); err != nil {
			return nil, nil, err
		}
		lek, err := iter.LastEvaluatedKey(ctx)
		return items, lek, err
	}
	after := orderKey(lq.After)
	// Each stream's first read asks for all the page can take from it and no more: offset+limit
	// records, or limit+1 from a position (a range read from a position starts with the position's
	// own record, in the stream that holds it, and skips it).
	first := offset + limit
	if after != "" {
		first++
	}
	streams := make([]*stream, 0, len(lq.Status))
	for _, status := range lq.Status {
		streams = append(streams, &stream{r: read, plan: p, desc: lq.Desc, after: after,
			segs: skipSegmentsBefore(p.ranges(status), after), batch: min(max(first, 10), 1000)})
	}
	// The head of each stream, refilled as it is taken.
	heads := make([]*streamed, len(streams))
	fill := func(i int) error {
		s, ok, err := streams[i].next()
		if err != nil {
			return err
		}
		heads[i] = nil
		if ok {
			heads[i] = &s
		}
		return nil
	}
	g, _ := errgroup.WithContext(ctx)
	for i := range streams {
		g.Go(func() error { return fill(i) })
	}
	if err := g.Wait(); err != nil {
		return nil, "", err
	}
	var out []T
	var last orderKey
	for seen := 0; seen < offset+limit; seen++ {
		best := -1
		for i, h := range heads {
			if h != nil && (best < 0 || compareOrder(h.key, heads[best].key, lq.Desc) < 0) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		h := heads[best]
		if seen >= offset {
			var row R
			if err := dynamo.UnmarshalItem(h.item, &row); err != nil {
				return nil, "", err
			}
			rec, err := r.k.decode(row)
			if err != nil {
				return nil, "", err
			}
			out = append(out, rec)
			last = h.key
		}
		if seen+1 == offset+limit {
			break // the page is full: reading the stream's next record would only read ahead
		}
		if err := fill(best); err != nil {
			return nil, "", err
		}
	}
	return out, last, nil
}

// total counts the records a list matches: from the maintained counts of the shown statuses when it
// filters by status alone, else by counting the shown statuses' ranges (strongly consistent COUNT
// queries, which transfer no items) in parallel.
func (r records[T, R, Q]) total(ctx context.Context, teamID string, p plan, lq patio.ListQuery, f filter,
	statusOnly bool) (int, error) {
	t := r.table()
	if statusOnly {
		counts, err := r.s.counts(ctx, t, teamID)
		n := 0
		for _, s := range lq.Status {
			n += counts[s]
		}
		return n, err
	}
	var segs []segment
	for _, s := range lq.Status {
		segs = append(segs, p.ranges(s)...)
	}
	ns := make([]int, len(segs))
	g, gctx := errgroup.WithContext(ctx)
	for i, seg := range segs {
		g.Go(func() error {
			q := t.Get("pk", teamID).Consistent(true).Range(p.attr, dynamo.Between, seg.lo, seg.hi)
			if p.index != "" {
				q = q.Index(p.index)
			}
			n, err := f.apply(q).Count(gctx)
			ns[i] = n
			return err
		})
	}
	err := g.Wait()
	n := 0
	for _, c := range ns {
		n += c
	}
	return n, err
}

// legacyPage lists a partition that is not migrated yet: every record of the team that matches
// the filter is read from the base table, placed in the list's order by the keys the current
// format would give it, and the page cut from that. Correct at any moment of a migration, at the
// cost the format replaces.
func (r records[T, R, Q]) legacyPage(ctx context.Context, teamID string, p plan, lq patio.ListQuery, f filter) (patio.Listed[T], error) {
	var rows []R
	q := r.table().Get("pk", teamID).Consistent(true).Range("sk", dynamo.BeginsWith, r.k.prefix)
	if err := f.withStatus().apply(q).All(ctx, &rows); err != nil {
		return patio.Listed[T]{}, err
	}
	type keyed struct {
		rec T
		key orderKey
	}
	var all []keyed
	for _, row := range rows {
		rec, err := r.k.decode(row)
		if err != nil {
			return patio.Listed[T]{}, err
		}
		status := r.k.status(rec)
		var value string
		if p.index == "" {
			_, id := r.k.key(rec)
			value = p.prefix + status + "#" + id
		} else {
			item, err := dynamo.MarshalItem(r.k.encode(rec))
			if err != nil {
				return patio.Listed[T]{}, err
			}
			value = attrString(item, p.attr)
		}
		k := p.key(status, value)
		if lq.After != "" && compareOrder(k, orderKey(lq.After), lq.Desc) <= 0 {
			continue
		}
		all = append(all, keyed{rec, k})
	}
	slices.SortFunc(all, func(a, b keyed) int { return compareOrder(a.key, b.key, lq.Desc) })
	out := patio.Listed[T]{Total: len(rows)}
	start := 0
	if lq.After == "" {
		start = lq.Offset()
	}
	for i := start; i < len(all) && len(out.Items) < lq.Limit.Value; i++ {
		out.Items = append(out.Items, all[i].rec)
		out.After = string(all[i].key)
	}
	return out, nil
}

// list serves a list query: the ready path or, for a partition awaiting the backfill, the legacy
// one. The legacy probe, the page and its total are read side by side, in one round trip: a
// partition awaiting the backfill is rare (only while a migration runs), and the page and total
// read for it in the current format are then discarded. A partition the probe finds current is
// remembered and not probed again by this process: this release and later ones write only the
// current format, so it cannot go back (a writer of the previous release still running during a
// deployment could add such a row; the backfill, run once the deployment is done, migrates it).
func (r records[T, R, Q]) list(ctx context.Context, teamID string, lq patio.ListQuery, f filter) (patio.Listed[T], error) {
	p := r.plan(lq.Sort)
	offset := 0
	if lq.After == "" {
		offset = lq.Offset()
	}
	var out patio.Listed[T]
	var last orderKey
	var legacy bool
	g, gctx := errgroup.WithContext(ctx)
	partition := r.table().Name() + "\x00" + teamID
	if _, current := r.s.current.Load(partition); !current {
		g.Go(func() (err error) {
			legacy, err = r.s.hasLegacy(gctx, r.table(), teamID)
			if err == nil && !legacy {
				r.s.current.Store(partition, struct{}{})
			}
			return err
		})
	}
	g.Go(func() (err error) {
		out.Items, last, err = r.page(gctx, teamID, p, lq, f, offset, lq.Limit.Value)
		return err
	})
	g.Go(func() (err error) {
		out.Total, err = r.total(gctx, teamID, p, lq, f, lq.StatusOnly() && f.statusOnly())
		return err
	})
	if err := g.Wait(); err != nil {
		return patio.Listed[T]{}, err
	}
	if legacy {
		return r.legacyPage(ctx, teamID, p, lq, f)
	}
	out.After = string(last)
	return out, nil
}
