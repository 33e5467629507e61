// Package webhook is the domain of outbound webhooks (docs/webhooks.md):
// webhook configurations, the events derived from changes to vehicles, clients and deals, their
// payloads and signatures, the retry schedule, delivery records, and the operators' use cases
// (Webhooks). The runtime that dispatches and delivers is package shared/delivery.
//
// Like shared/patio it imports only the standard library and the pure domain packages: the store
// and the queue the use cases need are interfaces declared here and implemented by the adapters
// (shared/dynamostore, shared/sqsqueue).
package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Webhook statuses.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
	// StatusDeleted is final: the webhook receives nothing more and cannot be enabled again.
	StatusDeleted = "deleted"
)

// AllEvents subscribes a webhook to every event type.
const AllEvents = "*"

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// DefaultGrace is how long the previous secret keeps signing after a rotation.
const DefaultGrace = 24 * time.Hour

// maxURLLength bounds a target URL.
const maxURLLength = 2048

// Webhook is a team's subscription: where to POST which events, and how to sign them. Its JSON form
// is what the operators' tool shows; the secrets are never part of it.
type Webhook struct {
	ID     string   `json:"id"`
	TeamID string   `json:"team_id"`
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Status string   `json:"status"`
	// Description tells people what the webhook is for ("" for none); receivers never see it.
	Description string `json:"description"`
	// MaxRate caps the requests to the webhook: at most that many start in any one-second window
	// (0: none).
	MaxRate Rate `json:"max_rate"`
	// Secret is the newest signing secret.
	Secret string `json:"-"`
	// Previous are the secrets rotated out whose grace period may not have ended, oldest first: each
	// keeps signing until its own Until.
	Previous []PreviousSecret `json:"previous_secrets"`
	// EnabledAt starts the "6 consecutive failed attempts" count: creation or the last enable.
	EnabledAt time.Time `json:"-"`
	// LastSuccessAt is when a delivery to this webhook last succeeded as earlier versions noted it
	// on the webhook (zero: never); the store now notes successes beside it.
	LastSuccessAt time.Time `json:"-"`
	// AlertPending is set when the webhook was disabled for failures until the alert email is sent.
	AlertPending bool `json:"-"`
	// LastFailure is the attempt whose failure disabled the webhook (nil unless disabled for
	// failures); Cancelled counts the pending deliveries that disabling cancelled.
	LastFailure *Failure        `json:"last_failure,omitempty"`
	Cancelled   int             `json:"cancelled_on_disable,omitempty"`
	CreatedAt   patio.Timestamp `json:"created_at"`
	UpdatedAt   patio.Timestamp `json:"updated_at"`
	// Revision counts the writes of the webhook (1 when created); the store sets it.
	Revision int `json:"-"`
}

// MaxRateLimit is the highest max_rate a webhook may carry.
const MaxRateLimit = 1000

// Rate is a webhook's max_rate: at most that many requests start in any one-second window, 0 for
// no limit. Its JSON form is the number, or null for none.
type Rate int

// MarshalJSON writes the rate, null when there is none.
func (r Rate) MarshalJSON() ([]byte, error) {
	if r == 0 {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(r), 10), nil
}

// UnmarshalJSON reads a number, or null for none.
func (r *Rate) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = 0
		return nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("webhook: max_rate %s is not an integer", b)
	}
	*r = Rate(n)
	return nil
}

// Check returns the rate when it is none or within 1..MaxRateLimit, else KindInvalid.
func (r Rate) Check() (Rate, error) {
	if r < 0 || r > MaxRateLimit {
		return 0, patio.Invalidf("max_rate must be between 1 and %d requests per second, or none", MaxRateLimit)
	}
	return r, nil
}

// ParseRate reads a max_rate as the operators give it: "none" (or "") for no limit, else a whole
// number of requests per second from 1 to MaxRateLimit (KindInvalid otherwise).
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "none") {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return Rate(-1).Check()
	}
	return Rate(n).Check()
}

// PreviousSecret is a secret rotated out, signing until Until.
type PreviousSecret struct {
	Secret string          `json:"-"`
	Until  patio.Timestamp `json:"signs_until"`
}

// Failure is a failed attempt, as the disable email tells it.
type Failure struct {
	StatusCode int       `json:"status_code,omitempty"`
	ErrorClass string    `json:"error_class"`
	At         time.Time `json:"at"`
}

// MaxSigningSecrets is how many secrets may sign one attempt: the newest and two in their grace
// period. A rotation that would make one more ends the oldest one's grace at once.
const MaxSigningSecrets = 3

// Keys are the secrets that sign one attempt, oldest first: X-Service-Signature uses the first,
// X-Service-Signature-Next the last (when there are several), webhook-signature every one.
type Keys []string

