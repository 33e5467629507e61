package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Store persists webhooks and deliveries.
type Store interface {
	// CreateWebhook stores a new webhook.
	CreateWebhook(ctx context.Context, w Webhook) error
	// Webhook returns a team's webhook (strongly consistent), or KindNotFound.
	Webhook(ctx context.Context, teamID, id string) (Webhook, error)
	// WebhookByID returns a webhook by its id alone, or KindNotFound.
	WebhookByID(ctx context.Context, id string) (Webhook, error)
	// TeamWebhooks returns every webhook of a team, active and disabled.
	TeamWebhooks(ctx context.Context, teamID string) ([]Webhook, error)
	// UpdateWebhook applies change to the stored webhook atomically (re-applying it on a lost race).
	UpdateWebhook(ctx context.Context, teamID, id string, change func(Webhook) (Webhook, error)) (Webhook, error)
	// NoteSuccess records that a delivery to the webhook succeeded at t (keeping the latest time).
	NoteSuccess(ctx context.Context, teamID, id string, t time.Time) error
	// DisableForFailures disables the webhook and marks its alert pending, atomically and only if it
	// is active, was enabled no later than first and had no success since first. It reports
	// whether it did.
	DisableForFailures(ctx context.Context, teamID, id string, first, now time.Time) (bool, error)
	// ClaimAlert clears the webhook's pending alert and reports whether it was pending (so one
	// caller sends it); ReleaseAlert sets it again after a failed send.
	ClaimAlert(ctx context.Context, teamID, id string) (bool, error)
	ReleaseAlert(ctx context.Context, teamID, id string) error

	// CreateDelivery stores a new delivery. When one with its id exists it returns false and the
	// stored one.
	CreateDelivery(ctx context.Context, d Delivery) (bool, Delivery, error)
	// MarkEnqueued records that the delivery's first attempt is on the queue.
	MarkEnqueued(ctx context.Context, id string) error
	// Delivery returns a delivery (strongly consistent), or KindNotFound.
	Delivery(ctx context.Context, id string) (Delivery, error)
	// RecordAttempt appends a to the delivery and sets its status, attempt count (a.N), first attempt
	// and next attempt time, conditioned on the delivery still being pending at series a.Series with
	// a.N-1 attempts. A lost condition is KindConflict.
	RecordAttempt(ctx context.Context, d Delivery, a Attempt, status string) error
	// SetDeliveryStatus moves a delivery from one of the from statuses to status (KindConflict when
	// it is in none of them). With restart it also starts a new series (Series+1, no attempts).
	SetDeliveryStatus(ctx context.Context, id string, from []string, status string, restart bool) (Delivery, error)
	// Deliveries lists a webhook's deliveries, newest first, optionally of one status.
	Deliveries(ctx context.Context, webhookID, status string) ([]Delivery, error)
}

// Queue carries delivery tasks. Enqueue delays the message until the task is due, or by the queue's
// longest delay when it is due later (the deliverer then enqueues it again: a hop).
type Queue interface {
	Enqueue(ctx context.Context, t Task) error
}

// Sender POSTs one attempt.
type Sender interface {
	// Send POSTs body with headers to url and reports the outcome; it never follows redirects.
	Send(ctx context.Context, url string, headers map[string]string, body []byte) Result
}

// Targets checks a target URL before a webhook is stored (public addresses only, outside the local
// stack). Errors are KindInvalid.
type Targets interface {
	CheckTarget(ctx context.Context, url string) error
}

// Mailer sends the alert email.
type Mailer interface {
	SendAlert(ctx context.Context, to, subject, text string) error
}

// Teams finds a team's contact email.
type Teams interface {
	Team(ctx context.Context, id string) (patio.Team, error)
}

// Result is the outcome of one attempt.
type Result struct {
	StatusCode int
	Duration   time.Duration
	// ErrorClass is "" for a 2xx answer, else one of the Err* classes.
	ErrorClass string
}

// OK reports a successful attempt.
func (r Result) OK() bool { return r.ErrorClass == "" }

