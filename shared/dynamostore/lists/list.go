package lists

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// A list is served one of six ways (docs/storage.md, "Plans"):
//
//   - status alone (the default list), or one facet in a partition known complete: the rows' or
//     the facet's ranges, and the maintained counts, side by side in one round trip (countedList);
//   - a unique value (plate, CPF, CNPJ): the guard, then its record (uniqueList);
//   - q of one word, or a range alone, once the indexer has counted every record shown: the
//     total from its word or bucket counts, the page from the word's items or the list's order
//     (talliedList, tallied.go);
//   - a partition whose records do not all have their family yet (until the maintenance
//     backfill): every record of the shown statuses, filtered in memory (scanList);
//   - otherwise by its plan: the page from one driver in the list's order with the other
//     conditions as a filter, the total from the counts or over the most selective driver
//     (planned), which for q alone is its word items (wordsList).

// FewPerRange bounds the matches a count reads in full, per range, to cut the page from them in
// memory rather than read the page again (they are few enough that reading them costs less than
// a filtered read of the list's order). At 0 a list never does; both serve the same answers,
// which the store's tests check.
var FewPerRange = 100

// list serves a list query: one that reads the indexer's items (derived) inside the team's fence.
func (r Lister[T, R, Q]) list(ctx context.Context, teamID string, sp spec) (patio.Listed[T], error) {
	if r.derived(sp) {
		return r.fenced(ctx, teamID, sp)
	}
	return r.serve(ctx, teamID, sp)
}

// derived reports a list that may read what the indexer keeps: a facet whose items it copies,
// q's words, or a range its buckets count.
func (r Lister[T, R, Q]) derived(sp spec) bool {
	if sp.unique != nil {
		return false
	}
	for _, f := range sp.facets {
		if f.streamed {
			return true
		}
	}
	for _, rf := range sp.ranges {
		for _, br := range r.k.Layout.Ranges {
			if br.Name == rf.sort {
				return true
			}
		}
	}
	return len(sp.terms) > 0
}

// Bounds of a fenced read (fenced): the first wait for the team's fence, doubled each time; the
// reads tried before a list by a facet of few matches is read from its matches; the reads tried
// in all.
const (
	fenceWait     = 5 * time.Millisecond
	fenceTries    = 4
	fenceMaxTries = 8
)

