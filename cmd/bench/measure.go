package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// result is one run: one operation at one concurrency.
type result struct {
	n         int           // successful calls in the measured window
	errors    int           // failed calls in the measured window
	firstErr  error         // the first failure, to show what went wrong
	p50, p99  time.Duration // nearest-rank percentiles of the successful calls' latencies
	exhausted bool          // the run stopped early: its pool of prepared items ran out
	// What merging rounds needs: the latencies and every call made.
	lat   []time.Duration
	calls int
}

// notes says what went wrong in the run labelled label: failed calls, a pool run out.
func (r result) notes(label string) []string {
	var out []string
	if r.errors > 0 {
		out = append(out, fmt.Sprintf("%s: %d failed calls, first: %v", label, r.errors, r.firstErr))
	}
	if r.exhausted {
		out = append(out, label+": ran out of prepared deals before the end of the run (raise -deals)")
	}
	return out
}

// rounds is how many rounds the runs a budget compares take turns in (request, raw, request, raw,
// ...), so that a drift of the machine's speed weighs on every side alike.
const rounds = 3

// roundWarmup is the warm-up of round i: warmup for the first, a quarter of it after.
func roundWarmup(warmup time.Duration, i int) time.Duration {
	if i == 0 {
		return warmup
	}
	return warmup / 4
}

// merge returns the result of the rounds of one run as if measured in one.
func merge(parts ...result) result {
	var r result
	for _, p := range parts {
		r.lat = append(r.lat, p.lat...)
		r.errors += p.errors
		r.firstErr = cmp.Or(r.firstErr, p.firstErr)
		r.exhausted = r.exhausted || p.exhausted
		r.calls += p.calls
	}
	r.n = len(r.lat)
	r.p50, r.p99 = percentiles(r.lat)
	return r
}

// timedRun is one of the runs measureRounds takes turns between: an op, and its workers' seed.
type timedRun struct {
	call op
	seed uint64
}

// measureRounds measures each of runs for dur in all, in rounds taking turns, and returns each
// one's merged result. around, when not nil, runs run i's part of a round.
func measureRounds(ctx context.Context, conc int, warmup, dur time.Duration, runs []timedRun,
	around func(round, i int, measure func(ctx context.Context))) []result {
	parts := make([][]result, len(runs))
	for round := range rounds {
		for i, r := range runs {
			part := func(ctx context.Context) {
				parts[i] = append(parts[i], measure(ctx, conc, roundWarmup(warmup, round), dur/rounds, r.seed+uint64(round)*7919, r.call))
			}
			if around != nil {
				around(round, i, part)
			} else {
				part(ctx)
			}
		}
	}
	out := make([]result, len(runs))
	for i := range runs {
		out[i] = merge(parts[i]...)
	}
	return out
}

// progressRounds is measureRounds' around that says which round of what is measured.
func progressRounds(ctx context.Context, what string) func(round, i int, part func(context.Context)) {
	return func(round, i int, part func(context.Context)) {
		if i == 0 {
			progress("%s round %d of %d", what, round+1, rounds)
		}
		part(ctx)
	}
}

// op is one call of a run: an HTTP request or its raw DynamoDB calls. rng is the worker's own.
type op func(ctx context.Context, rng *rand.Rand) error

// A run measures at least minCalls calls when that fits in maxStretch times its duration.
const (
	minCalls   = 20
	maxStretch = 3
)

// measure runs op on conc workers, each calling it in a loop, and times every call completed after
// warmup; workers stop starting calls once dur has passed after it (up to maxStretch·dur while
// fewer than minCalls were counted).
func measure(ctx context.Context, conc int, warmup, dur time.Duration, seed uint64, call op) result {
	from := time.Now().Add(warmup)
	until, hardUntil := from.Add(dur), from.Add(maxStretch*dur)
	var counted atomic.Int64
	ws := make([]result, conc)
	var wg sync.WaitGroup
	for i := range ws {
		w := &ws[i]
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		wg.Go(func() {
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(until) && (counted.Load() >= minCalls || !t0.Before(hardUntil)) {
					return
				}
				err := call(ctx, rng)
				t1 := time.Now()
				if errors.Is(err, errPoolEmpty) {
					w.exhausted = true
					return
				}
				if w.calls++; t1.Before(from) {
					continue
				}
				counted.Add(1)
				if err != nil {
					w.firstErr = cmp.Or(w.firstErr, err)
					w.errors++
					continue
				}
				w.lat = append(w.lat, t1.Sub(t0))
			}
		})
	}
	wg.Wait()
	return merge(ws...)
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
