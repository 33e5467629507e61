package webhookdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/migration"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

const webhookPrefix = "w#"

// webhookRow is a webhook as stored in WebhooksTable: one partition per team, like the resources.
// Instants the deactivation rule compares are Unix milliseconds. secret is the newest secret and
// previous those in their grace period; next_secret and rotates_at are the first rotation format
// (secret then the old one), which package migration reads and its backfill rewrites in the
// current format.
type webhookRow struct {
	PK            string           `dynamo:"pk,hash"`
	SK            string           `dynamo:"sk,range"`
	WebhookID     string           `dynamo:"webhook_id"`
	URL           string           `dynamo:"url"`
	Description   string           `dynamo:"description,omitempty"`
	Events        []string         `dynamo:"events"`
	Status        string           `dynamo:"status"`
	MaxRate       int              `dynamo:"max_rate,omitempty"`
	Secret        string           `dynamo:"secret"`
	Previous      []previousSecret `dynamo:"previous,omitempty"`
	NextSecret    string           `dynamo:"next_secret"`
	RotatesAt     *string          `dynamo:"rotates_at"`
	EnabledAt     int64            `dynamo:"enabled_at"`
	LastSuccessAt int64            `dynamo:"last_success_at"`
	AlertPending  bool             `dynamo:"alert_pending"`
	FailureCode   int              `dynamo:"last_failure_code,omitempty"`
	FailureClass  string           `dynamo:"last_failure_class,omitempty"`
	FailureAt     int64            `dynamo:"last_failure_at,omitempty"`
	Cancelled     int              `dynamo:"cancelled_on_disable,omitempty"`
	CreatedAt     string           `dynamo:"created_at"`
	UpdatedAt     string           `dynamo:"updated_at"`
	Rev           int              `dynamo:"rev"`
}

// previousSecret is a secret in its grace period.
type previousSecret struct {
	Secret string `dynamo:"s"`
	Until  string `dynamo:"until"`
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
	r := webhookRow{
		PK: w.TeamID, SK: webhookSK(w.ID), WebhookID: w.ID, URL: w.URL, Description: w.Description, Events: w.Events, Status: w.Status, MaxRate: int(w.MaxRate),
		Secret: w.Secret, EnabledAt: unixMilli(w.EnabledAt), LastSuccessAt: unixMilli(w.LastSuccessAt), AlertPending: w.AlertPending,
		Cancelled: w.Cancelled, CreatedAt: w.CreatedAt.String(), UpdatedAt: w.UpdatedAt.String(), Rev: storeformat.RevAttr(w.Revision),
	}
	for _, p := range w.Previous {
		r.Previous = append(r.Previous, previousSecret{Secret: p.Secret, Until: p.Until.String()})
	}
	if f := w.LastFailure; f != nil {
		r.FailureCode, r.FailureClass, r.FailureAt = f.StatusCode, f.ErrorClass, unixMilli(f.At)
	}
	return r
}

func (r webhookRow) webhook() (webhook.Webhook, error) {
	w := webhook.Webhook{
		ID: r.WebhookID, TeamID: r.PK, URL: r.URL, Description: r.Description, Events: r.Events, Status: r.Status, MaxRate: webhook.Rate(r.MaxRate), Secret: r.Secret,
		EnabledAt: fromMilli(r.EnabledAt), LastSuccessAt: fromMilli(r.LastSuccessAt),
		AlertPending: r.AlertPending, Cancelled: r.Cancelled, Revision: storeformat.RevisionOf(r.Rev),
	}
	var err error
	if w.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return w, err
	}
	if w.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt); err != nil {
		return w, err
	}
	for _, p := range r.Previous {
		until, err := patio.ParseTimestamp(p.Until)
		if err != nil {
			return w, err
		}
		w.Previous = append(w.Previous, webhook.PreviousSecret{Secret: p.Secret, Until: until})
	}
	current, old, until, rotating, err := migration.Rotation(r.Secret, r.NextSecret, r.RotatesAt)
	if err != nil {
		return w, err
	}
	if rotating {
		w.Secret = current
		w.Previous = append(w.Previous, webhook.PreviousSecret{Secret: old, Until: until})
	}
	if r.FailureClass != "" {
		w.LastFailure = &webhook.Failure{StatusCode: r.FailureCode, ErrorClass: r.FailureClass, At: fromMilli(r.FailureAt)}
	}
	return w, nil
}

