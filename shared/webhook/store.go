package webhook

import (
	"context"
	"log/slog"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Store persists webhooks, deliveries and each webhook's delivery slots.
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
	// DisableForFailures disables the webhook, marks its alert pending and keeps last (the failure
	// that disabled it) with a count of cancelled deliveries at 0, atomically and only if it is
	// active, was enabled no later than first and had no success since first (NoteSuccess,
	// ReleaseSlots). It reports whether it did.
	DisableForFailures(ctx context.Context, teamID, id string, first, now time.Time, last Failure) (bool, error)
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

	// CreateDeliveries stores new deliveries, in order. For each it returns the delivery as stored:
	// the one given when it was created, the one found when one with its id existed (created[i]
	// false). On error, the first n deliveries were handled (n < len(ds)).
	CreateDeliveries(ctx context.Context, ds []Delivery) (stored []Delivery, created []bool, n int, err error)
	// Delivery returns a delivery (strongly consistent), or KindNotFound.
	Delivery(ctx context.Context, id string) (Delivery, error)
	// ClaimDelivery claims attempt n of series series of a delivery for token until until, and
	// returns the delivery: only when it is pending at that series with n-1 attempts made and not
	// claimed by another token whose claim lasts beyond now. Otherwise ok is false and the
	// delivery is the one stored (KindNotFound when there is none).
	ClaimDelivery(ctx context.Context, id string, series, n int, token string, now, until time.Time) (d Delivery, ok bool, err error)
	// RecordAttempt records a, the attempt token claimed: it keeps a in the delivery's attempts of
	// the series, sets its status, attempt count (a.N), first attempt and next attempt time, and
	// ends the claim, conditioned on the delivery still being pending at series a.Series with
	// a.N-1 attempts and claimed by token. A lost condition is KindConflict.
	RecordAttempt(ctx context.Context, d Delivery, a Attempt, status, token string) error
	// SetDeliveryStatus moves a delivery from one of the from statuses to status (KindConflict when
	// it is in none of them). With restart it also starts a new series (Series+1, no attempts).
	SetDeliveryStatus(ctx context.Context, id string, from []string, status string, restart bool) (Delivery, error)
	// LogAttempts keeps attempts in the attempt log, each as an item of its own (so that no number
	// of attempts or replays makes an item outgrow DynamoDB's limit), for Retention.
	LogAttempts(ctx context.Context, entries []LoggedAttempt) error
	// AttemptLog returns the logged attempts of a delivery, every series, oldest first.
	AttemptLog(ctx context.Context, d Delivery) ([]Attempt, error)
	// ListDeliveries returns one page of a webhook's deliveries matching q, newest first, and the
	// cursor of the next page ("" on the last).
	ListDeliveries(ctx context.Context, webhookID string, q DeliveryQuery) ([]Delivery, string, error)
	// ParkDelivery takes a pending delivery whose attempt n of series series waits for a slow
	// webhook out of the queue's way: its due time becomes now, so that the sweep queues the attempt
	// again once it is overdue, and token's claim on it ends. A delivery that moved on meanwhile, or
	// that another token claims, is left alone.
	ParkDelivery(ctx context.Context, id string, series, n int, token string, now time.Time) error
	// OverdueDeliveries returns up to limit pending deliveries whose next attempt was due before
	// before (their ids, team, webhook, event, series, attempt count and due time).
	OverdueDeliveries(ctx context.Context, before time.Time, limit int) ([]Delivery, error)
	// MarkSwept moves a pending delivery's due time to now, unless it changed since d was read
	// (false then), so that the sweep does not queue it again at once.
	MarkSwept(ctx context.Context, d Delivery, now time.Time) (bool, error)
	// Deliveries lists a webhook's deliveries, newest first, optionally of one status.
	Deliveries(ctx context.Context, webhookID, status string) ([]Delivery, error)
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

// Sender POSTs one attempt.
type Sender interface {
	// Send POSTs body with headers to url and reports the outcome; it never follows redirects.
	Send(ctx context.Context, url string, headers map[string]string, body []byte) Result
}

// Targets checks a target URL before a webhook is stored (public addresses only, outside the local
// stack). Errors are KindInvalid.
type Targets interface {
	CheckTarget(ctx context.Context, url string) error
}

// Mailer sends the alert email.
type Mailer interface {
	SendAlert(ctx context.Context, to, subject, text string) error
}

// Teams finds a team's contact email.
type Teams interface {
	Team(ctx context.Context, id string) (patio.Team, error)
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
}

// MaxResponseBody is how much of a receiver's answer an attempt keeps (CONTRACT.md section 14).
const MaxResponseBody = 4 << 10

// OK reports a successful attempt.
func (r Result) OK() bool { return r.ErrorClass == "" }

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
