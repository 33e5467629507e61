package webhookdb

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// deliveryRow is a delivery in DeliveriesTable (pk: the delivery id). status_key
// ("<status>#<created ms, 13 digits>#<id>") sorts the by_webhook index by status, then age. While
// the delivery is pending, sweep_key (one of sweepShards partitions) and due_at (when its next
// attempt is due, Unix ms) put it in the sparse by_due index the sweep reads; claim and
// claim_until hold the claim of the attempt being made; held_by and held_until note why and until
// when its next attempt waits for its webhook. bodies holds the response excerpt of each attempt
// of the current series and sent_headers the headers it sent (as JSON objects), both beside
// attempts, so that the by_webhook index, which projects attempts for the lists, does not copy
// them.
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
	Bodies         []string     `dynamo:"bodies,omitempty"`
	SentHeaders    []string     `dynamo:"sent_headers,omitempty"`
	Payload        string       `dynamo:"payload"`
	Test           bool         `dynamo:"test,omitempty"`
	CreatedAt      int64        `dynamo:"created_at"`
	UpdatedAt      int64        `dynamo:"updated_at"`
	SweepKey       string       `dynamo:"sweep_key,omitempty"`
	DueAt          int64        `dynamo:"due_at,omitempty"`
	Claim          string       `dynamo:"claim,omitempty"`
	ClaimUntil     int64        `dynamo:"claim_until,omitempty"`
	HeldBy         string       `dynamo:"held_by,omitempty"`
	HeldUntil      int64        `dynamo:"held_until,omitempty"`
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
	HeldBy        string `dynamo:"held_by,omitempty"`
	HeldMs        int64  `dynamo:"held_ms,omitempty"`
}

func statusKey(status string, created time.Time, id string) string {
	return fmt.Sprintf("%s#%013d#%s", status, created.UnixMilli(), id)
}

func toDeliveryRow(d webhook.Delivery) deliveryRow {
	r := deliveryRow{
		PK: d.ID, WebhookID: d.WebhookID, StatusKey: statusKey(d.Status, d.CreatedAt, d.ID), TeamID: d.TeamID,
		EventID: d.EventID, EventType: d.EventType, Status: d.Status, Series: d.Series, Attempt: d.Attempt,
		FirstAttemptAt: unixMilli(d.FirstAttemptAt), Payload: string(d.Payload), Test: d.Test,
		CreatedAt: unixMilli(d.CreatedAt), UpdatedAt: unixMilli(d.UpdatedAt), HeldBy: d.HeldBy,
		ExpiresAt: d.UpdatedAt.Add(webhook.Retention).Unix(),
	}
	if d.HeldUntil != nil {
		r.HeldUntil = d.HeldUntil.UnixMilli()
	}
	if d.Status == webhook.DeliveryPending {
		r.SweepKey, r.DueAt = sweepKey(d.ID), unixMilli(d.DueAt())
	}
	if d.NextAttemptAt != nil {
		r.NextAttemptAt = d.NextAttemptAt.UnixMilli()
	}
	bodies, headers := false, false
	for _, a := range d.Attempts {
		ar := attemptRow{Series: a.Series, N: a.N, At: unixMilli(a.At), StatusCode: a.StatusCode,
			DurationMs: a.DurationMs, ErrorClass: a.ErrorClass, HeldBy: a.HeldBy, HeldMs: a.HeldMs}
		if a.NextAttemptAt != nil {
			ar.NextAttemptAt = a.NextAttemptAt.UnixMilli()
		}
		r.Attempts = append(r.Attempts, ar)
		r.Bodies = append(r.Bodies, a.ResponseBody)
		bodies = bodies || a.ResponseBody != ""
		h := encodeHeaders(a.Headers)
		r.SentHeaders = append(r.SentHeaders, h)
		headers = headers || h != ""
	}
	if !bodies {
		r.Bodies = nil
	}
	if !headers {
		r.SentHeaders = nil
	}
	return r
}