// CreateWebhook stores a new webhook, at revision 1.
func (s *Webhooks) CreateWebhook(ctx context.Context, w webhook.Webhook) error {
	w.Revision = 1
	item, err := dynamo.MarshalItem(toWebhookRow(w))
	if err != nil {
		return storecore.Wrap(err, "encode webhook", w.ID)
	}
	err = s.db.Run(ctx, []storecore.Op{{Put: s.webhooks().Put(storecore.Stamped(ctx, item)).If("attribute_not_exists(pk)"),
		Failed: fmt.Errorf("webhook %s already exists", w.ID)}})
	return storecore.Wrap(err, "create webhook", w.ID)
}

// Webhook returns a team's webhook (strongly consistent), or KindNotFound.
func (s *Webhooks) Webhook(ctx context.Context, teamID, id string) (webhook.Webhook, error) {
	var row webhookRow
	err := s.webhooks().Get("pk", teamID).Range("sk", dynamo.Equal, webhookSK(id)).Consistent(true).One(ctx, &row)
	if err != nil {
		return webhook.Webhook{}, storecore.Wrap(storecore.NotFound(err, "webhook"), "get webhook", webhookSK(id))
	}
	w, err := row.webhook()
	return w, storecore.Wrap(err, "decode webhook", webhookSK(id))
}

// WebhookByID finds a webhook by its id alone (index by_id, then a consistent read), or
// KindNotFound.
func (s *Webhooks) WebhookByID(ctx context.Context, id string) (webhook.Webhook, error) {
	var row webhookRow
	if err := s.webhooks().Get("webhook_id", id).Index("by_id").One(ctx, &row); err != nil {
		return webhook.Webhook{}, storecore.Wrap(storecore.NotFound(err, "webhook"), "find webhook", id)
	}
	return s.Webhook(ctx, row.PK, id)
}

// TeamWebhooks returns every webhook of a team (strongly consistent), active and disabled.
func (s *Webhooks) TeamWebhooks(ctx context.Context, teamID string) ([]webhook.Webhook, error) {
	var rows []webhookRow
	err := s.webhooks().Get("pk", teamID).Range("sk", dynamo.BeginsWith, webhookPrefix).Consistent(true).All(ctx, &rows)
	if err != nil {
		return nil, storecore.Wrap(err, "list webhooks", teamID)
	}
	out, err := storecore.DecodeRows(rows, webhookRow.webhook)
	return out, storecore.Wrap(err, "decode webhooks of team", teamID)
}

// UpdateWebhook applies change to the stored webhook, conditioned on the revision read: a lost
// race re-reads and re-applies (storecore.RetryRaces). A change that alters nothing writes nothing.
func (s *Webhooks) UpdateWebhook(ctx context.Context, teamID, id string,
	change func(webhook.Webhook) (webhook.Webhook, error)) (webhook.Webhook, error) {
	return storecore.RetryRaces(ctx, func() (webhook.Webhook, error) {
		cur, err := s.Webhook(ctx, teamID, id)
		if err != nil {
			return cur, err
		}
		next, err := change(cur)
		if err != nil || !patio.Changed(cur, next) {
			return cur, err
		}
		next.Revision = cur.Revision + 1
		item, err := dynamo.MarshalItem(toWebhookRow(next))
		if err != nil {
			return cur, storecore.Wrap(err, "update webhook", id)
		}
		put := s.webhooks().Put(storecore.Stamped(ctx, item)).If("'rev' = ?", storeformat.RevAttr(cur.Revision))
		err = s.db.RunRace(ctx, []storecore.Op{{Put: put, Failed: storecore.ErrRevConflict}})
		return next, storecore.Wrap(err, "update webhook", id)
	})
}

