package delivery_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

const (
	teamID = "team_1"
	hookID = "wh_1"
	secret = "whsec_dGVzdC1vbmx5LXNlY3JldA==" // base64 of "test-only-secret"
)

var (
	// now is the fake clock of every service; first is when the series under test began.
	now   = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	first = now.Add(-(5*time.Minute + 30*time.Minute + 2*time.Hour + 12*time.Hour + 24*time.Hour))

	team    = patio.Team{ID: teamID, Name: "Acme Motors", Email: "ops@acme.example"}
	failure = webhook.Result{StatusCode: 503, Duration: 120 * time.Millisecond, ErrorClass: webhook.ErrHTTPStatus}
	success = webhook.Result{StatusCode: 204, Duration: 80 * time.Millisecond}
	errBoom = errors.New("boom")
	discard = slog.New(slog.DiscardHandler)
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

// taskFor returns the task of attempt n of the delivery's current series, due now.
func taskFor(d webhook.Delivery, n int) webhook.Task {
	return webhook.Task{DeliveryID: d.ID, TeamID: d.TeamID, WebhookID: d.WebhookID, EventID: d.EventID,
		Series: d.Series, Attempt: n, Due: now}
}

// env is a deliverer's surroundings: webhook hookID of team teamID and the given deliveries.
type env struct {
	store  *store
	queue  *queue
	sender *sender
	mailer *mailer
}

func newEnv(deliveries ...webhook.Delivery) *env {
	return &env{store: newStore([]webhook.Webhook{activeHook(hookID)}, deliveries...), queue: &queue{},
		sender: &sender{result: failure}, mailer: &mailer{}}
}

func (e *env) deliverer() *delivery.Deliverer {
	return &delivery.Deliverer{Store: e.store, Queue: e.queue, Sender: e.sender, Mailer: e.mailer,
		Teams: teams{teamID: team}, Schedule: webhook.DefaultSchedule, Now: func() time.Time { return now }, Logger: discard}
}

func TestDeliverHops(t *testing.T) {
	tests := []struct {
		name    string
		due     time.Duration // from now
		cancel  bool          // the context is already done
		hop     bool
		wantErr error
	}{
		{name: "due in 24 hours", due: 24 * time.Hour, hop: true},
		{name: "due in 15 minutes", due: 15 * time.Minute, hop: true},
		{name: "due in 2 seconds", due: 2 * time.Second, hop: true},
		{name: "due now", due: 0},
		{name: "overdue", due: -3 * time.Minute},
		{name: "due in under a second: waited for", due: 200 * time.Millisecond},
		{name: "context done while waiting", due: 500 * time.Millisecond, cancel: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(pending("dlv_1", 0))
			e.sender.result = success
			task := taskFor(e.store.delivery("dlv_1"), 1)
			task.Due = now.Add(tt.due)
			// A deliverer that waits instead of hopping gives up here rather than hanging.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			if tt.cancel {
				cancel()
			}

			if err := e.deliverer().Deliver(ctx, task); !errors.Is(err, tt.wantErr) {
				t.Fatalf("Deliver(%v) = %v; want %v", task, err, tt.wantErr)
			}
			sent, queued, got := e.sender.sent(), e.queue.queued(), e.store.delivery("dlv_1")
			switch {
			case tt.hop:
				if want := []webhook.Task{task}; !slices.Equal(queued, want) {
					t.Errorf("Deliver(%v) queued %v; want the same task again %v", task, queued, want)
				}
				if len(sent) != 0 || got.Attempt != 0 {
					t.Errorf("Deliver(%v) sent %d requests, recorded %d attempts; want none", task, len(sent), got.Attempt)
				}
			case tt.wantErr != nil:
				if len(sent) != 0 || len(queued) != 0 {
					t.Errorf("Deliver(%v) sent %d requests, queued %v; want nothing", task, len(sent), queued)
				}
			default:
				if len(sent) != 1 || got.Status != webhook.DeliverySucceeded || len(queued) != 0 {
					t.Errorf("Deliver(%v): %d requests, status %q, queued %v; want 1, %q, none",
						task, len(sent), got.Status, queued, webhook.DeliverySucceeded)
				}
			}
		})
	}
}