// fenced serves a list that reads the indexer's items from one state of them: it reads the team's
// stream mark (storeformat.Fence) before and after its reads and keeps the answer when no
// handling of a batch was writing the team's items before and the mark is the same after (the
// indexer wrote none of them meanwhile). Otherwise it waits a little, longer each time, and reads
// again. When the indexer writes the team's items without a pause (a backlog), after fenceTries
// reads a list by a facet the indexer keeps, when it matches few records, is served from those
// matches (fewMatches: its page and total are one read); any other is read again until
// fenceMaxTries reads (about 0.6 s of waits), the last kept whatever the mark says.
func (r Lister[T, R, Q]) fenced(ctx context.Context, teamID string, sp spec) (patio.Listed[T], error) {
	wait := fenceWait
	for try := 1; ; try++ {
		before, err := r.fence(ctx, teamID)
		if err != nil {
			return patio.Listed[T]{}, err
		}
		last := try == fenceMaxTries
		if !before.Busy(time.Now()) || last {
			out, err := r.serve(ctx, teamID, sp)
			if err != nil {
				return out, err
			}
			after, err := r.fence(ctx, teamID)
			if err != nil {
				return patio.Listed[T]{}, err
			}
			if after.same(before) || last {
				out.Index = &patio.IndexView{Through: after.Through, Lag: after.Lag}
				return out, nil
			}
		}
		if try == fenceTries {
			out, ok, err := r.fewMatches(ctx, teamID, sp)
			if ok || err != nil {
				out.Index = &patio.IndexView{Through: before.Through, Lag: before.Lag}
				return out, err
			}
		}
		select {
		case <-ctx.Done():
			return patio.Listed[T]{}, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// fewMatches serves a list by a facet the indexer keeps from every item of that facet it
// matches, when they are few (FewPerRange a range at most): its page and its total are those
// items, of one read, whatever the indexer writes meanwhile. ok is false for another list, or
// when the matches are more.
func (r Lister[T, R, Q]) fewMatches(ctx context.Context, teamID string, sp spec) (patio.Listed[T], bool, error) {
	i := slices.IndexFunc(sp.facets, func(f facetFilter) bool { return f.streamed })
	if i < 0 {
		return patio.Listed[T]{}, false, nil
	}
	d := driver{facet: &sp.facets[i], sort: "created_at"}
	rd, segs := r.driverRanges(teamID, sp.lq, d, d.rest(sp.conds()))
	items, ends, err := readRanges(ctx, rd, segs, FewPerRange)
	if err != nil || slices.ContainsFunc(ends, func(e dynamo.PagingKey) bool { return e != nil }) {
		return patio.Listed[T]{}, false, err
	}
	out, err := r.fromMatches(items, sp)
	return out, true, err
}

// markState is a team's stream mark as a list reads it: its fence, and its position.
type markState struct {
	storeformat.Fence
	pos  string
	part int
}

// same reports whether the mark is unchanged: the indexer wrote nothing of the team between the
// two reads.
func (m markState) same(o markState) bool {
	return m.pos == o.pos && m.part == o.part && m.Writing == o.Writing && m.Wrote == o.Wrote
}

// fence reads a team's stream mark (strongly consistent; a team without one has nothing indexed).
func (r Lister[T, R, Q]) fence(ctx context.Context, teamID string) (markState, error) {
	var mark dynamo.Item
	err := r.t.Get("pk", teamID).Range("sk", dynamo.Equal, r.k.Layout.StreamMarkKey()).Consistent(true).One(ctx, &mark)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return markState{}, storecore.Wrap(err, "read the stream mark of team", teamID)
	}
	return markState{Fence: storeformat.FenceOf(mark), pos: storecore.AttrString(mark, storeformat.StreamPosAttr),
		part: storeformat.IntAttr(mark, storeformat.StreamPartAttr)}, nil
}

// serve serves a list query by the ways above.
func (r Lister[T, R, Q]) serve(ctx context.Context, teamID string, sp spec) (patio.Listed[T], error) {
	switch {
	case sp.unique != nil:
		return r.uniqueList(ctx, teamID, sp)
	case sp.statusOnly():
		return r.countedList(ctx, teamID, sp, driver{sort: sp.lq.Sort}, true)
	case sp.oneFacet() && r.knownIndexed(teamID):
		return r.countedList(ctx, teamID, sp, driver{facet: &sp.facets[0], sort: sp.lq.Sort}, false)
	}
	if out, ok, err := r.talliedList(ctx, teamID, sp); ok || err != nil {
		return out, err
	}
	t, complete, err := r.readTally(ctx, teamID, sp)
	if err != nil {
		return patio.Listed[T]{}, err
	}
	if !complete {
		return r.scanList(ctx, teamID, sp)
	}
	p := planList(sp, t)
	if p.count != nil && p.count.words {
		return r.wordsList(ctx, teamID, sp)
	}
	return r.planned(ctx, teamID, sp, p, t)
}

// knownIndexed reports a partition this process found complete (every record with its whole
// family): it stays so, since every write completes its record's family.
func (r Lister[T, R, Q]) knownIndexed(teamID string) bool {
	_, ok := r.e.indexed.Load(r.t.Name() + "\x00" + teamID)
	return ok
}

// Tally reads the counts a list needs: its facets' and, unless this process found the partition
// complete before (knownIndexed), the status shards, which tell whether it is; a partition found
// complete is remembered.
func (r Lister[T, R, Q]) readTally(ctx context.Context, teamID string, sp spec) (Tally, bool, error) {
	known := r.knownIndexed(teamID)
	shards := !known
	var open []string
	for _, f := range sp.facets {
		shards = shards || f.closed
		for _, v := range f.values {
			if !f.closed {
				open = append(open, storeformat.FacetKey(f.name, v))
			}
		}
	}
	if !shards && len(open) == 0 {
		return Tally{}, true, nil
	}
	t, err := Tallies(ctx, r.t, teamID, shards, open)
	if err != nil {
		return nil, false, err
	}
	complete := known || t.Complete(r.k.List.Statuses)
	if complete && !known {
		r.e.indexed.Store(r.t.Name()+"\x00"+teamID, struct{}{})
	}
	return t, complete, nil
}

// countedList serves a list whose total the maintained counts tell (status alone, or one facet
// in a partition known complete): its page from the driver and its total (unless the query asks
// for none), side by side, in one round trip.
func (r Lister[T, R, Q]) countedList(ctx context.Context, teamID string, sp spec, d driver, statusOnly bool) (patio.Listed[T], error) {
	var out patio.Listed[T]
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		out.Items, out.After, err = r.streamPage(gctx, teamID, sp.lq, d, d.rest(sp.conds()))
		return err
	})
	g.Go(func() error {
		if sp.lq.NoTotal {
			return nil
		}
		if statusOnly {
			t, err := Tallies(gctx, r.t, teamID, true, nil)
			out.Total = t.Status(sp.lq.Status)
			return err
		}
		t, _, err := r.readTally(gctx, teamID, sp)
		out.Total = t.facet(*d.facet, sp.lq.Status)
		return err
	})
	return out, g.Wait()
}

