package dynamostore

import (
	"context"
	"slices"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Totals of q and of a range from the indexer's counts (docs/storage.md, "Totals of q and
// ranges"; storeformat's tallies.go): q of one term whose words in the team are one word, and a
// range alone on a counted attribute, when the indexer has counted every record of the shown
// statuses (counted), read their total from a few counter items (and a range's edges from its
// index) rather than from their matches.

// wordProbe bounds the word counters q's term reads to learn whether it starts one word of the
// team's only: two words' shards, and some.
const wordProbe = 4 * countShards

// talliedList serves q alone and a counted range alone by their counts; ok is false for
// another query, or when the partition's records are not all counted or q's term starts several
// words (the plan serves it then, counting its matches).
func (r lister[T, R, Q]) talliedList(ctx context.Context, teamID string, sp spec) (patio.Listed[T], bool, error) {
	l := r.k.layout
	if !l.Tallies || len(sp.facets) > 0 || sp.unique != nil || len(sp.terms)+len(sp.ranges) != 1 {
		return patio.Listed[T]{}, false, nil
	}
	if len(sp.terms) == 1 {
		return r.termList(ctx, teamID, sp)
	}
	for _, br := range l.Ranges {
		if br.Name == sp.ranges[0].sort {
			return r.rangeList(ctx, teamID, sp, br)
		}
	}
	return patio.Listed[T]{}, false, nil
}

// counted reads the status shards and the indexer's count of the records it counted
// (storeformat.CountedItem), and reports whether the counts hold every record of the shown
// statuses: the partition has every family complete and, for each shown status, the indexer has
// counted as many records as the status shards hold (it has caught up with their creations and
// status changes; until then the plan counts the matches).
func (r lister[T, R, Q]) counted(ctx context.Context, teamID string, statuses []string) (tally, bool, error) {
	t, err := r.s.tallies(ctx, r.table(), teamID, true, []string{storeformat.CountedItem})
	if err != nil {
		return nil, false, err
	}
	ok := t.complete(r.k.list.statuses)
	for _, s := range statuses {
		ok = ok && t.itemStatus(storeformat.CountedItem, []string{s}) == t.status([]string{s})
	}
	return t, ok, nil
}

// termList serves q of one term: when the term starts one word of the team's only (its counter
// items, read up to wordProbe), that word's count is the total, and in creation order the page is
// read from the word's items, merged from each shown status's range.
func (r lister[T, R, Q]) termList(ctx context.Context, teamID string, sp spec) (patio.Listed[T], bool, error) {
	var (
		complete, more bool
		words          tally
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		_, complete, err = r.counted(gctx, teamID, sp.lq.Status)
		return err
	})
	g.Go(func() error {
		lo := storeformat.FacetCountPrefix + storeformat.WordCountPrefix(sp.terms[0])
		rd := reader{t: r.table(), teamID: teamID, o: order{attr: "sk"}}
		items, lek, err := rd.read(gctx, lo, lo+"\U0010FFFF", nil, wordProbe)
		words, more = counterTally(items), lek != nil
		return err
	})
	if err := g.Wait(); err != nil || !complete || more {
		return patio.Listed[T]{}, false, err
	}
	var found []string
	for _, item := range words.items() {
		if n := words.itemStatus(item, sp.lq.Status); n > 0 {
			found = append(found, item)
		}
	}
	switch {
	case len(found) == 0:
		return patio.Listed[T]{}, true, nil
	case len(found) > 1:
		return patio.Listed[T]{}, false, nil
	}
	total := words.itemStatus(found[0], sp.lq.Status)
	if sp.lq.Sort != "created_at" {
		if total <= fewPerRange*len(sp.lq.Status) {
			out, err := r.wordsList(ctx, teamID, sp)
			return out, true, err
		}
		items, after, err := r.streamPage(ctx, teamID, sp.lq, driver{sort: sp.lq.Sort}, sp.conds())
		return patio.Listed[T]{Items: items, Total: total, After: after}, true, err
	}
	word := found[0][len(storeformat.WordCountPrefix("")):]
	out, err := r.wordPage(ctx, teamID, sp.lq, word)
	out.Total = total
	return out, true, err
}

// wordPage reads a page in creation order from one word's items: each shown status's range is
// in id order, so the page is merged from their first items, and only its records are read.
func (r lister[T, R, Q]) wordPage(ctx context.Context, teamID string, lq patio.ListQuery, word string) (patio.Listed[T], error) {
	rd := reader{t: r.table(), teamID: teamID, o: order{attr: "sk"}, desc: lq.Desc}
	offset := 0
	if lq.After == "" {
		offset = lq.Offset()
	}
	after := orderKey(lq.After)
	first := offset + lq.Limit.Value
	if after != "" {
		first++
	}
	var streams []*stream
	for _, status := range lq.Status {
		base := r.k.layout.WordPrefix(status) + word + "#"
		streams = append(streams, &stream{rd: rd, segs: skipSegmentsBefore(rd.o.ranges(base, nil), after), after: after,
			batch: min(max(first, 10), 1000)})
	}
	items, last, err := merged(ctx, streams, lq.Desc, offset, lq.Limit.Value)
	if err != nil {
		return patio.Listed[T]{}, err
	}
	recs, err := r.fetch(ctx, teamID, wordItemIDs(items))
	return patio.Listed[T]{Items: recs, After: string(last)}, err
}