func TestDeliverSchedulesRetry(t *testing.T) {
	custom := webhook.Schedule{0, time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second}
	tests := []struct {
		name     string
		schedule webhook.Schedule
		attempt  int // the attempt that fails
		want     time.Duration
	}{
		{name: "attempt 1: 5 min", schedule: webhook.DefaultSchedule, attempt: 1, want: 5 * time.Minute},
		{name: "attempt 2: 30 min", schedule: webhook.DefaultSchedule, attempt: 2, want: 30 * time.Minute},
		{name: "attempt 3: 2 h", schedule: webhook.DefaultSchedule, attempt: 3, want: 2 * time.Hour},
		{name: "attempt 4: 12 h", schedule: webhook.DefaultSchedule, attempt: 4, want: 12 * time.Hour},
		{name: "attempt 5: 24 h", schedule: webhook.DefaultSchedule, attempt: 5, want: 24 * time.Hour},
		{name: "custom schedule, attempt 1", schedule: custom, attempt: 1, want: time.Second},
		{name: "custom schedule, attempt 4", schedule: custom, attempt: 4, want: 4 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(pending("dlv_1", tt.attempt-1))
			d := e.deliverer()
			d.Schedule = tt.schedule
			task := taskFor(e.store.delivery("dlv_1"), tt.attempt)

			if err := d.Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			due := now.Add(tt.want)
			if want := []webhook.Task{{DeliveryID: "dlv_1", TeamID: teamID, WebhookID: hookID, EventID: "evt_dlv_1",
				Attempt: tt.attempt + 1, Due: due}}; !slices.Equal(e.queue.queued(), want) {
				t.Errorf("Deliver(%v) queued %v; want %v", task, e.queue.queued(), want)
			}
			got := e.store.delivery("dlv_1")
			if got.Status != webhook.DeliveryPending || got.Attempt != tt.attempt || got.NextAttemptAt == nil || !got.NextAttemptAt.Equal(due) {
				t.Errorf("Deliver(%v) left status %q, attempt %d, next %v; want %q, %d, %v",
					task, got.Status, got.Attempt, got.NextAttemptAt, webhook.DeliveryPending, tt.attempt, due)
			}
			wantFirst := first
			if tt.attempt == 1 {
				wantFirst = now
			}
			if !got.FirstAttemptAt.Equal(wantFirst) {
				t.Errorf("Deliver(%v) left first attempt at %v; want %v", task, got.FirstAttemptAt, wantFirst)
			}
			last := got.Attempts[len(got.Attempts)-1]
			if last.N != tt.attempt || !last.At.Equal(now) || last.StatusCode != 503 || last.ErrorClass != webhook.ErrHTTPStatus ||
				last.DurationMs != 120 || last.NextAttemptAt == nil || !last.NextAttemptAt.Equal(due) {
				t.Errorf("Deliver(%v) recorded %+v; want attempt %d at %v, 503, %s, 120 ms, next %v",
					task, last, tt.attempt, now, webhook.ErrHTTPStatus, due)
			}
			if len(e.store.disabledSince) != 0 {
				t.Errorf("Deliver(%v) applied the deactivation rule before the last attempt", task)
			}
			wantMails := 0
			if tt.attempt == 4 {
				wantMails = 1 // the warning
			}
			if m := e.mailer.sent(); len(m) != wantMails || (wantMails == 1 && !strings.Contains(m[0].subject, "to be disabled")) {
				t.Errorf("Deliver(%v) sent emails %+v; want %d warning", task, m, wantMails)
			}
		})
	}
}

func TestDeliverSuccess(t *testing.T) {
	tests := []struct {
		name    string
		series  int
		attempt int
	}{
		{name: "first attempt", attempt: 1},
		{name: "third attempt", attempt: 3},
		{name: "last attempt", attempt: webhook.MaxAttempts},
		{name: "replayed series", series: 2, attempt: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			del := pending("dlv_1", tt.attempt-1)
			del.Series = tt.series
			e := newEnv(del)
			e.sender.result = success
			task := taskFor(del, tt.attempt)

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			got := e.store.delivery("dlv_1")
			if got.Status != webhook.DeliverySucceeded || got.Attempt != tt.attempt || got.NextAttemptAt != nil {
				t.Errorf("Deliver(%v) left status %q, attempt %d, next %v; want %q, %d, none",
					task, got.Status, got.Attempt, got.NextAttemptAt, webhook.DeliverySucceeded, tt.attempt)
			}
			if last := got.Attempts[len(got.Attempts)-1]; last.Series != tt.series || last.N != tt.attempt || last.StatusCode != 204 || last.ErrorClass != "" {
				t.Errorf("Deliver(%v) recorded %+v; want series %d attempt %d, 204, no error class", task, last, tt.series, tt.attempt)
			}
			if q := e.queue.queued(); len(q) != 0 {
				t.Errorf("Deliver(%v) queued %v; want nothing after a success", task, q)
			}
			if at := e.store.hook(hookID).LastSuccessAt; !at.Equal(now) {
				t.Errorf("Deliver(%v) noted the webhook's last success at %v; want %v", task, at, now)
			}
			if len(e.store.disabledSince) != 0 || len(e.mailer.sent()) != 0 {
				t.Errorf("Deliver(%v) applied the deactivation rule after a success", task)
			}
			sent := e.sender.sent()
			if len(sent) != 1 {
				t.Fatalf("Deliver(%v) sent %d requests; want 1", task, len(sent))
			}
			p := sent[0]
			ts := strconv.FormatInt(now.Unix(), 10)
			if p.url != activeHook(hookID).URL || string(p.body) != string(del.Payload) ||
				p.headers[webhook.HeaderEventID] != del.EventID || p.headers[webhook.HeaderSignature] != webhook.SignHex(secret, ts, del.Payload) {
				t.Errorf("Deliver(%v) sent %s %s %v; want the payload to %s, event %s, signed at %s",
					task, p.url, p.body, p.headers, activeHook(hookID).URL, del.EventID, ts)
			}
		})
	}
}

