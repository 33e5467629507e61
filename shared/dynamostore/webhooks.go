package dynamostore

import (
	"context"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

const webhookPrefix = "w#"

// webhookRow is a webhook as stored in WebhooksTable: one partition per team, like the resources.
// Instants the deactivation rule compares are Unix milliseconds.
type webhookRow struct {
	PK            string   `dynamo:"pk,hash"`
	SK            string   `dynamo:"sk,range"`
	WebhookID     string   `dynamo:"webhook_id"`
	URL           string   `dynamo:"url"`
	Events        []string `dynamo:"events"`
	Status        string   `dynamo:"status"`
	Secret        string   `dynamo:"secret"`
	NextSecret    string   `dynamo:"next_secret"`
	RotatesAt     *string  `dynamo:"rotates_at"`
	EnabledAt     int64    `dynamo:"enabled_at"`
	LastSuccessAt int64    `dynamo:"last_success_at"`
	AlertPending  bool     `dynamo:"alert_pending"`
	CreatedAt     string   `dynamo:"created_at"`
	UpdatedAt     string   `dynamo:"updated_at"`
	Rev           int      `dynamo:"rev"`
}

func webhookSK(id string) string { return webhookPrefix + id }

func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func toWebhookRow(w webhook.Webhook) webhookRow {
	return webhookRow{
		PK: w.TeamID, SK: webhookSK(w.ID), WebhookID: w.ID, URL: w.URL, Events: w.Events, Status: w.Status,
		Secret: w.Secret, NextSecret: w.NextSecret, RotatesAt: tsPtr(w.RotatesAt),
		EnabledAt: unixMilli(w.EnabledAt), LastSuccessAt: unixMilli(w.LastSuccessAt), AlertPending: w.AlertPending,
		CreatedAt: w.CreatedAt.String(), UpdatedAt: w.UpdatedAt.String(), Rev: revAttr(w.Revision),
	}
}

func (r webhookRow) webhook() (webhook.Webhook, error) {
	w := webhook.Webhook{
		ID: r.WebhookID, TeamID: r.PK, URL: r.URL, Events: r.Events, Status: r.Status, Secret: r.Secret,
		NextSecret: r.NextSecret, EnabledAt: fromMilli(r.EnabledAt), LastSuccessAt: fromMilli(r.LastSuccessAt),
		AlertPending: r.AlertPending, Revision: revisionOf(r.Rev),
	}
	var err error
	if w.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return w, err
	}
	if w.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt); err != nil {
		return w, err
	}
	if r.RotatesAt != nil {
		t, err := patio.ParseTimestamp(*r.RotatesAt)
		if err != nil {
			return w, err
		}
		w.RotatesAt = &t
	}
	return w, nil
}

func (s *Store) webhooks() dynamo.Table { return s.db.Table(s.tables.Webhooks) }

// webhookKind declares how webhooks are stored (no lists: TeamWebhooks reads them all).
var webhookKind = kind[webhook.Webhook, webhookRow, struct{}]{
	what: "webhook", prefix: webhookPrefix,
	table:        func(t Tables) string { return t.Webhooks },
	key:          func(w webhook.Webhook) (string, string) { return w.TeamID, w.ID },
	encode:       toWebhookRow,
	decode:       webhookRow.webhook,
	revision:     func(w webhook.Webhook) int { return w.Revision },
	withRevision: func(w webhook.Webhook, n int) webhook.Webhook { w.Revision = n; return w },
	guards:       func(webhook.Webhook) []guard { return nil },
}

func (s *Store) webhookRecords() records[webhook.Webhook, webhookRow, struct{}] {
	return records[webhook.Webhook, webhookRow, struct{}]{s, &webhookKind}
}

// CreateWebhook stores a new webhook.
func (s *Store) CreateWebhook(ctx context.Context, w webhook.Webhook) error {
	_, err := s.webhookRecords().Create(ctx, patio.Write[webhook.Webhook]{Record: w})
	return err
}

// Webhook returns a team's webhook (strongly consistent), or KindNotFound.
func (s *Store) Webhook(ctx context.Context, teamID, id string) (webhook.Webhook, error) {
	return s.webhookRecords().Get(ctx, teamID, id)
}

