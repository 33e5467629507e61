package dynamostore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/webhook"
)

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
