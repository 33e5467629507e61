package dynamostore

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

const webhookPrefix = "w#"

// webhookRow is a webhook as stored in WebhooksTable: one partition per team, like the resources.
// Instants the deactivation rule compares are Unix milliseconds. secret is the newest secret and
// previous those in their grace period; next_secret and rotates_at are how earlier versions kept a
// rotation (secret then was the old one), read and converted.
type webhookRow struct {
	PK            string           `dynamo:"pk,hash"`
	SK            string           `dynamo:"sk,range"`
	WebhookID     string           `dynamo:"webhook_id"`
	URL           string           `dynamo:"url"`
	Events        []string         `dynamo:"events"`
	Status        string           `dynamo:"status"`
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
		PK: w.TeamID, SK: webhookSK(w.ID), WebhookID: w.ID, URL: w.URL, Events: w.Events, Status: w.Status,
		Secret: w.Secret, EnabledAt: unixMilli(w.EnabledAt), LastSuccessAt: unixMilli(w.LastSuccessAt), AlertPending: w.AlertPending,
		Cancelled: w.Cancelled, CreatedAt: w.CreatedAt.String(), UpdatedAt: w.UpdatedAt.String(), Rev: revAttr(w.Revision),
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
		ID: r.WebhookID, TeamID: r.PK, URL: r.URL, Events: r.Events, Status: r.Status, Secret: r.Secret,
		EnabledAt: fromMilli(r.EnabledAt), LastSuccessAt: fromMilli(r.LastSuccessAt),
		AlertPending: r.AlertPending, Cancelled: r.Cancelled, Revision: revisionOf(r.Rev),
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
	if r.NextSecret != "" && r.RotatesAt != nil {
		until, err := patio.ParseTimestamp(*r.RotatesAt)
		if err != nil {
			return w, err
		}
		w.Secret = r.NextSecret
		w.Previous = append(w.Previous, webhook.PreviousSecret{Secret: r.Secret, Until: until})
	}
	if r.FailureClass != "" {
		w.LastFailure = &webhook.Failure{StatusCode: r.FailureCode, ErrorClass: r.FailureClass, At: fromMilli(r.FailureAt)}
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

// gateSK is the sort key of a webhook's gate item (beside the webhook, in the team's partition):
// its MaxInFlight delivery slots (u<i>: held until, Unix ms; h<i>: holder) and the time of its last
// successful delivery (last_success_at, Unix ms), which the deactivation rule reads.
func gateSK(id string) string { return "g#" + id }

// DisableForFailures disables the webhook, marks its alert pending and keeps the failure in one
// transaction: only when it is active, was enabled no later than first, and had no success since
// first (noted on the gate item; last_success_at on the webhook item is where earlier versions
// noted it).
func (s *Store) DisableForFailures(ctx context.Context, teamID, id string, first, now time.Time, last webhook.Failure) (bool, error) {
	err := s.runTx(ctx, maxTxAttempts, func() *dynamo.WriteTx {
		return s.db.WriteTx().
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
	if cancelReason(err, 0) == "ConditionalCheckFailed" || cancelReason(err, 1) == "ConditionalCheckFailed" {
		return false, nil
	}
	return err == nil, wrap(err, "disable webhook", id)
}

// NoteCancelled adds n to the webhook's count of deliveries cancelled on disable.
func (s *Store) NoteCancelled(ctx context.Context, teamID, id string, n int) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", webhookSK(id)).Add("cancelled_on_disable", n).
		If("attribute_exists(pk)").Run(ctx)
	return wrap(err, "note cancelled deliveries of webhook", id)
}

// ClaimWarning sets warned_at on the webhook's gate item, conditioned on none in the last 24 hours
// and no success since first.
func (s *Store) ClaimWarning(ctx context.Context, teamID, id string, first, now time.Time) (bool, error) {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Set("warned_at", now.UnixMilli()).
		If("(attribute_not_exists('warned_at') OR 'warned_at' <= ?) AND (attribute_not_exists('last_success_at') OR 'last_success_at' < ?)",
			now.Add(-24*time.Hour).UnixMilli(), first.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, wrap(err, "claim warning of webhook", id)
}

// ReleaseWarning removes warned_at when it is at.
func (s *Store) ReleaseWarning(ctx context.Context, teamID, id string, at time.Time) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Remove("warned_at").If("'warned_at' = ?", at.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return wrap(err, "release warning of webhook", id)
}

// NoteSuccess records a successful delivery at t on the webhook's gate, keeping the latest time.
func (s *Store) NoteSuccess(ctx context.Context, teamID, id string, t time.Time) error {
	err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(id)).Set("last_success_at", t.UnixMilli()).
		If("attribute_not_exists('last_success_at') OR 'last_success_at' < ?", t.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return wrap(err, "note success of webhook", id)
}

// gateRow is a webhook's gate item, as read to find free slots.
type gateRow struct {
	U0 int64 `dynamo:"u0"`
	U1 int64 `dynamo:"u1"`
	U2 int64 `dynamo:"u2"`
	U3 int64 `dynamo:"u3"`
}

func (g gateRow) until() [webhook.MaxInFlight]int64 { return [...]int64{g.U0, g.U1, g.U2, g.U3} }

// AcquireSlots takes up to want free slots of the webhook's gate for holder until until, and
// returns which. It first tries, in one conditional write, want slots from a random one on (the
// usual case: the webhook is idle); when that fails it reads the gate and takes the free ones it
// saw, conditioned on their being unchanged, a few times.
func (s *Store) AcquireSlots(ctx context.Context, teamID, webhookID, holder string, want int, now, until time.Time) ([]int, error) {
	want = min(want, webhook.MaxInFlight)
	if want <= 0 {
		return nil, nil
	}
	first := rand.N(webhook.MaxInFlight)
	var slots []int
	for i := range want {
		slots = append(slots, (first+i)%webhook.MaxInFlight)
	}
	ok, err := s.takeSlots(ctx, teamID, webhookID, holder, slots, nil, now, until)
	if ok || err != nil {
		return slots, err
	}
	for range 3 {
		var g gateRow
		err := s.webhooks().Get("pk", teamID).Range("sk", dynamo.Equal, gateSK(webhookID)).Consistent(true).One(ctx, &g)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return nil, wrap(err, "read gate of webhook", webhookID)
		}
		seen := g.until()
		slots = nil
		for i, u := range seen {
			if len(slots) < want && u < now.UnixMilli() {
				slots = append(slots, i)
			}
		}
		if len(slots) == 0 {
			return nil, nil
		}
		ok, err := s.takeSlots(ctx, teamID, webhookID, holder, slots, seen[:], now, until)
		if ok || err != nil {
			return slots, err
		}
	}
	return nil, nil
}

// takeSlots writes holder into the given slots when each is free (absent or expired at now) or,
// with seen, exactly as seen.
func (s *Store) takeSlots(ctx context.Context, teamID, webhookID, holder string, slots []int, seen []int64, now, until time.Time) (bool, error) {
	u := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID))
	cond, args := "", []any{}
	for k, i := range slots {
		un, hn := fmt.Sprintf("u%d", i), fmt.Sprintf("h%d", i)
		u = u.Set(un, until.UnixMilli()).Set(hn, holder)
		if k > 0 {
			cond += " AND "
		}
		if seen != nil && seen[i] != 0 {
			cond += "'" + un + "' = ?"
			args = append(args, seen[i])
		} else {
			cond += "(attribute_not_exists('" + un + "') OR '" + un + "' < ?)"
			args = append(args, now.UnixMilli())
		}
	}
	err := u.If(cond, args...).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, wrap(err, "take slots of webhook", webhookID)
	}
	return true, nil
}

