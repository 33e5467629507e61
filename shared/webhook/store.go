package webhook

import (
	"context"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Store is what the operators' use cases (Webhooks) read and write of the webhooks themselves.
type Store interface {
	// CreateWebhook stores a new webhook.
	CreateWebhook(ctx context.Context, w Webhook) error
	// Webhook returns a team's webhook (strongly consistent), or KindNotFound.
	Webhook(ctx context.Context, teamID, id string) (Webhook, error)
	// WebhookByID returns a webhook by its id alone, or KindNotFound.
	WebhookByID(ctx context.Context, id string) (Webhook, error)
	// TeamWebhooks returns every webhook of a team, active and disabled (strongly consistent).
	TeamWebhooks(ctx context.Context, teamID string) ([]Webhook, error)
	// UpdateWebhook applies change to the stored webhook atomically (re-applying it on a lost race).
	UpdateWebhook(ctx context.Context, teamID, id string, change func(Webhook) (Webhook, error)) (Webhook, error)
}

// DeliveryLog is what the operators' use cases (Webhooks) read and write of the deliveries: a
// test event's, the lists and attempt logs, replays and cancellations.
type DeliveryLog interface {
	// CreateDeliveries stores new deliveries, in order. For each it returns the delivery as stored:
	// the one given when it was created, the one found when one with its id existed (created[i]
	// false). On error, the first n deliveries were handled (n < len(ds)).
	CreateDeliveries(ctx context.Context, ds []Delivery) (stored []Delivery, created []bool, n int, err error)
	// Delivery returns a delivery (strongly consistent), or KindNotFound.
	Delivery(ctx context.Context, id string) (Delivery, error)
	// AttemptLog returns every attempt of d (as Delivery read it), every series, oldest first, with
	// their response excerpts.
	AttemptLog(ctx context.Context, d Delivery) ([]Attempt, error)
	// ListDeliveries returns one page of the deliveries of the webhooks (one, or a team's)
	// matching q, newest first, and the cursor of the next page ("" on the last).
	ListDeliveries(ctx context.Context, webhookIDs []string, q DeliveryQuery) ([]Delivery, string, error)
	Canceller
}

// Canceller lists a webhook's deliveries and moves them from one status to another: what
// CancelPending needs.
type Canceller interface {
	// SetDeliveryStatus moves a delivery from one of the from statuses to status (KindConflict when
	// it is in none of them). With restart it also starts a new series (Series+1, no attempts).
	SetDeliveryStatus(ctx context.Context, id string, from []string, status string, restart bool) (Delivery, error)
	// Deliveries lists a webhook's deliveries, newest first, optionally of one status.
	Deliveries(ctx context.Context, webhookID, status string) ([]Delivery, error)
}

// CancelPending cancels every pending delivery of a webhook and returns how many it cancelled.
func CancelPending(ctx context.Context, s Canceller, webhookID string) (int, error) {
	pending, err := s.Deliveries(ctx, webhookID, DeliveryPending)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range pending {
		_, err := s.SetDeliveryStatus(ctx, p.ID, []string{DeliveryPending}, DeliveryCancelled, false)
		if err == nil {
			n++
		} else if !patio.IsKind(err, patio.KindConflict) {
			return n, err
		}
	}
	return n, nil
}

// Queue carries delivery tasks. A task is delayed until it is due (the later of Due and
// NotBefore), or by the queue's longest delay when it is due later (the deliverer then enqueues it
// again: a hop).
type Queue interface {
	// Enqueue sends one task.
	Enqueue(ctx context.Context, t Task) error
	// EnqueueAll sends several tasks at once; errs[i] is the outcome of tasks[i].
	EnqueueAll(ctx context.Context, tasks []Task) (errs []error)
}

// Targets checks a target URL before a webhook is stored (public addresses only, outside the local
// stack). Errors are KindInvalid.
type Targets interface {
	CheckTarget(ctx context.Context, url string) error
}

// Result is the outcome of one attempt.
type Result struct {
	StatusCode int
	Duration   time.Duration
	// ErrorClass is "" for a 2xx answer, else one of the Err* classes.
	ErrorClass string
	// Body is the start of the response body: at most MaxResponseBody bytes, as valid UTF-8.
	Body string
	// Reason says in a few words why an attempt without an answer failed ("certificate signed by
	// unknown authority", "connection refused"); it is logged beside ErrorClass.
	Reason string
	// RetryAfter is the answer's Retry-After header as sent ("" when none): how long the receiver
	// asks to be left alone (see package delivery).
	RetryAfter string
}

// MaxResponseBody is how much of a receiver's answer an attempt keeps: its first 4 KiB.
const MaxResponseBody = 4 << 10

// OK reports a successful attempt.
func (r Result) OK() bool { return r.ErrorClass == "" }

func clock(now func() time.Time) time.Time {
	if now == nil {
		return time.Now().UTC()
	}
	return now().UTC()
}
