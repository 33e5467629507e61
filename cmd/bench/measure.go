package main

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"
)

// op is one call of a sample: an HTTP request or its raw DynamoDB calls. rng is the sample's own.
type op func(ctx context.Context, rng *rand.Rand) error

// result is the distribution of some latencies: how many, and their nearest-rank p50 and p99.
type result struct {
	n        int
	p50, p99 time.Duration
}

// resultOf returns the distribution of lat (sorting it).
func resultOf(lat []time.Duration) result {
	p50, p99 := percentiles(lat)
	return result{n: len(lat), p50: p50, p99: p99}
}

// percentile returns the nearest-rank p-th percentile of sorted latencies (0 when there are none).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
	return sorted[max(rank, 1)-1]
}

// percentiles sorts latencies and returns their p50 and p99.
func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(lat)
	return percentile(lat, 50), percentile(lat, 99)
}

// median returns the median of ds (sorting them).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
