package dynamostore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// sortKey builds an index sort key: "1#<value>\x01<id>" when the record has a value, "0#<id>" when
// it has none. The id breaks ties in the direction of the sort; the 0#/1# split lets a list read
// records without a value after the others, in either direction (docs/storage.md).
func sortKey(value *string, id string) string {
	if value == nil {
		return "0#" + id
	}
	return "1#" + strings.Map(func(r rune) rune {
		if r < 0x20 {
			return -1
		}
		return r
	}, *value) + "\x01" + id
}

func padded(width int, n int64) *string { s := fmt.Sprintf("%0*d", width, n); return &s }

func foldedText(s string) *string { f := patio.Fold(s); return &f }

// sortIndex says how to read a table in the order of one sort field.
type sortIndex struct {
	index    string // "" for the base table (created_at: ids are UUIDv7)
	attr     string // the index's sort key attribute
	optional bool   // records may lack the value: read the 0# range after the 1# range
}

// filter accumulates a DynamoDB filter expression in guregu/dynamo's placeholder syntax.
type filter struct {
	parts []string
	args  []any
}

func (f *filter) add(expr string, args ...any) {
	f.parts = append(f.parts, expr)
	f.args = append(f.args, args...)
}

// in adds "attr IN (...)"; an empty list adds nothing.
func (f *filter) in(attr string, values []string) {
	if len(values) == 0 {
		return
	}
	marks, args := placeholders(values)
	f.add("'"+attr+"' IN ("+marks+")", args...)
}

// eq adds "attr = value" when value is set.
func (f *filter) eq(attr string, value *string) {
	if value != nil {
		f.add("'"+attr+"' = ?", *value)
	}
}

// cents compares a money attribute (stored in cents) with a bound, when set.
func (f *filter) cents(attr, op string, bound *money.Cents) {
	if bound != nil {
		f.add("'"+attr+"' "+op+" ?", int64(*bound))
	}
}

// common adds the filters every resource shares: status and the created_at day range.
func (f *filter) common(q patio.ListQuery) {
	f.in("status", q.Status)
	if q.CreatedFrom != nil {
		f.add("'created_at' >= ?", q.CreatedFrom.Start().Format(patio.TimestampLayout))
	}
	if q.CreatedTo != nil {
		f.add("'created_at' < ?", q.CreatedTo.Start().Add(24*time.Hour).Format(patio.TimestampLayout))
	}
}

func (f *filter) apply(q *dynamo.Query) *dynamo.Query {
	if len(f.parts) == 0 {
		return q
	}
	return q.Filter(strings.Join(f.parts, " AND "), f.args...)
}

// listPage reads one page of a team's records in sort order, and the total that match the filter.
// It never scans: every read is a Query on the team's partition. The total is a COUNT query (no
// items transferred); the page reads the index in order and keeps only the requested records.
func listPage[R any](ctx context.Context, table dynamo.Table, teamID, prefix string, ix sortIndex,
	desc bool, f filter, offset, limit int) ([]R, int, error) {
	order := dynamo.Ascending
	if desc {
		order = dynamo.Descending
	}
	segment := func(i int) *dynamo.Query {
		q := table.Get("pk", teamID).Consistent(true).Order(order)
		switch {
		case ix.index == "":
			q = q.Range("sk", dynamo.BeginsWith, prefix)
		case i == 0:
			q = q.Index(ix.index).Range(ix.attr, dynamo.BeginsWith, "1#")
		default:
			q = q.Index(ix.index).Range(ix.attr, dynamo.BeginsWith, "0#")
		}
		return f.apply(q)
	}
	segments := 1
	if ix.optional {
		segments = 2
	}

	counts := make([]int, segments)
	g, gctx := errgroup.WithContext(ctx)
	for i := range segments {
		g.Go(func() error {
			n, err := segment(i).Count(gctx)
			counts[i] = n
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}

	items := make([]R, 0, limit)
	skip := offset
	for i := 0; i < segments && len(items) < limit; i++ {
		if skip >= counts[i] {
			skip -= counts[i]
			continue
		}
		want := skip + limit - len(items)
		got, err := readWindow[R](ctx, segment(i), skip, want)
		if err != nil {
			return nil, 0, err
		}
		items = append(items, got...)
		skip = 0
	}
	return items, total, nil
}

// readWindow reads q in order until it has seen want matching records and returns those after the
// first skip. Each request examines at most a batch of records (DynamoDB's Limit, which applies
// before the filter), starting at want and doubling, so a first page of 20 reads about 20 items
// rather than a full 1 MB page, and a selective filter still needs few round trips.
func readWindow[R any](ctx context.Context, q *dynamo.Query, skip, want int) ([]R, error) {
	var out []R
	var start dynamo.PagingKey
	seen, batch := 0, max(want, 10)
	for seen < want {
		page := q
		if start != nil {
			page = page.StartFrom(start)
		}
		iter := page.SearchLimit(batch).Iter()
		var row R
		for seen < want && iter.Next(ctx, &row) {
			if seen >= skip {
				out = append(out, row)
			}
			seen++
			var zero R
			row = zero
		}
		if err := iter.Err(); err != nil {
			return nil, err
		}
		if seen >= want {
			break
		}
		lek, err := iter.LastEvaluatedKey(ctx)
		if err != nil {
			return nil, err
		}
		if lek == nil {
			break
		}
		start = lek
		batch = min(batch*2, 1000)
	}
	return out, nil
}

// listRecords is listPage on the query's sort index, page and direction, with each row decoded
// (what names the records in errors).
func listRecords[R, T any](ctx context.Context, table dynamo.Table, teamID, prefix, what string, ix sortIndex,
	q patio.ListQuery, f filter, decode func(R) (T, error)) ([]T, int, error) {
	rows, total, err := listPage[R](ctx, table, teamID, prefix, ix, q.Desc, f, q.Offset(), q.Limit.Value)
	if err != nil {
		return nil, 0, wrap(err, "list "+what+" of team", teamID)
	}
	out, err := decodeRows(rows, decode)
	if err != nil {
		return nil, 0, wrap(err, "decode "+what+" of team", teamID)
	}
	return out, total, nil
}