// Migration declares db's webhooks table to the backfill (package migration): a row of the first
// rotation format is rewritten as it is, in the current one.
func Migration(db *storecore.DB) migration.Table {
	s := &Webhooks{part{db}}
	return migration.Table{Name: db.Tables.Webhooks, Prefix: webhookPrefix, Rewrite: s.migrate}
}

// migrate rewrites one stored webhook row in the current format, conditioned on its revision;
// false when a live write got there first.
func (s *Webhooks) migrate(ctx context.Context, stored dynamo.Item) (bool, error) {
	var row webhookRow
	if err := dynamo.UnmarshalItem(stored, &row); err != nil {
		return false, err
	}
	w, err := row.webhook()
	if err != nil {
		return false, err
	}
	item, err := dynamo.MarshalItem(toWebhookRow(w))
	if err != nil {
		return false, err
	}
	put := s.webhooks().Put(storecore.Stamped(ctx, item)).If("'rev' = ?", storeformat.RevAttr(w.Revision))
	err = s.db.Run(ctx, []storecore.Op{{Put: put, Failed: storecore.ErrRevConflict}})
	if errors.Is(err, storecore.ErrRevConflict) {
		return false, nil
	}
	return err == nil, err
}

// DisableForFailures disables the webhook, marks its alert pending and keeps the failure in one
// transaction: only when it is active, was enabled no later than first, and had no success since
// first (noted on the gate item; a previous format noted it on the webhook item, last_success_at).
func (s *Webhooks) DisableForFailures(ctx context.Context, teamID, id string, first, now time.Time, last webhook.Failure) (bool, error) {
	err := s.db.RunTx(ctx, storecore.MaxTxAttempts, func() *dynamo.WriteTx {
		return s.db.Dynamo.WriteTx().
			Check(s.webhooks().Check("pk", teamID).Range("sk", gateSK(id)).
				If("attribute_not_exists('last_success_at') OR 'last_success_at' < ?", first.UnixMilli())).
			Update(s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).
				Set("status", webhook.StatusDisabled).Set("alert_pending", true).
				Set("last_failure_code", last.StatusCode).Set("last_failure_class", last.ErrorClass).
				Set("last_failure_at", unixMilli(last.At)).Set("cancelled_on_disable", 0).
				Set("updated_at", patio.NewTimestamp(now).String()).Add("rev", 1).
				If("'status' = ? AND 'enabled_at' <= ? AND (attribute_not_exists('last_success_at') OR 'last_success_at' < ?)",
					webhook.StatusActive, first.UnixMilli(), first.UnixMilli()))
	})
	if storecore.CancelReason(err, 0) == "ConditionalCheckFailed" || storecore.CancelReason(err, 1) == "ConditionalCheckFailed" {
		return false, nil
	}
	return err == nil, storecore.Wrap(err, "disable webhook", id)
}

// NoteCancelled adds n to the webhook's count of deliveries cancelled on disable.
func (s *Webhooks) NoteCancelled(ctx context.Context, teamID, id string, n int) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).Add("cancelled_on_disable", n).
		If("attribute_exists(pk)").Run(ctx)
	return storecore.Wrap(err, "note cancelled deliveries of webhook", id)
}

// ClaimAlert clears a pending alert and reports whether it was pending.
func (s *Webhooks) ClaimAlert(ctx context.Context, teamID, id string) (bool, error) {
	err := s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).Set("alert_pending", false).Add("rev", 1).
		If("'alert_pending' = ?", true).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, storecore.Wrap(err, "claim alert of webhook", id)
}

// ReleaseAlert marks the alert pending again after a failed send.
func (s *Webhooks) ReleaseAlert(ctx context.Context, teamID, id string) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).Set("alert_pending", true).Add("rev", 1).
		If("attribute_exists(pk)").Run(ctx)
	return storecore.Wrap(err, "release alert of webhook", id)
}
