package httpapi_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/apitest"
)

// ids lists every id of a list query by following next_cursor, failing on a repeat.
func walk(t *testing.T, c *apitest.Client, path string) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	next := path
	for page := 1; ; page++ {
		res := c.Do("GET", next, nil)
		if res.Status != 200 {
			t.Fatalf("GET %s = %d %s", next, res.Status, res.Body)
		}
		if res.Pagination.Page != page {
			t.Errorf("GET %s: pagination.page = %d; want %d", next, res.Pagination.Page, page)
		}
		var items []struct {
			ID string `json:"id"`
		}
		res.Decode(t, &items)
		for _, it := range items {
			if seen[it.ID] {
				t.Fatalf("walking %s: %s listed twice (page %d)", path, it.ID, page)
			}
			seen[it.ID] = true
			ids = append(ids, it.ID)
		}
		if res.Pagination.NextCursor == nil {
			return ids
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		next = path + sep + "cursor=" + url.QueryEscape(*res.Pagination.NextCursor)
	}
}

// Totals come from counts kept in the writes' own transactions: under concurrent creates,
// archives and restores they stay equal to what counting the records gives.
func TestTotalsUnderConcurrentWrites(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var ids []string
	for i := range 20 {
		var v vehicle
		c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": nil, "title": fmt.Sprint("v", i)})).Decode(t, &v)
		ids = append(ids, v.ID)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			id := ids[rng.IntN(len(ids))]
			var res *apitest.Response
			switch i % 3 {
			case 0:
				res = c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": nil}))
				var v vehicle
				if res.Status == 201 {
					res.Decode(t, &v)
					mu.Lock()
					ids = append(ids, v.ID)
					mu.Unlock()
				}
			case 1:
				res = c.Do("DELETE", "/api/v1/vehicles/"+id, nil)
			default:
				res = c.Do("PUT", "/api/v1/vehicles/"+id, map[string]any{"status": "ativo"})
			}
			if res.Status >= 300 {
				t.Errorf("concurrent write %d = %d %s", i, res.Status, res.Body)
			}
		})
	}
	wg.Wait()
	for _, q := range []string{"", "status=arquivado", "status=ativo,arquivado", "status=ativo,reservado,vendido,arquivado"} {
		counted := c.Do("GET", "/api/v1/vehicles?limit=1&"+q, nil).Pagination.Total
		// created_from makes the API count the records rather than read the maintained counts.
		walked := c.Do("GET", "/api/v1/vehicles?limit=1&created_from=2000-01-01&"+q, nil).Pagination.Total
		listed := len(walk(t, c, "/api/v1/vehicles?limit=7&"+q))
		if counted != walked || counted != listed {
			t.Errorf("?%s: total %d from counts, %d counted, %d listed; want all equal", q, counted, walked, listed)
		}
	}
}

// A cursor walk returns every record once while records are being added, at every page size and
// order, and its pages cost the same at any depth (the store reads from the position).
func TestCursorWalk(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	const n = 300
	want := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := w; i < n; i += 6 {
				var v vehicle
				res := c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": nil, "price": 1000 + i%37,
					"status": []string{"ativo", "reservado"}[i%2]}))
				res.Decode(t, &v)
				mu.Lock()
				want[v.ID] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	stop := make(chan struct{})
	var adders sync.WaitGroup
	adders.Go(func() { // records keep arriving during the walks
		for {
			select {
			case <-stop:
				return
			default:
				c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": nil, "price": 5}))
				time.Sleep(10 * time.Millisecond)
			}
		}
	})
	for _, q := range []string{"limit=100", "limit=33&sort=created_at", "limit=50&sort=-price", "limit=100&sort=title",
		"limit=41&sort=mileage_km", "limit=100&status=reservado,ativo&sort=-updated_at"} {
		got := walk(t, c, "/api/v1/vehicles?"+q)
		seen := map[string]bool{}
		for _, id := range got {
			seen[id] = true
		}
		for id := range want {
			if !seen[id] {
				t.Errorf("walk ?%s missed %s", q, id)
				break
			}
		}
	}
	close(stop)
	adders.Wait()
}