// keysPerRange bounds the matches' keys and order a count reads per range to cut the page from
// them (small items: projected); past it, the rest is counted while the page is read from its
// driver.
const keysPerRange = 2000

// planned serves a list by its plan. Its total comes from the counts, or is counted over the
// count driver. The count driver's matches are read first, up to a bound per range (their keys
// and order, keysPerRange of them, when the driver's items carry the list's order; else
// FewPerRange whole items), and when they are all read the page is cut from them; otherwise the
// rest is counted while the page is read from its driver. A range on the list's own sort, which
// serves the page in order, is counted while the page is read.
func (r Lister[T, R, Q]) planned(ctx context.Context, teamID string, sp spec, p plan, t Tally) (patio.Listed[T], error) {
	all := sp.conds()
	if p.count == nil {
		items, after, err := r.streamPage(ctx, teamID, sp.lq, p.page, p.page.rest(all))
		total := t.Status(sp.lq.Status)
		if len(sp.facets) == 1 {
			total = t.facet(sp.facets[0], sp.lq.Status)
		}
		return patio.Listed[T]{Items: items, Total: total, After: after}, err
	}
	rd, segs := r.driverRanges(teamID, sp.lq, *p.count, p.count.rest(all))
	ordered := r.carriesOrder(*p.count, sp.lq.Sort)
	sync := p.count.rng != nil && p.count.rng.sort == "updated_at"
	inOrder := *p.count == p.page && (p.count.facet == nil || t.facet(*p.count.facet, sp.lq.Status) > keysPerRange*len(segs))
	if inOrder || FewPerRange == 0 && !sync {
		return r.countedPage(ctx, teamID, sp, p.page, rd, segs, make([]dynamo.PagingKey, len(segs)), 0)
	}
	limit := FewPerRange
	if ordered {
		limit, rd.project = keysPerRange, r.orderAttrs(sp.lq.Sort)
	}
	if sync {
		limit = 0 // a sync in another order reads the changes since, whatever their number, and nothing older
	}
	items, ends, err := readRanges(ctx, rd, segs, limit)
	if err != nil {
		return patio.Listed[T]{}, err
	}
	var rest []segment
	var starts []dynamo.PagingKey
	for i, end := range ends {
		if end != nil {
			rest, starts = append(rest, segs[i]), append(starts, end)
		}
	}
	switch {
	case len(rest) > 0:
		return r.countedPage(ctx, teamID, sp, p.page, rd, rest, starts, len(items))
	case ordered:
		return r.keysPage(ctx, teamID, sp, *p.count, items)
	}
	return r.fromMatches(items, sp)
}

// carriesOrder reports whether a driver's items carry a sort's order: every item has its id
// (creation order), rows and facet items carry every index attribute, order items none.
func (r Lister[T, R, Q]) carriesOrder(d driver, sort string) bool {
	return r.order(sort).index == "" || d.facet != nil || r.order(d.sort).index != ""
}

// orderAttrs are the attributes a list's order is read from in a driver's items.
func (r Lister[T, R, Q]) orderAttrs(sort string) []string {
	attrs := []string{"pk", "sk", "id", "status"}
	if o := r.order(sort); o.index != "" {
		attrs = append(attrs, o.attr)
	}
	return attrs
}

