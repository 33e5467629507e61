package delivery_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

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
			e := newEnv(t, pending("dlv_1", 0))
			e.sender.result = success
			task := e.task("dlv_1", 1)
			task.Due = now.Add(tt.due)
			// A deliverer that waits instead of hopping gives up here rather than hanging.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if tt.cancel {
				cancel()
			}

			if err := e.deliverer().Deliver(ctx, task); !errors.Is(err, tt.wantErr) {
				t.Fatalf("Deliver(%v) = %v; want %v", task, err, tt.wantErr)
			}
			sent, queued, got := e.sender.sent(), e.queue.queued(), e.delivery("dlv_1")
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
			e := newEnv(t, pending("dlv_1", tt.attempt-1))
			d := e.deliverer()
			d.Schedule = tt.schedule
			task := e.task("dlv_1", tt.attempt)

			if err := d.Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			due := now.Add(tt.want)
			if want := []webhook.Task{{DeliveryID: task.DeliveryID, TeamID: e.team.ID, WebhookID: e.hook.ID, EventID: task.EventID,
				Attempt: tt.attempt + 1, Due: due}}; !slices.Equal(e.queue.queued(), want) {
				t.Errorf("Deliver(%v) queued %v; want %v", task, e.queue.queued(), want)
			}
			got := e.delivery("dlv_1")
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
			e := newEnv(t, pending("dlv_1", tt.attempt-1, func(d *webhook.Delivery) { d.Series = tt.series }))
			e.sender.result = success
			del := e.delivery("dlv_1")
			task := e.task("dlv_1", tt.attempt)

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			got := e.delivery("dlv_1")
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
			if at := e.lastSuccess(); !at.Equal(now) {
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
			if p.url != e.hook.URL || string(p.body) != string(del.Payload) ||
				p.headers[webhook.HeaderEventID] != del.EventID || p.headers[webhook.HeaderSignature] != webhook.SignHex(secret, ts, del.Payload) {
				t.Errorf("Deliver(%v) sent %s %s %v; want the payload to %s, event %s, signed at %s",
					task, p.url, p.body, p.headers, e.hook.URL, del.EventID, ts)
			}
		})
	}
}

// A success whose noting on the webhook's gate failed is noted when the task is handled again:
// otherwise the "no success since the first attempt" rule would later disable a webhook that
// answered.
func TestDeliverNotesSuccessWhenRetried(t *testing.T) {
	e := newEnv(t, pending("dlv_1", 1), pending("dlv_2", webhook.MaxAttempts-1)) // dlv_2's series began before the success
	e.sender.result = success
	// The lease is taken (one write of the gate); the write that gives it back with the success
	// fails, and so does the note that stands in for it.
	e.store.failOnce("SwapGate", 1, errBoom)
	e.store.failOnce("NoteSuccess", 0, errBoom)
	d := e.deliverer()
	task := e.task("dlv_1", 2)

	if err := d.Deliver(context.Background(), task); !errors.Is(err, errBoom) {
		t.Fatalf("Deliver(%v) = %v; want %v (the message must stay)", task, err, errBoom)
	}
	if err := d.Deliver(context.Background(), task); err != nil {
		t.Fatalf("Deliver(%v) again = %v; want nil", task, err)
	}
	if at := e.lastSuccess(); !at.Equal(now) {
		t.Errorf("after Deliver(%v) twice, the webhook's last success is %v; want %v", task, at, now)
	}
	if n := len(e.sender.sent()); n != 1 {
		t.Errorf("Deliver(%v) twice sent %d requests; want 1", task, n)
	}

	e.sender.result = failure
	last := e.task("dlv_2", webhook.MaxAttempts)
	if err := d.Deliver(context.Background(), last); err != nil {
		t.Fatalf("Deliver(%v) = %v; want nil", last, err)
	}
	if st := e.webhook().Status; st != webhook.StatusActive {
		t.Errorf("after a success since its first attempt, Deliver(%v) left the webhook %q; want %q", last, st, webhook.StatusActive)
	}
}