// WebhookByID finds a webhook by its id alone (index by_id, then a consistent read), or
// KindNotFound.
func (s *Store) WebhookByID(ctx context.Context, id string) (webhook.Webhook, error) {
	var row webhookRow
	if err := s.webhooks().Get("webhook_id", id).Index("by_id").One(ctx, &row); err != nil {
		return webhook.Webhook{}, wrap(notFound(err, "webhook"), "find webhook", id)
	}
	return s.Webhook(ctx, row.PK, id)
}

// TeamWebhooks returns every webhook of a team (strongly consistent), active and disabled.
func (s *Store) TeamWebhooks(ctx context.Context, teamID string) ([]webhook.Webhook, error) {
	var rows []webhookRow
	err := s.webhooks().Get("pk", teamID).Range("sk", dynamo.BeginsWith, webhookPrefix).Consistent(true).All(ctx, &rows)
	if err != nil {
		return nil, wrap(err, "list webhooks", teamID)
	}
	out, err := decodeRows(rows, webhookRow.webhook)
	return out, wrap(err, "decode webhooks of team", teamID)
}

// UpdateWebhook applies change to the stored webhook through the store's one update path
// (conditioned on the revision read; a lost race re-reads and re-applies). A change that alters
// nothing writes nothing.
func (s *Store) UpdateWebhook(ctx context.Context, teamID, id string,
	change func(webhook.Webhook) (webhook.Webhook, error)) (webhook.Webhook, error) {
	return s.webhookRecords().Update(ctx, teamID, id, func(cur webhook.Webhook) (patio.Write[webhook.Webhook], error) {
		next, err := change(cur)
		return patio.Write[webhook.Webhook]{Record: next, Changed: patio.Changed(cur, next)}, err
	})
}

// NoteSuccess records a successful delivery at t, keeping the latest time.
func (s *Store) NoteSuccess(ctx context.Context, teamID, id string, t time.Time) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).Set("last_success_at", t.UnixMilli()).Add("rev", 1).
		If("attribute_exists(pk) AND (attribute_not_exists('last_success_at') OR 'last_success_at' < ?)", t.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return wrap(err, "note success of webhook", id)
}

// DisableForFailures disables the webhook and marks its alert pending in one conditional write:
// only when it is active, was enabled no later than first, and had no success since first.
func (s *Store) DisableForFailures(ctx context.Context, teamID, id string, first, now time.Time) (bool, error) {
	err := s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).
		Set("status", webhook.StatusDisabled).Set("alert_pending", true).
		Set("updated_at", patio.NewTimestamp(now).String()).Add("rev", 1).
		If("'status' = ? AND 'enabled_at' <= ? AND (attribute_not_exists('last_success_at') OR 'last_success_at' < ?)",
			webhook.StatusActive, first.UnixMilli(), first.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, wrap(err, "disable webhook", id)
}

// ClaimAlert clears a pending alert and reports whether it was pending.
func (s *Store) ClaimAlert(ctx context.Context, teamID, id string) (bool, error) {
	err := s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).Set("alert_pending", false).Add("rev", 1).
		If("'alert_pending' = ?", true).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, wrap(err, "claim alert of webhook", id)
}

// ReleaseAlert marks the alert pending again after a failed send.
func (s *Store) ReleaseAlert(ctx context.Context, teamID, id string) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).Set("alert_pending", true).Add("rev", 1).
		If("attribute_exists(pk)").Run(ctx)
	return wrap(err, "release alert of webhook", id)
}

