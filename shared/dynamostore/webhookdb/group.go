package webhookdb

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// A delivery group is the tasks of one webhook that a deliverer handles together
// (delivery.Deliveries): its webhook, gate and deliveries read at once, the claims of the attempts
// a copy of their task may be making too, the parks of those that wait for their webhook, and
// the attempts' records.

// LoadGroup reads a webhook, its gate and deliveries in one BatchGetItem call (more when more than
// 98 deliveries are asked for), strongly consistent: what the deliverer needs for the tasks of one
// webhook.
func (s *Webhooks) LoadGroup(ctx context.Context, teamID, webhookID string, ids []string) (webhook.Webhook, delivery.Gate, map[string]webhook.Delivery, error) {
	keys := make([]dynamo.Keyed, len(ids))
	for i, id := range ids {
		keys[i] = dynamo.Keys{id}
	}
	batch := s.webhooks().Batch("pk", "sk").Get(dynamo.Keys{teamID, webhookSK(webhookID)}, dynamo.Keys{teamID, gateSK(webhookID)}).
		From(s.deliveries(), "pk", keys...).Consistent(true)
	var table string
	var item dynamo.Item
	var decoded error
	g := group{dels: make(map[string]webhook.Delivery, len(ids))}
	iter := batch.IterWithTable(&table)
	for iter.Next(ctx, &item) {
		if err := g.take(s.db.Tables.Deliveries, table, item); err != nil {
			decoded = err
		}
		item = nil
	}
	if err := iter.Err(); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return g.w, g.gate, g.dels, storecore.Wrap(err, "load deliveries of webhook", webhookID)
	}
	if decoded != nil {
		return g.w, g.gate, g.dels, storecore.Wrap(decoded, "decode deliveries of webhook", webhookID)
	}
	if !g.found {
		return g.w, g.gate, g.dels, patio.NotFoundf("webhook %s not found", webhookID)
	}
	return g.w, g.gate, g.dels, nil
}

// group is what LoadGroup has read of a webhook's delivery group.
type group struct {
	w     webhook.Webhook
	found bool // w was read
	gate  delivery.Gate
	dels  map[string]webhook.Delivery
}

// take decodes one item the batch read from table: a delivery (of the deliveries table), the
// webhook or its gate.
func (g *group) take(deliveries, table string, item dynamo.Item) error {
	switch sk, _ := item["sk"].(*types.AttributeValueMemberS); {
	case table == deliveries:
		var r deliveryRow
		if err := dynamo.UnmarshalItem(item, &r); err != nil {
			return err
		}
		d, err := r.delivery()
		if err != nil {
			return err
		}
		g.dels[d.ID] = d
	case sk != nil && strings.HasPrefix(sk.Value, webhookPrefix):
		var r webhookRow
		if err := dynamo.UnmarshalItem(item, &r); err != nil {
			return err
		}
		var err error
		if g.w, err = r.webhook(); err != nil {
			return err
		}
		g.found = true
	default:
		var r gateRow
		if err := dynamo.UnmarshalItem(item, &r); err != nil {
			return err
		}
		g.gate = r.gate()
	}
	return nil
}

// ClaimDelivery claims attempt n of series series for token in one conditional update that returns
// the delivery; when the condition fails it reads the delivery as stored.
func (s *DeliveryLog) ClaimDelivery(ctx context.Context, id string, series, n int, token string, now, until time.Time) (webhook.Delivery, bool, error) {
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
		return webhook.Delivery{}, false, storecore.Wrap(err, "claim delivery", id)
	}
	d, err := row.delivery()
	return d, err == nil, err
}

// recordCond is the condition of an attempt's record: the delivery is pending at the attempt's
// series with one attempt fewer, and claimed by the attempt's token, by nobody, or by a claim run
// out.
const recordCond = "'status' = ? AND 'series' = ? AND 'attempt' = ? AND " +
	"(attribute_not_exists('claim_until') OR 'claim' = ? OR 'claim_until' < ?)"

