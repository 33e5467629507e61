package webhook_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

const (
	teamID = "team_1"
	hookID = "wh_1"
	secret = "whsec_dGVzdC1vbmx5LXNlY3JldA==" // base64 of "test-only-secret"
)

var (
	// now is the fake clock of the use cases; first is when the series under test began.
	now   = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	first = now.Add(-(5*time.Minute + 30*time.Minute + 2*time.Hour + 12*time.Hour + 24*time.Hour))

	errBoom = errors.New("boom")
)

func activeHook(id string) webhook.Webhook {
	return webhook.Webhook{ID: id, TeamID: teamID, URL: "https://hooks.acme.example/" + id, Events: []string{webhook.AllEvents},
		Status: webhook.StatusActive, Secret: secret, EnabledAt: first.Add(-30 * 24 * time.Hour)}
}

// pending returns a pending delivery to webhook hookID whose series made attempts attempts, the
// next one due now.
func pending(id string, attempts int) webhook.Delivery {
	d := webhook.Delivery{ID: id, WebhookID: hookID, TeamID: teamID, EventID: "evt_" + id, EventType: webhook.VehicleCreated,
		Status: webhook.DeliveryPending, Attempt: attempts, Payload: []byte(`{"id":"evt_` + id + `"}`),
		CreatedAt: first.Add(-2 * time.Second), UpdatedAt: first}
	if attempts > 0 {
		due := now
		d.FirstAttemptAt, d.NextAttemptAt = first, &due
		for n := 1; n <= attempts; n++ {
			d.Attempts = append(d.Attempts, webhook.Attempt{N: n, At: first, StatusCode: 503, ErrorClass: webhook.ErrHTTPStatus})
		}
	}
	return d
}

func TestReplay(t *testing.T) {
	with := func(status string, series int, f ...func(*webhook.Webhook)) func(*store) {
		return func(s *store) {
			d := pending("dlv_1", 4)
			d.Status, d.Series, d.NextAttemptAt = status, series, nil
			s.deliveries[d.ID] = d
			for _, f := range f {
				w := s.hooks[hookID]
				f(&w)
				s.hooks[hookID] = w
			}
		}
	}
	disabled := func(w *webhook.Webhook) { w.Status = webhook.StatusDisabled }
	tests := []struct {
		name      string
		state     func(*store)
		queueErr  error
		noQueue   bool
		wantKind  patio.Kind
		wantErr   error
		wantTasks int
	}{
		{name: "failed", state: with(webhook.DeliveryFailed, 0), wantTasks: 1},
		{name: "cancelled", state: with(webhook.DeliveryCancelled, 0), wantTasks: 1},
		{name: "skipped", state: with(webhook.DeliverySkipped, 0), wantTasks: 1},
		{name: "failed again after a replay", state: with(webhook.DeliveryFailed, 2), wantTasks: 1},
		{name: "pending", state: with(webhook.DeliveryPending, 0), wantKind: patio.KindConflict},
		{name: "succeeded (a receiver that lost it)", state: with(webhook.DeliverySucceeded, 0), wantTasks: 1},
		{name: "webhook disabled", state: with(webhook.DeliveryFailed, 0, disabled), wantKind: patio.KindConflict},
		{name: "unknown delivery", state: func(*store) {}, wantKind: patio.KindNotFound},
		{name: "queue refuses", state: with(webhook.DeliveryCancelled, 0), queueErr: errBoom, wantErr: errBoom},
		{name: "no queue", state: with(webhook.DeliveryFailed, 0), noQueue: true, wantKind: patio.KindInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, q := newStore([]webhook.Webhook{activeHook(hookID)}), &queue{err: tt.queueErr}
			tt.state(s)
			before, had := s.deliveries["dlv_1"]
			svc := webhook.Webhooks{Store: s, Log: s, Queue: q, Now: func() time.Time { return now }}
			if tt.noQueue {
				svc.Queue = nil
			}

			got, err := svc.Replay(context.Background(), "dlv_1")
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Replay(dlv_1) = %v; want %v", err, tt.wantErr)
				}
			case tt.wantTasks == 0:
				if err == nil || patio.KindOf(err) != tt.wantKind {
					t.Fatalf("Replay(dlv_1) = %v; want kind %v", err, tt.wantKind)
				}
			case err != nil:
				t.Fatalf("Replay(dlv_1) = %v; want nil", err)
			}
			stored := s.delivery("dlv_1")
			if tt.wantTasks == 0 {
				if len(q.queued()) != 0 {
					t.Errorf("Replay(dlv_1) queued %v; want nothing", q.queued())
				}
				if had && stored.Status != before.Status {
					t.Errorf("Replay(dlv_1) left the delivery %q; want it %q as before", stored.Status, before.Status)
				}
				return
			}
			want := webhook.Task{DeliveryID: "dlv_1", TeamID: teamID, WebhookID: hookID, EventID: before.EventID,
				Series: before.Series + 1, Attempt: 1, Due: now}
			if queued := q.queued(); !slices.Equal(queued, []webhook.Task{want}) {
				t.Errorf("Replay(dlv_1) queued %v; want %v", queued, []webhook.Task{want})
			}
			if got.Status != webhook.DeliveryPending || got.Series != before.Series+1 || got.Attempt != 0 || got.EventID != before.EventID {
				t.Errorf("Replay(dlv_1) = %q series %d attempt %d event %s; want %q series %d attempt 0 event %s",
					got.Status, got.Series, got.Attempt, got.EventID, webhook.DeliveryPending, before.Series+1, before.EventID)
			}
			if stored.Status != webhook.DeliveryPending || stored.Series != before.Series+1 {
				t.Errorf("Replay(dlv_1) stored %q series %d; want %q series %d", stored.Status, stored.Series, webhook.DeliveryPending, before.Series+1)
			}
		})
	}
}
