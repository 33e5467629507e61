package lists

import (
	"context"
	"slices"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Totals of q and of a range from the indexer's counts (docs/storage.md, "Totals of q and
// ranges"; storeformat's tallies.go): q of one term whose words in the team are one word, and a
// range alone on a counted attribute, when the indexer has counted every record of the shown
// statuses (counted), read their total from a few counter items (and a range's edges from its
// index) rather than from their matches. The plan is made apart from the kind's record type
// (tallier), so each kind does not carry a copy of it; the kind only reads the page it says.

// wordProbe bounds the word counters q's term reads to learn whether it starts one word of the
// team's only: two words' shards, and some.
const wordProbe = 4 * countShards

// Bounds of a range's page read from its buckets' items (rangeOf): the ranges merged (a whole
// bucket's items per shown status), and the matches of the buckets it holds in part, read whole.
const (
	maxBucketStreams = 12
	maxPartMatches   = 100
)

// tallier plans a list of one kind's table from the indexer's counts.
type tallier struct {
	t        dynamo.Table
	teamID   string
	layout   *storeformat.Layout
	statuses []string // every status of the kind
	sp       spec
}

// talliedPage is how a list counted by the indexer is served: its total and its page, either the
// ids of its records (in order; keep: the conditions they must still meet), or read from the list's
// order with the query's conditions (stream), or by the word plan (words: few matches of q).
type talliedPage struct {
	total  int
	ids    []string
	after  string
	keep   conds
	stream *driver
	words  bool
}

// talliedList serves q alone and a counted range alone by their counts; ok is false for
// another query, or when the partition's records are not all counted or q's term starts several
// words (the plan serves it then, counting its matches).
func (r Lister[T, R, Q]) talliedList(ctx context.Context, teamID string, sp spec) (patio.Listed[T], bool, error) {
	tl := tallier{t: r.t, teamID: teamID, layout: r.k.Layout, statuses: r.k.List.Statuses, sp: sp}
	p, ok, err := tl.plan(ctx)
	if !ok || err != nil {
		return patio.Listed[T]{}, ok, err
	}
	switch {
	case p.words:
		out, err := r.wordsList(ctx, teamID, sp)
		return out, true, err
	case p.stream != nil:
		items, after, err := r.streamPage(ctx, teamID, sp.lq, *p.stream, p.stream.rest(sp.conds()))
		return patio.Listed[T]{Items: items, Total: p.total, After: after}, true, err
	}
	recs, err := r.fetch(ctx, teamID, p.ids)
	out := patio.Listed[T]{Items: recs, Total: p.total, After: p.after}
	if err != nil || p.keep == nil {
		return out, true, err
	}
	out.Items = nil
	for _, rec := range recs { // leave out a record whose item the indexer has not moved yet
		item, err := r.k.Item(rec)
		if err != nil {
			return out, true, err
		}
		if p.keep.matchAll(item) {
			out.Items = append(out.Items, rec)
		}
	}
	return out, true, nil
}

// plan plans the list, or reports it is not one the counts serve.
func (tl tallier) plan(ctx context.Context) (talliedPage, bool, error) {
	sp := tl.sp
	if !tl.layout.Tallies || len(sp.facets) > 0 || sp.unique != nil || len(sp.terms)+len(sp.ranges) != 1 {
		return talliedPage{}, false, nil
	}
	if len(sp.terms) == 1 {
		return tl.term(ctx)
	}
	for _, br := range tl.layout.Ranges {
		if br.Name == sp.ranges[0].sort {
			return tl.rangeOf(ctx, br)
		}
	}
	return talliedPage{}, false, nil
}

// counted reads the status shards and the indexer's count of the records it counted
// (storeformat.CountedItem), and reports whether the counts hold every record of the shown
// statuses: the partition has every family complete and, for each shown status, the indexer has
// counted as many records as the status shards hold (it has caught up with their creations and
// status changes; until then the plan counts the matches).
func (tl tallier) counted(ctx context.Context) (Tally, bool, error) {
	t, err := Tallies(ctx, tl.t, tl.teamID, true, []string{storeformat.CountedItem})
	if err != nil {
		return nil, false, err
	}
	ok := t.Complete(tl.statuses)
	for _, s := range tl.sp.lq.Status {
		ok = ok && t.ItemStatus(storeformat.CountedItem, []string{s}) == t.Status([]string{s})
	}
	return t, ok, nil
}

// term plans q of one term: when the term starts one word of the team's only (its counter items,
// read up to wordProbe), that word's count is the total, and in creation order the page is read
// from the word's items, merged from each shown status's range. Those of the term itself are read
// beside the counts (most terms are a whole word); those of another word, after them.
func (tl tallier) term(ctx context.Context) (talliedPage, bool, error) {
	lq, term := tl.sp.lq, tl.sp.terms[0]
	var (
		complete, more bool
		words          Tally
		page           []dynamo.Item
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		_, complete, err = tl.counted(gctx)
		return err
	})
	g.Go(func() error {
		lo := storeformat.FacetCountPrefix + storeformat.WordCountKey(term)
		rd := reader{t: tl.t, teamID: tl.teamID, o: order{attr: "sk"}}
		items, lek, err := rd.read(gctx, lo, lo+"\U0010FFFF", nil, wordProbe)
		words, more = counterTally(items), lek != nil
		return err
	})
	if lq.Sort == "created_at" {
		g.Go(func() (err error) {
			page, err = tl.firstItems(gctx, tl.wordBases(term))
			return err
		})
	}
	if err := g.Wait(); err != nil || !complete || more {
		return talliedPage{}, false, err
	}
	var found []string
	for _, item := range words.Items() {
		if words.ItemStatus(item, lq.Status) > 0 {
			found = append(found, item)
		}
	}
	switch {
	case len(found) == 0:
		return talliedPage{}, true, nil
	case len(found) > 1:
		return talliedPage{}, false, nil
	}
	p := talliedPage{total: words.ItemStatus(found[0], lq.Status)}
	if lq.Sort != "created_at" {
		p.words = p.total <= FewPerRange*len(lq.Status)
		if !p.words {
			p.stream = &driver{sort: lq.Sort}
		}
		return p, true, nil
	}
	if word := found[0][len(storeformat.WordCountKey("")):]; word != term {
		var err error
		if page, err = tl.firstItems(ctx, tl.wordBases(word)); err != nil {
			return talliedPage{}, false, err
		}
	}
	p.ids, p.after = pageIDs(lq, page, nil)
	return p, true, nil
}