// A success whose noting on the webhook's gate failed is noted when the task is handled again:
// otherwise the "no success since the first attempt" rule would later disable a webhook that
// answered.
func TestDeliverNotesSuccessWhenRetried(t *testing.T) {
	other := pending("dlv_2", webhook.MaxAttempts-1) // its series began before the success
	e := newEnv(pending("dlv_1", 1), other)
	e.sender.result = success
	e.store.fail["ReleaseSlots"] = errBoom
	e.store.fail["NoteSuccess"] = errBoom
	d := e.deliverer()
	task := taskFor(e.store.delivery("dlv_1"), 2)

	if err := d.Deliver(context.Background(), task); !errors.Is(err, errBoom) {
		t.Fatalf("Deliver(%v) = %v; want %v (the message must stay)", task, err, errBoom)
	}
	if err := d.Deliver(context.Background(), task); err != nil {
		t.Fatalf("Deliver(%v) again = %v; want nil", task, err)
	}
	if at := e.store.hook(hookID).LastSuccessAt; !at.Equal(now) {
		t.Errorf("after Deliver(%v) twice, the webhook's last success is %v; want %v", task, at, now)
	}
	if n := len(e.sender.sent()); n != 1 {
		t.Errorf("Deliver(%v) twice sent %d requests; want 1", task, n)
	}

	e.sender.result = failure
	last := taskFor(other, webhook.MaxAttempts)
	if err := d.Deliver(context.Background(), last); err != nil {
		t.Fatalf("Deliver(%v) = %v; want nil", last, err)
	}
	if st := e.store.hook(hookID).Status; st != webhook.StatusActive {
		t.Errorf("after a success since its first attempt, Deliver(%v) left the webhook %q; want %q", last, st, webhook.StatusActive)
	}
}

