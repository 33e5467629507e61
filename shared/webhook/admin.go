package webhook

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/patio-dev/patio/shared/patio"
)

// Webhooks is the use cases of webhook management, shared by the operators' tool and the console.
type Webhooks struct {
	Store Store
	// Log is the webhooks' deliveries.
	Log     DeliveryLog
	Queue   Queue
	Targets Targets
	// Audit records every change in the team's audit log, with the actor of the call's context
	// (nil: none recorded).
	Audit patio.Auditor
	Now   func() time.Time
}

// audit records a change to a webhook (or one of its deliveries) made by the context's actor.
func (s Webhooks) audit(ctx context.Context, teamID, action, target string, fields ...string) error {
	return patio.Audit(ctx, s.Audit, teamID, action, target, fields...)
}

// Settings are what a webhook's owner chooses: where it posts, which events, how fast, and a
// description for the people who look after it.
type Settings struct {
	URL    string
	Events []string
	// MaxRate is 0 (none) or 1..MaxRateLimit.
	MaxRate     Rate
	Description string
}

// SettingsChange is an edit of a webhook's settings: nil members stay as they are.
type SettingsChange struct {
	URL         *string
	Events      []string
	MaxRate     *Rate
	Description *string
}

// MaxDescription is how many characters a webhook's description may have.
const MaxDescription = 500

// checkDescription trims a description and checks its length (KindInvalid when too long).
func checkDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	if utf8.RuneCountInString(d) > MaxDescription {
		return d, patio.Invalidf("description must have at most %d characters", MaxDescription)
	}
	return d, nil
}