// wordBases are the ranges of a word's items, one per shown status.
func (tl tallier) wordBases(word string) []string {
	var out []string
	for _, status := range tl.sp.lq.Status {
		out = append(out, tl.layout.WordPrefix(status)+word+"#")
	}
	return out
}

// firstItems reads the start of a page in creation order from ranges of items in id order (a
// word's items of each shown status, a bucket's): their first offset+limit items after the
// list's position, merged.
func (tl tallier) firstItems(ctx context.Context, bases []string) ([]dynamo.Item, error) {
	lq := tl.sp.lq
	streams, offset := pageStreams(reader{t: tl.t, teamID: tl.teamID, o: order{attr: "sk"}, desc: lq.Desc}, bases, nil, lq)
	items, _, err := merged(ctx, streams, lq.Desc, 0, offset+lq.Limit.Value)
	return items, err
}

// pageIDs cuts a page in creation order from the start firstItems read and held (more matches,
// read whole, in any order): its records' ids and its position.
func pageIDs(lq patio.ListQuery, first, held []dynamo.Item) (ids []string, after string) {
	ids = wordItemIDs(first)
	for _, it := range held {
		ids = append(ids, storecore.AttrString(it, "id"))
	}
	ids = cut(ids, func(id string) orderKey { return orderKey("1#" + id) }, lq)
	if len(ids) > 0 {
		after = "1#" + ids[len(ids)-1]
	}
	return ids, after
}

// rangeOf plans a range alone on a counted attribute: its total is its whole buckets' counts
// (storeformat.Range.Cover: a few runs of counter items) and its edges' records, counted in the
// attribute's index. In the range's own order its page is read in order; in creation order, when
// it holds few buckets of its PageLevel (storeformat.Range.PageCover), from their items (in id
// order, per shown status) and the matches of the buckets it holds in part (read from its index,
// when few), beside the counts; in another order, or past those bounds, from the list's order with
// the range as a filter when that reads fewer items than the matches (limit × the records shown ÷
// the matches), else the plan reads the matches.
func (tl tallier) rangeOf(ctx context.Context, br storeformat.Range) (talliedPage, bool, error) {
	lq, rf := tl.sp.lq, tl.sp.ranges[0]
	lo, hi := int64(0), storeformat.MaxBucketed
	if rf.lo != nil {
		lo = max(lo, rf.lo.value.(int64))
	}
	if rf.hi != nil {
		hi = min(hi, rf.hi.value.(int64))
	}
	o := orderIn(tl.layout, rf.sort)
	var shards Tally
	var complete bool
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		shards, complete, err = tl.counted(gctx)
		return err
	})
	counts := tl.countRange(gctx, g, br, lo, hi, o)
	bp := &bucketPage{}
	if lq.Sort == "created_at" && br.PageLevel > 0 {
		if words, rest, ok := br.PageCover(lo, hi, maxBucketStreams/len(lq.Status)); ok {
			bp = tl.readBucketPage(gctx, g, br, words, rest, o)
		}
	}
	if err := g.Wait(); err != nil || !complete {
		return talliedPage{}, false, err
	}
	p := talliedPage{}
	for _, n := range counts {
		p.total += n
	}
	if lo > hi || p.total == 0 {
		return talliedPage{}, true, nil
	}
	if bp.read && bp.partsWhole {
		p.ids, p.after = pageIDs(lq, bp.first, bp.parts)
		p.keep = conds{{attr: rf.attr, op: opMin, args: []any{lo}}, {attr: rf.attr, op: opMax, args: []any{hi}}}
		return p, true, nil
	}
	p.stream = &driver{sort: lq.Sort}
	if rf.sort == lq.Sort {
		p.stream.rng = &rf
	} else if p.total*p.total <= lq.Limit.Value*shards.Status(lq.Status) {
		return talliedPage{}, false, nil
	}
	return p, true, nil
}

