package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"   // attempts under way or scheduled
	DeliverySucceeded = "succeeded" // an attempt got a 2xx
	DeliveryFailed    = "failed"    // the six attempts of its series failed
	DeliveryCancelled = "cancelled" // stopped because the webhook was disabled
	DeliverySkipped   = "skipped"   // the event came while the webhook was disabled
)

// DeliveryStatuses lists the delivery statuses.
var DeliveryStatuses = []string{DeliveryPending, DeliverySucceeded, DeliveryFailed, DeliveryCancelled, DeliverySkipped}

// MaxAttempts is the number of attempts of one series; when all fail, the delivery has failed.
const MaxAttempts = 6

// Retention is how long a delivery record is kept after its last change, and an attempt in the
// attempt log after it was made.
const Retention = 30 * 24 * time.Hour

// DefaultTimeout is how long a receiver has to answer.
const DefaultTimeout = 5 * time.Second

// DefaultSweepAfter is how long past its due time a pending delivery's attempt may stay unmade
// before the sweep queues it again: past any hop's lateness, and with a sweep every minute well
// within the five minutes a recovered attempt may take.
const DefaultSweepAfter = 3 * time.Minute

// Schedule holds the delay before each attempt of a series: Schedule[0] before the first (after the
// event), Schedule[n] after the n-th attempt failed.
type Schedule [MaxAttempts]time.Duration

// DefaultSchedule is the retry schedule: immediate, 5 min, 30 min, 2 h, 12 h, 24 h.
var DefaultSchedule = Schedule{0, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour, 24 * time.Hour}

// ParseSchedule reads six comma-separated Go durations (WEBHOOK_RETRY_SCHEDULE); "" is the default.
func ParseSchedule(s string) (Schedule, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultSchedule, nil
	}
	parts := strings.Split(s, ",")
	var out Schedule
	if len(parts) != MaxAttempts {
		return out, fmt.Errorf("webhook: retry schedule %q: want %d comma-separated durations", s, MaxAttempts)
	}
	for i, p := range parts {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d < 0 {
			return out, fmt.Errorf("webhook: retry schedule %q: %q is not a non-negative duration", s, p)
		}
		out[i] = d
	}
	return out, nil
}

// Before returns the delay before attempt n (1-based).
func (s Schedule) Before(n int) time.Duration { return s[max(0, min(n-1, MaxAttempts-1))] }