// RenewSlots extends the given slots to until where holder still holds them: one conditional write
// in the usual case, slot by slot when one was taken over.
func (s *Store) RenewSlots(ctx context.Context, teamID, webhookID, holder string, slots []int, until time.Time) ([]int, error) {
	renew := func(slots []int) error {
		u := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID))
		cond, args := "", []any{}
		for k, i := range slots {
			u = u.Set(fmt.Sprintf("u%d", i), until.UnixMilli())
			if k > 0 {
				cond += " AND "
			}
			cond += fmt.Sprintf("'h%d' = ?", i)
			args = append(args, holder)
		}
		return u.If(cond, args...).Run(ctx)
	}
	if len(slots) == 0 {
		return nil, nil
	}
	err := renew(slots)
	if err == nil {
		return slots, nil
	}
	if !dynamo.IsCondCheckFailed(err) {
		return nil, wrap(err, "renew slots of webhook", webhookID)
	}
	var kept []int
	for _, i := range slots {
		err := renew([]int{i})
		switch {
		case err == nil:
			kept = append(kept, i)
		case !dynamo.IsCondCheckFailed(err):
			return kept, wrap(err, "renew slot of webhook", webhookID)
		}
	}
	return kept, nil
}

// ReleaseSlots frees the given slots where holder still holds them, and records success (when not
// zero) as NoteSuccess does: one conditional write in the usual case; slot by slot when another
// holder took one over meanwhile (its time was up) or a later success was noted.
func (s *Store) ReleaseSlots(ctx context.Context, teamID, webhookID, holder string, slots []int, success time.Time) error {
	u := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID))
	cond, args := "attribute_exists(pk)", []any{}
	for _, i := range slots {
		un, hn := fmt.Sprintf("u%d", i), fmt.Sprintf("h%d", i)
		u = u.Remove(un, hn)
		cond += " AND '" + hn + "' = ?"
		args = append(args, holder)
	}
	if !success.IsZero() {
		u = u.Set("last_success_at", success.UnixMilli())
		cond += " AND (attribute_not_exists('last_success_at') OR 'last_success_at' < ?)"
		args = append(args, success.UnixMilli())
	}
	err := u.If(cond, args...).Run(ctx)
	if !dynamo.IsCondCheckFailed(err) {
		return wrap(err, "release slots of webhook", webhookID)
	}
	for _, i := range slots {
		un, hn := fmt.Sprintf("u%d", i), fmt.Sprintf("h%d", i)
		err := s.webhooks().Update("pk", teamID).Range("sk", gateSK(webhookID)).Remove(un, hn).If("'"+hn+"' = ?", holder).Run(ctx)
		if err != nil && !dynamo.IsCondCheckFailed(err) {
			return wrap(err, "release slot of webhook", webhookID)
		}
	}
	if success.IsZero() {
		return nil
	}
	return s.NoteSuccess(ctx, teamID, webhookID, success)
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
// ("<status>#<created ms, 13 digits>#<id>") sorts the by_webhook index by status, then age. While
// the delivery is pending, sweep_key (one of sweepShards partitions) and due_at (when its next
// attempt is due, Unix ms) put it in the sparse by_due index the sweep reads; claim and
// claim_until hold the claim of the attempt being made.
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
	Payload        string       `dynamo:"payload"`
	Test           bool         `dynamo:"test,omitempty"`
	CreatedAt      int64        `dynamo:"created_at"`
	UpdatedAt      int64        `dynamo:"updated_at"`
	SweepKey       string       `dynamo:"sweep_key,omitempty"`
	DueAt          int64        `dynamo:"due_at,omitempty"`
	Claim          string       `dynamo:"claim,omitempty"`
	ClaimUntil     int64        `dynamo:"claim_until,omitempty"`
	// ExpiresAt (Unix seconds) is the table's TTL attribute: the retention period after the last change.
	ExpiresAt int64 `dynamo:"expires_at"`
}

