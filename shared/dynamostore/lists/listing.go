package lists

import (
	"fmt"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Listing declares how a kind's records are listed (docs/storage.md, "Filters, search and sync
// at the cost of their page"): what a query asks of the items a record keeps beside its row
// (storeformat.Layout). The engine serves every kind's lists from its listing; no filter is coded
// per field.
type Listing[T, Q any] struct {
	// Statuses are every status of the kind.
	Statuses []string
	// Filters returns, for each of the kind's facets (storeformat.Layout.Facets) by name, the
	// values a query keeps (any of them), nil when it does not filter by it.
	Filters map[string]func(Q) []string
	Ranges  []Range[Q]
	// Unique returns the unique value a query filters by (a plate, a CPF), or nil.
	Unique func(Q) *Unique
	// Words returns the words q searches in a record (patio.Vehicle.Words, ...); nil when the
	// resource has no q. Terms returns a query's terms.
	Words func(T) []string
	Terms func(Q) []string
	// Query returns the list parameters every resource shares.
	Query func(Q) patio.ListQuery
}

// Range is a range filter on one attribute.
type Range[Q any] struct {
	Attr string // the row attribute compared
	Sort string // the sort whose index orders records by the same value, or ""
	// Bounds returns a query's inclusive bounds, nil for an open side.
	Bounds func(Q) (lo, hi *Bound)
}

// Bound is one end of a range: value as the attribute stores it (an int64 or a string), key as
// the sort's index keys encode it. CentsBound, IntBound and TextBound make them.
type Bound struct {
	value any
	key   string
}

// Unique is a filter by a value a guard item reserves: at most one record holds it.
type Unique struct {
	Guard string // the guard item's sort key
	Conds []Cond // the conditions on the record (of every unique filter the query has)
}

// sharedRanges are the range filters of every resource: created_from/created_to (inclusive UTC
// days) and updated_since.
func sharedRanges[Q any](query func(Q) patio.ListQuery) []Range[Q] {
	return []Range[Q]{
		{Attr: "created_at", Sort: "created_at", Bounds: func(q Q) (lo, hi *Bound) {
			lq := query(q)
			if lq.CreatedFrom != nil {
				lo = &Bound{value: lq.CreatedFrom.Start().Format(patio.TimestampLayout), key: idAt(lq.CreatedFrom.Start())}
			}
			if lq.CreatedTo != nil {
				end := lq.CreatedTo.Start().Add(24 * time.Hour)
				hi = &Bound{value: end.Add(-time.Second).Format(patio.TimestampLayout), key: idAt(end)}
			}
			return lo, hi
		}},
		{Attr: "updated_at", Sort: "updated_at", Bounds: func(q Q) (lo, hi *Bound) {
			if since := query(q).UpdatedSince; since != nil {
				lo = &Bound{value: since.String(), key: since.String()}
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

// CentsBound is a money filter's bound (money is stored in cents, its sort keys padded to 12
// digits), nil when not set.
func CentsBound(c *money.Cents) *Bound {
	if c == nil {
		return nil
	}
	return &Bound{value: int64(*c), key: *storeformat.Padded(12, int64(*c))}
}

// IntBound is an integer filter's bound, its sort keys padded to width digits, nil when not set.
func IntBound(n *int, width int) *Bound {
	if n == nil {
		return nil
	}
	return &Bound{value: int64(*n), key: *storeformat.Padded(width, int64(*n))}
}

// TextBound is a bound on a text attribute stored as its sort keys encode it (timestamps, dates),
// nil when not set.
func TextBound[V fmt.Stringer](v *V) *Bound {
	if v == nil {
		return nil
	}
	return &Bound{value: (*v).String(), key: (*v).String()}
}

// One is a single-value filter's values: nil when not set.
func One(v *string) []string {
	if v == nil {
		return nil
	}
	return []string{*v}
}
