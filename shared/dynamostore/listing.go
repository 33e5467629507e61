package dynamostore

import (
	"fmt"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// listing declares how a kind's records are listed (docs/storage.md, "Filters, search and sync
// at the cost of their page"): what a query asks of the items a record keeps beside its row
// (storeformat.Layout). records serves every kind's lists from its listing; no filter is coded per field.
type listing[T, Q any] struct {
	// statuses are every status of the kind.
	statuses []string
	// filters returns, for each of the kind's facets (storeformat.Layout.Facets) by name, the
	// values a query keeps (any of them), nil when it does not filter by it.
	filters map[string]func(Q) []string
	ranges  []rangeField[Q]
	// unique returns the unique value a query filters by (a plate, a CPF), or nil.
	unique func(Q) *uniqueFilter
	// words returns the words q searches in a record (patio.Vehicle.Words, ...); nil when the
	// resource has no q. terms returns a query's terms.
	words func(T) []string
	terms func(Q) []string
	// query returns the list parameters every resource shares.
	query func(Q) patio.ListQuery
}

// rangeField is a range filter on one attribute.
type rangeField[Q any] struct {
	attr string // the row attribute compared
	sort string // the sort whose index orders records by the same value, or ""
	// bounds returns a query's inclusive bounds, nil for an open side.
	bounds func(Q) (lo, hi *bound)
}

// bound is one end of a range: value as the attribute stores it (an int64 or a string), key as
// the sort's index keys encode it.
type bound struct {
	value any
	key   string
}

// uniqueFilter is a filter by a value a guard item reserves: at most one record holds it.
type uniqueFilter struct {
	guard string // the guard item's sort key
	conds conds  // the conditions on the record (of every unique filter the query has)
}

// sharedRanges are the range filters of every resource: created_from/created_to (inclusive UTC
// days) and updated_since.
func sharedRanges[Q any](query func(Q) patio.ListQuery) []rangeField[Q] {
	return []rangeField[Q]{
		{attr: "created_at", sort: "created_at", bounds: func(q Q) (lo, hi *bound) {
			lq := query(q)
			if lq.CreatedFrom != nil {
				lo = &bound{value: lq.CreatedFrom.Start().Format(patio.TimestampLayout), key: idAt(lq.CreatedFrom.Start())}
			}
			if lq.CreatedTo != nil {
				end := lq.CreatedTo.Start().Add(24 * time.Hour)
				hi = &bound{value: end.Add(-time.Second).Format(patio.TimestampLayout), key: idAt(end)}
			}
			return lo, hi
		}},
		{attr: "updated_at", sort: "updated_at", bounds: func(q Q) (lo, hi *bound) {
			if since := query(q).UpdatedSince; since != nil {
				lo = &bound{value: since.String(), key: since.String()}
			}
			return lo, nil
		}},
	}
}

// idAt is where the ids of records created at t start: a UUIDv7 begins with its instant in
// milliseconds, 12 hexadecimal digits, so ids sort by creation (patio.NewID). No id equals it.
func idAt(t time.Time) string {
	const hex = "0123456789abcdef"
	ms := uint64(t.UnixMilli())
	out := make([]byte, 0, 13)
	for i := 11; i >= 0; i-- {
		out = append(out, hex[(ms>>(4*uint(i)))&0xf])
		if i == 4 {
			out = append(out, '-')
		}
	}
	return string(out)
}

// centsBound is a money filter's bound (money is stored in cents, its sort keys padded to 12
// digits).
func centsBound(c *money.Cents) *bound {
	if c == nil {
		return nil
	}
	return &bound{value: int64(*c), key: *storeformat.Padded(12, int64(*c))}
}

// intBound is an integer filter's bound, its sort keys padded to width digits.
func intBound(n *int, width int) *bound {
	if n == nil {
		return nil
	}
	return &bound{value: int64(*n), key: *storeformat.Padded(width, int64(*n))}
}

// textBound is a bound on a text attribute stored as its sort keys encode it (timestamps, dates).
func textBound[V fmt.Stringer](v *V) *bound {
	if v == nil {
		return nil
	}
	return &bound{value: (*v).String(), key: (*v).String()}
}

// one is a single-value filter's values: nil when not set.
func one(v *string) []string {
	if v == nil {
		return nil
	}
	return []string{*v}
}