// countRange starts on g the counts of the range lo..hi in the shown statuses: its whole buckets'
// counter items (storeformat.Range.Cover's runs), its edges' records in the attribute's index
// (order o). The counts are in the slice once g is done.
func (tl tallier) countRange(ctx context.Context, g *errgroup.Group, br storeformat.Range, lo, hi int64, o order) []int {
	statuses := tl.sp.lq.Status
	runs, edges := br.Cover(lo, hi)
	counts := make([]int, len(runs)+len(edges)*len(statuses))
	for i, run := range runs {
		g.Go(func() error {
			clo, chi := run.Counters()
			t, err := readCounters(ctx, tl.t, tl.teamID, clo, chi)
			for _, item := range t.Items() {
				counts[i] += t.ItemStatus(item, statuses)
			}
			return err
		})
	}
	rd := reader{t: tl.t, teamID: tl.teamID, o: o}
	for i, e := range edges {
		b := &keyBounds{lo: *storeformat.Padded(br.Width, e.Lo), hi: *storeformat.Padded(br.Width, e.Hi)}
		for j, status := range statuses {
			g.Go(func() (err error) {
				seg := o.ranges(status+"#", b)[0]
				counts[len(runs)+i*len(statuses)+j], err = rd.count(ctx, seg.lo, seg.hi, nil)
				return err
			})
		}
	}
	return counts
}

// bucketPage is a range's page in creation order read from its buckets: the first items of its
// whole buckets' words and the matches of the spans it holds in part (partsWhole when all of
// them were read).
type bucketPage struct {
	read         bool
	first, parts []dynamo.Item
	partsWhole   bool
}

// readBucketPage starts on g the reads of a range's page from its buckets: the items of words
// (whole buckets, per shown status) and the matches of rest (the spans held in part, from the
// attribute's index, order o, at most maxPartMatches). The page is in it once g is done.
func (tl tallier) readBucketPage(ctx context.Context, g *errgroup.Group, br storeformat.Range, words []string, rest []storeformat.Span, o order) *bucketPage {
	bp := &bucketPage{read: true}
	var bases []string
	for _, w := range words {
		bases = append(bases, tl.wordBases(w)...)
	}
	g.Go(func() (err error) {
		bp.first, err = tl.firstItems(ctx, bases)
		return err
	})
	var segs []segment
	for _, e := range rest {
		b := &keyBounds{lo: *storeformat.Padded(br.Width, e.Lo), hi: *storeformat.Padded(br.Width, e.Hi)}
		for _, status := range tl.sp.lq.Status {
			segs = append(segs, o.ranges(status+"#", b)...)
		}
	}
	g.Go(func() error {
		parts, ends, err := readRanges(ctx, reader{t: tl.t, teamID: tl.teamID, o: o, project: []string{"pk", "sk", "id"}}, segs, maxPartMatches)
		bp.parts = parts
		bp.partsWhole = !slices.ContainsFunc(ends, func(k dynamo.PagingKey) bool { return k != nil })
		return err
	})
	return bp
}

// counterTally sums counter items as readCounters does.
func counterTally(items []dynamo.Item) Tally {
	out := Tally{}
	for _, item := range items {
		owner, _ := storeformat.CounterOf(storecore.AttrString(item, "sk"))
		for name := range item {
			if name != "pk" && name != "sk" {
				out.Add(countKey{Item: owner, Attr: name}, storeformat.IntAttr(item, name))
			}
		}
	}
	return out
}

// ItemStatus returns a counter item's number of records of the statuses.
func (t Tally) ItemStatus(item string, statuses []string) int {
	n := 0
	for _, s := range statuses {
		n += t[countKey{Item: item, Attr: s}]
	}
	return n
}
