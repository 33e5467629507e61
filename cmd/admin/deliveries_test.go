package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/webhook"
)

// TestDeliveriesBulkReplay: deliveries replay --webhook --status [--since] [--until] re-sends every
// matching failed, cancelled or skipped delivery with its event id, prints how many, and leaves the
// others alone; deliveries list pages through them all with --limit and --cursor.
func TestDeliveriesBulkReplay(t *testing.T) {
	store := setup(t)
	ctx := context.Background()
	_, watcher := deliveryQueue(t)
	team := newTeam(t)
	w := newWebhook(t, team, "*")
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	// Three of each replayable status a minute apart, and two others.
	var ds []webhook.Delivery
	add := func(status string, minute int) {
		ev := fmt.Sprintf("evt_bulk_%s_%d_%s", status, minute, w.ID[:8])
		at := t0.Add(time.Duration(minute) * time.Minute)
		ds = append(ds, webhook.Delivery{ID: webhook.DeliveryID(ev, w.ID), WebhookID: w.ID, TeamID: team, EventID: ev,
			EventType: webhook.VehicleCreated, Status: status, Payload: []byte(`{}`), CreatedAt: at, UpdatedAt: at})
	}
	for m := range 3 {
		add(webhook.DeliveryFailed, m)
		add(webhook.DeliveryCancelled, m)
		add(webhook.DeliverySkipped, m)
	}
	add(webhook.DeliverySucceeded, 1)
	add(webhook.DeliveryPending, 1)
	if _, _, _, err := webhookdb.New(store.DB()).CreateDeliveries(ctx, ds); err != nil {
		t.Fatal(err)
	}

	// Paging: --limit 4 walks the 11 deliveries, newest first, each once.
	var seen []string
	args := []string{"deliveries", "list", "--webhook", w.ID, "--limit", "4"}
	for pages := 0; ; pages++ {
		page, out := adminOK[struct {
			Deliveries []deliveryJSON `json:"deliveries"`
			NextCursor string         `json:"next_cursor"`
		}](t, args...)
		if len(page.Deliveries) > 4 || pages > 5 {
			t.Fatalf("admin %s printed %s; want at most 4 per page, 3 pages", strings.Join(args, " "), out)
		}
		for _, d := range page.Deliveries {
			seen = append(seen, d.ID)
		}
		if page.NextCursor == "" {
			break
		}
		args = []string{"deliveries", "list", "--webhook", w.ID, "--limit", "4", "--cursor", page.NextCursor}
	}
	if len(seen) != len(ds) || len(slices.Compact(slices.Sorted(slices.Values(seen)))) != len(ds) {
		t.Errorf("paging listed %d deliveries (%d distinct); want each of the %d once", len(seen), len(slices.Compact(slices.Sorted(slices.Values(seen)))), len(ds))
	}

	replay := func(extra ...string) int {
		t.Helper()
		args := append([]string{"deliveries", "replay", "--webhook", w.ID}, extra...)
		got, out := adminOK[struct {
			Replayed *int `json:"replayed"`
		}](t, args...)
		if got.Replayed == nil {
			t.Fatalf("admin %s printed %s; want the number replayed", strings.Join(args, " "), out)
		}
		return *got.Replayed
	}
	since := t0.Add(time.Minute).Format(time.RFC3339)
	until := t0.Add(time.Minute).Format(time.RFC3339)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"failed and skipped since the second minute", []string{"--status", "failed,skipped", "--since", since}, 4},
		{"the same again: nothing left", []string{"--status", "failed,skipped", "--since", since}, 0},
		{"cancelled of the second minute only", []string{"--status", "cancelled", "--since", since, "--until", until}, 1},
		{"every replayable left", []string{"--status", "failed,cancelled,skipped"}, 4},
	}
	for _, tt := range tests {
		if got := replay(tt.args...); got != tt.want {
			t.Errorf("deliveries replay %s = %d; want %d", strings.Join(tt.args, " "), got, tt.want)
		}
	}
	pending := deliveriesList(t, "--webhook", w.ID, "--status", "pending", "--limit", "100")
	if len(pending) != 10 {
		t.Errorf("after the replays %d deliveries are pending; want 10 (9 replayed, 1 already)", len(pending))
	}
	for _, d := range pending {
		if d.Series != 1 && !strings.Contains(d.EventID, "_pending_") {
			t.Errorf("replayed delivery %s is at series %d; want 1", d.ID, d.Series)
		}
	}
	if got := deliveriesList(t, "--webhook", w.ID, "--status", "succeeded"); len(got) != 1 || got[0].Series != 0 {
		t.Errorf("the succeeded delivery = %+v; want it untouched", got)
	}
	watcher.wait(t, ds[0].ID, 1) // each replayed delivery's first attempt is on the queue

	for _, bad := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"deliveries", "replay", "--webhook", w.ID, "--status", "succeeded"}, "cannot be replayed"},
		{[]string{"deliveries", "replay", "--webhook", w.ID}, "needs --id, or --webhook and --status"},
		{[]string{"deliveries", "replay", "--webhook", w.ID, "--status", "failed", "--since", "yesterday"}, "since must be"},
		{[]string{"deliveries", "list", "--webhook", w.ID, "--limit", "0"}, "limit must be between 1 and 500"},
		{[]string{"deliveries", "list", "--webhook", w.ID, "--cursor", "xyz"}, "cursor"},
	} {
		wantError(t, bad.args, adminFails(t, bad.args...), bad.wantErr)
	}
}
