package app_test

import (
	"context"
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