func (r deliveryRow) delivery() (webhook.Delivery, error) {
	d := webhook.Delivery{
		ID: r.PK, WebhookID: r.WebhookID, TeamID: r.TeamID, EventID: r.EventID, EventType: r.EventType,
		Status: r.Status, Series: r.Series, Attempt: r.Attempt, FirstAttemptAt: fromMilli(r.FirstAttemptAt),
		Payload: []byte(r.Payload), Test: r.Test, CreatedAt: fromMilli(r.CreatedAt),
		UpdatedAt: fromMilli(r.UpdatedAt), Attempts: []webhook.Attempt{}, Claim: r.Claim,
		ClaimUntil: fromMilli(r.ClaimUntil), HeldBy: r.HeldBy,
	}
	if r.NextAttemptAt != 0 {
		t := fromMilli(r.NextAttemptAt)
		d.NextAttemptAt = &t
	}
	if r.HeldUntil != 0 {
		t := fromMilli(r.HeldUntil)
		d.HeldUntil = &t
	}
	for i, a := range r.Attempts {
		wa := webhook.Attempt{Series: a.Series, N: a.N, At: fromMilli(a.At), StatusCode: a.StatusCode,
			DurationMs: a.DurationMs, ErrorClass: a.ErrorClass, HeldBy: a.HeldBy, HeldMs: a.HeldMs}
		if a.NextAttemptAt != 0 {
			t := fromMilli(a.NextAttemptAt)
			wa.NextAttemptAt = &t
		}
		if i < len(r.Bodies) {
			wa.ResponseBody = r.Bodies[i]
		}
		if i < len(r.SentHeaders) {
			wa.Headers = decodeHeaders(r.SentHeaders[i])
		}
		d.Attempts = append(d.Attempts, wa)
	}
	return d, nil
}

// encodeHeaders stores an attempt's sent headers as a JSON object ("" for none).
func encodeHeaders(h map[string]string) string {
	if len(h) == 0 {
		return ""
	}
	b, _ := json.Marshal(h) // a map of strings always encodes
	return string(b)
}

// decodeHeaders reads what encodeHeaders stored (nil for "" or an unreadable value).
func decodeHeaders(s string) map[string]string {
	if s == "" {
		return nil
	}
	var h map[string]string
	if json.Unmarshal([]byte(s), &h) != nil {
		return nil
	}
	return h
}

// Limits of one TransactWriteItems call (DynamoDB: 100 items, 4 MB).
const (
	txItems = 100
	txBytes = 3 << 20
)

// CreateDeliveries stores new deliveries: many at once in transactions of conditional puts (one
// call for up to 100 in the usual case, where none exists yet), the transactions at once; when a
// transaction finds one that exists, that chunk is put one by one, each existing one read instead.
// A single delivery is one conditional put: a one-item transaction costs twice its write units
// and about four times its latency. On error, n is where the first chunk that failed begins
// (chunks after it may be stored).
func (s *DeliveryLog) CreateDeliveries(ctx context.Context, ds []webhook.Delivery) ([]webhook.Delivery, []bool, int, error) {
	if len(ds) == 1 {
		return s.createLone(ctx, ds[0])
	}
	stored := make([]webhook.Delivery, len(ds))
	created := make([]bool, len(ds))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failedAt = len(ds)
		first    error
	)
	fail := func(at int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if at < failedAt {
			failedAt, first = at, err
		}
	}
	for start := 0; start < len(ds); {
		end, size := start, 0
		for end < len(ds) && end-start < txItems && (end == start || size+len(ds[end].Payload)+1024 <= txBytes) {
			size += len(ds[end].Payload) + 1024
			end++
		}
		chunk, from := ds[start:end], start
		wg.Go(func() {
			err := s.db.RunTx(ctx, storecore.MaxTxAttempts, func() *dynamo.WriteTx {
				tx := s.db.Dynamo.WriteTx()
				for _, d := range chunk {
					tx.Put(s.deliveries().Put(toDeliveryRow(d)).If("attribute_not_exists(pk)"))
				}
				return tx
			})
			switch {
			case err == nil:
				for i := range chunk {
					stored[from+i], created[from+i] = chunk[i], true
				}
			case conditionFailed(err, len(chunk)):
				for i, d := range chunk {
					c, got, err := s.createDelivery(ctx, d)
					if err != nil {
						fail(from+i, err)
						return
					}
					stored[from+i], created[from+i] = got, c
				}
			default:
				fail(from, storecore.Wrap(err, "create deliveries from", chunk[0].ID))
			}
		})
		start = end
	}
	wg.Wait()
	return stored, created, failedAt, first
}

