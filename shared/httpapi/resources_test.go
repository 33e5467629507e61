package httpapi_test

import (
	"fmt"
	"maps"
	"net/http"
	"sync"
	"testing"

	"github.com/patio-dev/patio/dev/apitest"
)

// with returns a copy of body with the members of extra added or replaced.
func with(body, extra map[string]any) map[string]any {
	out := maps.Clone(body)
	maps.Copy(out, extra)
	return out
}

// concurrently sends n requests at once, do(i) sending the i-th, and counts the answers by
// "<status> <error code>" ("201 " for a success).
func concurrently(n int, do func(i int) *apitest.Response) map[string]int {
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := do(i)
			codes[i] = fmt.Sprintf("%d %s", res.Status, res.ErrorCode())
		}()
	}
	wg.Wait()
	count := map[string]int{}
	for _, code := range codes {
		count[code]++
	}
	return count
}

// listAll reads every page of collection?sort=<sortBy> at limit records a page, checking that the
// pagination says total records and that no record (by id) is listed twice, and returns the records
// in list order.
func listAll[T any](t *testing.T, c *apitest.Client, collection, sortBy string, limit, total int, id func(T) string) []T {
	t.Helper()
	seen := map[string]bool{}
	var all []T
	for page := 1; ; page++ {
		res := c.Do("GET", fmt.Sprintf("%s?limit=%d&page=%d&sort=%s", collection, limit, page, sortBy), nil)
		if res.Status != http.StatusOK {
			t.Fatalf("page %d = %d %s", page, res.Status, res.Body)
		}
		p := res.Pagination
		if p.Total != total || p.Pages != (total+limit-1)/limit || p.Limit != limit || p.Page != page {
			t.Fatalf("pagination = %+v; want total %d pages %d", *p, total, (total+limit-1)/limit)
		}
		var items []T
		res.Decode(t, &items)
		if len(items) == 0 {
			break
		}
		for _, v := range items {
			if seen[id(v)] {
				t.Fatalf("record %s listed twice", id(v))
			}
			seen[id(v)] = true
		}
		all = append(all, items...)
	}
	if len(all) != total {
		t.Fatalf("listed %d distinct records; want %d", len(all), total)
	}
	return all
}

// checkSoftDelete walks the soft delete of the team's only record id of collection: DELETE sets
// status deleted (twice: the second changes nothing), lists leave it out unless the status filter
// names deleted, GET still finds it, and a PUT of reactivate brings it back as reactivated.
func checkSoftDelete(t *testing.T, c *apitest.Client, collection, id, deleted string, reactivate map[string]any, reactivated string) {
	t.Helper()
	var rec struct{ Status string }
	res := c.Do("DELETE", collection+"/"+id, nil)
	res.Decode(t, &rec)
	if res.Status != http.StatusOK || rec.Status != deleted {
		t.Fatalf("DELETE = %d %s; want 200 %s", res.Status, res.Body, deleted)
	}
	if again := c.Do("DELETE", collection+"/"+id, nil); again.Status != http.StatusOK || string(again.Data) != string(res.Data) {
		t.Errorf("second DELETE = %d %s; want 200 unchanged", again.Status, again.Body)
	}
	if list := c.Do("GET", collection, nil); list.Pagination.Total != 0 {
		t.Errorf("list total with the record %s = %d; want 0", deleted, list.Pagination.Total)
	}
	if list := c.Do("GET", collection+"?status="+deleted, nil); list.Pagination.Total != 1 {
		t.Errorf("status=%s total = %d; want 1", deleted, list.Pagination.Total)
	}
	if got := c.Do("GET", collection+"/"+id, nil); got.Status != http.StatusOK {
		t.Errorf("GET %s record = %d; want 200", deleted, got.Status)
	}
	res = c.Do("PUT", collection+"/"+id, reactivate)
	res.Decode(t, &rec)
	if res.Status != http.StatusOK || rec.Status != reactivated {
		t.Errorf("PUT reactivation = %d %s; want 200 %s", res.Status, res.Body, reactivated)
	}
	if list := c.Do("GET", collection, nil); list.Pagination.Total != 1 {
		t.Errorf("list total after reactivation = %d; want 1", list.Pagination.Total)
	}
}

// filterCase is a list query and the total it must match.
type filterCase struct {
	query string
	want  int
}

// checkFilters runs list queries on collection, one subtest each: every good one must answer 200
// with its total, every bad one 400 VALIDATION_ERROR.
func checkFilters(t *testing.T, c *apitest.Client, collection string, good []filterCase, bad []string) {
	t.Helper()
	for _, tt := range good {
		t.Run(tt.query, func(t *testing.T) {
			res := c.With(t).Do("GET", collection+"?"+tt.query, nil)
			if res.Status != http.StatusOK || res.Pagination.Total != tt.want {
				t.Errorf("GET ?%s = %d %s; want 200 total %d", tt.query, res.Status, res.Body, tt.want)
			}
		})
	}
	for _, q := range bad {
		t.Run(q, func(t *testing.T) {
			res := c.With(t).Do("GET", collection+"?"+q, nil)
			if res.Status != http.StatusBadRequest || res.ErrorCode() != "VALIDATION_ERROR" {
				t.Errorf("GET ?%s = %d %s; want 400 VALIDATION_ERROR", q, res.Status, res.Body)
			}
		})
	}
}
