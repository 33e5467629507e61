package webhookdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/webhook"
)

// The attempt log keeps every attempt of a delivery, response excerpt included, without letting
// any number of attempts or replays outgrow DynamoDB's item size: the attempts of the current
// series (at most webhook.MaxAttempts) are on the delivery item itself, with their excerpts; when
// a replay ends a series, its attempts move to items of their own. Earlier versions logged every
// attempt as an item of its own when it was made; those are read the same way.

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
	HeldBy        string `dynamo:"held_by,omitempty"`
	HeldMs        int64  `dynamo:"held_ms,omitempty"`
	Body          string `dynamo:"response_body"`
	Headers       string `dynamo:"sent_headers,omitempty"`
	ExpiresAt     int64  `dynamo:"expires_at"`
}

func attemptLogKey(deliveryID string, series, n int) string {
	return fmt.Sprintf("%s#%d#%d", deliveryID, series, n)
}

// logAttempts writes attempts of a delivery as log items of their own, 25 to a BatchWriteItem
// call.
func (s *DeliveryLog) logAttempts(ctx context.Context, deliveryID string, attempts []webhook.Attempt) error {
	var rows []any
	for _, a := range attempts {
		r := attemptLogRow{PK: attemptLogKey(deliveryID, a.Series, a.N), DeliveryID: deliveryID, Series: a.Series, N: a.N,
			At: unixMilli(a.At), StatusCode: a.StatusCode, DurationMs: a.DurationMs, ErrorClass: a.ErrorClass,
			HeldBy: a.HeldBy, HeldMs: a.HeldMs, Body: a.ResponseBody, Headers: encodeHeaders(a.Headers), ExpiresAt: a.At.Add(webhook.Retention).Unix()}
		if a.NextAttemptAt != nil {
			r.NextAttemptAt = a.NextAttemptAt.UnixMilli()
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := s.deliveries().Batch().Write().Put(rows...).Run(ctx)
	return storecore.Wrap(err, "log attempts of", deliveryID)
}

// AttemptLog returns every attempt of d, oldest first: those of the current series from d (as
// Delivery read it), those of earlier series from their log items (each series up to d.Series,
// attempts 1 to MaxAttempts; those never made are simply absent), 100 keys to a BatchGetItem call.
func (s *DeliveryLog) AttemptLog(ctx context.Context, d webhook.Delivery) ([]webhook.Attempt, error) {
	var keys []dynamo.Keyed
	for series := 0; series <= d.Series; series++ {
		for n := 1; n <= webhook.MaxAttempts; n++ {
			keys = append(keys, dynamo.Keys{attemptLogKey(d.ID, series, n)})
		}
	}
	var rows []attemptLogRow
	err := s.deliveries().Batch("pk").Get(keys...).All(ctx, &rows)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, storecore.Wrap(err, "read the attempt log of", d.ID)
	}
	type at struct{ series, n int }
	seen := map[at]bool{}
	out := make([]webhook.Attempt, 0, len(rows)+len(d.Attempts))
	for _, a := range d.Attempts {
		seen[at{a.Series, a.N}] = true
		out = append(out, a)
	}
	for _, r := range rows {
		if seen[at{r.Series, r.N}] {
			continue
		}
		a := webhook.Attempt{Series: r.Series, N: r.N, At: fromMilli(r.At), StatusCode: r.StatusCode, DurationMs: r.DurationMs,
			ErrorClass: r.ErrorClass, HeldBy: r.HeldBy, HeldMs: r.HeldMs, ResponseBody: r.Body, Headers: decodeHeaders(r.Headers)}
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