// deliveryRow is a delivery in DeliveriesTable (pk: the delivery id). status_key
// ("<status>#<created ms, 13 digits>#<id>") sorts the by_webhook index by status, then age.
type deliveryRow struct {
	PK             string       `dynamo:"pk,hash"`
	WebhookID      string       `dynamo:"webhook_id"`
	StatusKey      string       `dynamo:"status_key"`
	TeamID         string       `dynamo:"team_id"`
	EventID        string       `dynamo:"event_id"`
	EventType      string       `dynamo:"event_type"`
	Status         string       `dynamo:"status"`
	Series         int          `dynamo:"series"`
	Attempt        int          `dynamo:"attempt"`
	FirstAttemptAt int64        `dynamo:"first_attempt_at"`
	NextAttemptAt  int64        `dynamo:"next_attempt_at"`
	Attempts       []attemptRow `dynamo:"attempts"`
	Enqueued       bool         `dynamo:"enqueued"`
	Payload        string       `dynamo:"payload"`
	CreatedAt      int64        `dynamo:"created_at"`
	UpdatedAt      int64        `dynamo:"updated_at"`
	// ExpiresAt (Unix seconds) is the table's TTL attribute: the retention period after the last change.
	ExpiresAt int64 `dynamo:"expires_at"`
}

// attemptRow is one attempt, inside a delivery's attempts list.
type attemptRow struct {
	Series        int    `dynamo:"series"`
	N             int    `dynamo:"n"`
	At            int64  `dynamo:"at"`
	StatusCode    int    `dynamo:"status_code"`
	DurationMs    int64  `dynamo:"duration_ms"`
	ErrorClass    string `dynamo:"error_class"`
	NextAttemptAt int64  `dynamo:"next_attempt_at"`
}

func statusKey(status string, created time.Time, id string) string {
	return fmt.Sprintf("%s#%013d#%s", status, created.UnixMilli(), id)
}

func toDeliveryRow(d webhook.Delivery) deliveryRow {
	r := deliveryRow{
		PK: d.ID, WebhookID: d.WebhookID, StatusKey: statusKey(d.Status, d.CreatedAt, d.ID), TeamID: d.TeamID,
		EventID: d.EventID, EventType: d.EventType, Status: d.Status, Series: d.Series, Attempt: d.Attempt,
		FirstAttemptAt: unixMilli(d.FirstAttemptAt), Enqueued: d.Enqueued, Payload: string(d.Payload),
		CreatedAt: unixMilli(d.CreatedAt), UpdatedAt: unixMilli(d.UpdatedAt),
		ExpiresAt: d.UpdatedAt.Add(webhook.Retention).Unix(),
	}
	if d.NextAttemptAt != nil {
		r.NextAttemptAt = d.NextAttemptAt.UnixMilli()
	}
	for _, a := range d.Attempts {
		ar := attemptRow{Series: a.Series, N: a.N, At: unixMilli(a.At), StatusCode: a.StatusCode,
			DurationMs: a.DurationMs, ErrorClass: a.ErrorClass}
		if a.NextAttemptAt != nil {
			ar.NextAttemptAt = a.NextAttemptAt.UnixMilli()
		}
		r.Attempts = append(r.Attempts, ar)
	}
	return r
}

func (r deliveryRow) delivery() (webhook.Delivery, error) {
	d := webhook.Delivery{
		ID: r.PK, WebhookID: r.WebhookID, TeamID: r.TeamID, EventID: r.EventID, EventType: r.EventType,
		Status: r.Status, Series: r.Series, Attempt: r.Attempt, FirstAttemptAt: fromMilli(r.FirstAttemptAt),
		Enqueued: r.Enqueued, Payload: []byte(r.Payload), CreatedAt: fromMilli(r.CreatedAt),
		UpdatedAt: fromMilli(r.UpdatedAt), Attempts: []webhook.Attempt{},
	}
	if r.NextAttemptAt != 0 {
		t := fromMilli(r.NextAttemptAt)
		d.NextAttemptAt = &t
	}
	for _, a := range r.Attempts {
		wa := webhook.Attempt{Series: a.Series, N: a.N, At: fromMilli(a.At), StatusCode: a.StatusCode,
			DurationMs: a.DurationMs, ErrorClass: a.ErrorClass}
		if a.NextAttemptAt != 0 {
			t := fromMilli(a.NextAttemptAt)
			wa.NextAttemptAt = &t
		}
		d.Attempts = append(d.Attempts, wa)
	}
	return d, nil
}

func (s *Store) deliveries() dynamo.Table { return s.db.Table(s.tables.Deliveries) }