// sweepShards spreads pending deliveries over this many by_due partitions, so that no one
// partition key takes every pending delivery's writes.
const sweepShards = 4

// sweepKey returns the by_due partition of a delivery.
func sweepKey(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return fmt.Sprintf("pending#%d", h.Sum32()%sweepShards)
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
		FirstAttemptAt: unixMilli(d.FirstAttemptAt), Payload: string(d.Payload), Test: d.Test,
		CreatedAt: unixMilli(d.CreatedAt), UpdatedAt: unixMilli(d.UpdatedAt),
		ExpiresAt: d.UpdatedAt.Add(webhook.Retention).Unix(),
	}
	if d.Status == webhook.DeliveryPending {
		r.SweepKey, r.DueAt = sweepKey(d.ID), unixMilli(d.DueAt())
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
		Payload: []byte(r.Payload), Test: r.Test, CreatedAt: fromMilli(r.CreatedAt),
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

// Limits of one TransactWriteItems call (DynamoDB: 100 items, 4 MB).
const (
	txItems = 100
	txBytes = 3 << 20
)

// CreateDeliveries stores new deliveries: many at once in transactions of conditional puts (one
// call for up to 100 in the usual case, where none exists yet); when a transaction finds one that
// exists, that chunk is put one by one, each existing one read instead.
func (s *Store) CreateDeliveries(ctx context.Context, ds []webhook.Delivery) ([]webhook.Delivery, []bool, int, error) {
	stored := make([]webhook.Delivery, len(ds))
	created := make([]bool, len(ds))
	for start := 0; start < len(ds); {
		end, size := start, 0
		for end < len(ds) && end-start < txItems && (end == start || size+len(ds[end].Payload)+1024 <= txBytes) {
			size += len(ds[end].Payload) + 1024
			end++
		}
		chunk := ds[start:end]
		err := s.runTx(ctx, maxTxAttempts, func() *dynamo.WriteTx {
			tx := s.db.WriteTx()
			for _, d := range chunk {
				tx.Put(s.deliveries().Put(toDeliveryRow(d)).If("attribute_not_exists(pk)"))
			}
			return tx
		})
		switch {
		case err == nil:
			for i := range chunk {
				stored[start+i], created[start+i] = chunk[i], true
			}
		case conditionFailed(err, len(chunk)):
			for i, d := range chunk {
				c, got, err := s.createDelivery(ctx, d)
				if err != nil {
					return stored, created, start + i, err
				}
				stored[start+i], created[start+i] = got, c
			}
		default:
			return stored, created, start, wrap(err, "create deliveries from", chunk[0].ID)
		}
		start = end
	}
	return stored, created, len(ds), nil
}

// conditionFailed reports a transaction of n items cancelled because a condition failed.
func conditionFailed(err error, n int) bool {
	for i := range n {
		if cancelReason(err, i) == "ConditionalCheckFailed" {
			return true
		}
	}
	return false
}

// createDelivery stores one new delivery; when one with its id exists it returns false and that one.
func (s *Store) createDelivery(ctx context.Context, d webhook.Delivery) (bool, webhook.Delivery, error) {
	err := s.deliveries().Put(toDeliveryRow(d)).If("attribute_not_exists(pk)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		stored, err := s.Delivery(ctx, d.ID)
		return false, stored, err
	}
	return err == nil, d, wrap(err, "create delivery", d.ID)
}

// Delivery returns a delivery (strongly consistent), or KindNotFound.
func (s *Store) Delivery(ctx context.Context, id string) (webhook.Delivery, error) {
	var row deliveryRow
	if err := s.deliveries().Get("pk", id).Consistent(true).One(ctx, &row); err != nil {
		return webhook.Delivery{}, wrap(notFound(err, "delivery"), "get delivery", id)
	}
	return row.delivery()
}

// ClaimDelivery claims attempt n of series series for token in one conditional update that returns
// the delivery; when the condition fails it reads the delivery as stored.
func (s *Store) ClaimDelivery(ctx context.Context, id string, series, n int, token string, now, until time.Time) (webhook.Delivery, bool, error) {
	var row deliveryRow
	err := s.deliveries().Update("pk", id).Set("claim", token).Set("claim_until", until.UnixMilli()).
		If("'status' = ? AND 'series' = ? AND 'attempt' = ? AND (attribute_not_exists('claim_until') OR 'claim_until' < ? OR 'claim' = ?)",
			webhook.DeliveryPending, series, n-1, now.UnixMilli(), token).
		Value(ctx, &row)
	if dynamo.IsCondCheckFailed(err) {
		d, err := s.Delivery(ctx, id)
		return d, false, err
	}
	if err != nil {
		return webhook.Delivery{}, false, wrap(err, "claim delivery", id)
	}
	d, err := row.delivery()
	return d, err == nil, err
}

// RecordAttempt keeps a among the attempts of its series (those of earlier series are dropped: a
// delivery item holds at most one series), sets the status and ends the claim, conditioned on the
// delivery being pending at a.Series with a.N-1 attempts and claimed by token (KindConflict
// otherwise).
func (s *Store) RecordAttempt(ctx context.Context, d webhook.Delivery, a webhook.Attempt, status, token string) error {
	prev := d.Attempt
	var kept []webhook.Attempt
	for _, x := range d.Attempts {
		if x.Series == a.Series {
			kept = append(kept, x)
		}
	}
	d.Attempts = append(kept, a)
	d.Attempt, d.Status, d.NextAttemptAt, d.UpdatedAt = a.N, status, a.NextAttemptAt, a.At
	if a.N == 1 {
		d.FirstAttemptAt = a.At
	}
	err := s.deliveries().Put(toDeliveryRow(d)).
		If("'status' = ? AND 'series' = ? AND 'attempt' = ? AND 'claim' = ?", webhook.DeliveryPending, a.Series, prev, token).Run(ctx)
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
		d.Series, d.Attempt, d.FirstAttemptAt, d.NextAttemptAt, d.Attempts = d.Series+1, 0, time.Time{}, nil, nil
	}
	err = s.deliveries().Put(toDeliveryRow(d)).If("'status' = ? AND 'series' = ?", prevStatus, prevSeries).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return d, patio.Conflictf("delivery %s changed meanwhile", id)
	}
	return d, wrap(err, "set status of delivery", id)
}