// KeysAt returns the secrets that sign an attempt made at t: the previous secrets whose grace period
// has not ended, then the newest.
func (w Webhook) KeysAt(t time.Time) Keys {
	var keys Keys
	for _, p := range w.Previous {
		if t.Before(p.Until.Time()) {
			keys = append(keys, p.Secret)
		}
	}
	return append(keys, w.Secret)
}

// Subscribed reports whether the webhook wants events of type typ.
func (w Webhook) Subscribed(typ string) bool {
	return slices.Contains(w.Events, AllEvents) || slices.Contains(w.Events, typ)
}

// Receives reports whether the webhook is to receive event e (delivered, or recorded as skipped
// while disabled): it is subscribed to e's type, and e's change was made at or after the
// webhook's creation, both to the millisecond where they are known (Created), so that a change
// made earlier in the second of the creation is not received.
func (w Webhook) Receives(e Event) bool {
	return w.Subscribed(e.Type) && !e.Recorded.Before(w.Created())
}

// Created returns when the webhook was created: to the millisecond, from its id (a UUIDv7 made
// at its creation), when that falls in the second of its created_at; else created_at.
func (w Webhook) Created() time.Time {
	if t, ok := patio.IDTime(w.ID); ok && patio.NewTimestamp(t) == w.CreatedAt {
		return t
	}
	return w.CreatedAt.Time()
}

// New builds an active webhook for a team with a fresh secret, which it returns too (shown once).
// The URL must be an absolute https URL (KindInvalid); events must be known types or "*"
// (KindInvalid). Whether the target's addresses are public is the sender's check (see Targets).
func New(teamID, rawURL string, events []string, now time.Time) (Webhook, error) {
	u, err := ValidateURL(rawURL)
	if err != nil {
		return Webhook{}, err
	}
	evs, err := ParseEvents(events)
	if err != nil {
		return Webhook{}, err
	}
	secret, err := NewSecret()
	if err != nil {
		return Webhook{}, err
	}
	id, _ := patio.NewID()
	ts := patio.NewTimestamp(now)
	return Webhook{
		ID: id, TeamID: teamID, URL: u, Events: evs, Status: StatusActive, Secret: secret,
		EnabledAt: now.UTC(), CreatedAt: ts, UpdatedAt: ts,
	}, nil
}

// NewSecret returns "whsec_" followed by the standard base64 of 32 random bytes.
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", patio.Internal(err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
}

// ValidateURL checks a target URL: absolute, https, with a host, without user information or
// fragment, at most 2048 characters. It returns the URL as given, or a KindInvalid error.
func ValidateURL(raw string) (string, error) {
	if len(raw) > maxURLLength {
		return "", patio.Invalidf("url must be at most %d characters", maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Hostname() == "" {
		return "", patio.Invalidf("url must be an absolute https URL")
	}
	if u.Scheme != "https" {
		return "", patio.Invalidf("url must use https")
	}
	if u.User != nil || u.Fragment != "" {
		return "", patio.Invalidf("url must not carry user information or a fragment")
	}
	return raw, nil
}

// ParseEvents validates an events selection: "*" alone, or known event types (duplicates removed,
// order kept). Empty is KindInvalid.
func ParseEvents(events []string) ([]string, error) {
	var out []string
	for _, e := range events {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if e != AllEvents && !slices.Contains(EventTypes, e) {
			return nil, patio.Invalidf("unknown event type %q; known types: %s, or *", e, strings.Join(EventTypes, ", "))
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, patio.Invalidf("events must name at least one event type, or *")
	}
	if slices.Contains(out, AllEvents) && len(out) > 1 {
		return nil, patio.Invalidf("events: * already covers every type")
	}
	return out, nil
}

// Rotate returns the webhook with a fresh secret, which it returns too (shown once). The secret it
// replaces keeps signing for grace (none when grace <= 0), and so does every earlier one until its
// own grace period ends; when that would make more than MaxSigningSecrets sign, the oldest ones'
// grace ends at once.
func (w Webhook) Rotate(now time.Time, grace time.Duration) (Webhook, string, error) {
	secret, err := NewSecret()
	if err != nil {
		return w, "", err
	}
	w = w.Settle(now)
	prev := slices.Clone(w.Previous)
	if grace > 0 {
		prev = append(prev, PreviousSecret{Secret: w.Secret, Until: patio.NewTimestamp(now.Add(grace))})
	}
	if extra := len(prev) - (MaxSigningSecrets - 1); extra > 0 {
		prev = prev[extra:]
	}
	w.Secret, w.Previous = secret, prev
	w.UpdatedAt = patio.NewTimestamp(now)
	return w, secret, nil
}

// Settle returns the webhook without the previous secrets whose grace period has ended at now;
// the signatures are the same either way.
func (w Webhook) Settle(now time.Time) Webhook {
	var kept []PreviousSecret
	for _, p := range w.Previous {
		if now.Before(p.Until.Time()) {
			kept = append(kept, p)
		}
	}
	w.Previous = kept
	return w
}