// keysPage serves a list from the keys and order of every record it matches, read by its count
// driver with the conditions as a filter: the total is their number, the page's ids are cut from
// them in order, and only the page's records are read.
func (r Lister[T, R, Q]) keysPage(ctx context.Context, teamID string, sp spec, d driver, items []dynamo.Item) (patio.Listed[T], error) {
	o := r.order(sp.lq.Sort)
	type keyed struct {
		id  string
		key orderKey
	}
	all := make([]keyed, len(items))
	for i, it := range items {
		k := orderKey("1#" + storecore.AttrString(it, "id"))
		if o.index != "" {
			v := storecore.AttrString(it, o.attr)
			if d.facet != nil {
				v = v[strings.IndexByte(v, '#')+1:] // past "<facet>=<value>#"
			}
			k = orderKey(strings.TrimPrefix(v, storecore.AttrString(it, "status")+"#"))
		}
		all[i] = keyed{storecore.AttrString(it, "id"), k}
	}
	page := cut(all, func(k keyed) orderKey { return k.key }, sp.lq)
	ids := make([]string, len(page))
	for i, k := range page {
		ids[i] = k.id
	}
	recs, err := r.fetch(ctx, teamID, ids)
	out := patio.Listed[T]{Items: recs, Total: len(all)}
	if len(page) > 0 {
		out.After = string(page[len(page)-1].key)
	}
	return out, err
}

// countedPage reads a page from its driver while it counts ranges of the count driver from
// where they start (nil: their beginning), the count adding to counted (matches already read);
// it counts nothing when the query asks for no total.
func (r Lister[T, R, Q]) countedPage(ctx context.Context, teamID string, sp spec, page driver, rd reader, segs []segment,
	starts []dynamo.PagingKey, counted int) (patio.Listed[T], error) {
	out := patio.Listed[T]{Total: counted}
	ns := make([]int, len(segs))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		out.Items, out.After, err = r.streamPage(gctx, teamID, sp.lq, page, page.rest(sp.conds()))
		return err
	})
	for i, s := range segs {
		if sp.lq.NoTotal {
			break // no total asked: nothing to count
		}
		g.Go(func() (err error) {
			ns[i], err = rd.count(gctx, s.lo, s.hi, starts[i])
			return err
		})
	}
	err := g.Wait()
	for _, n := range ns {
		out.Total += n
	}
	return out, err
}

// readRanges reads the matches of every range, side by side, until limit matches of a range are
// read (0: all of them; a response holds at most 1 MB, so it may take several), and returns them
// with where each range stopped (nil: read to its end).
func readRanges(ctx context.Context, rd reader, segs []segment, limit int) ([]dynamo.Item, []dynamo.PagingKey, error) {
	got := make([][]dynamo.Item, len(segs))
	ends := make([]dynamo.PagingKey, len(segs))
	g, gctx := errgroup.WithContext(ctx)
	for i, s := range segs {
		g.Go(func() error {
			var start dynamo.PagingKey
			batch := limit
			if batch == 0 {
				batch = 1000
			}
			for {
				items, lek, err := rd.read(gctx, s.lo, s.hi, start, batch)
				if err != nil {
					return err
				}
				got[i] = append(got[i], items...)
				if lek == nil || (limit > 0 && len(got[i]) >= limit) {
					ends[i] = lek
					return nil
				}
				start = lek
			}
		})
	}
	err := g.Wait()
	return slices.Concat(got...), ends, err
}

// driverRanges returns a reader of a driver's order with a filter, and the driver's ranges for
// every status the list shows (and every value of its facet).
func (r Lister[T, R, Q]) driverRanges(teamID string, lq patio.ListQuery, d driver, filter conds) (reader, []segment) {
	rd := reader{t: r.t, teamID: teamID, o: r.order(d.sort), desc: lq.Desc && d.sort == lq.Sort, filter: filter}
	var segs []segment
	for _, base := range r.bases(rd.o, d, lq.Status) {
		segs = append(segs, rd.o.ranges(base, d.bounds())...)
	}
	return rd, segs
}

// bases returns the key prefixes of a driver's ranges in an order, one per status (per value of
// its facet).
func (r Lister[T, R, Q]) bases(o order, d driver, statuses []string) []string {
	l := r.k.Layout
	var out []string
	for _, status := range statuses {
		if d.facet == nil {
			base := status + "#"
			if o.index == "" {
				base = l.OrderPrefix(status)
			}
			out = append(out, base)
			continue
		}
		for _, v := range d.facet.values {
			key := storeformat.FacetKey(d.facet.name, v)
			base := key + "#" + status + "#"
			if o.index == "" {
				base = l.FacetPrefix(key, status)
			}
			out = append(out, base)
		}
	}
	return out
}