// Create registers a webhook for a team and returns it with its secret (shown once). The URL must
// be https and, outside the local stack, resolve to public addresses only; the max rate is 0
// (none) or 1..MaxRateLimit, the description at most MaxDescription characters (KindInvalid
// otherwise).
func (s Webhooks) Create(ctx context.Context, teamID string, set Settings) (Webhook, string, error) {
	w, err := New(teamID, set.URL, set.Events, clock(s.Now))
	if err != nil {
		return Webhook{}, "", err
	}
	if w.MaxRate, err = set.MaxRate.Check(); err != nil {
		return Webhook{}, "", err
	}
	if w.Description, err = checkDescription(set.Description); err != nil {
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
	return w, w.Secret, s.audit(ctx, w.TeamID, "webhook.create", "webhook:"+w.ID, "url", "events", "secret")
}

// Get returns a webhook by id, or KindNotFound.
func (s Webhooks) Get(ctx context.Context, id string) (Webhook, error) {
	w, err := s.Store.WebhookByID(ctx, id)
	return w.Settle(clock(s.Now)), err
}

// GetOfTeam returns a team's webhook (one read of the team's partition), or KindNotFound when
// the team has no webhook of that id.
func (s Webhooks) GetOfTeam(ctx context.Context, teamID, id string) (Webhook, error) {
	w, err := s.Store.Webhook(ctx, teamID, id)
	if patio.IsKind(err, patio.KindNotFound) {
		return Webhook{}, patio.NotFoundf("webhook not found")
	}
	return w.Settle(clock(s.Now)), err
}

// List returns a team's webhooks, the deleted ones only with all.
func (s Webhooks) List(ctx context.Context, teamID string, all bool) ([]Webhook, error) {
	hs, err := s.Store.TeamWebhooks(ctx, teamID)
	out := []Webhook{}
	for _, w := range hs {
		if all || w.Status != StatusDeleted {
			out = append(out, w.Settle(clock(s.Now)))
		}
	}
	return out, err
}

// errDeleted refuses an operation on a deleted webhook (KindConflict): deletion is final.
func errDeleted(w Webhook) error {
	return patio.Conflictf("webhook %s is deleted", w.ID)
}

// Enable makes a webhook active again; the failure count starts afresh. A deleted webhook is
// KindConflict.
func (s Webhooks) Enable(ctx context.Context, id string) (Webhook, error) {
	w, err := s.update(ctx, id, func(w Webhook) (Webhook, error) {
		now := clock(s.Now)
		switch w.Status {
		case StatusDeleted:
			return w, errDeleted(w)
		case StatusActive:
		default:
			w.Status, w.EnabledAt, w.UpdatedAt, w.AlertPending = StatusActive, now, patio.NewTimestamp(now), false
		}
		return w, nil
	})
	if err != nil {
		return w, err
	}
	return w, s.audit(ctx, w.TeamID, "webhook.enable", "webhook:"+w.ID, "status")
}

// Disable disables a webhook and cancels its pending deliveries. A deleted webhook is KindConflict.
func (s Webhooks) Disable(ctx context.Context, id string) (Webhook, error) {
	return s.retire(ctx, id, StatusDisabled)
}

// Delete deletes a webhook, for good: it receives nothing more, cannot be enabled, edited, tested
// or replayed, and its pending deliveries are cancelled; its deliveries and their log are kept for
// Retention. Deleting a deleted webhook changes nothing.
func (s Webhooks) Delete(ctx context.Context, id string) (Webhook, error) {
	return s.retire(ctx, id, StatusDeleted)
}

// retire moves a webhook to status (disabled or deleted) and cancels its pending deliveries.
func (s Webhooks) retire(ctx context.Context, id, status string) (Webhook, error) {
	w, err := s.update(ctx, id, func(w Webhook) (Webhook, error) {
		if w.Status == StatusDeleted && status != StatusDeleted {
			return w, errDeleted(w)
		}
		if w.Status != status {
			w.Status, w.UpdatedAt = status, patio.NewTimestamp(clock(s.Now))
		}
		return w, nil
	})
	if err != nil {
		return w, err
	}
	if _, err = CancelPending(ctx, s.Log, w.ID); err != nil {
		return w, err
	}
	return w, s.audit(ctx, w.TeamID, "webhook."+map[string]string{StatusDisabled: "disable", StatusDeleted: "delete"}[status],
		"webhook:"+w.ID, "status")
}

// Update changes a webhook's URL (when url is not nil: checked again as Create checks it), its
// events (when events is not nil) and its max_rate (when maxRate is not nil; 0 clears it). A
// deleted webhook is KindConflict; nothing to change is KindInvalid.
func (s Webhooks) Update(ctx context.Context, id string, c SettingsChange) (Webhook, error) {
	url, maxRate := c.URL, c.MaxRate
	description, evs, err := s.checkChange(ctx, c)
	if err != nil {
		return Webhook{}, err
	}
	var changed []string
	w, err := s.update(ctx, id, func(w Webhook) (Webhook, error) {
		changed = nil
		if w.Status == StatusDeleted {
			return w, errDeleted(w)
		}
		if url != nil && *url != w.URL {
			changed = append(changed, "url")
			w.URL, w.UpdatedAt = *url, patio.NewTimestamp(clock(s.Now))
		}
		if evs != nil && !slices.Equal(evs, w.Events) {
			changed = append(changed, "events")
			w.Events, w.UpdatedAt = evs, patio.NewTimestamp(clock(s.Now))
		}
		if maxRate != nil && *maxRate != w.MaxRate {
			changed = append(changed, "max_rate")
			w.MaxRate, w.UpdatedAt = *maxRate, patio.NewTimestamp(clock(s.Now))
		}
		if c.Description != nil && description != w.Description {
			changed = append(changed, "description")
			w.Description, w.UpdatedAt = description, patio.NewTimestamp(clock(s.Now))
		}
		return w, nil
	})
	if err != nil || len(changed) == 0 {
		return w, err
	}
	return w, s.audit(ctx, w.TeamID, "webhook.update", "webhook:"+w.ID, changed...)
}

// checkChange checks a change of settings as Create checks them (the URL's target too), and
// returns its description and events as they are stored; KindInvalid when it changes nothing.
func (s Webhooks) checkChange(ctx context.Context, c SettingsChange) (description string, evs []string, err error) {
	if c.URL == nil && c.Events == nil && c.MaxRate == nil && c.Description == nil {
		return "", nil, patio.Invalidf("give --url, --events, --max-rate, --description or several")
	}
	if c.Description != nil {
		if description, err = checkDescription(*c.Description); err != nil {
			return "", nil, err
		}
	}
	if c.MaxRate != nil {
		if _, err := c.MaxRate.Check(); err != nil {
			return "", nil, err
		}
	}
	if c.URL != nil {
		u, err := ValidateURL(*c.URL)
		if err != nil {
			return "", nil, err
		}
		if s.Targets != nil {
			if err := s.Targets.CheckTarget(ctx, u); err != nil {
				return "", nil, err
			}
		}
	}
	if c.Events != nil {
		if evs, err = ParseEvents(c.Events); err != nil {
			return "", nil, err
		}
	}
	return description, evs, nil
}

// RotateSecret gives a webhook a new secret (returned, shown once); the one it replaces keeps
// signing for grace (see Webhook.Rotate). A deleted webhook is KindConflict.
func (s Webhooks) RotateSecret(ctx context.Context, id string, grace time.Duration) (Webhook, string, error) {
	var secret string
	w, err := s.update(ctx, id, func(w Webhook) (Webhook, error) {
		if w.Status == StatusDeleted {
			return w, errDeleted(w)
		}
		var err error
		w, secret, err = w.Rotate(clock(s.Now), grace)
		return w, err
	})
	if err != nil {
		return w, secret, err
	}
	return w, secret, s.audit(ctx, w.TeamID, "webhook.rotate", "webhook:"+w.ID, "secret")
}

// Test sends a test event of type typ (see SampleEvent) to an active webhook through the normal
// delivery path: it is recorded as a delivery (of one attempt, which counts for no rule) and
// queued. It returns the delivery; its attempt is recorded when the deliverer has made it. A
// webhook that is not active is KindConflict.
func (s Webhooks) Test(ctx context.Context, id, typ string) (Delivery, error) {
	if s.Queue == nil {
		return Delivery{}, patio.Internal(errors.New("webhook: no delivery queue configured (DELIVERY_QUEUE_URL)"))
	}
	w, err := s.Store.WebhookByID(ctx, id)
	if err != nil {
		return Delivery{}, err
	}
	if w.Status != StatusActive {
		return Delivery{}, patio.Conflictf("webhook %s is %s; only an active webhook can be tested", w.ID, w.Status)
	}
	now := clock(s.Now)
	e, err := SampleEvent(typ, w.TeamID, now)
	if err != nil {
		return Delivery{}, err
	}
	payload, err := e.Payload(w.ID)
	if err != nil {
		return Delivery{}, err
	}
	d := Delivery{ID: DeliveryID(e.ID, w.ID), WebhookID: w.ID, TeamID: w.TeamID, EventID: e.ID, EventType: e.Type,
		Status: DeliveryPending, Test: true, Payload: payload, CreatedAt: now, UpdatedAt: now}
	if _, _, _, err := s.Log.CreateDeliveries(ctx, []Delivery{d}); err != nil {
		return d, err
	}
	if err := s.Queue.Enqueue(ctx, Task{DeliveryID: d.ID, TeamID: d.TeamID, WebhookID: d.WebhookID, EventID: d.EventID,
		Attempt: 1, Due: now}); err != nil {
		return d, err
	}
	return d, s.audit(ctx, w.TeamID, "webhook.test", "webhook:"+w.ID, "type")
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
	return s.Log.Deliveries(ctx, webhookID, st)
}

// ListDeliveries returns one page of a webhook's deliveries (see DeliveryQuery), or KindNotFound
// for an unknown webhook, KindInvalid for a query that does not check.
func (s Webhooks) ListDeliveries(ctx context.Context, webhookID string, q DeliveryQuery) (DeliveryPage, error) {
	q, err := q.Check()
	if err != nil {
		return DeliveryPage{}, err
	}
	w, err := s.Store.WebhookByID(ctx, webhookID)
	if err != nil {
		return DeliveryPage{}, err
	}
	return s.ListWebhookDeliveries(ctx, w, q)
}

// ListWebhookDeliveries is ListDeliveries for a webhook the caller has read (the console's pages,
// which found it among the team's): the same page without reading the webhook again.
func (s Webhooks) ListWebhookDeliveries(ctx context.Context, w Webhook, q DeliveryQuery) (DeliveryPage, error) {
	q, err := q.Check()
	if err != nil {
		return DeliveryPage{}, err
	}
	ds, next, err := s.Log.ListDeliveries(ctx, []string{w.ID}, q)
	if ds == nil {
		ds = []Delivery{}
	}
	return DeliveryPage{Deliveries: ds, NextCursor: next}, err
}

// ListTeamDeliveries returns one page of the deliveries of every webhook of a team (a deleted
// one's too, while its deliveries are kept), merged newest first (see DeliveryQuery).
func (s Webhooks) ListTeamDeliveries(ctx context.Context, teamID string, q DeliveryQuery) (DeliveryPage, error) {
	q, err := q.Check()
	if err != nil {
		return DeliveryPage{}, err
	}
	hooks, err := s.Store.TeamWebhooks(ctx, teamID)
	if err != nil {
		return DeliveryPage{}, err
	}
	ids := make([]string, len(hooks))
	for i, w := range hooks {
		ids[i] = w.ID
	}
	page := DeliveryPage{Deliveries: []Delivery{}}
	if len(ids) == 0 {
		return page, nil
	}
	ds, next, err := s.Log.ListDeliveries(ctx, ids, q)
	if ds != nil {
		page.Deliveries = ds
	}
	page.NextCursor = next
	return page, err
}

// Delivery returns a delivery with every attempt of every series from the attempt log, response
// bodies included (those older than Retention are gone), or KindNotFound.
func (s Webhooks) Delivery(ctx context.Context, id string) (Delivery, error) {
	d, err := s.Log.Delivery(ctx, id)
	if err != nil {
		return d, err
	}
	log, err := s.Log.AttemptLog(ctx, d)
	if err != nil {
		return d, err
	}
	d.Attempts = log
	return d, nil
}

// Replay re-sends a finished delivery (succeeded, failed, cancelled or skipped) as a new series of
// attempts with the same event id and payload: a receiver that lost a delivered event gets it
// again. A pending delivery, or a disabled webhook, is KindConflict.
func (s Webhooks) Replay(ctx context.Context, id string) (Delivery, error) {
	if s.Queue == nil {
		return Delivery{}, patio.Internal(errors.New("webhook: no delivery queue configured (DELIVERY_QUEUE_URL)"))
	}
	d, err := s.Log.Delivery(ctx, id)
	if err != nil {
		return d, err
	}
	if !d.Replayable() {
		return d, patio.Conflictf("delivery %s is %s; only finished deliveries (succeeded, failed, cancelled or skipped) can be replayed", id, d.Status)
	}
	w, err := s.Store.Webhook(ctx, d.TeamID, d.WebhookID)
	if err != nil {
		return d, err
	}
	if err := replayable(w); err != nil {
		return d, err
	}
	was := d.Status
	d, err = s.Log.SetDeliveryStatus(ctx, id, []string{DeliverySucceeded, DeliveryFailed, DeliveryCancelled, DeliverySkipped}, DeliveryPending, true)
	if err != nil {
		return d, err
	}
	err = s.Queue.Enqueue(ctx, Task{DeliveryID: d.ID, TeamID: d.TeamID, WebhookID: d.WebhookID, EventID: d.EventID,
		Series: d.Series, Attempt: 1, Due: clock(s.Now)})
	if err != nil {
		// Nothing will deliver a pending delivery whose task never reached the queue: put the
		// status back so the operator can replay it again.
		if _, undo := s.Log.SetDeliveryStatus(context.WithoutCancel(ctx), id, []string{DeliveryPending}, was, false); undo != nil {
			err = errors.Join(err, undo)
		}
		return d, err
	}
	return d, s.audit(ctx, d.TeamID, "delivery.replay", "delivery:"+d.ID, "status")
}

// replayable refuses a webhook that is not active (KindConflict).
func replayable(w Webhook) error {
	switch w.Status {
	case StatusActive:
		return nil
	case StatusDeleted:
		return patio.Conflictf("webhook %s is deleted; its deliveries cannot be replayed", w.ID)
	}
	return patio.Conflictf("webhook %s is disabled; enable it before replaying", w.ID)
}

// CountReplayable returns how many deliveries ReplayAll would replay with the same arguments, and
// refuses what it would refuse: what a person confirms before a bulk replay.
func (s Webhooks) CountReplayable(ctx context.Context, webhookID string, statuses []string, since, until time.Time) (int, error) {
	all, err := s.replayable(ctx, webhookID, statuses, since, until)
	return len(all), err
}

// replayable reads every delivery of a webhook in one of statuses (failed, cancelled or skipped;
// KindInvalid for others or none) created within [since, until]; the webhook must be active
// (KindConflict).
func (s Webhooks) replayable(ctx context.Context, webhookID string, statuses []string, since, until time.Time) ([]Delivery, error) {
	if len(statuses) == 0 {
		return nil, patio.Invalidf("status must name failed, cancelled or skipped")
	}
	for _, st := range statuses {
		if !slices.Contains(BulkReplayable, st) {
			return nil, patio.Invalidf("status %s cannot be replayed; only failed, cancelled or skipped deliveries can", st)
		}
	}
	w, err := s.Store.WebhookByID(ctx, webhookID)
	if err != nil {
		return nil, err
	}
	if err := replayable(w); err != nil {
		return nil, err
	}
	q := DeliveryQuery{Statuses: statuses, Since: since, Until: until, Limit: MaxDeliveryLimit}
	if q, err = q.Check(); err != nil {
		return nil, err
	}
	// Every page is read before any delivery is replayed: a replayed delivery leaves the statuses
	// read, which would shift the pages.
	var all []Delivery
	for {
		ds, next, err := s.Log.ListDeliveries(ctx, []string{webhookID}, q)
		if err != nil {
			return nil, err
		}
		all = append(all, ds...)
		if next == "" {
			return all, nil
		}
		q.Cursor = next
	}
}

// ReplayAll re-sends, as Replay does, every delivery of a webhook in one of statuses (failed,
// cancelled or skipped; KindInvalid for others or none) created within [since, until] (zero: open),
// and returns how many it replayed. The webhook must be active (KindConflict).
func (s Webhooks) ReplayAll(ctx context.Context, webhookID string, statuses []string, since, until time.Time) (int, error) {
	if s.Queue == nil {
		return 0, patio.Internal(errors.New("webhook: no delivery queue configured (DELIVERY_QUEUE_URL)"))
	}
	all, err := s.replayable(ctx, webhookID, statuses, since, until)
	if err != nil {
		return 0, err
	}
	n := 0
	for start := 0; start < len(all); start += 10 {
		var tasks []Task
		var was []Delivery
		for _, d := range all[start:min(start+10, len(all))] {
			r, err := s.Log.SetDeliveryStatus(ctx, d.ID, []string{DeliveryFailed, DeliveryCancelled, DeliverySkipped}, DeliveryPending, true)
			if patio.IsKind(err, patio.KindConflict) {
				continue // replayed or changed meanwhile
			}
			if err != nil {
				return n, err
			}
			tasks = append(tasks, Task{DeliveryID: r.ID, TeamID: r.TeamID, WebhookID: r.WebhookID, EventID: r.EventID,
				Series: r.Series, Attempt: 1, Due: clock(s.Now)})
			was = append(was, d)
		}
		var errs []error
		for i, err := range s.Queue.EnqueueAll(ctx, tasks) {
			if err != nil {
				// Put the status back, so the operator can replay it again (the sweep would
				// otherwise send it within minutes).
				_, undo := s.Log.SetDeliveryStatus(context.WithoutCancel(ctx), tasks[i].DeliveryID, []string{DeliveryPending}, was[i].Status, false)
				errs = append(errs, err, undo)
				continue
			}
			n++
		}
		if err := errors.Join(errs...); err != nil {
			return n, err
		}
	}
	if n == 0 {
		return 0, nil
	}
	return n, s.audit(ctx, all[0].TeamID, "delivery.replay_bulk", "webhook:"+webhookID, "status")
}