func TestDeliverDropsStaleTasks(t *testing.T) {
	with := func(d webhook.Delivery, f func(*webhook.Delivery)) webhook.Delivery { f(&d); return d }
	tests := []struct {
		name   string
		stored webhook.Delivery
		task   webhook.Task
	}{
		{name: "old series after a replay",
			stored: with(pending("dlv_1", 0), func(d *webhook.Delivery) { d.Series = 1 }),
			task:   taskFor(pending("dlv_1", 0), 1)},
		{name: "old series at the same count",
			stored: with(pending("dlv_1", 2), func(d *webhook.Delivery) { d.Series = 1 }),
			task:   taskFor(pending("dlv_1", 2), 3)},
		{name: "old series, last attempt",
			stored: with(pending("dlv_1", 5), func(d *webhook.Delivery) { d.Series = 1 }),
			task:   taskFor(pending("dlv_1", 5), 6)},
		{name: "attempt already made", stored: pending("dlv_1", 3), task: taskFor(pending("dlv_1", 3), 2)},
		{name: "attempt ahead of the delivery", stored: pending("dlv_1", 1), task: taskFor(pending("dlv_1", 1), 3)},
		{name: "first attempt again", stored: pending("dlv_1", 4), task: taskFor(pending("dlv_1", 4), 1)},
		{name: "succeeded",
			stored: with(pending("dlv_1", 2), func(d *webhook.Delivery) { d.Status, d.NextAttemptAt = webhook.DeliverySucceeded, nil }),
			task:   taskFor(pending("dlv_1", 2), 3)},
		{name: "cancelled",
			stored: with(pending("dlv_1", 2), func(d *webhook.Delivery) { d.Status = webhook.DeliveryCancelled }),
			task:   taskFor(pending("dlv_1", 2), 3)},
		{name: "skipped",
			stored: with(pending("dlv_1", 0), func(d *webhook.Delivery) { d.Status = webhook.DeliverySkipped }),
			task:   taskFor(pending("dlv_1", 0), 1)},
		{name: "failed before its last attempt",
			stored: with(pending("dlv_1", 3), func(d *webhook.Delivery) { d.Status, d.NextAttemptAt = webhook.DeliveryFailed, nil }),
			task:   taskFor(pending("dlv_1", 3), 4)},
		{name: "unknown delivery", stored: pending("dlv_other", 0), task: taskFor(pending("dlv_1", 0), 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(tt.stored)
			before := e.store.delivery(tt.stored.ID)

			if err := e.deliverer().Deliver(context.Background(), tt.task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil (a stale task is dropped)", tt.task, err)
			}
			if n := len(e.sender.sent()); n != 0 {
				t.Errorf("Deliver(%v) sent %d requests; want none", tt.task, n)
			}
			if q := e.queue.queued(); len(q) != 0 {
				t.Errorf("Deliver(%v) queued %v; want nothing", tt.task, q)
			}
			if got := e.store.delivery(tt.stored.ID); got.Status != before.Status || got.Attempt != before.Attempt || len(got.Attempts) != len(before.Attempts) {
				t.Errorf("Deliver(%v) changed the delivery to %q with %d attempts; want %q with %d",
					tt.task, got.Status, got.Attempt, before.Status, before.Attempt)
			}
			if len(e.store.disabledSince) != 0 || len(e.mailer.sent()) != 0 {
				t.Errorf("Deliver(%v) applied the deactivation rule", tt.task)
			}
		})
	}
}

// A task whose attempt was recorded while its message stayed on the queue puts the follow-up back
// (it may never have been queued) instead of attempting again.
func TestDeliverRequeuesRecordedAttempt(t *testing.T) {
	for _, n := range []int{1, 3, webhook.MaxAttempts - 1} {
		t.Run("attempt "+strconv.Itoa(n), func(t *testing.T) {
			del := pending("dlv_1", n)
			next := now.Add(time.Hour)
			del.NextAttemptAt = &next
			e := newEnv(del)
			task := taskFor(del, n)

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			want := taskFor(del, n+1)
			want.Due = next
			if q := e.queue.queued(); !slices.Equal(q, []webhook.Task{want}) {
				t.Errorf("Deliver(%v) queued %v; want %v", task, q, []webhook.Task{want})
			}
			if sent, got := len(e.sender.sent()), e.store.delivery("dlv_1").Attempt; sent != 0 || got != n {
				t.Errorf("Deliver(%v) sent %d requests, left %d attempts; want 0, %d", task, sent, got, n)
			}
		})
	}
}

func TestDeliverCancelsForInactiveWebhook(t *testing.T) {
	tests := []struct {
		name string
		hook func(*store)
	}{
		{name: "disabled", hook: func(s *store) {
			w := s.hooks[hookID]
			w.Status = webhook.StatusDisabled
			s.hooks[hookID] = w
		}},
		{name: "deleted", hook: func(s *store) { delete(s.hooks, hookID) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(pending("dlv_1", 2))
			tt.hook(e.store)
			task := taskFor(e.store.delivery("dlv_1"), 3)

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			if st := e.store.delivery("dlv_1").Status; st != webhook.DeliveryCancelled {
				t.Errorf("Deliver(%v) left the delivery %q; want %q", task, st, webhook.DeliveryCancelled)
			}
			if sent, q := len(e.sender.sent()), e.queue.queued(); sent != 0 || len(q) != 0 {
				t.Errorf("Deliver(%v) sent %d requests, queued %v; want nothing", task, sent, q)
			}
		})
	}
}