// CreateDelivery stores a new delivery; when one with its id exists it returns false and that one.
func (s *Store) CreateDelivery(ctx context.Context, d webhook.Delivery) (bool, webhook.Delivery, error) {
	err := s.deliveries().Put(toDeliveryRow(d)).If("attribute_not_exists(pk)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		stored, err := s.Delivery(ctx, d.ID)
		return false, stored, err
	}
	return err == nil, d, wrap(err, "create delivery", d.ID)
}

// MarkEnqueued records that the delivery's first attempt is queued.
func (s *Store) MarkEnqueued(ctx context.Context, id string) error {
	err := s.deliveries().Update("pk", id).Set("enqueued", true).If("attribute_exists(pk)").Run(ctx)
	return wrap(err, "mark delivery enqueued", id)
}

// Delivery returns a delivery (strongly consistent), or KindNotFound.
func (s *Store) Delivery(ctx context.Context, id string) (webhook.Delivery, error) {
	var row deliveryRow
	if err := s.deliveries().Get("pk", id).Consistent(true).One(ctx, &row); err != nil {
		return webhook.Delivery{}, wrap(notFound(err, "delivery"), "get delivery", id)
	}
	return row.delivery()
}

// RecordAttempt appends a and sets the status, conditioned on the delivery being pending at
// a.Series with a.N-1 attempts (KindConflict otherwise).
func (s *Store) RecordAttempt(ctx context.Context, d webhook.Delivery, a webhook.Attempt, status string) error {
	prev := d.Attempt
	d.Attempts = append(d.Attempts, a)
	d.Attempt, d.Status, d.NextAttemptAt, d.UpdatedAt = a.N, status, a.NextAttemptAt, a.At
	if a.N == 1 {
		d.FirstAttemptAt = a.At
	}
	err := s.deliveries().Put(toDeliveryRow(d)).
		If("'status' = ? AND 'series' = ? AND 'attempt' = ?", webhook.DeliveryPending, a.Series, prev).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return patio.Conflictf("delivery %s changed meanwhile", d.ID)
	}
	return wrap(err, "record attempt of delivery", d.ID)
}

// SetDeliveryStatus moves a delivery from one of the from statuses to status; with restart it
// starts a new series. KindConflict when the delivery is in none of them, or changed meanwhile.
func (s *Store) SetDeliveryStatus(ctx context.Context, id string, from []string, status string, restart bool) (webhook.Delivery, error) {
	d, err := s.Delivery(ctx, id)
	if err != nil {
		return d, err
	}
	ok := false
	for _, f := range from {
		ok = ok || d.Status == f
	}
	if !ok {
		return d, patio.Conflictf("delivery %s is %s", id, d.Status)
	}
	prevStatus, prevSeries := d.Status, d.Series
	d.Status, d.UpdatedAt = status, time.Now().UTC()
	if restart {
		d.Series, d.Attempt, d.FirstAttemptAt, d.NextAttemptAt, d.Enqueued = d.Series+1, 0, time.Time{}, nil, true
	}
	err = s.deliveries().Put(toDeliveryRow(d)).If("'status' = ? AND 'series' = ?", prevStatus, prevSeries).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return d, patio.Conflictf("delivery %s changed meanwhile", id)
	}
	return d, wrap(err, "set status of delivery", id)
}

// Deliveries lists a webhook's deliveries (index by_webhook), optionally of one status, newest
// first within a status.
func (s *Store) Deliveries(ctx context.Context, webhookID, status string) ([]webhook.Delivery, error) {
	q := s.deliveries().Get("webhook_id", webhookID).Index("by_webhook").Order(dynamo.Descending)
	if status != "" {
		q = q.Range("status_key", dynamo.BeginsWith, status+"#")
	}
	var rows []deliveryRow
	if err := q.All(ctx, &rows); err != nil {
		return nil, wrap(err, "list deliveries of webhook", webhookID)
	}
	out, err := decodeRows(rows, deliveryRow.delivery)
	return out, wrap(err, "decode deliveries of webhook", webhookID)
}