func TestCursorAndPageRules(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	for range 3 {
		c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": nil}))
	}
	first := c.Do("GET", "/api/v1/vehicles?limit=1&sort=-price", nil)
	cur := *first.Pagination.NextCursor
	tampered := []byte(cur)
	tampered[3] ^= 1
	bad := []struct{ name, query, field string }{
		{"an edited cursor", "limit=1&sort=-price&cursor=" + url.QueryEscape(string(tampered)), "cursor"},
		{"garbage", "limit=1&sort=-price&cursor=abc", "cursor"},
		{"another sort", "limit=1&sort=price&cursor=" + url.QueryEscape(cur), "cursor"},
		{"another limit", "limit=2&sort=-price&cursor=" + url.QueryEscape(cur), "cursor"},
		{"another filter", "limit=1&sort=-price&fuel=flex&cursor=" + url.QueryEscape(cur), "cursor"},
		{"with page", "limit=1&sort=-price&page=2&cursor=" + url.QueryEscape(cur), "cursor"},
		{"too deep", "limit=100&page=101", "page"},
	}
	for _, b := range bad {
		res := c.Do("GET", "/api/v1/vehicles?"+b.query, nil)
		if res.Status != 400 || res.Error.Details[0].Field != b.field {
			t.Errorf("GET with %s = %d %s; want 400 naming %s", b.name, res.Status, res.Body, b.field)
		}
	}
	deep := c.Do("GET", "/api/v1/vehicles?limit=30&page=334", nil)
	if !strings.Contains(deep.Error.Message, "333") || !strings.Contains(deep.Error.Message, "cursor") {
		t.Errorf("page 334 of 30 = %q; want the largest page (333) and a hint to use cursor", deep.Error.Message)
	}
	if ok := c.Do("GET", "/api/v1/vehicles?limit=100&page=100", nil); ok.Status != 200 {
		t.Errorf("page 100 of 100 = %d; want 200 (10,000 is allowed)", ok.Status)
	}
	second := c.Do("GET", "/api/v1/vehicles?limit=1&sort=-price&cursor="+url.QueryEscape(cur), nil)
	if second.Status != 200 || second.Pagination.Page != 2 || string(second.Data) == string(first.Data) {
		t.Errorf("the cursor's page = %d page %d %s; want page 2, another vehicle", second.Status, second.Pagination.Page, second.Data)
	}
}

// updated_since is for incremental sync: it sees archivals, which default lists leave out.
func TestUpdatedSince(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var v vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": nil})).Decode(t, &v)
	since := time.Now().UTC().Add(-time.Minute).Format("2006-01-02T15:04:05Z")
	c.Do("DELETE", "/api/v1/vehicles/"+v.ID, nil)
	res := c.Do("GET", "/api/v1/vehicles?sort=updated_at&updated_since="+since, nil)
	if res.Pagination.Total != 1 || !strings.Contains(string(res.Data), `"arquivado"`) {
		t.Errorf("updated_since after an archival = %s; want the archived vehicle", res.Body)
	}
	future := c.Do("GET", "/api/v1/vehicles?updated_since=2999-01-01", nil)
	if future.Status != 200 || future.Pagination.Total != 0 {
		t.Errorf("updated_since in the future = %d total %d; want none", future.Status, future.Pagination.Total)
	}
	if active := c.Do("GET", "/api/v1/vehicles?status=ativo&updated_since="+since, nil); active.Pagination.Total != 0 {
		t.Errorf("updated_since with status=ativo = %d; want the archived vehicle left out", active.Pagination.Total)
	}
	if bad := c.Do("GET", "/api/v1/vehicles?updated_since=yesterday", nil); bad.Status != 400 {
		t.Errorf("updated_since=yesterday = %d; want 400", bad.Status)
	}
}

// A range whose start is after its end is refused with a 400 naming both ends; an updated_since
// in the future lists nothing. Neither is ever a 500.
func TestReversedRangesAndFutureSince(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil))
	future := time.Now().UTC().Add(48 * time.Hour)
	for _, tc := range []struct {
		name, path string
		status     int
		both       [2]string // the fields a 400's details name
	}{
		{"price", "/api/v1/vehicles?price_min=100000&price_max=1000", 400, [2]string{"price_min", "price_max"}},
		{"year", "/api/v1/vehicles?year_min=2020&year_max=2010", 400, [2]string{"year_min", "year_max"}},
		{"value", "/api/v1/deals?value_min=500&value_max=10", 400, [2]string{"value_min", "value_max"}},
		{"created", "/api/v1/clients?created_from=2026-05-02&created_to=2026-05-01", 400, [2]string{"created_from", "created_to"}},
		{"since timestamp", "/api/v1/vehicles?updated_since=" + future.Format(time.RFC3339), 200, [2]string{}},
		{"since date", "/api/v1/deals?updated_since=" + future.Format(time.DateOnly), 200, [2]string{}},
		{"since sorted", "/api/v1/clients?sort=updated_at&updated_since=" + future.Format(time.DateOnly), 200, [2]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Do("GET", tc.path, nil)
			if res.Status != tc.status {
				t.Fatalf("GET %s = %d %s; want %d", tc.path, res.Status, res.Body, tc.status)
			}
			if tc.status == 200 {
				if res.Pagination.Total != 0 || !strings.Contains(string(res.Body), `"data":[]`) {
					t.Errorf("GET %s = %s; want no records", tc.path, res.Body)
				}
				return
			}
			for _, f := range tc.both {
				if !strings.Contains(string(res.Body), `"field":"`+f+`"`) {
					t.Errorf("GET %s = %s; want a problem naming %s", tc.path, res.Body, f)
				}
			}
		})
	}
}