// Attempt is one recorded attempt of a delivery.
type Attempt struct {
	Series int       `json:"series"`
	N      int       `json:"attempt"`
	At     time.Time `json:"at"`
	// StatusCode is the receiver's HTTP status, 0 when none came.
	StatusCode int   `json:"status_code"`
	DurationMs int64 `json:"duration_ms"`
	// ErrorClass is "" on success, else one of the Err* classes.
	ErrorClass    string     `json:"error_class,omitempty"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
	// ResponseBody is the start of the receiver's answer (at most MaxResponseBody bytes). A
	// delivery's list of attempts carries it only when read alone (Webhooks.Delivery), not in lists.
	ResponseBody string `json:"response_body,omitempty"`
	// Headers are the request's headers as sent (Headers' map: timestamps, ids and signatures;
	// never a secret), carried as ResponseBody is; nil for an attempt that sent nothing.
	Headers map[string]string `json:"headers,omitempty"`
	// HeldBy says why the attempt went out a second or more after its due time, when its own
	// webhook held it back (one of the Held* reasons; "" when it did not); HeldMs is how late it
	// went out.
	HeldBy string `json:"held_by,omitempty"`
	HeldMs int64  `json:"held_ms,omitempty"`
}

// Why an attempt waited for its webhook (Attempt.HeldBy, Delivery.HeldBy).
const (
	// HeldRetryAfter: the receiver answered 429 or 503 with Retry-After, which holds every
	// delivery of the webhook until then.
	HeldRetryAfter = "retry_after"
	// HeldBound: the webhook had as many requests in flight as its adaptive bound allows.
	HeldBound = "bound"
	// HeldMaxRate: the webhook's max_rate allowed no more requests to start yet.
	HeldMaxRate = "max_rate"
)

// Error classes of a failed attempt.
const (
	ErrHTTPStatus = "http_status" // a non-2xx, non-3xx answer
	ErrRedirect   = "redirect"    // a 3xx (never followed)
	ErrTimeout    = "timeout"     // no answer within the timeout
	ErrNetwork    = "network"     // DNS or connection failure
	ErrTLS        = "tls"         // the TLS handshake failed: an untrusted, expired or mismatched certificate, a server without TLS
	ErrForbidden  = "forbidden_target"
)

// Delivery is one event addressed to one webhook, with its attempts.
type Delivery struct {
	ID        string `json:"id"`
	WebhookID string `json:"webhook_id"`
	TeamID    string `json:"team_id"`
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	Status    string `json:"status"`
	// Series counts replays: 0 for the first series of attempts.
	Series int `json:"series"`
	// Attempt is the number of attempts made in the current series.
	Attempt int `json:"attempt"`
	// FirstAttemptAt is when the current series' first attempt was made (zero before it).
	FirstAttemptAt time.Time  `json:"first_attempt_at,omitzero"`
	NextAttemptAt  *time.Time `json:"next_attempt_at,omitempty"`
	// Test marks a test event's delivery (admin webhooks test): one attempt, no retry, and it
	// counts for neither the warning nor the deactivation rule.
	Test bool `json:"test,omitempty"`
	// Attempts are the attempts of the current series (at most MaxAttempts).
	Attempts []Attempt `json:"attempts"`
	// HeldBy and HeldUntil say, while the next attempt waits for its webhook longer than the
	// queue keeps it (one of the Held* reasons), why and until when ("" and nil otherwise).
	HeldBy    string     `json:"held_by,omitempty"`
	HeldUntil *time.Time `json:"held_until,omitempty"`
	// Payload is the exact body every attempt sends.
	Payload []byte `json:"-"`
	// Claim and ClaimUntil are the claim a worker holds on the next attempt ("" and zero when
	// none), so that a copy of its task does not send it too.
	Claim      string    `json:"-"`
	ClaimUntil time.Time `json:"-"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// LastAttempt returns the current series' last attempt, or nil before its first.
func (d Delivery) LastAttempt() *Attempt {
	if len(d.Attempts) == 0 {
		return nil
	}
	return &d.Attempts[len(d.Attempts)-1]
}

// DueAt returns when the next attempt of a pending delivery is due: its scheduled retry, or, before
// the series' first attempt, when the series began (the delivery's creation or its replay).
func (d Delivery) DueAt() time.Time {
	if d.NextAttemptAt != nil {
		return *d.NextAttemptAt
	}
	return d.UpdatedAt
}

// DeliveryID returns the id of the delivery of event eventID to webhook webhookID: "dlv_" and 32 hex
// digits of a SHA-256 of both, so a re-processed stream record finds its deliveries again.
func DeliveryID(eventID, webhookID string) string {
	sum := sha256.Sum256([]byte(eventID + "\x00" + webhookID))
	return "dlv_" + hex.EncodeToString(sum[:16])
}

// BulkReplayable are the statuses a bulk replay may name: the deliveries that did not arrive. A
// delivered one is sent again only by its id (Webhooks.Replay), never by the thousand.
var BulkReplayable = []string{DeliveryFailed, DeliveryCancelled, DeliverySkipped}

// Replayable reports whether the delivery may be replayed: it is finished (succeeded, failed,
// cancelled or skipped), not pending.
func (d Delivery) Replayable() bool {
	switch d.Status {
	case DeliverySucceeded, DeliveryFailed, DeliveryCancelled, DeliverySkipped:
		return true
	}
	return false
}

// ParseDeliveryStatus validates a status filter ("" for all).
func ParseDeliveryStatus(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	for _, st := range DeliveryStatuses {
		if s == st {
			return s, nil
		}
	}
	return "", patio.Invalidf("status must be one of %s", strings.Join(DeliveryStatuses, ", "))
}

// Task is one queued attempt: deliver attempt Attempt of series Series of a delivery at Due.
type Task struct {
	DeliveryID string    `json:"delivery_id"`
	TeamID     string    `json:"team_id"`
	WebhookID  string    `json:"webhook_id"`
	EventID    string    `json:"event_id"`
	Series     int       `json:"series"`
	Attempt    int       `json:"attempt"`
	Due        time.Time `json:"due"`
	// NotBefore, when later than Due, is when a task that waited for its webhook (all its slots
	// taken) is to be tried again.
	NotBefore time.Time `json:"not_before,omitzero"`
	// Waits counts how often the task waited for its webhook; the wait grows with it.
	Waits int `json:"waits,omitempty"`
	// Token identifies the task's claim on its attempt across its waits, so that a task coming
	// back claims again what it claimed before ("" until the deliverer first handles it).
	Token string `json:"token,omitempty"`
	// HeldBy is why the task last waited for its webhook (one of the Held* reasons), so that its
	// attempt says so.
	HeldBy string `json:"held_by,omitempty"`
	// Copy marks a task that may duplicate another of the same attempt (queued again by the sweep,
	// or by a dispatch of a change handled before): it claims its attempt before sending it.
	Copy bool `json:"copy,omitempty"`
}

// When returns when the task is to be handled: the later of Due and NotBefore.
func (t Task) When() time.Time {
	if t.NotBefore.After(t.Due) {
		return t.NotBefore
	}
	return t.Due
}
