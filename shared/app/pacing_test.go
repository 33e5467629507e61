package app_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The tests of this file check how the deliverer paces a webhook's requests (docs/webhooks.md:
// the adaptive bound, Retry-After, max_rate), through the pipeline the local stack runs.

// TestWebhookRetryAfterEndToEnd: a receiver that answers every third request 429 with
// Retry-After: 2 gets no request during the two seconds that follow (but those already on their
// way), and every event in the end; the attempts that waited say so.
func TestWebhookRetryAfterEndToEnd(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	team := p.team(t)
	busy := func(n int) bool { return n%3 == 0 }
	recv := newReceiver(t, func(n int) int {
		if busy(n) {
			return 429
		}
		return 200
	})
	recv.retryAfter = func(n int) string {
		if busy(n) {
			return "2"
		}
		return ""
	}
	hook := p.hook(t, team, recv, webhook.VehicleCreated)
	defer func() { _, _ = p.admin.Disable(ctx, hook.ID) }()
	vehicles := patio.NewVehicles(p.store.Vehicles())
	const n = 12
	for i := range n {
		check[patio.Vehicle](t)(vehicles.Create(ctx, team.ID, vehicleIn(t, fmt.Sprintf(`{"brand":"Fiat","model":"Uno %d","price":30000}`, i))))
	}
	delivered := func() map[string]bool {
		ok := map[string]bool{}
		for i, g := range recv.snapshot() {
			if !busy(i + 1) {
				ok[g.event["id"].(string)] = true
			}
		}
		return ok
	}
	waitFor(t, "every event delivered past the 429s", 60*time.Second, func() bool { return len(delivered()) == n })
	got := recv.snapshot()
	for i, g := range got {
		if !busy(i + 1) {
			continue
		}
		for _, later := range got[i+1:] {
			// A request sent before the 429 reached the deliverer may arrive just after it.
			if since := later.at.Sub(g.at); since > 100*time.Millisecond && since < 2*time.Second {
				t.Errorf("a request came %s after a 429 with Retry-After: 2; want none until the 2 s were over", since)
			}
		}
	}
	var ds []webhook.Delivery
	waitFor(t, "every delivery recorded succeeded", 10*time.Second, func() bool {
		ds = check[[]webhook.Delivery](t)(p.admin.Deliveries(ctx, hook.ID, ""))
		for _, d := range ds {
			if d.Status != webhook.DeliverySucceeded {
				return false
			}
		}
		return len(ds) == n
	})
	held := 0
	for _, d := range ds {
		if d.Status != webhook.DeliverySucceeded {
			t.Errorf("delivery %s is %s; want succeeded", d.ID, d.Status)
		}
		for _, a := range d.Attempts {
			if a.HeldBy == webhook.HeldRetryAfter {
				held++
			}
			if a.StatusCode == 429 && (a.NextAttemptAt == nil || a.NextAttemptAt.Sub(a.At) < 2*time.Second) {
				t.Errorf("an attempt answered 429 with Retry-After: 2 has its next at %v, %v after it; want 2 s or later (the schedule says 1 s)",
					a.NextAttemptAt, a.NextAttemptAt.Sub(a.At))
			}
		}
	}
	if held == 0 {
		t.Errorf("no attempt says it was held by a Retry-After; want those that waited for one to say so")
	}
}