// OverdueDeliveries reads the sparse by_due index, partition by partition, for pending deliveries
// due before before; each comes back with NextAttemptAt set to its due time.
func (s *Store) OverdueDeliveries(ctx context.Context, before time.Time, limit int) ([]webhook.Delivery, error) {
	var out []webhook.Delivery
	for shard := range sweepShards {
		var rows []deliveryRow
		key := fmt.Sprintf("pending#%d", shard)
		err := s.deliveries().Get("sweep_key", key).Index("by_due").Range("due_at", dynamo.Less, before.UnixMilli()).
			Limit(limit-len(out)).All(ctx, &rows)
		if err != nil {
			return out, wrap(err, "list overdue deliveries of", key)
		}
		for _, r := range rows {
			due := fromMilli(r.DueAt)
			out = append(out, webhook.Delivery{ID: r.PK, TeamID: r.TeamID, WebhookID: r.WebhookID, EventID: r.EventID,
				Status: webhook.DeliveryPending, Series: r.Series, Attempt: r.Attempt, NextAttemptAt: &due})
		}
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

// ParkDelivery sets a pending delivery's due_at to now and removes token's claim, conditioned on
// its being at attempt n-1 of series and claimed by token or by nobody.
func (s *Store) ParkDelivery(ctx context.Context, id string, series, n int, token string, now time.Time) error {
	err := s.deliveries().Update("pk", id).Set("due_at", now.UnixMilli()).Remove("claim", "claim_until").
		If("'status' = ? AND 'series' = ? AND 'attempt' = ? AND (attribute_not_exists('claim') OR 'claim' = ?)",
			webhook.DeliveryPending, series, n-1, token).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return wrap(err, "park delivery", id)
}

// MarkSwept sets a pending delivery's due_at to now, conditioned on its being what the sweep read.
func (s *Store) MarkSwept(ctx context.Context, d webhook.Delivery, now time.Time) (bool, error) {
	err := s.deliveries().Update("pk", d.ID).Set("due_at", now.UnixMilli()).
		If("'status' = ? AND 'due_at' = ? AND 'series' = ? AND 'attempt' = ?", webhook.DeliveryPending,
			unixMilli(d.DueAt()), d.Series, d.Attempt).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, wrap(err, "mark delivery swept", d.ID)
}

// attemptLogRow is one attempt in the attempt log: an item of DeliveriesTable of its own, keyed
// "<delivery id>#<series>#<attempt>" (no webhook_id nor sweep_key, so it is in neither index),
// expiring Retention after the attempt.
type attemptLogRow struct {
	PK            string `dynamo:"pk,hash"`
	DeliveryID    string `dynamo:"delivery_id"`
	Series        int    `dynamo:"series"`
	N             int    `dynamo:"n"`
	At            int64  `dynamo:"at"`
	StatusCode    int    `dynamo:"status_code"`
	DurationMs    int64  `dynamo:"duration_ms"`
	ErrorClass    string `dynamo:"error_class"`
	NextAttemptAt int64  `dynamo:"next_attempt_at"`
	Body          string `dynamo:"response_body"`
	ExpiresAt     int64  `dynamo:"expires_at"`
}

func attemptLogKey(deliveryID string, series, n int) string {
	return fmt.Sprintf("%s#%d#%d", deliveryID, series, n)
}

// LogAttempts writes the attempts' log items, 25 to a BatchWriteItem call.
func (s *Store) LogAttempts(ctx context.Context, entries []webhook.LoggedAttempt) error {
	var rows []any
	for _, e := range entries {
		a := e.Attempt
		r := attemptLogRow{PK: attemptLogKey(e.DeliveryID, a.Series, a.N), DeliveryID: e.DeliveryID, Series: a.Series, N: a.N,
			At: unixMilli(a.At), StatusCode: a.StatusCode, DurationMs: a.DurationMs, ErrorClass: a.ErrorClass,
			Body: a.ResponseBody, ExpiresAt: a.At.Add(webhook.Retention).Unix()}
		if a.NextAttemptAt != nil {
			r.NextAttemptAt = a.NextAttemptAt.UnixMilli()
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := s.deliveries().Batch().Write().Put(rows...).Run(ctx)
	return wrap(err, "log attempts of", entries[0].DeliveryID)
}

// AttemptLog reads the log items of every attempt the delivery may have made (each series up to
// d.Series, attempts 1 to MaxAttempts; those never made are simply absent), 100 keys to a
// BatchGetItem call, and returns them oldest first.
func (s *Store) AttemptLog(ctx context.Context, d webhook.Delivery) ([]webhook.Attempt, error) {
	var keys []dynamo.Keyed
	for series := 0; series <= d.Series; series++ {
		for n := 1; n <= webhook.MaxAttempts; n++ {
			keys = append(keys, dynamo.Keys{attemptLogKey(d.ID, series, n)})
		}
	}
	var rows []attemptLogRow
	err := s.deliveries().Batch("pk").Get(keys...).All(ctx, &rows)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, wrap(err, "read the attempt log of", d.ID)
	}
	out := make([]webhook.Attempt, 0, len(rows))
	for _, r := range rows {
		a := webhook.Attempt{Series: r.Series, N: r.N, At: fromMilli(r.At), StatusCode: r.StatusCode, DurationMs: r.DurationMs,
			ErrorClass: r.ErrorClass, ResponseBody: r.Body}
		if r.NextAttemptAt != 0 {
			t := fromMilli(r.NextAttemptAt)
			a.NextAttemptAt = &t
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b webhook.Attempt) int {
		return cmp.Or(cmp.Compare(a.Series, b.Series), cmp.Compare(a.N, b.N))
	})
	return out, nil
}

// deliveryCursor is where a page of a delivery list ends: the last delivery's creation (ms) and id.
type deliveryCursor struct {
	ms int64
	id string
}

func (c deliveryCursor) String() string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%013d#%s", c.ms, c.id))
}

func parseDeliveryCursor(s string) (deliveryCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	ms, id, ok := strings.Cut(string(raw), "#")
	n, perr := strconv.ParseInt(ms, 10, 64)
	if err != nil || !ok || perr != nil || len(ms) != 13 || !strings.HasPrefix(id, "dlv_") {
		return deliveryCursor{}, patio.Invalidf("cursor is not one a delivery list gave")
	}
	return deliveryCursor{n, id}, nil
}

// ListDeliveries queries the by_webhook index once per status, each on the range of status_key
// the time window and cursor leave ("<status>#<created ms>#<id>", newest first), and merges them:
// a page costs at most Limit+1 items per status, whatever the webhook's history.
func (s *Store) ListDeliveries(ctx context.Context, webhookID string, q webhook.DeliveryQuery) ([]webhook.Delivery, string, error) {
	var cur *deliveryCursor
	if q.Cursor != "" {
		c, err := parseDeliveryCursor(q.Cursor)
		if err != nil {
			return nil, "", err
		}
		cur = &c
	}
	low, high := int64(0), int64(9999999999999)
	if !q.Since.IsZero() {
		low = q.Since.UnixMilli()
	}
	if !q.Until.IsZero() {
		high = q.Until.UnixMilli()
	}
	var all []deliveryRow
	for _, st := range q.Statuses {
		from := fmt.Sprintf("%s#%013d#", st, low)
		to := fmt.Sprintf("%s#%013d#~", st, high)
		if cur != nil {
			if c := fmt.Sprintf("%s#%013d#%s", st, cur.ms, cur.id); c < to {
				to = c
			}
		}
		if to <= from {
			continue
		}
		var rows []deliveryRow
		err := s.deliveries().Get("webhook_id", webhookID).Index("by_webhook").Range("status_key", dynamo.Between, from, to).
			Order(dynamo.Descending).Limit(q.Limit+1).All(ctx, &rows)
		if err != nil {
			return nil, "", wrap(err, "list deliveries of webhook", webhookID)
		}
		for _, r := range rows {
			if cur == nil || r.CreatedAt != cur.ms || r.PK != cur.id {
				all = append(all, r)
			}
		}
	}
	slices.SortFunc(all, func(a, b deliveryRow) int {
		return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), cmp.Compare(b.PK, a.PK))
	})
	next := ""
	if len(all) > q.Limit {
		all = all[:q.Limit]
		last := all[len(all)-1]
		next = deliveryCursor{last.CreatedAt, last.PK}.String()
	}
	out, err := decodeRows(all, deliveryRow.delivery)
	return out, next, wrap(err, "decode deliveries of webhook", webhookID)
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