func TestDeliverSixthFailure(t *testing.T) {
	tests := []struct {
		name    string
		hook    func(*webhook.Webhook)
		disable bool
	}{
		{name: "never succeeded", disable: true},
		{name: "last success before the first attempt", hook: func(w *webhook.Webhook) { w.LastSuccessAt = first.Add(-time.Minute) }, disable: true},
		{name: "a success since the first attempt", hook: func(w *webhook.Webhook) { w.LastSuccessAt = first.Add(time.Hour) }},
		{name: "enabled again since the first attempt", hook: func(w *webhook.Webhook) { w.EnabledAt = first.Add(time.Hour) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elsewhere := pending("dlv_elsewhere", 1)
			elsewhere.WebhookID = "wh_2"
			done := pending("dlv_done", 2)
			done.Status = webhook.DeliverySucceeded
			e := newEnv(pending("dlv_6", webhook.MaxAttempts-1), pending("dlv_other", 2), pending("dlv_new", 0), elsewhere, done)
			e.store.hooks["wh_2"] = activeHook("wh_2")
			if tt.hook != nil {
				w := e.store.hooks[hookID]
				tt.hook(&w)
				e.store.hooks[hookID] = w
			}
			task := taskFor(e.store.delivery("dlv_6"), webhook.MaxAttempts)

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			got := e.store.delivery("dlv_6")
			if got.Status != webhook.DeliveryFailed || got.Attempt != webhook.MaxAttempts || got.NextAttemptAt != nil {
				t.Errorf("Deliver(%v) left status %q, attempt %d, next %v; want %q, %d, none",
					task, got.Status, got.Attempt, got.NextAttemptAt, webhook.DeliveryFailed, webhook.MaxAttempts)
			}
			if q := e.queue.queued(); len(q) != 0 {
				t.Errorf("Deliver(%v) queued %v; want nothing after the last attempt", task, q)
			}
			if want := []time.Time{first}; !slices.EqualFunc(e.store.disabledSince, want, time.Time.Equal) {
				t.Errorf("Deliver(%v) called DisableForFailures with first = %v; want %v", task, e.store.disabledSince, want)
			}

			wantHook, wantPending, wantAlerts := webhook.StatusActive, webhook.DeliveryPending, 0
			if tt.disable {
				wantHook, wantPending, wantAlerts = webhook.StatusDisabled, webhook.DeliveryCancelled, 1
			}
			w := e.store.hook(hookID)
			if w.Status != wantHook || w.AlertPending {
				t.Errorf("Deliver(%v) left the webhook %q, alert pending %t; want %q, false", task, w.Status, w.AlertPending, wantHook)
			}
			for id, want := range map[string]string{"dlv_other": wantPending, "dlv_new": wantPending,
				"dlv_elsewhere": webhook.DeliveryPending, "dlv_done": webhook.DeliverySucceeded} {
				if st := e.store.delivery(id).Status; st != want {
					t.Errorf("Deliver(%v) left %s %q; want %q", task, id, st, want)
				}
			}
			alerts := e.mailer.sent()
			if len(alerts) != wantAlerts {
				t.Fatalf("Deliver(%v) sent %d alerts; want %d", task, len(alerts), wantAlerts)
			}
			if wantAlerts == 1 {
				// The email names the URL, the last failure and when, how many deliveries were
				// cancelled, and the two commands that enable and replay.
				for _, want := range []string{w.URL, "HTTP status 503, at " + now.Format(time.RFC3339),
					"Pending deliveries cancelled: 2.", "admin webhooks enable --id " + hookID,
					"admin deliveries replay --webhook " + hookID + " --status failed,cancelled,skipped --since "} {
					if !strings.Contains(alerts[0].text, want) {
						t.Errorf("the alert says:\n%s\nwant it to contain %q", alerts[0].text, want)
					}
				}
				if alerts[0].to != team.Email {
					t.Errorf("the alert went to %s; want %s", alerts[0].to, team.Email)
				}
			}
		})
	}
}