// TestWebhookTwoWorkersShareOneBound: two deliverers on one queue (two workers) send to one
// webhook within one bound, kept in the store: a receiver that answers 500 never has more requests
// in flight than the bound a webhook starts at, and its bound falls to 1 for both.
func TestWebhookTwoWorkersShareOneBound(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	// A second worker on the same queue, for the length of the test.
	second, err := workers.Deliverer(p.awsCfg, p.cfg, p.logger)
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = localaws.PollQueue(wctx, p.awsCfg, p.cfg.QueueURL, second, p.logger, 0) })
	defer func() { stop(); wg.Wait() }()

	team := p.team(t)
	recv := newReceiver(t, always(500))
	recv.sleep = 100 * time.Millisecond
	hook := p.hook(t, team, recv, webhook.VehicleCreated)
	defer func() { _, _ = p.admin.Disable(ctx, hook.ID) }()
	vehicles := patio.NewVehicles(p.store.Vehicles())
	const n = 12
	for i := range n {
		check[patio.Vehicle](t)(vehicles.Create(ctx, team.ID, vehicleIn(t, fmt.Sprintf(`{"brand":"Fiat","model":"Palio %d","price":30000}`, i))))
	}
	waitFor(t, "every event's first attempt", 60*time.Second, func() bool {
		seen := map[any]bool{}
		for _, g := range recv.snapshot() {
			seen[g.event["id"]] = true
		}
		return len(seen) == n
	})
	recv.mu.Lock()
	peak := recv.peak
	recv.mu.Unlock()
	if peak > delivery.InitialBound {
		t.Errorf("two workers had %d requests in flight at once to one receiver; want at most %d (one bound for both)", peak, delivery.InitialBound)
	}
	// A worker writes the bound its answers moved with its next write of the gate (a second
	// later at most while it sends, or when its batch ends), so the stored bound is read until then.
	waitFor(t, "the webhook's bound at 1 after a run of 500s", 10*time.Second, func() bool {
		return check[delivery.Gate](t)(webhookdb.New(p.store.DB()).Gate(ctx, team.ID, hook.ID)).Bound == 1
	})
}

// TestWebhookRestartMidDrain: the local stack stops while a backlog drains and its emulated queue
// comes back empty. After the restart nothing is lost: every event reaches the receiver (the
// attempts whose messages were lost are queued again by the sweep).
func TestWebhookRestartMidDrain(t *testing.T) {
	p := isolatedPipeline(t)
	checkpoints := filepath.Join(t.TempDir(), "stream-checkpoints.json")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	wait := p.run(ctx, checkpoints)

	team := p.team(t)
	recv := newReceiver(t, always(200))
	recv.sleep = 300 * time.Millisecond
	hook := p.hook(t, team, recv, webhook.VehicleCreated)
	vehicles := patio.NewVehicles(p.store.Vehicles())
	const n = 60
	for i := range n {
		check[patio.Vehicle](t)(vehicles.Create(ctx, team.ID, vehicleIn(t, fmt.Sprintf(`{"brand":"Kia","model":"Picanto %d","price":50000}`, i))))
	}
	ids := func() map[any]bool {
		seen := map[any]bool{}
		for _, g := range recv.snapshot() {
			seen[g.event["id"]] = true
		}
		return seen
	}
	waitFor(t, "a part of the backlog", 30*time.Second, func() bool { return len(ids()) >= 5 })

	// The stack stops; its queue is gone with it.
	stop()
	wait()
	if _, err := sqs.NewFromConfig(p.awsCfg).PurgeQueue(context.Background(), &sqs.PurgeQueueInput{QueueUrl: aws.String(p.cfg.QueueURL)}); err != nil {
		t.Fatal(err)
	}
	before := len(ids())
	if before == n {
		t.Fatalf("the whole backlog arrived before the restart; want it stopped in the middle")
	}
	ctx2, stop2 := context.WithCancel(context.Background())
	wait2 := p.run(ctx2, checkpoints)
	defer func() { stop2(); wait2() }()
	// Usually within seconds. The bound covers the design's own worst case: a task put back while
	// its webhook's bound is held waits up to maxWait (a minute), twice over, and a lease the
	// stopped process could not give back ends after 20 s.
	const bound = 3 * time.Minute
	deadline := time.Now().Add(bound)
	for len(ids()) < n {
		if time.Now().After(deadline) {
			ds, err := webhookdb.New(p.store.DB()).Deliveries(context.Background(), hook.ID, "")
			seen := map[string]int{}
			for _, d := range ds {
				seen[d.Status+" "+d.HeldBy]++
			}
			t.Fatalf("after the restart %d of %d events arrived within %s (%d before it); the webhook's deliveries by status and hold: %v (%v)",
				len(ids()), n, bound, before, seen, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d of %d events had arrived before the restart", before, n)
}
