package app_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The tests of this file check CONTRACT.md section 14 (webhooks, for the people who receive them)
// on DynamoDB Local and moto, through the pipeline the local stack runs.

// TestWebhookCreatedAfterAChange: a webhook receives the changes made at or after its creation and
// never an earlier one, even when the stream batches holding earlier changes are processed again.
// Every event's created_at is its record's own time.
func TestWebhookCreatedAfterAChange(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	team := p.team(t)
	early, late := newReceiver(t, always(200)), newReceiver(t, always(200))
	p.hook(t, team, early, webhook.VehicleCreated, webhook.VehicleUpdated)
	vehicles := patio.NewVehicles(p.store.Vehicles())

	v := check[patio.Vehicle](t)(vehicles.Create(ctx, team.ID, vehicleIn(t, `{"brand":"Jeep","model":"Renegade","price":120000}`)))
	waitFor(t, "the early webhook's vehicle.created", 15*time.Second, func() bool { return len(early.snapshot()) == 1 })
	if got := early.snapshot()[0].event["created_at"]; got != v.CreatedAt.String() {
		t.Errorf("vehicle.created created_at = %v; want the vehicle's created_at %s", got, v.CreatedAt)
	}

	time.Sleep(1100 * time.Millisecond) // times are compared to the second
	lateHook := p.hook(t, team, late, "*")
	p.mu.Lock()
	batches := slices.Clone(p.batches)
	p.mu.Unlock()
	for _, b := range batches {
		if resp, err := p.dispatch(ctx, b); err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("re-processing a stream batch = %+v, %v", resp, err)
		}
	}
	time.Sleep(2 * time.Second) // a delivery to the late webhook would arrive now
	if got := late.snapshot(); len(got) != 0 {
		t.Fatalf("a webhook created after a change received %d events of it: %v", len(got), eventTypes(got))
	}
	if ds := check[[]webhook.Delivery](t)(p.admin.Deliveries(ctx, lateHook.ID, "")); len(ds) != 0 {
		t.Errorf("the late webhook has %d deliveries of earlier changes; want none", len(ds))
	}

	u := check[patio.Vehicle](t)(vehicles.Update(ctx, team.ID, v.ID, vehicleIn(t, `{"price":118000}`)))
	waitFor(t, "both webhooks' events of the later change", 15*time.Second, func() bool {
		return len(early.snapshot()) == 2 && len(late.snapshot()) == 2 // vehicle.updated and vehicle.price_changed
	})
	for _, g := range append(early.snapshot()[1:], late.snapshot()...) {
		if g.event["created_at"] != u.UpdatedAt.String() {
			t.Errorf("%v created_at = %v; want the vehicle's updated_at %s", g.event["type"], g.event["created_at"], u.UpdatedAt)
		}
	}
}

// TestWebhookSleepingReceiver: a receiver that never answers in time (its webhook's attempts all
// time out) does not slow a healthy webhook of its own team nor one of another team, and never has
// more than 4 attempts in flight.
func TestWebhookSleepingReceiver(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	teamA, teamB := p.team(t), p.team(t)
	sleeper := newReceiver(t, always(200))
	sleeper.sleep = testTimeout + time.Second
	healthyA, healthyB := newReceiver(t, always(200)), newReceiver(t, always(200))
	sleepy := p.hook(t, teamA, sleeper, webhook.VehicleCreated)
	p.hook(t, teamA, healthyA, webhook.VehicleCreated)
	p.hook(t, teamB, healthyB, webhook.VehicleCreated)
	defer func() { _, _ = p.admin.Disable(ctx, sleepy.ID) }()
	vehicles := patio.NewVehicles(p.store.Vehicles())

	const n = 24
	written := map[string]time.Time{}
	for i := range n {
		team := teamA
		if i%3 == 2 {
			team = teamB
		}
		v := check[patio.Vehicle](t)(vehicles.Create(ctx, team.ID, vehicleIn(t, fmt.Sprintf(`{"brand":"Fiat","model":"Mobi %d","price":60000}`, i))))
		written[v.ID] = time.Now()
		time.Sleep(50 * time.Millisecond)
	}
	waitFor(t, "every healthy delivery", 30*time.Second, func() bool {
		return len(healthyA.snapshot())+len(healthyB.snapshot()) == n
	})
	for name, r := range map[string]*receiver{"team A's healthy receiver": healthyA, "team B's healthy receiver": healthyB} {
		for _, g := range r.snapshot() {
			obj := g.event["data"].(map[string]any)["object"].(map[string]any)
			lag := g.at.Sub(written[obj["id"].(string)])
			t.Logf("%s lag %s", name, lag)
			if lag > 3*time.Second {
				t.Errorf("%s got a vehicle.created %s after its write, beside a sleeping receiver; want under 3 s", name, lag)
			}
		}
	}
	sleeper.mu.Lock()
	peak := sleeper.peak
	sleeper.mu.Unlock()
	if peak > webhook.MaxInFlight {
		t.Errorf("the sleeping receiver had %d requests in flight at once; want at most %d", peak, webhook.MaxInFlight)
	}
	if peak == 0 {
		t.Errorf("the sleeping receiver got no request")
	}
}