// The alert goes out once: only the caller that claims it sends it, and a failed send gives the
// claim back for the task's next handling.
func TestDeliverAlertOnce(t *testing.T) {
	sixth := func() (*env, webhook.Task) {
		e := newEnv(pending("dlv_6", webhook.MaxAttempts-1), pending("dlv_other", 1))
		return e, taskFor(e.store.delivery("dlv_6"), webhook.MaxAttempts)
	}
	alertsOf := func(ms ...*mailer) int {
		n := 0
		for _, m := range ms {
			n += len(m.sent())
		}
		return n
	}

	t.Run("a second deliverer loses the claim", func(t *testing.T) {
		e, task := sixth()
		if err := e.deliverer().Deliver(context.Background(), task); err != nil {
			t.Fatalf("Deliver(%v) = %v; want nil", task, err)
		}
		second := *e
		second.mailer = &mailer{}
		if err := second.deliverer().Deliver(context.Background(), task); err != nil {
			t.Fatalf("Deliver(%v) again = %v; want nil", task, err)
		}
		if n, m := len(e.mailer.sent()), len(second.mailer.sent()); n != 1 || m != 0 {
			t.Errorf("Deliver(%v) by two deliverers sent %d and %d alerts; want 1 and 0", task, n, m)
		}
		if n := len(e.sender.sent()); n != 1 {
			t.Errorf("Deliver(%v) by two deliverers sent %d requests; want 1", task, n)
		}
	})

	t.Run("deliverers racing for the claim", func(t *testing.T) {
		e, task := sixth()
		if err := e.deliverer().Deliver(context.Background(), task); err != nil {
			t.Fatalf("Deliver(%v) = %v; want nil", task, err)
		}
		// The alert is pending again, as after a failed send; duplicates of the task race for it.
		if err := e.store.ReleaseAlert(context.Background(), teamID, hookID); err != nil {
			t.Fatal(err)
		}
		mailers := make([]*mailer, 8)
		var wg sync.WaitGroup
		for i := range mailers {
			mailers[i] = &mailer{}
			d := e.deliverer()
			d.Mailer = mailers[i]
			wg.Go(func() {
				if err := d.Deliver(context.Background(), task); err != nil {
					t.Errorf("Deliver(%v) = %v; want nil", task, err)
				}
			})
		}
		wg.Wait()
		if n := alertsOf(mailers...); n != 1 {
			t.Errorf("Deliver(%v) by %d deliverers at once sent %d alerts; want 1", task, len(mailers), n)
		}
	})

	t.Run("a failed send releases the claim", func(t *testing.T) {
		e, task := sixth()
		e.mailer.err = errBoom
		if err := e.deliverer().Deliver(context.Background(), task); !errors.Is(err, errBoom) {
			t.Fatalf("Deliver(%v) = %v; want %v (the message must stay)", task, err, errBoom)
		}
		if w := e.store.hook(hookID); w.Status != webhook.StatusDisabled || !w.AlertPending {
			t.Errorf("after a failed alert, the webhook is %q with alert pending %t; want %q, true", w.Status, w.AlertPending, webhook.StatusDisabled)
		}
		if st := e.store.delivery("dlv_other").Status; st != webhook.DeliveryCancelled {
			t.Errorf("after a failed alert, dlv_other is %q; want %q", st, webhook.DeliveryCancelled)
		}

		e.mailer.err = nil
		for range 2 {
			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) again = %v; want nil", task, err)
			}
		}
		if n := len(e.mailer.sent()); n != 1 {
			t.Errorf("Deliver(%v) handled again twice sent %d alerts; want 1", task, n)
		}
		if w := e.store.hook(hookID); w.AlertPending {
			t.Errorf("after the alert went out, the webhook still has it pending")
		}
		if n := len(e.sender.sent()); n != 1 {
			t.Errorf("Deliver(%v) three times sent %d requests; want 1", task, n)
		}
	})

	t.Run("an unknown team releases the claim", func(t *testing.T) {
		e, task := sixth()
		d := e.deliverer()
		d.Teams = teams{}
		if err := d.Deliver(context.Background(), task); !patio.IsKind(err, patio.KindNotFound) {
			t.Fatalf("Deliver(%v) = %v; want the team's KindNotFound", task, err)
		}
		if w := e.store.hook(hookID); !w.AlertPending {
			t.Errorf("after a failed alert, the webhook has no alert pending; want it pending")
		}
	})

	t.Run("a failed disable is applied when the task is handled again", func(t *testing.T) {
		e, task := sixth()
		e.store.fail["DisableForFailures"] = errBoom
		if err := e.deliverer().Deliver(context.Background(), task); !errors.Is(err, errBoom) {
			t.Fatalf("Deliver(%v) = %v; want %v (the message must stay)", task, err, errBoom)
		}
		if st := e.store.delivery("dlv_6").Status; st != webhook.DeliveryFailed {
			t.Fatalf("Deliver(%v) left the delivery %q; want %q", task, st, webhook.DeliveryFailed)
		}
		if err := e.deliverer().Deliver(context.Background(), task); err != nil {
			t.Fatalf("Deliver(%v) again = %v; want nil", task, err)
		}
		w := e.store.hook(hookID)
		if w.Status != webhook.StatusDisabled || len(e.mailer.sent()) != 1 || e.store.delivery("dlv_other").Status != webhook.DeliveryCancelled {
			t.Errorf("Deliver(%v) handled again left the webhook %q, %d alerts, dlv_other %q; want %q, 1, %q", task,
				w.Status, len(e.mailer.sent()), e.store.delivery("dlv_other").Status, webhook.StatusDisabled, webhook.DeliveryCancelled)
		}
		if n := len(e.sender.sent()); n != 1 {
			t.Errorf("Deliver(%v) twice sent %d requests; want 1", task, n)
		}
	})
}

