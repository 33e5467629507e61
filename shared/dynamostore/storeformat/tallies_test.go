package storeformat_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
)

// TestCoverCountsEveryRange counts the values of many ranges as a list does, from the buckets'
// counts (Cover's runs) and the edges' values, and compares with counting them one by one: a
// bucket counted twice or missed, or an edge wider than a finest bucket, fails it.
func TestCoverCountsEveryRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	price := storeformat.Range{Name: "price", Attr: "price_cents", Width: 12, Levels: []int{2, 3, 4}}
	year := storeformat.Range{Name: "model_year", Attr: "model_year", Width: 4, Levels: []int{4}}
	for _, tc := range []struct {
		r      storeformat.Range
		values func() int64
		bound  func() int64
	}{
		{price, func() int64 { return rng.Int64N(50_000_000) }, func() int64 { return rng.Int64N(60_000_000) }},
		{price, func() int64 { return rng.Int64N(2_000) }, func() int64 { return rng.Int64N(2_500) }},
		{price, func() int64 { return 100 * rng.Int64N(500_000) }, func() int64 { return 100_000 * rng.Int64N(600) }},
		{year, func() int64 { return 1990 + rng.Int64N(40) }, func() int64 { return 1985 + rng.Int64N(50) }},
	} {
		values := make([]int64, 3000)
		counts := map[string]int{}
		for i := range values {
			values[i] = tc.values()
			for _, b := range tc.r.Buckets(values[i]) {
				counts[b]++
			}
		}
		for range 300 {
			lo, hi := tc.bound(), tc.bound()
			if rng.IntN(10) == 0 {
				lo = 0
			}
			if rng.IntN(10) == 0 {
				hi = storeformat.MaxBucketed
			}
			want := 0
			for _, v := range values {
				if v >= lo && v <= hi {
					want++
				}
			}
			runs, edges := tc.r.Cover(lo, hi)
			got := 0
			for _, run := range runs {
				level := run.First[:strings.LastIndexByte(run.First[:strings.LastIndexByte(run.First, ':')], ':')]
				if !strings.HasPrefix(run.Last, level) {
					t.Fatalf("%s [%d, %d]: run %v spans levels", tc.r.Name, lo, hi, run)
				}
				for key, n := range counts {
					if key >= run.First && key <= run.Last {
						got += n
					}
				}
			}
			if len(edges) > 2 {
				t.Errorf("%s [%d, %d]: %d edges %v, want 2 at most", tc.r.Name, lo, hi, len(edges), edges)
			}
			for _, e := range edges {
				if tc.r.BucketKey(tc.r.Levels[len(tc.r.Levels)-1], e.Lo) != tc.r.BucketKey(tc.r.Levels[len(tc.r.Levels)-1], e.Hi) {
					t.Errorf("%s [%d, %d]: edge %v is wider than a finest bucket", tc.r.Name, lo, hi, e)
				}
				for _, v := range values {
					if v >= e.Lo && v <= e.Hi {
						got++
					}
				}
			}
			if got != want {
				t.Fatalf("%s [%d, %d]: counted %d from runs %v and edges %v, want %d", tc.r.Name, lo, hi, got, runs, edges, want)
			}
		}
	}
}

// TestCoverReadsFewCounters pins how the benchmark's 5 % price range and a wide one are covered:
// a run or two of coarse buckets and edges of a finest bucket at most.
func TestCoverReadsFewCounters(t *testing.T) {
	price := storeformat.Vehicles.Ranges[0]
	runs, edges := price.Cover(10_000_000, 12_000_000)
	if len(runs) != 1 || runs[0] != (storeformat.BucketRun{First: "r=price:2:08:10", Last: "r=price:2:08:11"}) {
		t.Errorf("runs %v, want the buckets of 100,000 and 110,000 reais", runs)
	}
	if len(edges) != 1 || edges[0] != (storeformat.Span{Lo: 12_000_000, Hi: 12_000_000}) {
		t.Errorf("edges %v, want 120,000.00 alone", edges)
	}
	runs, edges = price.Cover(1_234_567, storeformat.MaxBucketed)
	if len(runs) > 5 || len(edges) != 1 {
		t.Errorf("price_min=12345.67: runs %v, edges %v: want a run per level and one edge", runs, edges)
	}
}
