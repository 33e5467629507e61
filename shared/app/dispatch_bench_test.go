package app_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// writeConcurrency bounds the vehicle writes in flight at once.
const writeConcurrency = 16

// BenchmarkDispatchEndToEnd measures the webhook pipeline as `make run` runs it: b.N vehicles are
// created through the domain service (real DynamoDB Local writes, writeConcurrency at a time); the
// resource table stream, polled by localaws.PollStreams, feeds the dispatcher's handler; the
// delivery queue, polled by localaws.PollQueue, feeds the deliverer's handler; and each
// vehicle.created event arrives as a signed POST at a local HTTPS receiver, which verifies the
// signature (with shared/webhooksig among others) and records the arrival time per event.
//
// One op is one event. Reported: events/s (events over the time from the first write to the last
// arrival) and the lag of each event (its arrival − the moment its vehicle's write returned) at p50
// and p99, in ms. Run it with a count, e.g. -benchtime 200x: b.N events are written in one burst.
func BenchmarkDispatchEndToEnd(b *testing.B) {
	p := startPipeline(b)
	ctx := context.Background()
	team := p.team(b)
	recv := newReceiver(b, always(200))
	p.hook(b, team, recv, webhook.VehicleCreated)
	vehicles := patio.NewVehicles(p.store.Vehicles())
	n := b.N
	bodies := make([]patio.VehicleInput, n)
	for i := range bodies {
		bodies[i] = vehicleIn(b, fmt.Sprintf(`{"brand":"Fiat","model":"Bench %d","price":%d}`, i, 50000+i))
	}

	written := make([]time.Time, n) // when the write of vehicle i returned
	ids := make([]string, n)        // vehicle i's id
	var (
		errMu    sync.Mutex
		writeErr error
	)
	b.ResetTimer()
	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(writeConcurrency, n) {
		wg.Go(func() {
			for i := range work {
				v, err := vehicles.Create(ctx, team.ID, bodies[i])
				if err != nil {
					errMu.Lock()
					writeErr = err
					errMu.Unlock()
					continue
				}
				written[i], ids[i] = time.Now(), v.ID
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if writeErr != nil {
		b.Fatalf("create vehicle: %v", writeErr)
	}

	// The first arrival of each event (delivery is at least once), keyed by the vehicle's id.
	arrived := map[string]time.Time{}
	// A hang guard only, far above any plausible run; no timing is asserted.
	waitFor(b, fmt.Sprintf("%d signed POSTs at the receiver", n), 2*time.Minute+time.Duration(n)*100*time.Millisecond, func() bool {
		clear(arrived)
		seen := map[string]bool{}
		for _, g := range recv.snapshot() {
			evID, _ := g.event["id"].(string)
			data, _ := g.event["data"].(map[string]any)
			obj, _ := data["object"].(map[string]any)
			vID, _ := obj["id"].(string)
			if seen[evID] || vID == "" {
				continue
			}
			seen[evID] = true
			if at, ok := arrived[vID]; !ok || g.at.Before(at) {
				arrived[vID] = g.at
			}
		}
		return len(arrived) >= n
	})
	b.StopTimer()

	lags := make([]time.Duration, 0, n)
	var last time.Time
	for i, id := range ids {
		at, ok := arrived[id]
		if !ok {
			b.Fatalf("no event arrived for vehicle %s", id)
		}
		lags = append(lags, at.Sub(written[i]))
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(lags)
	ms := func(q float64) float64 { // nearest rank
		return float64(lags[max(0, int(math.Ceil(q*float64(len(lags))))-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(n)/last.Sub(start).Seconds(), "events/s")
	b.ReportMetric(ms(0.50), "p50-lag-ms")
	b.ReportMetric(ms(0.99), "p99-lag-ms")
}
