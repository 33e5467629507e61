package main

import (
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
	n        int           // successful calls in the measured window
	errors   int           // failed calls in the measured window
	firstErr error         // the first failure, to show what went wrong
	p50, p99 time.Duration // nearest-rank percentiles of the successful calls' latencies
	rps      float64       // successful calls per second of the window
	// cpuPerCall is this process's CPU time (user and system) per call: for a request, the load
	// client, the server, our code and the SDK; for the raw side, the SDK alone. DynamoDB Local's
	// own CPU is not in it. It moves much less than latency when other processes load the machine.
	cpuPerCall time.Duration
	exhausted  bool // the run stopped early: its pool of prepared items ran out

	// What merging rounds needs: the successful calls' latencies (sorted), every call made, the
	// CPU time they took and the throughput window.
	lat    []time.Duration
	calls  int
	cpu    time.Duration
	window time.Duration
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

// rounds is how many rounds the runs that a budget compares are split into, taking turns (request,
// raw, request, raw, ...), so that a drift of the machine's speed during the bench (DynamoDB
// Local's collector after seeding, another process) weighs on every side alike instead of on
// whichever ran during it. Each round after the first warms up for a quarter of the warm-up.
const rounds = 3

// roundWarmup is the warm-up of round i of runs whose first warms up for warmup.
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
		if r.firstErr == nil {
			r.firstErr = p.firstErr
		}
		r.exhausted = r.exhausted || p.exhausted
		r.calls += p.calls
		r.cpu += p.cpu
		r.window += p.window
	}
	slices.Sort(r.lat)
	r.n = len(r.lat)
	r.p50, r.p99 = percentile(r.lat, 50), percentile(r.lat, 99)
	if r.window > 0 {
		r.rps = float64(r.n) / r.window.Seconds()
	}
	if r.calls > 0 {
		r.cpuPerCall = r.cpu / time.Duration(r.calls)
	}
	return r
}

// timedRun is one of the runs measureRounds takes turns between: an op, and its workers' seed.
type timedRun struct {
	call op
	seed uint64
}

// measureRounds measures each of runs for dur in all, in rounds taking turns, and returns each
// one's merged result. around, when not nil, runs run i's part of a round (to label it, to count
// connections, to say which round it is).
func measureRounds(ctx context.Context, conc int, warmup, dur time.Duration, runs []timedRun,
	around func(round, i int, measure func(ctx context.Context))) []result {
	parts := make([][]result, len(runs))
	for round := range rounds {
		for i, r := range runs {
			part := func(ctx context.Context) {
				parts[i] = append(parts[i], measure(ctx, conc, roundWarmup(warmup, round), dur/rounds,
					r.seed+uint64(round)*7919, r.call))
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

// op is one call of a run: an HTTP request or its raw DynamoDB calls. rng is the worker's own.
type op func(ctx context.Context, rng *rand.Rand) error

// minCalls is how many calls a run measures at least, when that fits in maxStretch times its
// duration: a list that takes a second per call still gets a median from more than a handful.
const (
	minCalls   = 20
	maxStretch = 3
)

// measure runs op on conc workers, each calling it in a loop, and times every call.
//
// Calls that complete during the first warmup are not counted. The calls that complete after it
// are, and workers stop starting calls once dur has passed after the warm-up (later when fewer than
// minCalls were counted, up to maxStretch·dur), so a slow call (a list that takes longer than the
// warm-up) is still measured, and every call started is waited for. The window for throughput runs
// from the start of the first counted call to the end of the last. Workers keep their own
// latencies, merged and sorted at the end, so measuring adds no locking to the calls but one atomic
// add. The process's CPU time over the whole run, divided by every call it made, is cpuPerCall.
func measure(ctx context.Context, conc int, warmup, dur time.Duration, seed uint64, call op) result {
	begin := time.Now()
	cpu0 := processCPU()
	from := begin.Add(warmup)
	until, hardUntil := from.Add(dur), from.Add(maxStretch*dur)
	var counted atomic.Int64
	type worker struct {
		lat         []time.Duration
		calls, errs int
		firstErr    error
		firstStart  time.Time
		lastEnd     time.Time
		exhausted   bool
	}
	ws := make([]worker, conc)
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
				w.calls++
				if t1.Before(from) {
					continue
				}
				counted.Add(1)
				if w.firstStart.IsZero() {
					w.firstStart = t0
				}
				w.lastEnd = t1
				if err != nil {
					if w.firstErr == nil {
						w.firstErr = err
					}
					w.errs++
					continue
				}
				w.lat = append(w.lat, t1.Sub(t0))
			}
		})
	}
	wg.Wait()
	cpu := processCPU() - cpu0

	var r result
	var first, last time.Time
	for _, w := range ws {
		r.lat = append(r.lat, w.lat...)
		r.calls += w.calls
		r.errors += w.errs
		if r.firstErr == nil {
			r.firstErr = w.firstErr
		}
		r.exhausted = r.exhausted || w.exhausted
		if !w.firstStart.IsZero() && (first.IsZero() || w.firstStart.Before(first)) {
			first = w.firstStart
		}
		if w.lastEnd.After(last) {
			last = w.lastEnd
		}
	}
	r.cpu, r.window = cpu, max(last.Sub(first), 0)
	return merge(r)
}

// percentile returns the nearest-rank p-th percentile of sorted latencies: the smallest value
// with at least p% of the values at or below it; 0 when there are none.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
	return sorted[max(rank, 1)-1]
}
