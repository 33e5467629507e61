package dynamostore

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

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