// createLone is CreateDeliveries of one delivery.
func (s *DeliveryLog) createLone(ctx context.Context, d webhook.Delivery) ([]webhook.Delivery, []bool, int, error) {
	c, got, err := s.createDelivery(ctx, d)
	if err != nil {
		return []webhook.Delivery{{}}, []bool{false}, 0, err
	}
	return []webhook.Delivery{got}, []bool{c}, 1, nil
}

// conditionFailed reports a transaction of n items cancelled because a condition failed.
func conditionFailed(err error, n int) bool {
	for i := range n {
		if storecore.CancelReason(err, i) == "ConditionalCheckFailed" {
			return true
		}
	}
	return false
}

// createDelivery stores one new delivery; when one with its id exists it returns false and that one.
func (s *DeliveryLog) createDelivery(ctx context.Context, d webhook.Delivery) (bool, webhook.Delivery, error) {
	err := s.deliveries().Put(toDeliveryRow(d)).If("attribute_not_exists(pk)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		stored, err := s.Delivery(ctx, d.ID)
		return false, stored, err
	}
	return err == nil, d, storecore.Wrap(err, "create delivery", d.ID)
}

// Delivery returns a delivery (strongly consistent), or KindNotFound.
func (s *DeliveryLog) Delivery(ctx context.Context, id string) (webhook.Delivery, error) {
	var row deliveryRow
	if err := s.deliveries().Get("pk", id).Consistent(true).One(ctx, &row); err != nil {
		return webhook.Delivery{}, storecore.Wrap(storecore.NotFound(err, "delivery"), "get delivery", id)
	}
	return row.delivery()
}

// SetDeliveryStatus moves a delivery from one of the from statuses to status; with restart it
// starts a new series. KindConflict when the delivery is in none of them, or changed meanwhile.
func (s *DeliveryLog) SetDeliveryStatus(ctx context.Context, id string, from []string, status string, restart bool) (webhook.Delivery, error) {
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
	if restart && len(d.Attempts) > 0 {
		// The series ends: its attempts move to the attempt log, which keeps every series.
		if err := s.logAttempts(ctx, d.ID, d.Attempts); err != nil {
			return d, err
		}
	}
	d.Status, d.UpdatedAt, d.HeldBy, d.HeldUntil = status, time.Now().UTC(), "", nil
	if restart {
		d.Series, d.Attempt, d.FirstAttemptAt, d.NextAttemptAt, d.Attempts = d.Series+1, 0, time.Time{}, nil, nil
	}
	err = s.deliveries().Put(toDeliveryRow(d)).If("'status' = ? AND 'series' = ?", prevStatus, prevSeries).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return d, patio.Conflictf("delivery %s changed meanwhile", id)
	}
	return d, storecore.Wrap(err, "set status of delivery", id)
}

// OverdueDeliveries reads the sparse by_due index, partition by partition, for pending deliveries
// due before before; each comes back with NextAttemptAt set to its due time.
func (s *DeliveryLog) OverdueDeliveries(ctx context.Context, before time.Time, limit int) ([]webhook.Delivery, error) {
	var out []webhook.Delivery
	for shard := range sweepShards {
		var rows []deliveryRow
		key := fmt.Sprintf("pending#%d", shard)
		err := s.deliveries().Get("sweep_key", key).Index("by_due").Range("due_at", dynamo.Less, before.UnixMilli()).
			Limit(limit-len(out)).All(ctx, &rows)
		if err != nil {
			return out, storecore.Wrap(err, "list overdue deliveries of", key)
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

// MarkSwept sets a pending delivery's due_at to now, conditioned on its being what the sweep read;
// the item's retention starts again from now (a delivery still to be attempted is never taken by
// the TTL).
func (s *DeliveryLog) MarkSwept(ctx context.Context, d webhook.Delivery, now time.Time) (bool, error) {
	err := s.deliveries().Update("pk", d.ID).Set("due_at", now.UnixMilli()).Set("expires_at", now.Add(webhook.Retention).Unix()).
		If("'status' = ? AND 'due_at' = ? AND 'series' = ? AND 'attempt' = ?", webhook.DeliveryPending,
			unixMilli(d.DueAt()), d.Series, d.Attempt).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	return err == nil, storecore.Wrap(err, "mark delivery swept", d.ID)
}
