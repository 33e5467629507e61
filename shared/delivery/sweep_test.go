package delivery_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/webhook"
)

// sweepStore keeps pending deliveries by due time, as the store's sweep index does: what the
// sweep reads and marks.
type sweepStore struct {
	mu  sync.Mutex
	due map[string]time.Time
	del map[string]webhook.Delivery
}

func newSweepStore(ds ...webhook.Delivery) *sweepStore {
	s := &sweepStore{due: map[string]time.Time{}, del: map[string]webhook.Delivery{}}
	for _, d := range ds {
		s.del[d.ID] = d
		if d.Status == webhook.DeliveryPending {
			s.due[d.ID] = d.DueAt()
		}
	}
	return s
}

func (s *sweepStore) OverdueDeliveries(_ context.Context, before time.Time, limit int) ([]webhook.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []webhook.Delivery
	for id, due := range s.due {
		if due.Before(before) && len(out) < limit {
			d := s.del[id]
			d.NextAttemptAt = &due
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b webhook.Delivery) int { return a.DueAt().Compare(b.DueAt()) })
	return out, nil
}

func (s *sweepStore) MarkSwept(_ context.Context, d webhook.Delivery, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if due, ok := s.due[d.ID]; !ok || !due.Equal(d.DueAt()) {
		return false, nil
	}
	s.due[d.ID] = now
	return true, nil
}

// TestSweep: pending deliveries whose next attempt is overdue by more than After get it queued
// again, as a copy (the deliverer claims it), once per After; others are left alone.
func TestSweep(t *testing.T) {
	at := func(id string, attempts int, due time.Time) webhook.Delivery {
		d := webhook.Delivery{ID: id, TeamID: "team_1", WebhookID: "wh_1", EventID: "evt_" + id, Status: webhook.DeliveryPending,
			Attempt: attempts, UpdatedAt: due}
		if attempts > 0 {
			d.NextAttemptAt = &due
		}
		return d
	}
	lostFirst := at("dlv_first", 0, now.Add(-10*time.Minute))
	lostThird := at("dlv_third", 2, now.Add(-4*time.Minute))
	late := at("dlv_late", 1, now.Add(-time.Minute)) // late, not lost yet
	future := at("dlv_future", 3, now.Add(time.Hour))
	done := at("dlv_done", 2, now.Add(-time.Hour))
	done.Status = webhook.DeliverySucceeded
	s, q := newSweepStore(lostFirst, lostThird, late, future, done), &queue{}
	clock := now
	sw := delivery.Sweeper{Store: s, Queue: q, Now: func() time.Time { return clock }, Logger: discard}

	n, err := sw.Sweep(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want 2, nil", n, err)
	}
	want := []webhook.Task{
		{DeliveryID: "dlv_first", TeamID: "team_1", WebhookID: "wh_1", EventID: "evt_dlv_first", Attempt: 1, Due: lostFirst.DueAt(), Copy: true},
		{DeliveryID: "dlv_third", TeamID: "team_1", WebhookID: "wh_1", EventID: "evt_dlv_third", Attempt: 3, Due: lostThird.DueAt(), Copy: true},
	}
	if got := q.queued(); !slices.Equal(got, want) {
		t.Errorf("Sweep queued %v; want %v", got, want)
	}
	if n, _ := sw.Sweep(context.Background()); n != 0 {
		t.Errorf("a second sweep at once queued %d; want 0 (each is swept once per After)", n)
	}
	clock = now.Add(webhook.DefaultSweepAfter + time.Second)
	if n, _ := sw.Sweep(context.Background()); n != 3 {
		t.Errorf("a sweep After later queued %d; want 3 (the two again, and the late one now lost)", n)
	}
}

// TestDeliverWaitDelays: a task put back to wait for its webhook waits about the time the sends
// ahead of it take, at least a second, doubled after each wait, up to a minute; one held by a
// Retry-After waits for the hold's end (with a little spread), whatever its earlier waits.
func TestDeliverWaitDelays(t *testing.T) {
	d := &delivery.Deliverer{}
	tests := []struct {
		waits    int
		retry    time.Duration
		reason   string
		min, max time.Duration
	}{
		{0, 0, webhook.HeldBound, 500 * time.Millisecond, time.Second},
		{0, 3 * time.Second, webhook.HeldBound, 1500 * time.Millisecond, 3 * time.Second},
		{2, time.Second, webhook.HeldMaxRate, 2 * time.Second, 4 * time.Second},
		{10, 5 * time.Second, webhook.HeldBound, 30 * time.Second, time.Minute},
		{10, 40 * time.Second, webhook.HeldRetryAfter, 40 * time.Second, 50 * time.Second},
		{0, 2 * time.Hour, webhook.HeldRetryAfter, 2 * time.Hour, 150 * time.Minute},
	}
	for _, tt := range tests {
		got := delivery.WaitFor(d, webhook.Task{Waits: tt.waits}, now, tt.retry, tt.reason)
		if wait := got.NotBefore.Sub(now); wait < tt.min || wait > tt.max || got.Waits != tt.waits+1 || got.HeldBy != tt.reason {
			t.Errorf("wait(%d waits, retry %s, %s) = %s, %d waits, held by %q; want between %s and %s, %d waits, %q", tt.waits, tt.retry,
				tt.reason, wait, got.Waits, got.HeldBy, tt.min, tt.max, tt.waits+1, tt.reason)
		}
	}
}
