// Package delivery is the webhook delivery runtime: the use cases the workers run. The Dispatcher
// turns changes into deliveries and queues their first attempts (and audits the API keys' changes); the Deliverer makes the attempts
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
	// SetDeliveryStatus moves a delivery from one of the from statuses to status (KindConflict
	// when it is in none of them): a delivery stored from a webhook list kept from before, set
	// right by the list as read again.
	SetDeliveryStatus(ctx context.Context, id string, from []string, status string, restart bool) (webhook.Delivery, error)
}

// Auditor stores entries of the teams' audit logs, many at once. Storing an entry again (the
// same id and time) changes nothing.
type Auditor interface {
	RecordAudits(ctx context.Context, es []patio.AuditEntry) error
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

// Deliveries is what a Deliverer's groups read and write of the deliveries: a group's load, the
// claims of the attempts a copy may be making too, and the attempts' records. The Deliverer's
// Gates pace the sends and its Rules apply the deactivation rule.
type Deliveries interface {
	Loader
	Claimer
	Recorder
}

// Loader reads at once what the tasks of one webhook need.
type Loader interface {
	// LoadGroup returns the team's webhook (KindNotFound when there is none), its gate (the zero
	// Gate when it has none) and those of the deliveries ids names that exist, by id, all strongly
	// consistent.
	LoadGroup(ctx context.Context, teamID, webhookID string, ids []string) (webhook.Webhook, Gate, map[string]webhook.Delivery, error)
}

// Claimer claims the attempts that a copy of their task may be making too, and parks those that
// wait for their webhook out of the queue's way.
type Claimer interface {
	// ClaimDelivery claims attempt n of series series of a delivery for token until until, and
	// returns the delivery: only when it is pending at that series with n-1 attempts made and not
	// claimed by another token whose claim lasts beyond now. Otherwise ok is false and the
	// delivery is the one stored (KindNotFound when there is none).
	ClaimDelivery(ctx context.Context, id string, series, n int, token string, now, until time.Time) (d webhook.Delivery, ok bool, err error)
	// ParkDelivery moves the due time of a pending delivery whose attempt n of series series waits
	// for its webhook to due (the sweep queues the attempt again once it is overdue), notes why
	// (heldBy, one of the webhook.Held* reasons, until due) and ends token's claim. A delivery that
	// moved on meanwhile, or that another token claims, is left alone.
	ParkDelivery(ctx context.Context, id string, series, n int, token string, due time.Time, heldBy string) error
}

// Gates keeps each webhook's Gate, for every worker.
type Gates interface {
	// SwapGate writes g as the webhook's gate when the stored gate's version is still g.Version,
	// and returns it as stored (its version advanced) with ok. Otherwise it writes nothing and
	// returns the stored gate, ok false.
	SwapGate(ctx context.Context, teamID, webhookID string, g Gate) (stored Gate, ok bool, err error)
	// TakeLease grants holder a lease of n until until in one conditional write, reading nothing
	// first: only when the gate's Free is n or more, no hold lasts past now and holder has no
	// lease on it. It returns the gate as stored after it with ok; ok false when it may not (a
	// gate never written whole, too little free, a hold, a lease held): SwapGate then decides.
	TakeLease(ctx context.Context, teamID, webhookID, holder string, n int, until, now time.Time) (stored Gate, ok bool, err error)
	// NoteSuccess records that a delivery to the webhook succeeded at t (keeping the latest time).
	NoteSuccess(ctx context.Context, teamID, id string, t time.Time) error
}

// Recorder records attempts on their deliveries.
type Recorder interface {
	// RecordAttempts records each record's attempt on its delivery (see Record), many at once.
	// errs[i] is the outcome of recs[i]: KindConflict when the delivery is no longer pending at
	// the attempt's series with one attempt fewer, or when another token claims it beyond now.
	RecordAttempts(ctx context.Context, recs []Record, now time.Time) (errs []error)
}

// Record is one attempt to record: it joins the attempts of its delivery's series (the delivery
// as loaded before the attempt), sets the delivery's status, attempt count, first attempt and next
// attempt time, and ends any claim and hold note.
type Record struct {
	Delivery webhook.Delivery
	Attempt  webhook.Attempt
	Status   string
	Token    string
}

// Rules is what the deactivation rule and the team emails read and write.
type Rules interface {
	// Webhook returns a team's webhook (strongly consistent), or KindNotFound.
	Webhook(ctx context.Context, teamID, id string) (webhook.Webhook, error)
	// DisableForFailures disables the webhook, marks its alert pending and keeps last (the failure
	// that disabled it) with a count of cancelled deliveries at 0, atomically and only if it is
	// active, was enabled no later than first and had no success since first (NoteSuccess,
	// Gate.LastSuccess). It reports whether it did.
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
