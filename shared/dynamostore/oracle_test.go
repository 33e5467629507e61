package dynamostore_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// The lists are checked against an oracle: the answer computed from every record of the team, in
// memory, from the domain's fields alone (the list rules openapi.yaml states): the records a
// query keeps, in its order (a value's order, records without one last in either direction, ties
// broken by id in the direction of the sort), walked page by page with cursors and reached by page
// number, each page's total compared.

// oracle describes one resource's records to the oracle.
type oracle[T any] struct {
	id     func(T) string
	status func(T) string
	// value returns a record's value in a sort field as a string that orders like the value, and
	// false when the record has none.
	value func(rec T, field string) (string, bool)
	// shown are the statuses a list shows without a status filter.
	shown []string
}

// listCase is one query and the records it keeps, beside the statuses it shows.
type listCase[Q any, T any] struct {
	name string
	q    Q
	keep func(T) bool
}

// lister is a resource's use cases, as the oracle calls them.
type lister[T, Q any] interface {
	List(ctx context.Context, teamID string, q Q) (patio.Page[T], error)
}

// want is the oracle's answer to a query.
func (o oracle[T]) want(all []T, lq patio.ListQuery, keep func(T) bool) []T {
	statuses := lq.Status
	if len(statuses) == 0 {
		statuses = o.shown
		if lq.UpdatedSince != nil {
			statuses = nil // every status
		}
	}
	var out []T
	for _, r := range all {
		if (statuses == nil || slices.Contains(statuses, o.status(r))) && (keep == nil || keep(r)) {
			out = append(out, r)
		}
	}
	field, desc := cmp.Or(lq.Sort, "created_at"), lq.Desc || lq.Sort == ""
	slices.SortFunc(out, func(a, b T) int {
		va, oka := o.value(a, field)
		vb, okb := o.value(b, field)
		if oka != okb {
			if oka {
				return -1
			}
			return 1
		}
		c := cmp.Or(strings.Compare(va, vb), strings.Compare(o.id(a), o.id(b)))
		if desc {
			return -c
		}
		return c
	})
	return out
}

// checkLists runs every case against the oracle: the whole list walked with cursors (limit 7),
// and the second page reached by number; both when the lists cut their pages from few matches
// and when they never do.
func checkLists[T, Q any](t *testing.T, svc lister[T, Q], teamID string, o oracle[T], all []T, cases []listCase[Q, T],
	listQuery func(*Q) *patio.ListQuery) {
	t.Helper()
	caughtUp(t)
	for _, few := range []int{100, 0} {
		t.Run(fmt.Sprintf("few=%d", few), func(t *testing.T) {
			dynamostore.ServeFewMatchesUpTo(t, few)
			checkCases(t, svc, teamID, o, all, cases, listQuery)
		})
	}
}

func checkCases[T, Q any](t *testing.T, svc lister[T, Q], teamID string, o oracle[T], all []T, cases []listCase[Q, T],
	listQuery func(*Q) *patio.ListQuery) {
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := c.q
			lq := listQuery(&q)
			want := o.want(all, *lq, c.keep)
			lq.Limit = patio.Some(7)
			var got []string
			for page := 1; ; page++ {
				p, err := svc.List(ctx, teamID, q)
				if err != nil {
					t.Fatalf("List(%s) page %d = %v", c.name, page, err)
				}
				if p.Total != len(want) {
					t.Errorf("List(%s) page %d total = %d; want %d", c.name, page, p.Total, len(want))
				}
				for _, r := range p.Items {
					got = append(got, o.id(r))
				}
				if p.Next == "" || page > len(want) {
					break
				}
				lq.After, lq.Page = p.Next, patio.Some(page+1)
			}
			if wantIDs := ids(o, want); !slices.Equal(got, wantIDs) {
				t.Errorf("List(%s) walked by cursor =\n%v;\nwant %v", c.name, got, wantIDs)
			}
			lq.After, lq.Page = "", patio.Some(2)
			p, err := svc.List(ctx, teamID, q)
			if wantPage := ids(o, want[min(7, len(want)):min(14, len(want))]); err != nil || !slices.Equal(ids(o, p.Items), wantPage) {
				t.Errorf("List(%s) page 2 = %v, %v; want %v", c.name, ids(o, p.Items), err, wantPage)
			}
		})
	}
}

func ids[T any](o oracle[T], recs []T) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = o.id(r)
	}
	return out
}

// orderedInt is an optional integer as a string that orders like it.
func orderedInt(n *int) (string, bool) {
	if n == nil {
		return "", false
	}
	return fmt.Sprintf("%020d", *n), true
}

var vehicleOracle = oracle[patio.Vehicle]{
	id:     func(v patio.Vehicle) string { return v.ID },
	status: func(v patio.Vehicle) string { return string(v.Status) },
	shown:  []string{string(patio.VehicleActive), string(patio.VehicleReserved), string(patio.VehicleSold)},
	value: func(v patio.Vehicle, field string) (string, bool) {
		switch field {
		case "created_at":
			return v.ID, true // UUIDv7: creation order
		case "updated_at":
			return v.UpdatedAt.String(), true
		case "price":
			return fmt.Sprintf("%020d", v.Price), true
		case "title":
			return patio.Fold(v.Title), true
		case "model_year":
			return orderedInt(v.ModelYear)
		case "mileage_km":
			return orderedInt(v.MileageKm)
		}
		panic(field)
	},
}

// matchesQ is the oracle's q: every term starts a word of the record's.
func matchesQ(words []string, q string) bool { return patio.MatchesTerms(words, patio.Words(q)) }