// recorded returns the delivery of r after its attempt: the attempt among those of its series
// (those of earlier series are dropped: a delivery item holds at most one series), the status, and
// no claim nor hold note.
func recorded(r delivery.Record) webhook.Delivery {
	d, a := r.Delivery, r.Attempt
	var kept []webhook.Attempt
	for _, x := range d.Attempts {
		if x.Series == a.Series {
			kept = append(kept, x)
		}
	}
	d.Attempts = append(kept, a)
	d.Attempt, d.Status, d.NextAttemptAt, d.UpdatedAt = a.N, r.Status, a.NextAttemptAt, a.At
	d.HeldBy, d.HeldUntil = "", nil
	if a.N == 1 {
		d.FirstAttemptAt = a.At
	}
	return d
}

// RecordAttempts writes each record's delivery after its attempt (see recorded), conditioned as
// recordCond says: a lone record with one conditional put, more in transactions of up to 100
// conditional puts. A record whose condition fails is KindConflict and leaves its transaction,
// which is tried again without it.
func (s *DeliveryLog) RecordAttempts(ctx context.Context, recs []delivery.Record, now time.Time) []error {
	errs := make([]error, len(recs))
	put := func(i int) *dynamo.Put {
		r := recs[i]
		return s.deliveries().Put(toDeliveryRow(recorded(r))).
			If(recordCond, webhook.DeliveryPending, r.Attempt.Series, r.Attempt.N-1, r.Token, now.UnixMilli())
	}
	conflict := func(i int) error {
		return patio.Conflictf("delivery %s changed meanwhile", recs[i].Delivery.ID)
	}
	if len(recs) == 1 {
		err := put(0).Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			err = conflict(0)
		}
		errs[0] = storecore.Wrap(err, "record attempt of delivery", recs[0].Delivery.ID)
		return errs
	}
	for start := 0; start < len(recs); {
		end, size := start, 0
		for end < len(recs) && end-start < txItems && (end == start || size+len(recs[end].Delivery.Payload)+8<<10 <= txBytes) {
			size += len(recs[end].Delivery.Payload) + 8<<10
			end++
		}
		chunk := make([]int, 0, end-start)
		for i := start; i < end; i++ {
			chunk = append(chunk, i)
		}
		for len(chunk) > 0 {
			err := s.db.RunTx(ctx, storecore.MaxTxAttempts, func() *dynamo.WriteTx {
				tx := s.db.Dynamo.WriteTx()
				for _, i := range chunk {
					tx.Put(put(i))
				}
				return tx
			})
			if err == nil {
				break
			}
			var rest []int
			for k, i := range chunk {
				if storecore.CancelReason(err, k) == "ConditionalCheckFailed" {
					errs[i] = conflict(i)
				} else {
					rest = append(rest, i)
				}
			}
			if len(rest) == len(chunk) {
				for _, i := range chunk {
					errs[i] = storecore.Wrap(err, "record attempts from", recs[chunk[0]].Delivery.ID)
				}
				break
			}
			chunk = rest
		}
		start = end
	}
	return errs
}

// ParkDelivery sets a pending delivery's due_at to due with a note of why (held_by, held_until)
// and removes token's claim, conditioned on its being at attempt n-1 of series and claimed by token
// or by nobody. The item's retention starts again from the later of now and due: a delivery that
// keeps waiting for its webhook is never taken by the TTL before its attempt.
func (s *DeliveryLog) ParkDelivery(ctx context.Context, id string, series, n int, token string, due time.Time, heldBy string) error {
	kept := max(time.Now().Unix(), due.Unix()) + int64(webhook.Retention/time.Second)
	u := s.deliveries().Update("pk", id).Set("due_at", due.UnixMilli()).Set("expires_at", kept).Remove("claim", "claim_until")
	if heldBy != "" {
		u = u.Set("held_by", heldBy).Set("held_until", due.UnixMilli())
	}
	err := u.If("'status' = ? AND 'series' = ? AND 'attempt' = ? AND (attribute_not_exists('claim') OR 'claim' = ?)",
		webhook.DeliveryPending, series, n-1, token).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil
	}
	return storecore.Wrap(err, "park delivery", id)
}
