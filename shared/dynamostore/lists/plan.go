package lists

import (
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// spec is one list query as the store serves it: the parameters every resource shares, and the
// conditions the kind's listing found in it.
type spec struct {
	lq     patio.ListQuery
	facets []facetFilter
	ranges []rangeFilter
	terms  []string
	unique *Unique
}

// facetFilter keeps the records with one of a facet's values.
type facetFilter struct {
	name, attr string
	closed     bool // counted in the status shards (a closed facet the write's transaction keeps)
	streamed   bool // its items and counts kept by the indexer
	values     []string
}

// rangeFilter keeps the records whose attribute lies within the bounds.
type rangeFilter struct {
	attr, sort string
	lo, hi     *Bound
}

// spec reads a query's conditions from the listing's declarations and the kind's facets.
func (l *Listing[T, Q]) spec(layout *storeformat.Layout, q Q) spec {
	sp := spec{lq: l.Query(q)}
	for _, f := range layout.Facets {
		if values := l.Filters[f.Name](q); values != nil {
			sp.facets = append(sp.facets, facetFilter{name: f.Name, attr: f.Attr, closed: f.Closed && !f.StreamCopies,
				streamed: f.StreamCopies || !f.Closed && layout.StreamFacets, values: values})
		}
	}
	for _, rf := range append(sharedRanges(l.Query), l.Ranges...) {
		if lo, hi := rf.Bounds(q); lo != nil || hi != nil {
			sp.ranges = append(sp.ranges, rangeFilter{attr: rf.Attr, sort: rf.Sort, lo: lo, hi: hi})
		}
	}
	if l.Terms != nil {
		sp.terms = l.Terms(q)
	}
	if l.Unique != nil {
		sp.unique = l.Unique(q)
	}
	return sp
}

// statusOnly reports a query with no condition but the statuses it shows.
func (sp spec) statusOnly() bool {
	return len(sp.facets) == 0 && len(sp.ranges) == 0 && len(sp.terms) == 0 && sp.unique == nil
}

// oneFacet reports a query with one facet filter (of one value or several) and no other
// condition but the status: its total is the facet's maintained count.
func (sp spec) oneFacet() bool {
	return len(sp.facets) == 1 && len(sp.ranges) == 0 && len(sp.terms) == 0 && sp.unique == nil
}

// conds returns every condition of the query but the status one.
func (sp spec) conds() conds {
	var out conds
	for _, f := range sp.facets {
		out = append(out, In(f.attr, f.values))
	}
	for _, r := range sp.ranges {
		if r.lo != nil {
			out = append(out, Cond{attr: r.attr, op: opMin, args: []any{r.lo.value}})
		}
		if r.hi != nil {
			out = append(out, Cond{attr: r.attr, op: opMax, args: []any{r.hi.value}})
		}
	}
	for _, t := range sp.terms {
		out = append(out, Cond{attr: wordsAttr, op: opWord, args: []any{t}})
	}
	if sp.unique != nil {
		out = append(out, sp.unique.Conds...)
	}
	return out
}

// withStatus returns every condition of the query, the status one included (for records read
// apart from their status's range).
func (sp spec) withStatus() conds { return append(sp.conds(), In("status", sp.lq.Status)) }

// driver is what a list reads to find its records: the rows' ranges or one facet's items, in one
// order, within a range's key bounds or whole; or, for q alone, the word items of its first term.
type driver struct {
	facet *facetFilter
	rng   *rangeFilter
	sort  string
	words bool
}

// bounds returns the driver's key bounds in its order, nil when it reads whole ranges.
func (d driver) bounds() *keyBounds {
	if d.rng == nil {
		return nil
	}
	var b keyBounds
	if d.rng.lo != nil {
		b.lo = d.rng.lo.key
	}
	if d.rng.hi != nil {
		b.hi = d.rng.hi.key
	}
	return &b
}

// rest returns the conditions a driver's items do not meet by construction: a facet's items hold
// its values and a range's bounds its values (the creation order's bounds are ids, which the
// created_at condition keeps exact).
func (d driver) rest(all conds) conds {
	switch {
	case d.facet != nil:
		return all.without(d.facet.attr)
	case d.rng != nil && d.rng.sort != "created_at":
		return all.without(d.rng.attr)
	}
	return all
}

// plan is how a list is served: the driver its page is read from in the list's order, and the
// driver its total is counted over, none when the maintained counts tell it.
type plan struct {
	page  driver
	count *driver
}

// planList chooses a list's drivers (docs/storage.md, "Plans"): its page from the facet with the
// fewest records, else a range on the sort field, else the rows; its total from the counts for a
// status or one facet, else over the most selective filter (the facet with the fewest records, q's
// word items for q alone, or a range: updated_since first, the changes since being what a sync
// asks for).
func planList(sp spec, t Tally) plan {
	statuses := sp.lq.Status
	var fewest *facetFilter
	for i := range sp.facets {
		if f := &sp.facets[i]; fewest == nil || t.facet(*f, statuses) < t.facet(*fewest, statuses) {
			fewest = f
		}
	}
	var p plan
	switch {
	case fewest != nil:
		p.page = driver{facet: fewest, sort: sp.lq.Sort}
	case sp.rangeOn(sp.lq.Sort) != nil:
		p.page = driver{rng: sp.rangeOn(sp.lq.Sort), sort: sp.lq.Sort}
	default:
		p.page = driver{sort: sp.lq.Sort}
	}
	switch {
	case len(sp.ranges) == 0 && len(sp.terms) == 0 && len(sp.facets) <= 1:
	case fewest != nil:
		p.count = &driver{facet: fewest, sort: "created_at"}
	case len(sp.ranges) == 0:
		p.count = &driver{words: true}
	case sp.rangeOn("updated_at") != nil:
		p.count = &driver{rng: sp.rangeOn("updated_at"), sort: "updated_at"}
	case sp.rangeOn(sp.lq.Sort) != nil:
		p.count = &p.page
	default:
		p.count = &driver{rng: &sp.ranges[len(sp.ranges)-1], sort: sp.ranges[len(sp.ranges)-1].sort}
	}
	return p
}

// rangeOn returns the query's range on a sort field's value, or nil.
func (sp spec) rangeOn(sort string) *rangeFilter {
	for i, r := range sp.ranges {
		if r.sort == sort {
			return &sp.ranges[i]
		}
	}
	return nil
}
