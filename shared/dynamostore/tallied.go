package dynamostore

import (
	"context"
	"slices"
	"sort"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

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

// Bounds of a range's page read from its buckets' items (bucketPage): the ranges merged (a whole
// bucket's items per shown status), and the matches of the buckets it holds in part, read whole.
const (
	maxBucketStreams = 12
	maxPartMatches   = 100
)

// tallier plans a list of one kind's table from the indexer's counts.
type tallier struct {
	s        *core
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
func (r lister[T, R, Q]) talliedList(ctx context.Context, teamID string, sp spec) (patio.Listed[T], bool, error) {
	tl := tallier{s: r.s, t: r.table(), teamID: teamID, layout: r.k.layout, statuses: r.k.list.statuses, sp: sp}
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
	out := patio.Listed[T]{Total: p.total, After: p.after}
	for _, rec := range recs {
		item, ierr := records[T, R, Q](r).rowItem(rec)
		if ierr != nil {
			return out, true, ierr
		}
		if p.keep == nil || p.keep.matchAll(item) { // an item the indexer has not moved yet
			out.Items = append(out.Items, rec)
		}
	}
	return out, true, err
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
func (tl tallier) counted(ctx context.Context) (tally, bool, error) {
	t, err := tl.s.tallies(ctx, tl.t, tl.teamID, true, []string{storeformat.CountedItem})
	if err != nil {
		return nil, false, err
	}
	ok := t.complete(tl.statuses)
	for _, s := range tl.sp.lq.Status {
		ok = ok && t.itemStatus(storeformat.CountedItem, []string{s}) == t.status([]string{s})
	}
	return t, ok, nil
}

// term plans q of one term: when the term starts one word of the team's only (its counter items,
// read up to wordProbe), that word's count is the total, and in creation order the page is read
// from the word's items, merged from each shown status's range.
func (tl tallier) term(ctx context.Context) (talliedPage, bool, error) {
	lq := tl.sp.lq
	var (
		complete, more bool
		words          tally
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		_, complete, err = tl.counted(gctx)
		return err
	})
	g.Go(func() error {
		lo := storeformat.FacetCountPrefix + storeformat.WordCountPrefix(tl.sp.terms[0])
		rd := reader{t: tl.t, teamID: tl.teamID, o: order{attr: "sk"}}
		items, lek, err := rd.read(gctx, lo, lo+"\U0010FFFF", nil, wordProbe)
		words, more = counterTally(items), lek != nil
		return err
	})
	if err := g.Wait(); err != nil || !complete || more {
		return talliedPage{}, false, err
	}
	var found []string
	for _, item := range words.items() {
		if words.itemStatus(item, lq.Status) > 0 {
			found = append(found, item)
		}
	}
	switch {
	case len(found) == 0:
		return talliedPage{}, true, nil
	case len(found) > 1:
		return talliedPage{}, false, nil
	}
	p := talliedPage{total: words.itemStatus(found[0], lq.Status)}
	if lq.Sort != "created_at" {
		p.words = p.total <= fewPerRange*len(lq.Status)
		if !p.words {
			p.stream = &driver{sort: lq.Sort}
		}
		return p, true, nil
	}
	word := found[0][len(storeformat.WordCountPrefix("")):]
	var bases []string
	for _, status := range lq.Status {
		bases = append(bases, tl.layout.WordPrefix(status)+word+"#")
	}
	err := tl.idPage(ctx, &p, bases, nil)
	return p, true, err
}

// idPage cuts a page in creation order from ranges of items in id order (a word's items of each
// shown status, a bucket's), merged with the items of held (read already, in the list's order, or
// nil): the page's ids and position.
func (tl tallier) idPage(ctx context.Context, p *talliedPage, bases []string, held *stream) error {
	lq := tl.sp.lq
	streams, offset := pageStreams(reader{t: tl.t, teamID: tl.teamID, o: order{attr: "sk"}, desc: lq.Desc}, bases, nil, lq)
	if held != nil {
		streams = append(streams, held)
	}
	items, last, err := merged(ctx, streams, lq.Desc, offset, lq.Limit.Value)
	p.ids, p.after = wordItemIDs(items), string(last)
	return err
}

// rangeOf plans a range alone on a counted attribute: its total is its whole buckets' counts
// (storeformat.Range.Cover: a few runs of counter items) and its edges' records, counted in the
// attribute's index. In the range's own order its page is read in order; in creation order, from
// its buckets' items when it holds few (bucketPage); in another, from the list's order with the
// range as a filter when that reads fewer items than the matches (limit × the records shown ÷
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
	runs, edges := br.Cover(lo, hi)
	var (
		shards   tally
		complete bool
	)
	counts := make([]int, len(runs)+len(edges)*len(lq.Status))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		shards, complete, err = tl.counted(gctx)
		return err
	})
	for i, run := range runs {
		g.Go(func() error {
			clo, chi := run.Counters()
			t, err := readCounters(gctx, tl.t, tl.teamID, clo, chi)
			for _, item := range t.items() {
				counts[i] += t.itemStatus(item, lq.Status)
			}
			return err
		})
	}
	o := orderIn(tl.layout, rf.sort)
	rd := reader{t: tl.t, teamID: tl.teamID, o: o}
	for i, e := range edges {
		b := &keyBounds{lo: *storeformat.Padded(br.Width, e.Lo), hi: *storeformat.Padded(br.Width, e.Hi)}
		for j, status := range lq.Status {
			g.Go(func() (err error) {
				seg := o.ranges(status+"#", b)[0]
				counts[len(runs)+i*len(lq.Status)+j], err = rd.count(gctx, seg.lo, seg.hi, nil)
				return err
			})
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
	if lq.Sort == "created_at" && br.PageLevel > 0 {
		ok, err := tl.bucketPage(ctx, &p, br, rf, lo, hi)
		if ok || err != nil {
			return p, true, err
		}
	}
	p.stream = &driver{sort: lq.Sort}
	if rf.sort == lq.Sort {
		p.stream.rng = &rf
	} else if p.total*p.total <= lq.Limit.Value*shards.status(lq.Status) {
		return talliedPage{}, false, nil
	}
	return p, true, nil
}

// bucketPage cuts a range's page in creation order from the items of the PageLevel buckets it
// holds whole (storeformat.Range.PageCover; each bucket's items of a status are in id order) and
// the matches of the buckets it holds in part (read from the range's index, when few), merged;
// ok is false when the range holds too many buckets, or too many matches in part.
func (tl tallier) bucketPage(ctx context.Context, p *talliedPage, br storeformat.Range, rf rangeFilter, lo, hi int64) (bool, error) {
	lq := tl.sp.lq
	words, rest, ok := br.PageCover(lo, hi, maxBucketStreams/len(lq.Status))
	if !ok {
		return false, nil
	}
	o := orderIn(tl.layout, rf.sort)
	var segs []segment
	for _, e := range rest {
		b := &keyBounds{lo: *storeformat.Padded(br.Width, e.Lo), hi: *storeformat.Padded(br.Width, e.Hi)}
		for _, status := range lq.Status {
			segs = append(segs, o.ranges(status+"#", b)...)
		}
	}
	parts, ends, err := readRanges(ctx, reader{t: tl.t, teamID: tl.teamID, o: o, project: []string{"pk", "sk", "id"}}, segs, maxPartMatches)
	if err != nil || slices.ContainsFunc(ends, func(k dynamo.PagingKey) bool { return k != nil }) {
		return false, err
	}
	var bases []string
	for _, w := range words {
		for _, status := range lq.Status {
			bases = append(bases, tl.layout.WordPrefix(status)+w+"#")
		}
	}
	// The matches in part, as one stream already read: in the list's order, after its position.
	held, after := &stream{}, orderKey(lq.After)
	for _, it := range parts {
		k := orderKey("1#" + attrString(it, "id"))
		if after == "" || compareOrder(k, after, lq.Desc) > 0 {
			held.buf = append(held.buf, streamed{item: it, key: k})
		}
	}
	sort.Slice(held.buf, func(i, j int) bool { return compareOrder(held.buf[i].key, held.buf[j].key, lq.Desc) < 0 })
	p.keep = conds{{attr: rf.attr, op: opMin, args: []any{lo}}, {attr: rf.attr, op: opMax, args: []any{hi}}}
	return true, tl.idPage(ctx, p, bases, held)
}

// counterTally sums counter items as readCounters does.
func counterTally(items []dynamo.Item) tally {
	out := tally{}
	for _, item := range items {
		owner, _ := storeformat.CounterOf(attrString(item, "sk"))
		for name := range item {
			if name != "pk" && name != "sk" {
				out.add(countKey{Item: owner, Attr: name}, storeformat.IntAttr(item, name))
			}
		}
	}
	return out
}

// itemStatus returns a counter item's number of records of the statuses.
func (t tally) itemStatus(item string, statuses []string) int {
	n := 0
	for _, s := range statuses {
		n += t[countKey{Item: item, Attr: s}]
	}
	return n
}