// streamPage reads one page from a driver's ranges in the list's order, merged.
func (r Lister[T, R, Q]) streamPage(ctx context.Context, teamID string, lq patio.ListQuery, d driver, filter conds) ([]T, string, error) {
	rd := reader{t: r.t, teamID: teamID, o: r.order(lq.Sort), desc: lq.Desc, filter: filter}
	if lq.Brief && r.k.Brief != nil {
		rd.project = r.k.Brief
		if !slices.Contains(rd.project, rd.o.attr) {
			rd.project = append(slices.Clip(rd.project), rd.o.attr)
		}
	}
	streams, offset := pageStreams(rd, r.bases(rd.o, d, lq.Status), d.bounds(), lq)
	items, last, err := merged(ctx, streams, lq.Desc, offset, lq.Limit.Value)
	if err != nil {
		return nil, "", err
	}
	recs, err := r.decodeItems(items)
	return recs, string(last), err
}

// pageStreams returns a stream of a page's reader per range prefix (within bounds, nil for
// whole ranges), each from just after the list's position, and the offset the page starts at.
func pageStreams(rd reader, bases []string, b *keyBounds, lq patio.ListQuery) ([]*stream, int) {
	offset := 0
	if lq.After == "" {
		offset = lq.Offset()
	}
	after := orderKey(lq.After)
	// Each stream's first read asks for all the page can take from it and no more: offset+limit
	// records, or limit+1 from a position (a range read from a position starts with the position's
	// own record, in the stream that holds it, and skips it).
	first := offset + lq.Limit.Value
	if after != "" {
		first++
	}
	var streams []*stream
	for _, base := range bases {
		streams = append(streams, &stream{rd: rd, segs: skipSegmentsBefore(rd.o.ranges(base, b), after), after: after,
			batch: min(max(first, 10), 1000)})
	}
	return streams, offset
}