func TestDispatch(t *testing.T) {
	ts := patio.NewTimestamp(first)
	change := webhook.Change{SourceID: "rec-1", Resource: webhook.ResourceVehicle, TeamID: teamID, At: first,
		New: patio.Vehicle{ID: "veh_1", TeamID: teamID, Title: "Toyota Corolla", Brand: "Toyota", Model: "Corolla",
			Price: money.Cents(11999050), Phase: "preparacao", Status: patio.VehicleActive, CreatedAt: ts, UpdatedAt: ts}}
	eventID := webhook.EventID("rec-1", webhook.VehicleCreated)
	hook := func(id, team, status string, events ...string) webhook.Webhook {
		w := activeHook(id)
		w.TeamID, w.Status, w.Events = team, status, events
		return w
	}
	hooks := []webhook.Webhook{
		hook("wh_all", teamID, webhook.StatusActive, webhook.AllEvents),
		hook("wh_typed", teamID, webhook.StatusActive, webhook.VehicleUpdated, webhook.VehicleCreated),
		hook("wh_deals", teamID, webhook.StatusActive, webhook.DealCreated),
		hook("wh_off", teamID, webhook.StatusDisabled, webhook.AllEvents),
		hook("wh_stranger", "team_2", webhook.StatusActive, webhook.AllEvents),
		// Created a second after the change: it never receives it, however often it is dispatched.
		func() webhook.Webhook {
			w := hook("wh_later", teamID, webhook.StatusActive, webhook.AllEvents)
			w.CreatedAt = patio.NewTimestamp(first.Add(time.Second))
			return w
		}(),
	}
	id := func(hookID string) string { return webhook.DeliveryID(eventID, hookID) }
	task := func(hookID string) webhook.Task {
		return webhook.Task{DeliveryID: id(hookID), TeamID: teamID, WebhookID: hookID, EventID: eventID, Attempt: 1, Due: now}
	}
	// earlier is a delivery to wh_all left by an interrupted dispatch.
	earlier := func(f func(*webhook.Delivery)) func(*store) {
		return func(s *store) {
			d := webhook.Delivery{ID: id("wh_all"), WebhookID: "wh_all", TeamID: teamID, EventID: eventID,
				EventType: webhook.VehicleCreated, Status: webhook.DeliveryPending}
			f(&d)
			s.deliveries[d.ID] = d
		}
	}

	tests := []struct {
		name   string
		before func(*store)
		times  int // dispatches of the change
		want   []webhook.Task
	}{
		{name: "first dispatch", times: 1, want: []webhook.Task{task("wh_all"), task("wh_typed")}},
		// A delivery found before its first attempt may have lost its message: it is queued again
		// (the deliverer's claim makes the two messages one attempt).
		{name: "dispatched again", times: 2,
			want: []webhook.Task{task("wh_all"), task("wh_all"), task("wh_typed"), task("wh_typed")}},
		{name: "again after the delivery was stored", times: 1,
			before: earlier(func(*webhook.Delivery) {}), want: []webhook.Task{task("wh_all"), task("wh_typed")}},
		{name: "again after the first attempt", times: 1,
			before: earlier(func(d *webhook.Delivery) { d.Attempt = 1 }), want: []webhook.Task{task("wh_typed")}},
		{name: "again after a replay", times: 1,
			before: earlier(func(d *webhook.Delivery) { d.Series = 1 }), want: []webhook.Task{task("wh_typed")}},
		{name: "again after the delivery succeeded", times: 1,
			before: earlier(func(d *webhook.Delivery) { d.Status = webhook.DeliverySucceeded }), want: []webhook.Task{task("wh_typed")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, q := newStore(hooks), &queue{}
			if tt.before != nil {
				tt.before(s)
			}
			d := &delivery.Dispatcher{Store: s, Queue: q, Now: func() time.Time { return now }, Logger: discard}
			for range tt.times {
				if n, err := d.Dispatch(context.Background(), []webhook.Change{change}); n != 1 || err != nil {
					t.Fatalf("Dispatch(%s) = %d, %v; want 1, nil", change.SourceID, n, err)
				}
			}
			got := q.queued()
			slices.SortFunc(got, func(a, b webhook.Task) int { return strings.Compare(a.WebhookID, b.WebhookID) })
			if !slices.Equal(got, tt.want) {
				t.Errorf("Dispatch(%s) %d times queued %v; want %v", change.SourceID, tt.times, got, tt.want)
			}
			for hookID, want := range map[string]string{"wh_typed": webhook.DeliveryPending, "wh_off": webhook.DeliverySkipped,
				"wh_deals": "", "wh_stranger": "", "wh_later": ""} {
				if got := s.delivery(id(hookID)); got.Status != want {
					t.Errorf("Dispatch(%s) left the delivery to %s %q; want %q", change.SourceID, hookID, got.Status, want)
				}
			}
			if got := s.delivery(id("wh_off")); got.EventID != eventID || len(got.Payload) == 0 {
				t.Errorf("Dispatch(%s) stored the skipped delivery %+v; want event %s, its payload", change.SourceID, got, eventID)
			}
		})
	}
}