func TestDeliverDropsStaleTasks(t *testing.T) {
	series := func(n int) func(*webhook.Delivery) { return func(d *webhook.Delivery) { d.Series = n } }
	status := func(st string) func(*webhook.Delivery) {
		return func(d *webhook.Delivery) {
			d.Status = st
			if st != webhook.DeliveryPending && st != webhook.DeliveryCancelled {
				d.NextAttemptAt = nil
			}
		}
	}
	tests := []struct {
		name    string
		stored  func(*env) webhook.Delivery
		series  int // the task's
		attempt int
		task    string // the delivery the task names (default dlv_1)
	}{
		{name: "old series after a replay", stored: pending("dlv_1", 0, series(1)), attempt: 1},
		{name: "old series at the same count", stored: pending("dlv_1", 2, series(1)), attempt: 3},
		{name: "old series, last attempt", stored: pending("dlv_1", 5, series(1)), attempt: 6},
		{name: "attempt already made", stored: pending("dlv_1", 3), attempt: 2},
		{name: "attempt ahead of the delivery", stored: pending("dlv_1", 1), attempt: 3},
		{name: "first attempt again", stored: pending("dlv_1", 4), attempt: 1},
		{name: "succeeded", stored: pending("dlv_1", 2, status(webhook.DeliverySucceeded)), attempt: 3},
		{name: "cancelled", stored: pending("dlv_1", 2, status(webhook.DeliveryCancelled)), attempt: 3},
		{name: "skipped", stored: pending("dlv_1", 0, status(webhook.DeliverySkipped)), attempt: 1},
		{name: "failed before its last attempt", stored: pending("dlv_1", 3, status(webhook.DeliveryFailed)), attempt: 4},
		{name: "unknown delivery", stored: pending("dlv_other", 0), attempt: 1, task: "dlv_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.stored)
			name := tt.task
			if name == "" {
				name = "dlv_1"
			}
			task := e.task(name, tt.attempt)
			task.Series = tt.series
			stored := tt.stored(e)
			before := e.delivery(stored.ID[len(e.prefix):])

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil (a stale task is dropped)", task, err)
			}
			if n := len(e.sender.sent()); n != 0 {
				t.Errorf("Deliver(%v) sent %d requests; want none", task, n)
			}
			if q := e.queue.queued(); len(q) != 0 {
				t.Errorf("Deliver(%v) queued %v; want nothing", task, q)
			}
			if got := e.delivery(stored.ID[len(e.prefix):]); got.Status != before.Status || got.Attempt != before.Attempt || len(got.Attempts) != len(before.Attempts) {
				t.Errorf("Deliver(%v) changed the delivery to %q with %d attempts; want %q with %d",
					task, got.Status, got.Attempt, before.Status, before.Attempt)
			}
			if len(e.store.disabledSince) != 0 || len(e.mailer.sent()) != 0 {
				t.Errorf("Deliver(%v) applied the deactivation rule", task)
			}
		})
	}
}

// A task whose attempt was recorded while its message stayed on the queue puts the follow-up back
// (it may never have been queued) instead of attempting again.
func TestDeliverRequeuesRecordedAttempt(t *testing.T) {
	for _, n := range []int{1, 3, webhook.MaxAttempts - 1} {
		t.Run("attempt "+strconv.Itoa(n), func(t *testing.T) {
			next := now.Add(time.Hour)
			e := newEnv(t, pending("dlv_1", n, func(d *webhook.Delivery) { d.NextAttemptAt = &next }))
			task := e.task("dlv_1", n)

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			want := webhook.Task{DeliveryID: task.DeliveryID, TeamID: task.TeamID, WebhookID: task.WebhookID, EventID: task.EventID,
				Attempt: n + 1, Due: next}
			if q := e.queue.queued(); !slices.Equal(q, []webhook.Task{want}) {
				t.Errorf("Deliver(%v) queued %v; want %v", task, q, []webhook.Task{want})
			}
			if sent, got := len(e.sender.sent()), e.delivery("dlv_1").Attempt; sent != 0 || got != n {
				t.Errorf("Deliver(%v) sent %d requests, left %d attempts; want 0, %d", task, sent, got, n)
			}
		})
	}
}