// Dispatcher turns changes into deliveries: one pending delivery and queued first attempt per
// (event, active subscribed webhook), one skipped delivery per (event, disabled subscribed webhook).
// A webhook receives only the events of changes made at or after its creation (both times to the
// second), so re-processing old stream records never reaches a webhook created since. It does no
// HTTP. Re-dispatching a change creates nothing new (ids are deterministic).
type Dispatcher struct {
	Store  Store
	Queue  Queue
	Now    func() time.Time
	Logger *slog.Logger
}

// Dispatch handles one change. An error means the change must be dispatched again; what was already
// done is not repeated then.
func (d Dispatcher) Dispatch(ctx context.Context, c Change) error {
	events, err := Derive(c)
	if err != nil || len(events) == 0 {
		return err
	}
	hooks, err := d.Store.TeamWebhooks(ctx, c.TeamID)
	if err != nil {
		return err
	}
	now := clock(d.Now)
	for _, e := range events {
		for _, w := range hooks {
			if !w.Receives(e) {
				continue
			}
			if err := d.deliver(ctx, e, w, now); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d Dispatcher) deliver(ctx context.Context, e Event, w Webhook, now time.Time) error {
	payload, err := e.Payload(w.ID)
	if err != nil {
		return err
	}
	del := Delivery{
		ID: DeliveryID(e.ID, w.ID), WebhookID: w.ID, TeamID: w.TeamID, EventID: e.ID, EventType: e.Type,
		Status: DeliveryPending, Payload: payload, CreatedAt: now, UpdatedAt: now,
	}
	if w.Status != StatusActive {
		del.Status = DeliverySkipped
		_, _, err := d.Store.CreateDelivery(ctx, del)
		logger(d.Logger).InfoContext(ctx, "delivery skipped: webhook disabled",
			slog.String("event_id", e.ID), slog.String("webhook_id", w.ID), slog.String("team_id", w.TeamID))
		return err
	}
	created, stored, err := d.Store.CreateDelivery(ctx, del)
	if err != nil {
		return err
	}
	if !created && (stored.Enqueued || stored.Status != DeliveryPending || stored.Series != 0 || stored.Attempt != 0) {
		return nil
	}
	if err := d.Queue.Enqueue(ctx, Task{DeliveryID: del.ID, TeamID: w.TeamID, WebhookID: w.ID, EventID: e.ID,
		Attempt: 1, Due: now}); err != nil {
		return err
	}
	logger(d.Logger).InfoContext(ctx, "delivery queued", slog.String("event_id", e.ID),
		slog.String("webhook_id", w.ID), slog.String("team_id", w.TeamID), slog.String("delivery_id", del.ID),
		slog.Int64("dispatch_lag_ms", now.Sub(e.CreatedAt.Time()).Milliseconds()))
	return d.Store.MarkEnqueued(ctx, del.ID)
}

// Deliverer makes one attempt per task, records it, and schedules the next one or ends the series
// (and applies the deactivation rule).
type Deliverer struct {
	Store    Store
	Queue    Queue
	Sender   Sender
	Mailer   Mailer
	Teams    Teams
	Schedule Schedule
	Now      func() time.Time
	Logger   *slog.Logger
}

// Deliver handles one task. An error means the task must be handled again (the message is kept);
// stale and duplicate tasks are dropped without error.
func (d Deliverer) Deliver(ctx context.Context, t Task) error {
	log := logger(d.Logger).With(slog.String("event_id", t.EventID), slog.String("webhook_id", t.WebhookID),
		slog.String("team_id", t.TeamID), slog.String("delivery_id", t.DeliveryID), slog.Int("attempt", t.Attempt))
	now := clock(d.Now)
	if wait := t.Due.Sub(now); wait >= time.Second {
		log.DebugContext(ctx, "attempt not due yet: hop", slog.Duration("wait", wait))
		return d.Queue.Enqueue(ctx, t)
	} else if wait > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	del, err := d.Store.Delivery(ctx, t.DeliveryID)
	if patio.IsKind(err, patio.KindNotFound) {
		log.WarnContext(ctx, "task for an unknown delivery dropped")
		return nil
	}
	if err != nil {
		return err
	}
	if del.Series != t.Series {
		return nil
	}
	if del.Status == DeliveryPending && del.Attempt == t.Attempt && del.NextAttemptAt != nil && t.Attempt < MaxAttempts {
		// This attempt was recorded but the message stayed: its follow-up may be missing.
		return d.Queue.Enqueue(ctx, next(t, *del.NextAttemptAt))
	}
	if del.Status == DeliveryFailed && t.Attempt == MaxAttempts && del.Attempt == MaxAttempts {
		// The series ended; make sure a pending alert goes out.
		return d.alert(ctx, log, del)
	}
	if del.Status == DeliverySucceeded && del.Attempt == t.Attempt && len(del.Attempts) > 0 {
		// The success was recorded but the message stayed: noting it on the webhook may have failed,
		// and the deactivation rule must see it.
		return d.Store.NoteSuccess(ctx, del.TeamID, del.WebhookID, del.Attempts[len(del.Attempts)-1].At)
	}
	if del.Status != DeliveryPending || del.Attempt != t.Attempt-1 {
		return nil
	}
	w, err := d.Store.Webhook(ctx, del.TeamID, del.WebhookID)
	if patio.IsKind(err, patio.KindNotFound) {
		_, err = d.Store.SetDeliveryStatus(ctx, del.ID, []string{DeliveryPending}, DeliveryCancelled, false)
		return ignoreConflict(err)
	}
	if err != nil {
		return err
	}
	if w.Status != StatusActive {
		log.InfoContext(ctx, "delivery cancelled: webhook disabled")
		_, err = d.Store.SetDeliveryStatus(ctx, del.ID, []string{DeliveryPending}, DeliveryCancelled, false)
		return ignoreConflict(err)
	}

	start := clock(d.Now)
	res := d.Sender.Send(ctx, w.URL, Headers(del.EventID, del.Payload, w.KeysAt(start), start), del.Payload)
	a := Attempt{Series: t.Series, N: t.Attempt, At: start, StatusCode: res.StatusCode,
		DurationMs: res.Duration.Milliseconds(), ErrorClass: res.ErrorClass}
	if t.Attempt == 1 {
		del.FirstAttemptAt = start
	}
	log = log.With(slog.Int("status_code", res.StatusCode), slog.Int64("duration_ms", a.DurationMs))
	switch {
	case res.OK():
		if err := d.Store.RecordAttempt(ctx, del, a, DeliverySucceeded); err != nil {
			return ignoreConflict(err)
		}
		log.InfoContext(ctx, "delivery succeeded", slog.String("outcome", "succeeded"))
		return d.Store.NoteSuccess(ctx, w.TeamID, w.ID, start)
	case t.Attempt < MaxAttempts:
		due := clock(d.Now).Add(d.Schedule.Before(t.Attempt + 1))
		a.NextAttemptAt = &due
		if err := d.Store.RecordAttempt(ctx, del, a, DeliveryPending); err != nil {
			return ignoreConflict(err)
		}
		log.InfoContext(ctx, "attempt failed; retry scheduled", slog.String("outcome", "failed"),
			slog.String("error_class", res.ErrorClass), slog.Time("next_attempt_at", due))
		return d.Queue.Enqueue(ctx, next(t, due))
	}
	if err := d.Store.RecordAttempt(ctx, del, a, DeliveryFailed); err != nil {
		return ignoreConflict(err)
	}
	log.WarnContext(ctx, "delivery failed: attempts exhausted", slog.String("outcome", "failed"),
		slog.String("error_class", res.ErrorClass))
	del.Status, del.Attempt = DeliveryFailed, MaxAttempts
	return d.alert(ctx, log, del)
}

// alert applies the deactivation rule after a failed series, and sends the pending alert once.
func (d Deliverer) alert(ctx context.Context, log *slog.Logger, del Delivery) error {
	disabled, err := d.Store.DisableForFailures(ctx, del.TeamID, del.WebhookID, del.FirstAttemptAt, clock(d.Now))
	if err != nil {
		return err
	}
	if disabled {
		log.WarnContext(ctx, "webhook disabled after 6 consecutive failed attempts")
		if err := cancelPending(ctx, d.Store, del.WebhookID); err != nil {
			return err
		}
	}
	claimed, err := d.Store.ClaimAlert(ctx, del.TeamID, del.WebhookID)
	if err != nil || !claimed {
		return err
	}
	w, err := d.Store.Webhook(ctx, del.TeamID, del.WebhookID)
	if err == nil {
		err = d.sendAlert(ctx, w)
	}
	if err != nil {
		return errors.Join(err, d.Store.ReleaseAlert(context.WithoutCancel(ctx), del.TeamID, del.WebhookID))
	}
	log.InfoContext(ctx, "alert email sent")
	return nil
}

func (d Deliverer) sendAlert(ctx context.Context, w Webhook) error {
	team, err := d.Teams.Team(ctx, w.TeamID)
	if err != nil {
		return err
	}
	subject := "Patio: webhook disabled after 6 consecutive failed deliveries"
	text := fmt.Sprintf("Hello %s,\n\nThe webhook %s (%s) was disabled automatically: six consecutive delivery "+
		"attempts failed and no delivery to it succeeded in the meantime. Its pending deliveries were "+
		"cancelled.\n\nFix the receiver, then ask us to enable the webhook again; failed and cancelled "+
		"deliveries can be replayed.\n\nPatio\n", team.Name, w.ID, w.URL)
	return d.Mailer.SendAlert(ctx, team.Email, subject, text)
}

// cancelPending cancels every pending delivery of a webhook.
func cancelPending(ctx context.Context, s Store, webhookID string) error {
	pending, err := s.Deliveries(ctx, webhookID, DeliveryPending)
	if err != nil {
		return err
	}
	for _, p := range pending {
		if _, err := s.SetDeliveryStatus(ctx, p.ID, []string{DeliveryPending}, DeliveryCancelled, false); ignoreConflict(err) != nil {
			return err
		}
	}
	return nil
}

func next(t Task, due time.Time) Task {
	t.Attempt++
	t.Due = due
	return t
}

func ignoreConflict(err error) error {
	if patio.IsKind(err, patio.KindConflict) {
		return nil
	}
	return err
}

func clock(now func() time.Time) time.Time {
	if now == nil {
		return time.Now().UTC()
	}
	return now().UTC()
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

// Webhooks is the operators' use cases (CONTRACT.md section 8).
type Webhooks struct {
	Store   Store
	Queue   Queue
	Targets Targets
	Now     func() time.Time
}

// Create registers a webhook for a team and returns it with its secret (shown once). The URL must
// be https and, outside the local stack, resolve to public addresses only (KindInvalid).
func (s Webhooks) Create(ctx context.Context, teamID, url string, events []string) (Webhook, string, error) {
	w, err := New(teamID, url, events, clock(s.Now))
	if err != nil {
		return Webhook{}, "", err
	}
	if s.Targets != nil {
		if err := s.Targets.CheckTarget(ctx, w.URL); err != nil {
			return Webhook{}, "", err
		}
	}
	if err := s.Store.CreateWebhook(ctx, w); err != nil {
		return Webhook{}, "", err
	}
	return w, w.Secret, nil
}

// Get returns a webhook by id, or KindNotFound.
func (s Webhooks) Get(ctx context.Context, id string) (Webhook, error) {
	w, err := s.Store.WebhookByID(ctx, id)
	return w.Settle(clock(s.Now)), err
}

// List returns a team's webhooks.
func (s Webhooks) List(ctx context.Context, teamID string) ([]Webhook, error) {
	hs, err := s.Store.TeamWebhooks(ctx, teamID)
	for i := range hs {
		hs[i] = hs[i].Settle(clock(s.Now))
	}
	return hs, err
}

// Enable makes a webhook active again; the failure count starts afresh.
func (s Webhooks) Enable(ctx context.Context, id string) (Webhook, error) {
	return s.update(ctx, id, func(w Webhook) (Webhook, error) {
		now := clock(s.Now)
		if w.Status != StatusActive {
			w.Status, w.EnabledAt, w.UpdatedAt = StatusActive, now, patio.NewTimestamp(now)
		}
		return w, nil
	})
}

// Disable disables a webhook and cancels its pending deliveries.
func (s Webhooks) Disable(ctx context.Context, id string) (Webhook, error) {
	w, err := s.update(ctx, id, func(w Webhook) (Webhook, error) {
		if w.Status != StatusDisabled {
			w.Status, w.UpdatedAt = StatusDisabled, patio.NewTimestamp(clock(s.Now))
		}
		return w, nil
	})
	if err != nil {
		return w, err
	}
	return w, cancelPending(ctx, s.Store, w.ID)
}

// RotateSecret gives a webhook a new secret (returned, shown once) with the given grace period.
func (s Webhooks) RotateSecret(ctx context.Context, id string, grace time.Duration) (Webhook, string, error) {
	var secret string
	w, err := s.update(ctx, id, func(w Webhook) (Webhook, error) {
		var err error
		w, secret, err = w.Settle(clock(s.Now)).Rotate(clock(s.Now), grace)
		return w, err
	})
	return w, secret, err
}

func (s Webhooks) update(ctx context.Context, id string, change func(Webhook) (Webhook, error)) (Webhook, error) {
	w, err := s.Store.WebhookByID(ctx, id)
	if err != nil {
		return w, err
	}
	return s.Store.UpdateWebhook(ctx, w.TeamID, w.ID, change)
}

// Deliveries lists a webhook's deliveries, optionally of one status.
func (s Webhooks) Deliveries(ctx context.Context, webhookID, status string) ([]Delivery, error) {
	st, err := ParseDeliveryStatus(status)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.WebhookByID(ctx, webhookID); err != nil {
		return nil, err
	}
	return s.Store.Deliveries(ctx, webhookID, st)
}

// Replay re-sends a failed, cancelled or skipped delivery as a new series of attempts with the same
// event id and payload. Other statuses, or a disabled webhook, are KindConflict.
func (s Webhooks) Replay(ctx context.Context, id string) (Delivery, error) {
	if s.Queue == nil {
		return Delivery{}, patio.Internal(errors.New("webhook: no delivery queue configured (DELIVERY_QUEUE_URL)"))
	}
	d, err := s.Store.Delivery(ctx, id)
	if err != nil {
		return d, err
	}
	if !d.Replayable() {
		return d, patio.Conflictf("delivery %s is %s; only failed, cancelled or skipped deliveries can be replayed", id, d.Status)
	}
	w, err := s.Store.Webhook(ctx, d.TeamID, d.WebhookID)
	if err != nil {
		return d, err
	}
	if w.Status != StatusActive {
		return d, patio.Conflictf("webhook %s is disabled; enable it before replaying", w.ID)
	}
	was := d.Status
	d, err = s.Store.SetDeliveryStatus(ctx, id, []string{DeliveryFailed, DeliveryCancelled, DeliverySkipped}, DeliveryPending, true)
	if err != nil {
		return d, err
	}
	err = s.Queue.Enqueue(ctx, Task{DeliveryID: d.ID, TeamID: d.TeamID, WebhookID: d.WebhookID, EventID: d.EventID,
		Series: d.Series, Attempt: 1, Due: clock(s.Now)})
	if err != nil {
		// Nothing will deliver a pending delivery whose task never reached the queue: put the
		// status back so the operator can replay it again.
		if _, undo := s.Store.SetDeliveryStatus(context.WithoutCancel(ctx), id, []string{DeliveryPending}, was, false); undo != nil {
			err = errors.Join(err, undo)
		}
	}
	return d, err
}
