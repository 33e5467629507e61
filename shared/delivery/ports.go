// Package delivery is the webhook delivery runtime: the use cases the workers run. The Dispatcher
// turns changes into deliveries and queues their first attempts; the Deliverer makes the attempts
// queued tasks describe (each webhook bounded on its own), records them, schedules the next ones
// and applies the deactivation rule with its emails; the Sweeper queues again the attempts whose
// message was lost.
//
// Like the domain it serves (shared/webhook) it does no I/O of its own: the store, the queue, the
// HTTP sender and the mailer are interfaces declared here, each with the methods its user needs,
// and implemented by the adapters (shared/dynamostore, shared/sqsqueue, shared/webhookhttp,
// shared/sesmail).
package delivery

import (
	"context"
	"log/slog"
	"time"

	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// DispatchStore is what a Dispatcher reads and writes: a team's webhooks and new deliveries.
type DispatchStore interface {
	// TeamWebhooks returns every webhook of a team, active and disabled (strongly consistent).
	TeamWebhooks(ctx context.Context, teamID string) ([]webhook.Webhook, error)
	// CreateDeliveries stores new deliveries, in order. For each it returns the delivery as stored:
	// the one given when it was created, the one found when one with its id existed (created[i]
	// false). On error, the first n deliveries were handled (n < len(ds)).
	CreateDeliveries(ctx context.Context, ds []webhook.Delivery) (stored []webhook.Delivery, created []bool, n int, err error)
}

// SweepStore is what a Sweeper reads and writes: overdue pending deliveries.
type SweepStore interface {
	// OverdueDeliveries returns up to limit pending deliveries whose next attempt was due before
	// before (their ids, team, webhook, event, series, attempt count and due time).
	OverdueDeliveries(ctx context.Context, before time.Time, limit int) ([]webhook.Delivery, error)
	// MarkSwept moves a pending delivery's due time to now, unless it changed since d was read
	// (false then), so that the sweep does not queue it again at once.
	MarkSwept(ctx context.Context, d webhook.Delivery, now time.Time) (bool, error)
}

// Store is what a Deliverer reads and writes: the webhook, its delivery slots and the state of the
// deactivation rule, and the deliveries it attempts.
type Store interface {
	// Webhook returns a team's webhook (strongly consistent), or KindNotFound.
	Webhook(ctx context.Context, teamID, id string) (webhook.Webhook, error)
	// DisableForFailures disables the webhook, marks its alert pending and keeps last (the failure
	// that disabled it) with a count of cancelled deliveries at 0, atomically and only if it is
	// active, was enabled no later than first and had no success since first (NoteSuccess,
	// ReleaseSlots). It reports whether it did.
	DisableForFailures(ctx context.Context, teamID, id string, first, now time.Time, last webhook.Failure) (bool, error)
	// NoteCancelled adds n to the count of deliveries cancelled when the webhook was disabled.
	NoteCancelled(ctx context.Context, teamID, id string, n int) error
	// ClaimWarning records that the warning email about the webhook goes out at now, and reports
	// whether it may: only when none went out in the 24 hours before now and no delivery to the
	// webhook succeeded since first. ReleaseWarning undoes a claim made at now (a failed send).
	ClaimWarning(ctx context.Context, teamID, id string, first, now time.Time) (bool, error)
	ReleaseWarning(ctx context.Context, teamID, id string, at time.Time) error
	// ClaimAlert clears the webhook's pending alert and reports whether it was pending (so one
	// caller sends it); ReleaseAlert sets it again after a failed send.
	ClaimAlert(ctx context.Context, teamID, id string) (bool, error)
	ReleaseAlert(ctx context.Context, teamID, id string) error

	// AcquireSlots takes up to want of the webhook's MaxInFlight delivery slots for holder until
	// until (a slot whose holder's time has passed is free again, so a crashed holder blocks
	// nobody for long) and returns which it took, none when none is free.
	AcquireSlots(ctx context.Context, teamID, webhookID, holder string, want int, now, until time.Time) ([]int, error)
	// RenewSlots extends to until those of the given slots that holder still holds, and returns them.
	RenewSlots(ctx context.Context, teamID, webhookID, holder string, slots []int, until time.Time) ([]int, error)
	// ReleaseSlots frees the slots holder took (not those taken over by others since) and, when
	// success is not zero, records a successful delivery at that time, as NoteSuccess does.
	ReleaseSlots(ctx context.Context, teamID, webhookID, holder string, slots []int, success time.Time) error
	// NoteSuccess records that a delivery to the webhook succeeded at t (keeping the latest time).
	NoteSuccess(ctx context.Context, teamID, id string, t time.Time) error

	// ClaimDelivery claims attempt n of series series of a delivery for token until until, and
	// returns the delivery: only when it is pending at that series with n-1 attempts made and not
	// claimed by another token whose claim lasts beyond now. Otherwise ok is false and the
	// delivery is the one stored (KindNotFound when there is none).
	ClaimDelivery(ctx context.Context, id string, series, n int, token string, now, until time.Time) (d webhook.Delivery, ok bool, err error)
	// RecordAttempt records a, the attempt token claimed: it keeps a in the delivery's attempts of
	// the series, sets its status, attempt count (a.N), first attempt and next attempt time, and
	// ends the claim, conditioned on the delivery still being pending at series a.Series with
	// a.N-1 attempts and claimed by token. A lost condition is KindConflict.
	RecordAttempt(ctx context.Context, d webhook.Delivery, a webhook.Attempt, status, token string) error
	// LogAttempts keeps attempts in the attempt log, each as an item of its own (so that no number
	// of attempts or replays makes an item outgrow DynamoDB's limit), for Retention.
	LogAttempts(ctx context.Context, entries []webhook.LoggedAttempt) error
	// ParkDelivery takes a pending delivery whose attempt n of series series waits for a slow
	// webhook out of the queue's way: its due time becomes now, so that the sweep queues the attempt
	// again once it is overdue, and token's claim on it ends. A delivery that moved on meanwhile, or
	// that another token claims, is left alone.
	ParkDelivery(ctx context.Context, id string, series, n int, token string, now time.Time) error
	// The deliverer cancels a disabled webhook's pending deliveries.
	webhook.Canceller
}

// Queue carries delivery tasks (see webhook.Queue).
type Queue interface {
	// EnqueueAll sends several tasks at once; errs[i] is the outcome of tasks[i].
	EnqueueAll(ctx context.Context, tasks []webhook.Task) (errs []error)
}

// Sender POSTs one attempt.
type Sender interface {
	// Send POSTs body with headers to url and reports the outcome; it never follows redirects.
	Send(ctx context.Context, url string, headers map[string]string, body []byte) webhook.Result
}

// Mailer sends the alert email.
type Mailer interface {
	SendAlert(ctx context.Context, to, subject, text string) error
}

// Teams finds a team's contact email.
type Teams interface {
	Team(ctx context.Context, id string) (patio.Team, error)
}

func ignoreConflict(err error) error {
	if patio.IsKind(err, patio.KindConflict) {
		return nil
	}
	return err
}

func clock(now func() time.Time) time.Time {
	if now == nil {
		return time.Now().UTC()
	}
	return now().UTC()
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}