func TestDeliverCancelsForInactiveWebhook(t *testing.T) {
	tests := []struct {
		name   string
		change func(*env) func(*webhook.Delivery)
	}{
		{name: "disabled", change: func(e *env) func(*webhook.Delivery) {
			if _, err := e.store.UpdateWebhook(context.Background(), e.team.ID, e.hook.ID, func(w webhook.Webhook) (webhook.Webhook, error) {
				w.Status = webhook.StatusDisabled
				return w, nil
			}); err != nil {
				e.t.Fatal(err)
			}
			return func(*webhook.Delivery) {}
		}},
		{name: "gone", change: func(*env) func(*webhook.Delivery) {
			return func(d *webhook.Delivery) { d.WebhookID += "_gone" }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.put(pending("dlv_1", 2, tt.change(e))(e))
			task := e.task("dlv_1", 3)

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			if st := e.delivery("dlv_1").Status; st != webhook.DeliveryCancelled {
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
			e := newEnv(t)
			if tt.hook != nil {
				if _, err := e.store.UpdateWebhook(context.Background(), e.team.ID, e.hook.ID, func(w webhook.Webhook) (webhook.Webhook, error) {
					tt.hook(&w)
					return w, nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			other := e.newHook("wh_2")
			for _, f := range []func(*env) webhook.Delivery{pending("dlv_6", webhook.MaxAttempts-1), pending("dlv_other", 2), pending("dlv_new", 0),
				pending("dlv_elsewhere", 1, func(d *webhook.Delivery) { d.WebhookID = other.ID }),
				pending("dlv_done", 2, func(d *webhook.Delivery) { d.Status, d.NextAttemptAt = webhook.DeliverySucceeded, nil })} {
				e.put(f(e))
			}
			task := e.task("dlv_6", webhook.MaxAttempts)

			if err := e.deliverer().Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver(%v) = %v; want nil", task, err)
			}
			got := e.delivery("dlv_6")
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
			w := e.webhook()
			if w.Status != wantHook || w.AlertPending {
				t.Errorf("Deliver(%v) left the webhook %q, alert pending %t; want %q, false", task, w.Status, w.AlertPending, wantHook)
			}
			for name, want := range map[string]string{"dlv_other": wantPending, "dlv_new": wantPending,
				"dlv_elsewhere": webhook.DeliveryPending, "dlv_done": webhook.DeliverySucceeded} {
				if st := e.delivery(name).Status; st != want {
					t.Errorf("Deliver(%v) left %s %q; want %q", task, name, st, want)
				}
			}
			alerts := e.mailer.sent()
			if len(alerts) != wantAlerts {
				t.Fatalf("Deliver(%v) sent %d alerts; want %d", task, len(alerts), wantAlerts)
			}
			if wantAlerts == 1 {
				// The email, in the team's language, names the URL, the last failure and when, how
				// many deliveries were cancelled, and links to the webhook's page in the console.
				for _, want := range []string{w.URL, "HTTP status 503, at " + now.Format(time.RFC3339),
					"Pending deliveries cancelled: 2.", "https://console.acme.example/console/webhooks/" + e.hook.ID} {
					if !strings.Contains(alerts[0].text, want) {
						t.Errorf("the alert says:\n%s\nwant it to contain %q", alerts[0].text, want)
					}
				}
				if alerts[0].to != e.team.Email {
					t.Errorf("the alert went to %s; want %s", alerts[0].to, e.team.Email)
				}
			}
		})
	}
}

// The alert goes out once: only the caller that claims it sends it, and a failed send gives the
// claim back for the task's next handling.
func TestDeliverAlertOnce(t *testing.T) {
	sixth := func(t *testing.T) (*env, webhook.Task) {
		e := newEnv(t, pending("dlv_6", webhook.MaxAttempts-1), pending("dlv_other", 1))
		return e, e.task("dlv_6", webhook.MaxAttempts)
	}
	alertsOf := func(ms ...*mailer) int {
		n := 0
		for _, m := range ms {
			n += len(m.sent())
		}
		return n
	}

	t.Run("a second deliverer loses the claim", func(t *testing.T) {
		e, task := sixth(t)
		if err := e.deliverer().Deliver(context.Background(), task); err != nil {
			t.Fatalf("Deliver(%v) = %v; want nil", task, err)
		}
		second := e.deliverer()
		second.Mailer = &mailer{}
		if err := second.Deliver(context.Background(), task); err != nil {
			t.Fatalf("Deliver(%v) again = %v; want nil", task, err)
		}
		if n, m := len(e.mailer.sent()), len(second.Mailer.(*mailer).sent()); n != 1 || m != 0 {
			t.Errorf("Deliver(%v) by two deliverers sent %d and %d alerts; want 1 and 0", task, n, m)
		}
		if n := len(e.sender.sent()); n != 1 {
			t.Errorf("Deliver(%v) by two deliverers sent %d requests; want 1", task, n)
		}
	})

	t.Run("deliverers racing for the claim", func(t *testing.T) {
		e, task := sixth(t)
		if err := e.deliverer().Deliver(context.Background(), task); err != nil {
			t.Fatalf("Deliver(%v) = %v; want nil", task, err)
		}
		// The alert is pending again, as after a failed send; duplicates of the task race for it.
		if err := e.store.ReleaseAlert(context.Background(), e.team.ID, e.hook.ID); err != nil {
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
		e, task := sixth(t)
		e.mailer.err = errBoom
		if err := e.deliverer().Deliver(context.Background(), task); !errors.Is(err, errBoom) {
			t.Fatalf("Deliver(%v) = %v; want %v (the message must stay)", task, err, errBoom)
		}
		if w := e.webhook(); w.Status != webhook.StatusDisabled || !w.AlertPending {
			t.Errorf("after a failed alert, the webhook is %q with alert pending %t; want %q, true", w.Status, w.AlertPending, webhook.StatusDisabled)
		}
		if st := e.delivery("dlv_other").Status; st != webhook.DeliveryCancelled {
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
		if w := e.webhook(); w.AlertPending {
			t.Errorf("after the alert went out, the webhook still has it pending")
		}
		if n := len(e.sender.sent()); n != 1 {
			t.Errorf("Deliver(%v) three times sent %d requests; want 1", task, n)
		}
	})

	t.Run("an unknown team releases the claim", func(t *testing.T) {
		e, task := sixth(t)
		d := e.deliverer()
		d.Teams = teams{}
		if err := d.Deliver(context.Background(), task); !patio.IsKind(err, patio.KindNotFound) {
			t.Fatalf("Deliver(%v) = %v; want the team's KindNotFound", task, err)
		}
		if w := e.webhook(); !w.AlertPending {
			t.Errorf("after a failed alert, the webhook has no alert pending; want it pending")
		}
	})

	t.Run("a failed disable is applied when the task is handled again", func(t *testing.T) {
		e, task := sixth(t)
		e.store.failOnce("DisableForFailures", 0, errBoom)
		if err := e.deliverer().Deliver(context.Background(), task); !errors.Is(err, errBoom) {
			t.Fatalf("Deliver(%v) = %v; want %v (the message must stay)", task, err, errBoom)
		}
		if st := e.delivery("dlv_6").Status; st != webhook.DeliveryFailed {
			t.Fatalf("Deliver(%v) left the delivery %q; want %q", task, st, webhook.DeliveryFailed)
		}
		if err := e.deliverer().Deliver(context.Background(), task); err != nil {
			t.Fatalf("Deliver(%v) again = %v; want nil", task, err)
		}
		w := e.webhook()
		if w.Status != webhook.StatusDisabled || len(e.mailer.sent()) != 1 || e.delivery("dlv_other").Status != webhook.DeliveryCancelled {
			t.Errorf("Deliver(%v) handled again left the webhook %q, %d alerts, dlv_other %q; want %q, 1, %q", task,
				w.Status, len(e.mailer.sent()), e.delivery("dlv_other").Status, webhook.StatusDisabled, webhook.DeliveryCancelled)
		}
		if n := len(e.sender.sent()); n != 1 {
			t.Errorf("Deliver(%v) twice sent %d requests; want 1", task, n)
		}
	})
}

// TestDeliverWarning: the 4th consecutive failed attempt of a series warns the team once a day per
// webhook, saying when the webhook will be disabled; not when a delivery succeeded since the
// series began.
func TestDeliverWarning(t *testing.T) {
	e := newEnv(t, pending("dlv_a", 3), pending("dlv_b", 3), pending("dlv_c", 3))
	clock := now
	d := e.deliverer()
	d.Now = func() time.Time { return clock }
	deliver := func(name string) {
		t.Helper()
		task := e.task(name, 4)
		task.Due = clock
		if err := d.Deliver(context.Background(), task); err != nil {
			t.Fatal(err)
		}
	}
	// A team whose emails are in Portuguese (the default) is warned in Portuguese.
	e.team.Language = ""
	d.Teams = teams{e.team.ID: e.team}
	deliver("dlv_a")
	mails := e.mailer.sent()
	if len(mails) != 1 {
		t.Fatalf("after a 4th failed attempt %d emails went out; want 1 warning", len(mails))
	}
	sixth := now.Add(12 * time.Hour).Add(24 * time.Hour).Format(time.RFC3339)
	for _, want := range []string{e.hook.URL, "evt_" + e.id("dlv_a"), "status HTTP 503", "desativado por volta de " + sixth,
		"https://console.acme.example/console/webhooks/" + e.hook.ID} {
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
	e2 := newEnv(t, pending("dlv_a", 3))
	if err := e2.store.NoteSuccess(context.Background(), e2.team.ID, e2.hook.ID, first.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := e2.deliverer().Deliver(context.Background(), e2.task("dlv_a", 4)); err != nil {
		t.Fatal(err)
	}
	if n := len(e2.mailer.sent()); n != 0 {
		t.Errorf("a 4th failure after a success since the series began sent %d emails; want none", n)
	}
}

// TestDeliverClaims: an attempt queued twice (by the sweep, or by SQS delivering a message twice)
// is sent once. A copy that finds the attempt claimed by another live claim waits; once the
// attempt is recorded, copies are dropped. A claim whose time is up (its claimant crashed) is
// taken over.
func TestDeliverClaims(t *testing.T) {
	e := newEnv(t, pending("dlv_1", 1))
	e.sender.result = success
	task := e.task("dlv_1", 2)
	a, b := task, task
	a.Token, b.Token = "a", "b"
	// a is sending it now.
	if _, ok, err := e.store.ClaimDelivery(context.Background(), task.DeliveryID, 0, 2, "a", now, now.Add(time.Minute)); err != nil || !ok {
		t.Fatalf("ClaimDelivery = %t, %v", ok, err)
	}
	d := e.deliverer()
	if err := d.Deliver(context.Background(), b); err != nil {
		t.Fatalf("Deliver(copy) = %v; want nil", err)
	}
	if n := len(e.sender.sent()); n != 0 {
		t.Fatalf("a copy of an attempt claimed by another sent %d requests; want none", n)
	}
	if q := e.queue.queued(); len(q) != 1 || q[0].Token != "b" || !q[0].NotBefore.After(now) {
		t.Errorf("a copy of a claimed attempt queued %v; want it back, waiting", q)
	}
	if err := d.Deliver(context.Background(), a); err != nil {
		t.Fatalf("Deliver(claimant) = %v; want nil", err)
	}
	if err := d.Deliver(context.Background(), b); err != nil {
		t.Fatalf("Deliver(copy, after) = %v; want nil", err)
	}
	if n := len(e.sender.sent()); n != 1 {
		t.Errorf("two copies of one attempt sent %d requests; want 1", n)
	}

	e2 := newEnv(t, pending("dlv_1", 1))
	e2.sender.result = success
	crashed := e2.task("dlv_1", 2)
	if _, ok, err := e2.store.ClaimDelivery(context.Background(), crashed.DeliveryID, 0, 2, "crashed", now.Add(-3*time.Minute), now.Add(-time.Second)); err != nil || !ok {
		t.Fatalf("ClaimDelivery = %t, %v", ok, err)
	}
	copyTask := crashed
	copyTask.Token, copyTask.Copy = "sweep", true
	if err := e2.deliverer().Deliver(context.Background(), copyTask); err != nil {
		t.Fatal(err)
	}
	if n := len(e2.sender.sent()); n != 1 {
		t.Errorf("an attempt whose claim ran out sent %d requests; want 1", n)
	}
}

// TestDeliverUnclaimedOnlyWhenSafe: an attempt handled soon after it was due, from a task that is
// no copy, goes out without a claim (the sweep cannot have queued it again); a copy, or an attempt
// handled late, is claimed first, so that a late message and the sweep's copy send it once.
func TestDeliverUnclaimedOnlyWhenSafe(t *testing.T) {
	tests := []struct {
		name      string
		late      time.Duration
		copy      bool
		wantClaim bool
	}{
		{name: "on time", late: 0},
		{name: "a little late", late: 30 * time.Second},
		{name: "late enough for the sweep to come near", late: 2 * time.Minute, wantClaim: true},
		{name: "a copy", late: 0, copy: true, wantClaim: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, pending("dlv_1", 1))
			e.sender.result = success
			task := e.task("dlv_1", 2)
			task.Due, task.Copy = now.Add(-tt.late), tt.copy
			// A competing claim that has run out: only a task that claims replaces it; one that
			// does not claim leaves it to the record (which ends it).
			if _, _, err := e.store.ClaimDelivery(context.Background(), task.DeliveryID, 0, 2, "other", now.Add(-10*time.Minute), now.Add(-time.Second)); err != nil {
				t.Fatal(err)
			}
			claims := &claimCounter{store: e.store}
			d := e.deliverer()
			d.Deliveries = claims
			if err := d.Deliver(context.Background(), task); err != nil {
				t.Fatalf("Deliver = %v", err)
			}
			if got := claims.n.Load() > 0; got != tt.wantClaim {
				t.Errorf("Deliver of an attempt %s late (copy %t) claimed it: %t; want %t", tt.late, tt.copy, got, tt.wantClaim)
			}
			if st := e.delivery("dlv_1").Status; st != webhook.DeliverySucceeded || len(e.sender.sent()) != 1 {
				t.Errorf("Deliver left %q after %d requests; want succeeded after 1", st, len(e.sender.sent()))
			}
		})
	}
}

// claimCounter counts ClaimDelivery calls.
type claimCounter struct {
	*store
	n atomic.Int64
}

func (c *claimCounter) ClaimDelivery(ctx context.Context, id string, series, n int, token string, now, until time.Time) (webhook.Delivery, bool, error) {
	c.n.Add(1)
	return c.store.ClaimDelivery(ctx, id, series, n, token, now, until)
}

// blockingSender holds every send until its context ends, then reports no answer, as a send cut
// short by a stopping worker does.
type blockingSender struct {
	started chan struct{}
}

func (s *blockingSender) Send(ctx context.Context, _ string, _ map[string]string, _ []byte) webhook.Result {
	close(s.started)
	<-ctx.Done()
	return webhook.Result{ErrorClass: webhook.ErrNetwork, Reason: ctx.Err().Error()}
}

// TestDeliverStopReleasesClaims: a worker stopped while it sends a claimed attempt records no
// attempt (the receiver failed nothing) and ends its claim, so that the sweep's copy goes out at
// once rather than when the claim runs out.
func TestDeliverStopReleasesClaims(t *testing.T) {
	e := newEnv(t, pending("dlv_1", 1))
	task := e.task("dlv_1", 2)
	task.Copy = true // claims its attempt first
	d := e.deliverer()
	blocking := &blockingSender{started: make(chan struct{})}
	d.Sender = blocking
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Deliver(ctx, task) }()
	<-blocking.started
	stop()
	<-done
	if del := e.delivery("dlv_1"); del.Attempt != 1 || del.Status != webhook.DeliveryPending {
		t.Errorf("after the stop, the delivery is %s at attempt %d; want pending at 1 (no attempt recorded)", del.Status, del.Attempt)
	}
	// The sweep's copy claims it at once.
	copyTask := task
	copyTask.Token = "sweep"
	if _, ok, err := e.store.ClaimDelivery(context.Background(), task.DeliveryID, 0, 2, "sweep", now, now.Add(time.Minute)); err != nil || !ok {
		t.Errorf("the sweep's copy could not claim the attempt after the stop (ok %t, %v); want the stopped worker's claim ended", ok, err)
	}
}