// A dispatch interrupted before its task reached the queue queues it when the change comes again.
func TestDispatchAgainAfterQueueError(t *testing.T) {
	s, q := newStore([]webhook.Webhook{activeHook(hookID)}), &queue{err: errBoom}
	d := &delivery.Dispatcher{Store: s, Queue: q, Now: func() time.Time { return now }, Logger: discard}
	change := webhook.Change{SourceID: "rec-2", Resource: webhook.ResourceClient, TeamID: teamID, At: first,
		New: patio.Client{ID: "cli_1", Type: patio.ClientIndividual, Name: "Ana", Status: patio.ClientActive}}

	if n, err := d.Dispatch(context.Background(), []webhook.Change{change}); n != 0 || !errors.Is(err, errBoom) {
		t.Fatalf("Dispatch(%s) = %d, %v; want 0, %v", change.SourceID, n, err, errBoom)
	}
	q.err = nil
	if n, err := d.Dispatch(context.Background(), []webhook.Change{change}); n != 1 || err != nil {
		t.Fatalf("Dispatch(%s) again = %d, %v; want 1, nil", change.SourceID, n, err)
	}
	eventID := webhook.EventID("rec-2", webhook.ClientCreated)
	want := []webhook.Task{{DeliveryID: webhook.DeliveryID(eventID, hookID), TeamID: teamID, WebhookID: hookID,
		EventID: eventID, Attempt: 1, Due: now}}
	if got := q.queued(); !slices.Equal(got, want) {
		t.Errorf("Dispatch(%s) twice queued %v; want %v", change.SourceID, got, want)
	}
}

// TestDeliverWarning: the 4th consecutive failed attempt of a series warns the team once a day per
// webhook, saying when the webhook will be disabled; not when a delivery succeeded since the
// series began.
func TestDeliverWarning(t *testing.T) {
	e := newEnv(pending("dlv_a", 3), pending("dlv_b", 3), pending("dlv_c", 3))
	clock := now
	d := e.deliverer()
	d.Now = func() time.Time { return clock }
	deliver := func(id string) {
		t.Helper()
		if err := d.Deliver(context.Background(), taskFor(e.store.delivery(id), 4)); err != nil {
			t.Fatal(err)
		}
	}
	deliver("dlv_a")
	mails := e.mailer.sent()
	if len(mails) != 1 {
		t.Fatalf("after a 4th failed attempt %d emails went out; want 1 warning", len(mails))
	}
	sixth := now.Add(12 * time.Hour).Add(24 * time.Hour).Format(time.RFC3339)
	for _, want := range []string{activeHook(hookID).URL, "evt_dlv_a", "HTTP status 503", "disabled around " + sixth} {
		if !strings.Contains(mails[0].text, want) {
			t.Errorf("the warning says:\n%s\nwant it to contain %q", mails[0].text, want)
		}
	}
	deliver("dlv_b")
	if n := len(e.mailer.sent()); n != 1 {
		t.Errorf("a second 4th failure the same day sent %d emails in all; want 1", n)
	}
	clock = now.Add(25 * time.Hour)
	deliver("dlv_c")
	if n := len(e.mailer.sent()); n != 2 {
		t.Errorf("a 4th failure a day later sent %d emails in all; want 2", n)
	}

	// A success since the series began: no warning.
	e2 := newEnv(pending("dlv_a", 3))
	w := e2.store.hooks[hookID]
	w.LastSuccessAt = first.Add(time.Minute)
	e2.store.hooks[hookID] = w
	if err := e2.deliverer().Deliver(context.Background(), taskFor(e2.store.delivery("dlv_a"), 4)); err != nil {
		t.Fatal(err)
	}
	if n := len(e2.mailer.sent()); n != 0 {
		t.Errorf("a 4th failure after a success since the series began sent %d emails; want none", n)
	}
}