// rangeList serves a range alone on a counted attribute: its total is its whole buckets' counts
// (storeformat.Range.Cover: a few runs of counter items) and its edges' records, counted in the
// attribute's index. In the range's own order its page is read in order; in another, from the
// list's order with the range as a filter when that reads fewer items than the matches (limit ×
// the records shown ÷ the matches), else the plan reads the matches.
func (r lister[T, R, Q]) rangeList(ctx context.Context, teamID string, sp spec, br storeformat.Range) (patio.Listed[T], bool, error) {
	rf := sp.ranges[0]
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
	counts := make([]int, len(runs)+len(edges)*len(sp.lq.Status))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		shards, complete, err = r.counted(gctx, teamID, sp.lq.Status)
		return err
	})
	for i, run := range runs {
		g.Go(func() error {
			clo, chi := run.Counters()
			t, err := readCounters(gctx, r.table(), teamID, clo, chi)
			for _, item := range t.items() {
				counts[i] += t.itemStatus(item, sp.lq.Status)
			}
			return err
		})
	}
	o := r.order(rf.sort)
	rd := reader{t: r.table(), teamID: teamID, o: o}
	for i, e := range edges {
		b := &keyBounds{lo: *storeformat.Padded(br.Width, e.Lo), hi: *storeformat.Padded(br.Width, e.Hi)}
		for j, status := range sp.lq.Status {
			g.Go(func() (err error) {
				seg := o.ranges(status+"#", b)[0]
				counts[len(runs)+i*len(sp.lq.Status)+j], err = rd.count(gctx, seg.lo, seg.hi, nil)
				return err
			})
		}
	}
	if err := g.Wait(); err != nil || !complete {
		return patio.Listed[T]{}, false, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if lo > hi || total == 0 {
		return patio.Listed[T]{}, true, nil
	}
	if sp.lq.Sort == "created_at" && br.PageLevel > 0 {
		out, ok, err := r.bucketPage(ctx, teamID, sp.lq, br, rf, lo, hi)
		if ok || err != nil {
			out.Total = total
			return out, true, err
		}
	}
	page := driver{sort: sp.lq.Sort}
	if rf.sort == sp.lq.Sort {
		page.rng = &rf
	} else if total*total <= sp.lq.Limit.Value*shards.status(sp.lq.Status) {
		return patio.Listed[T]{}, false, nil
	}
	items, after, err := r.streamPage(ctx, teamID, sp.lq, page, page.rest(sp.conds()))
	return patio.Listed[T]{Items: items, Total: total, After: after}, true, err
}

// Bounds of a range's page read from its buckets' items (bucketPage): the ranges merged (a whole
// bucket's items per shown status), and the matches of the buckets it holds in part, read whole.
const (
	maxBucketStreams = 12
	maxPartMatches   = 100
)

// bucketPage reads a range's page in creation order from the items of the PageLevel buckets it
// holds whole (storeformat.Range.PageCover; each bucket's items of a status are in id order) and
// the matches of the buckets it holds in part (read from the range's index, when few), merged;
// only the page's records are read. ok is false when the range holds too many buckets, or too
// many matches in part.
func (r lister[T, R, Q]) bucketPage(ctx context.Context, teamID string, lq patio.ListQuery, br storeformat.Range, rf rangeFilter,
	lo, hi int64) (patio.Listed[T], bool, error) {
	words, rest, ok := br.PageCover(lo, hi, maxBucketStreams/len(lq.Status))
	if !ok {
		return patio.Listed[T]{}, false, nil
	}
	o := r.order(rf.sort)
	var segs []segment
	for _, e := range rest {
		b := &keyBounds{lo: *storeformat.Padded(br.Width, e.Lo), hi: *storeformat.Padded(br.Width, e.Hi)}
		for _, status := range lq.Status {
			segs = append(segs, o.ranges(status+"#", b)...)
		}
	}
	parts, ends, err := readRanges(ctx, reader{t: r.table(), teamID: teamID, o: o, project: []string{"pk", "sk", "id"}}, segs, maxPartMatches)
	if err != nil || slices.ContainsFunc(ends, func(k dynamo.PagingKey) bool { return k != nil }) {
		return patio.Listed[T]{}, false, err
	}
	after := orderKey(lq.After)
	offset := 0
	if after == "" {
		offset = lq.Offset()
	}
	first := offset + lq.Limit.Value + 1
	rd := reader{t: r.table(), teamID: teamID, o: order{attr: "sk"}, desc: lq.Desc}
	var streams []*stream
	for _, w := range words {
		for _, status := range lq.Status {
			base := r.k.layout.WordPrefix(status) + w + "#"
			streams = append(streams, &stream{rd: rd, segs: skipSegmentsBefore(rd.o.ranges(base, nil), after), after: after,
				batch: min(max(first, 10), 1000)})
		}
	}
	// The matches in part, as one stream already read: in the list's order, after its position.
	held := &stream{}
	for _, it := range parts {
		k := orderKey("1#" + attrString(it, "id"))
		if after == "" || compareOrder(k, after, lq.Desc) > 0 {
			held.buf = append(held.buf, streamed{item: it, key: k})
		}
	}
	slices.SortFunc(held.buf, func(a, b streamed) int { return compareOrder(a.key, b.key, lq.Desc) })
	items, last, err := merged(ctx, append(streams, held), lq.Desc, offset, lq.Limit.Value)
	if err != nil {
		return patio.Listed[T]{}, false, err
	}
	recs, err := r.fetch(ctx, teamID, wordItemIDs(items))
	return patio.Listed[T]{Items: recs, After: string(last)}, true, err
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
