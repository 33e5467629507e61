package dynamostore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// agreeQueries are lists read from what the indexer keeps: a brand (an open facet), a fuel and a
// phase (closed facets whose items it copies), q, and two facets at once.
func agreeQueries() map[string]patio.VehicleQuery {
	return map[string]patio.VehicleQuery{
		"brand=Toyota":             {Brand: ptr("Toyota")},
		"fuel=diesel":              {Fuel: []string{"diesel"}},
		"phase=disponivel":         {Phase: []string{"disponivel"}},
		"q=toyota":                 {Q: ptr("toyota")},
		"brand=Toyota&fuel=diesel": {Brand: ptr("Toyota"), Fuel: []string{"diesel"}},
	}
}

// TestListsAgreeWithTheirTotals: a list read from the indexer's items answers its page and its
// total from one state of them, whatever the indexer's lag. While writers create and change
// vehicles and the indexer follows them in small batches, every answer holding the whole list
// on one page has as many records as its total. With the indexer behind (paused) while writers go
// on, walking each list's pages by cursor yields its total, each record once; once the indexer
// has followed, the totals are the records' own.
func TestListsAgreeWithTheirTotals(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	svc := patio.NewVehicles(s.Vehicles())
	x := dynamostore.IndexerOf(s)
	stream := localaws.NewStreamReader(testenv.AWSConfig(t), testenv.Tables(t)["VehiclesTable"])
	// follow hands the indexer the team's changes not handed over yet, three at a time, as many
	// small batches.
	follow := func(ctx context.Context) error {
		return stream.CatchUp(ctx, func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			var mine []events.DynamoDBEventRecord
			for _, rec := range ev.Records {
				if rec.Change.Keys["pk"].String() == team {
					mine = append(mine, rec)
				}
			}
			for i := 0; i < len(mine); i += 3 {
				if err := x.Index(ctx, mine[i:min(i+3, len(mine))]); err != nil {
					return events.DynamoDBEventResponse{}, err
				}
			}
			return events.DynamoDBEventResponse{}, nil
		})
	}
	if err := follow(ctx); err != nil { // the stream's records of earlier tests, none of the team's
		t.Fatal(err)
	}
	var made atomic.Int64
	// write creates n vehicles (or, with until, as many as are made before it closes, n at least
	// and 40 at most) of varied brands, fuels and phases, and changes every third one's brand,
	// fuel and phase.
	write := func(ctx context.Context, writer, n int, until <-chan struct{}) error {
		brands, fuels, phases := []string{"Toyota", "Fiat", "Honda"}, []string{"diesel", "flex"}, []string{"disponivel", "preparacao"}
		for i := 0; i < n || until != nil && !closed(until) && i < 40; i++ {
			k := int(made.Add(1))
			v, err := svc.Create(ctx, team, patio.VehicleInput{Brand: patio.Some(brands[k%3]), Model: patio.Some("Modelo"),
				Fuel: patio.Some(fuels[k%2]), Phase: patio.Some(phases[(k/2)%2]), Price: patio.Some(money.Cents(int64(2_000_000 + k))),
				Plate: patio.Some(fmt.Sprintf("AGR%d%03d", writer, i))})
			if err != nil {
				return err
			}
			if i%3 == 0 {
				_, err = svc.Update(ctx, team, v.ID, patio.VehicleInput{Brand: patio.Some(brands[(k+1)%3]),
					Fuel: patio.Some(fuels[(k+1)%2]), Phase: patio.Some(phases[(k/2+1)%2])})
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	list := func(ctx context.Context, q patio.VehicleQuery) (patio.Page[patio.Vehicle], error) {
		return svc.List(ctx, team, q)
	}

	// Writers, the indexer in small batches and a reader of rounds of every list, all at once, the
	// writers writing until the reader is done (some rounds, and 60 vehicles made).
	const rounds = 3
	var mu sync.Mutex
	answers, apart := 0, map[string]string{}
	g, gctx := errgroup.WithContext(ctx)
	var writing sync.WaitGroup
	read := make(chan struct{})
	for w := range 2 {
		writing.Add(1)
		g.Go(func() error { defer writing.Done(); return write(gctx, w, 10, read) })
	}
	stopped := make(chan struct{})
	go func() { writing.Wait(); close(stopped) }()
	g.Go(func() error {
		for {
			select {
			case <-stopped:
				return follow(gctx)
			default:
			}
			if err := follow(gctx); err != nil {
				return err
			}
		}
	})
	g.Go(func() error {
		defer close(read)
		for round := 0; round < rounds || made.Load() < 60; round++ {
			for name, q := range agreeQueries() {
				q.Limit = patio.Some(100)
				page, err := list(gctx, q)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				mu.Lock()
				answers++
				if len(page.Items) != page.Total {
					apart[name] = fmt.Sprintf("total %d, %d records", page.Total, len(page.Items))
				}
				mu.Unlock()
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if len(apart) > 0 {
		t.Errorf("of %d answers read while writing and indexing, these had a total apart from their records: %v", answers, apart)
	}

	// The indexer behind: writers go on, pages are walked meanwhile.
	g, gctx = errgroup.WithContext(ctx)
	g.Go(func() error { return write(gctx, 2, 24, nil) })
	walked := map[string]int{}
	g.Go(func() error {
		for name, q := range agreeQueries() {
			q.Limit = patio.Some(4)
			ids, total, err := walk(gctx, list, q)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if len(ids) != total {
				return fmt.Errorf("%s, walked while the indexer is behind: total %d, its pages %d records", name, total, len(ids))
			}
			walked[name] = total
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := follow(ctx); err != nil {
		t.Fatal(err)
	}
	// Followed: each list is what the records say, and the writes made while the lists were walked
	// are in it.
	all, _, err := walk(ctx, list, patio.VehicleQuery{ListQuery: patio.ListQuery{Limit: patio.Some(100)}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, v := range all {
		toyota := v.Brand == "Toyota"
		diesel := v.Fuel != nil && *v.Fuel == "diesel"
		want["brand=Toyota"] += b2i(toyota)
		want["fuel=diesel"] += b2i(diesel)
		want["phase=disponivel"] += b2i(v.Phase == "disponivel")
		want["q=toyota"] += b2i(slices.ContainsFunc(v.Words(), func(w string) bool { return strings.HasPrefix(w, "toyota") }))
		want["brand=Toyota&fuel=diesel"] += b2i(toyota && diesel)
	}
	behind := 0
	for name, q := range agreeQueries() {
		q.Limit = patio.Some(5)
		ids, total, err := walk(ctx, list, q)
		if err != nil {
			t.Fatal(err)
		}
		if total != want[name] || len(ids) != total {
			t.Errorf("%s followed: total %d, pages %d records; the records say %d", name, total, len(ids), want[name])
		}
		behind += want[name] - walked[name]
	}
	if behind == 0 {
		t.Errorf("the lists walked while the indexer was behind held every write made meanwhile: nothing was behind")
	}
}

// walk follows a vehicles list's pages by cursor and returns the records' ids and the first
// page's total; a record listed twice is an error.
func walk(ctx context.Context, list func(context.Context, patio.VehicleQuery) (patio.Page[patio.Vehicle], error), q patio.VehicleQuery) ([]patio.Vehicle, int, error) {
	var out []patio.Vehicle
	seen := map[string]bool{}
	total := -1
	for n := 1; ; n++ {
		q.Page = patio.Some(n)
		page, err := list(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		if total < 0 {
			total = page.Total
		}
		for _, v := range page.Items {
			if seen[v.ID] {
				return nil, 0, fmt.Errorf("%s listed twice", v.ID)
			}
			seen[v.ID] = true
			out = append(out, v)
		}
		if page.Next == "" {
			return out, total, nil
		}
		q.After = page.Next
	}
}

// closed reports whether c is closed.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