// decodeItems decodes stored items (rows or their copies) into records.
func (r Lister[T, R, Q]) decodeItems(items []dynamo.Item) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, it := range items {
		var row R
		if err := dynamo.UnmarshalItem(it, &row); err != nil {
			return nil, err
		}
		rec, err := r.k.Decode(row)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// fromMatches serves a list from every record it matches, read by its count driver with the
// conditions as a filter: the total is their number, the page is cut from them in memory.
func (r Lister[T, R, Q]) fromMatches(items []dynamo.Item, sp spec) (patio.Listed[T], error) {
	recs, err := r.decodeItems(items)
	if err != nil {
		return patio.Listed[T]{}, err
	}
	return r.memoryPage(recs, sp, nil)
}

// memoryPage cuts a page from records in memory: those that meet keep (all when nil), in the
// list's order, after its position or from its offset.
func (r Lister[T, R, Q]) memoryPage(recs []T, sp spec, keep conds) (patio.Listed[T], error) {
	type keyed struct {
		rec T
		key orderKey
	}
	var all []keyed
	for _, rec := range recs {
		item, err := r.k.Item(rec)
		if err != nil {
			return patio.Listed[T]{}, err
		}
		if keep != nil && !keep.matchAll(item) {
			continue
		}
		all = append(all, keyed{rec, r.orderKeyOf(item, sp.lq.Sort)})
	}
	out := patio.Listed[T]{Total: len(all)}
	for _, k := range cut(all, func(k keyed) orderKey { return k.key }, sp.lq) {
		out.Items = append(out.Items, k.rec)
		out.After = string(k.key)
	}
	return out, nil
}

// cut sorts matches in a list's order and returns the page it asks for: after its position, or
// from its offset, at most limit.
func cut[E any](matches []E, key func(E) orderKey, lq patio.ListQuery) []E {
	// sort.Slice rather than slices.SortFunc: one sort for every kind's matches, not a copy of the
	// sort per record type in each function's binary.
	sort.Slice(matches, func(i, j int) bool { return compareOrder(key(matches[i]), key(matches[j]), lq.Desc) < 0 })
	start := lq.Offset()
	if lq.After != "" {
		start, _ = slices.BinarySearchFunc(matches, orderKey(lq.After), func(e E, after orderKey) int {
			if compareOrder(key(e), after, lq.Desc) <= 0 {
				return -1
			}
			return 1
		})
	}
	return matches[min(start, len(matches)):min(start+lq.Limit.Value, len(matches))]
}

// orderKeyOf is a row's order key in a sort.
func (r Lister[T, R, Q]) orderKeyOf(row dynamo.Item, sort string) orderKey {
	o := r.order(sort)
	status := storecore.AttrString(row, "status")
	if o.index == "" {
		return orderKey("1#" + storecore.AttrString(row, "id"))
	}
	return orderKey(strings.TrimPrefix(storecore.AttrString(row, o.attr), status+"#"))
}

// uniqueList serves a list filtered by a unique value: the record its guard names, if it meets
// the rest of the query.
func (r Lister[T, R, Q]) uniqueList(ctx context.Context, teamID string, sp spec) (patio.Listed[T], error) {
	var guard dynamo.Item
	err := r.t.Get("pk", teamID).Range("sk", dynamo.Equal, sp.unique.Guard).Consistent(true).One(ctx, &guard)
	if err == dynamo.ErrNotFound {
		return r.memoryPage(nil, sp, nil)
	}
	if err != nil {
		return patio.Listed[T]{}, err
	}
	rec, _, err := r.k.Get(ctx, r.t, teamID, storecore.AttrString(guard, storeformat.GuardOwnerAttr))
	if err != nil {
		return patio.Listed[T]{}, err
	}
	return r.memoryPage([]T{rec}, sp, sp.withStatus())
}

// scanList serves a list of a partition awaiting the maintenance backfill (some records have no
// facet or word items, and are not in the facet counts): every record of the shown statuses is
// read (their order items, which every record has) and filtered in memory, on the attributes
// its current row would have. Correct at the cost the facets replace, until the backfill.
func (r Lister[T, R, Q]) scanList(ctx context.Context, teamID string, sp spec) (patio.Listed[T], error) {
	rd, segs := r.driverRanges(teamID, sp.lq, driver{sort: "created_at"}, nil)
	items, _, err := readRanges(ctx, rd, segs, 0)
	if err != nil {
		return patio.Listed[T]{}, err
	}
	recs, err := r.decodeItems(items)
	if err != nil {
		return patio.Listed[T]{}, err
	}
	return r.memoryPage(recs, sp, sp.conds())
}

// wordsList serves a list filtered by q alone, from the word items of its terms: the records
// with a word starting with each term are the matches, counted. In creation order, ids sort by
// creation, so the page's ids come from them and only the page's records are read; in another
// order, few matches are read and sorted, and many are served by the rows' ranges with q as a
// filter.
func (r Lister[T, R, Q]) wordsList(ctx context.Context, teamID string, sp spec) (patio.Listed[T], error) {
	ids, err := r.wordMatches(ctx, teamID, sp)
	if err != nil {
		return patio.Listed[T]{}, err
	}
	switch {
	case sp.lq.Sort == "created_at":
		page := cut(ids, func(id string) orderKey { return orderKey("1#" + id) }, sp.lq)
		recs, err := r.fetch(ctx, teamID, page)
		out := patio.Listed[T]{Items: recs, Total: len(ids)}
		if len(page) > 0 {
			out.After = "1#" + page[len(page)-1]
		}
		return out, err
	case len(ids) <= FewPerRange*len(sp.lq.Status):
		recs, err := r.fetch(ctx, teamID, ids)
		if err != nil {
			return patio.Listed[T]{}, err
		}
		return r.memoryPage(recs, sp, nil)
	}
	items, after, err := r.streamPage(ctx, teamID, sp.lq, driver{sort: sp.lq.Sort}, sp.conds())
	return patio.Listed[T]{Items: items, Total: len(ids), After: after}, err
}

// wordMatches returns the ids of the records of the shown statuses that have, for every term of
// q, a word starting with it, in id order. One term's matches are its word items' ids. Of several,
// the rarest decides: the terms' word items are read side by side in rounds of growing pages
// (raceFirstPage, doubling), until one term's are all read; its records are the only candidates,
// and their rows' words (one batch read) say which have a word for every other term. So a name
// and a rare word ("bench 05000") read about one page of each term, however common the others.
func (r Lister[T, R, Q]) wordMatches(ctx context.Context, teamID string, sp spec) ([]string, error) {
	if len(sp.terms) == 1 {
		return r.wordIDs(ctx, teamID, sp.lq.Status, sp.terms[0])
	}
	type run struct {
		segs  []segment
		start dynamo.PagingKey
		ids   []string
	}
	rd := reader{t: r.t, teamID: teamID, o: order{attr: "sk"}}
	runs := make([]*run, len(sp.terms))
	for i, term := range sp.terms {
		runs[i] = &run{segs: r.wordSegments(sp.lq.Status, term)}
	}
	for size := raceFirstPage; ; size = min(2*size, 1000) {
		g, gctx := errgroup.WithContext(ctx)
		for _, rn := range runs {
			g.Go(func() error {
				items, lek, err := rd.read(gctx, rn.segs[0].lo, rn.segs[0].hi, rn.start, size)
				if err != nil {
					return err
				}
				rn.ids = append(rn.ids, wordItemIDs(items)...)
				if rn.start = lek; lek == nil {
					rn.segs = rn.segs[1:]
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		rarest := -1
		for i, rn := range runs {
			if len(rn.segs) == 0 && (rarest < 0 || len(rn.ids) < len(runs[rarest].ids)) {
				rarest = i
			}
		}
		if rarest < 0 {
			continue
		}
		ids := slices.Compact(slices.Sorted(slices.Values(runs[rarest].ids)))
		words, err := r.rowWords(ctx, teamID, ids)
		if err != nil {
			return nil, err
		}
		others := slices.Delete(slices.Clone(sp.terms), rarest, rarest+1)
		return slices.DeleteFunc(ids, func(id string) bool {
			for _, term := range others {
				if !strings.Contains(words[id], " "+term) {
					return true
				}
			}
			return false
		}), nil
	}
}

// raceFirstPage is the page size of the first round of wordMatches's race: a rare term's word
// items end within it, and a common term's first page costs no more than a list's page.
const raceFirstPage = 25

// wordSegments returns the ranges of a term's word items, one per status.
func (r Lister[T, R, Q]) wordSegments(statuses []string, term string) []segment {
	var segs []segment
	for _, status := range statuses {
		base := r.k.Layout.WordPrefix(status) + term
		segs = append(segs, segment{lo: base, hi: base + "\U0010FFFF", base: base, seg: '1'})
	}
	return segs
}

// wordItemIDs returns the record ids of word items (the last part of their sort keys).
func wordItemIDs(items []dynamo.Item) []string {
	ids := make([]string, 0, len(items))
	for _, it := range items {
		sk := storecore.AttrString(it, "sk")
		ids = append(ids, sk[strings.LastIndexByte(sk, '#')+1:])
	}
	return ids
}

// rowWords returns the stored words of the records of ids (their rows' words attribute, one
// batch read of that attribute alone), by id.
func (r Lister[T, R, Q]) rowWords(ctx context.Context, teamID string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	keys := make([]dynamo.Keyed, len(ids))
	for i, id := range ids {
		keys[i] = dynamo.Keys{teamID, r.k.Layout.RowPrefix() + id}
	}
	var items []dynamo.Item
	if err := r.t.Batch("pk", "sk").Get(keys...).Project("sk", wordsAttr).Consistent(true).All(ctx, &items); err != nil {
		return nil, err
	}
	for _, it := range items {
		out[strings.TrimPrefix(storecore.AttrString(it, "sk"), r.k.Layout.RowPrefix())] = storecore.AttrString(it, wordsAttr)
	}
	return out, nil
}

// wordIDs returns the ids of the records of the statuses with a word starting with term, sorted
// and distinct (a record may have several such words).
func (r Lister[T, R, Q]) wordIDs(ctx context.Context, teamID string, statuses []string, term string) ([]string, error) {
	rd := reader{t: r.t, teamID: teamID, o: order{attr: "sk"}}
	items, _, err := readRanges(ctx, rd, r.wordSegments(statuses, term), 0)
	if err != nil {
		return nil, err
	}
	ids := wordItemIDs(items)
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// fetch reads records by id (strongly consistent), in the order of ids.
func (r Lister[T, R, Q]) fetch(ctx context.Context, teamID string, ids []string) ([]T, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]dynamo.Keyed, len(ids))
	for i, id := range ids {
		keys[i] = dynamo.Keys{teamID, r.k.Layout.RowPrefix() + id}
	}
	var rows []R
	if err := r.t.Batch("pk", "sk").Get(keys...).Consistent(true).All(ctx, &rows); err != nil {
		return nil, err
	}
	recs, err := storecore.DecodeRows(rows, r.k.Decode)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]T, len(recs))
	for _, rec := range recs {
		_, id := r.k.Key(rec)
		byID[id] = rec
	}
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		if rec, ok := byID[id]; ok {
			out = append(out, rec)
		}
	}
	return out, nil
}
