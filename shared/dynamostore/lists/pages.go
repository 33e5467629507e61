package lists

import (
	"cmp"
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"golang.org/x/sync/errgroup"
)

// How a page is read (docs/storage.md, "Lists at any size"): each status a list shows has its own
// range in every index (index sort keys start with the status) and in the base table's order
// items, and so has each facet value's items; a page reads the ranges of its driver (the rows, or
// one facet's values) for each shown status, in order, and merges them, so it reads about k ×
// limit items for k ranges, whatever the team's history. A position (a cursor's) is the order key
// of the last record served, the same whatever the driver: a following page reads each range from
// just after it, at a cost that does not depend on depth.

// orderKey is an item's place in a list's order, without its range's prefix: "1#<value>\x01<id>"
// or "0#<id>" in an index, "1#<id>" for creation order. Records with a value come first in either
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

// order says where a sort's order lives: an index's sort attribute, or the base table's sort key
// (creation order, of the order items and the facet items).
type order struct {
	index, attr string // attr "sk" with index "" for the base table
	optional    bool   // records may lack the value: the 0# range follows the 1# range
}

func (r Lister[T, R, Q]) order(sort string) order { return orderIn(r.k.Layout, sort) }

// orderIn is where a sort's order lives in a layout.
func orderIn(l *storeformat.Layout, sort string) order {
	ix := l.Sorts[sort]
	if ix.Index == "" {
		return order{attr: "sk"}
	}
	return order{index: ix.Index, attr: ix.Attr, optional: ix.Optional}
}

// keyBounds bound the values of a range in the order's keys (an index's value, the base table's
// id); "" leaves a side open.
type keyBounds struct{ lo, hi string }

// segment is one contiguous range of a stream in a list's order: its inclusive bounds, the
// prefix of its keys (the part an order key leaves out) and its part of the order ('1' with a
// value, '0' without).
type segment struct {
	lo, hi string
	base   string
	seg    byte
}

// ranges returns the segments of one range prefix (the rows' or a facet value's, ending with the
// status and "#"), in the list's order; bounds keep only the records whose value lies within them.
func (o order) ranges(base string, b *keyBounds) []segment {
	top := "\U0010FFFF"
	if o.index == "" {
		s := segment{lo: base, hi: base + top, base: base, seg: '1'}
		if b != nil {
			s.lo += b.lo
			if b.hi != "" {
				s.hi = base + b.hi
			}
		}
		return []segment{s}
	}
	one := segment{lo: base + "1#", hi: base + "1$", base: base, seg: '1'}
	if b != nil {
		one.lo += b.lo
		if b.hi != "" {
			one.hi = base + "1#" + b.hi + "\x01" + top
		}
		return []segment{one}
	}
	if !o.optional {
		return []segment{one}
	}
	return []segment{one, {lo: base + "0#", hi: base + "0$", base: base, seg: '0'}}
}

// key returns an item's order key from its sort attribute's value.
func (o order) key(s segment, value string) orderKey {
	rest := strings.TrimPrefix(value, s.base)
	if o.index == "" {
		return orderKey("1#" + rest)
	}
	return orderKey(rest)
}

// reader reads items of one table partition in one order.
type reader struct {
	t       dynamo.Table
	teamID  string
	o       order
	desc    bool
	filter  conds
	project []string // the attributes read (nil: whole items)
}

func (rd reader) query(lo, hi string) *dynamo.Query {
	q := rd.t.Get("pk", rd.teamID).Consistent(true).Range(rd.o.attr, dynamo.Between, lo, hi)
	if rd.o.index != "" {
		q = q.Index(rd.o.index)
	}
	if rd.desc {
		q = q.Order(dynamo.Descending)
	}
	return rd.filter.apply(q)
}

// read returns the items that pass the filter among the next at most limit items (examined) of a
// range from start, and where it stopped (nil at its end).
func (rd reader) read(ctx context.Context, lo, hi string, start dynamo.PagingKey, limit int) ([]dynamo.Item, dynamo.PagingKey, error) {
	q := rd.query(lo, hi).SearchLimit(limit)
	if rd.project != nil {
		q = q.Project(rd.project...)
	}
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

// count counts the items of a range from start that pass the filter (a COUNT query: nothing
// transferred).
func (rd reader) count(ctx context.Context, lo, hi string, start dynamo.PagingKey) (int, error) {
	q := rd.query(lo, hi)
	if start != nil {
		q = q.StartFrom(start)
	}
	return q.Count(ctx)
}

// stream reads one range prefix's records in the list's order, a batch at a time, from just after
// a position. It hands out items as read: only those a page keeps are decoded (a page reads up to
// k × limit items to keep limit of them).
type stream struct {
	rd    reader
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
func (st *stream) next(ctx context.Context) (streamed, bool, error) {
	for len(st.buf) == 0 {
		if len(st.segs) == 0 {
			return streamed{}, false, nil
		}
		seg := st.segs[0]
		lo, hi := seg.lo, seg.hi
		if st.after != "" && st.after[0] == seg.seg {
			// Resume inside this segment: the position's own item is skipped below.
			pos := seg.base + string(st.after)
			if st.rd.o.index == "" {
				pos = seg.base + string(st.after[2:])
			}
			if st.rd.desc {
				hi = min(hi, pos)
			} else {
				lo = max(lo, pos)
			}
		}
		items, lek, err := st.rd.read(ctx, lo, hi, st.start, st.batch)
		if err != nil {
			return streamed{}, false, err
		}
		for _, it := range items {
			k := st.rd.o.key(seg, storecore.AttrString(it, st.rd.o.attr))
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

// merged reads the offset-th to (offset+limit)-th records after a position, merged from the
// streams' ranges in the list's order: the page's items and the order key of its last.
func merged(ctx context.Context, streams []*stream, desc bool, offset, limit int) ([]dynamo.Item, orderKey, error) {
	heads := make([]*streamed, len(streams))
	fill := func(i int) error {
		s, ok, err := streams[i].next(ctx)
		heads[i] = nil
		if ok {
			heads[i] = &s
		}
		return err
	}
	g, _ := errgroup.WithContext(ctx)
	for i := range streams {
		g.Go(func() error { return fill(i) })
	}
	if err := g.Wait(); err != nil {
		return nil, "", err
	}
	var out []dynamo.Item
	var last orderKey
	for seen := 0; seen < offset+limit; seen++ {
		best := -1
		for i, h := range heads {
			if h != nil && (best < 0 || compareOrder(h.key, heads[best].key, desc) < 0) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		if seen >= offset {
			out = append(out, heads[best].item)
			last = heads[best].key
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
