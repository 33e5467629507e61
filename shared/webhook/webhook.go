// Package webhook is the domain of outbound webhooks (SPEC.md section 6, CONTRACT.md section 9):
// webhook configurations, the events derived from changes to vehicles, clients and deals, their
// payloads and signatures, the retry schedule, delivery records and the rules that dispatch and
// deliver them.
//
// Like shared/patio it imports only the standard library and the pure domain packages: the store,
// the queue, the HTTP sender and the mailer are interfaces declared here and implemented by the
// adapters (shared/dynamostore, shared/sqsqueue, shared/webhookhttp, shared/sesmail).
package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// Webhook statuses (CONTRACT.md section 9).
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
	// Secret signs X-Service-Signature (and, during a rotation's grace period, is the old secret).
	Secret string `json:"-"`
	// NextSecret is the secret of a rotation in its grace period, "" otherwise. From RotatesAt on it
	// is the only secret.
	NextSecret string           `json:"-"`
	RotatesAt  *patio.Timestamp `json:"secret_rotates_at,omitempty"`
	// EnabledAt starts the "6 consecutive failed attempts" count: creation or the last enable.
	EnabledAt time.Time `json:"-"`
	// LastSuccessAt is when a delivery to this webhook last succeeded (zero: never).
	LastSuccessAt time.Time `json:"-"`
	// AlertPending is set when the webhook was disabled for failures until the alert email is sent.
	AlertPending bool            `json:"-"`
	CreatedAt    patio.Timestamp `json:"created_at"`
	UpdatedAt    patio.Timestamp `json:"updated_at"`
	// Revision counts the writes of the webhook (1 when created); the store sets it.
	Revision int
}

// Keys are the secrets that sign one attempt: Primary always, Next during a rotation's grace period.
type Keys struct {
	Primary, Next string
}

// KeysAt returns the secrets that sign an attempt made at t.
func (w Webhook) KeysAt(t time.Time) Keys {
	if w.NextSecret == "" {
		return Keys{Primary: w.Secret}
	}
	if w.RotatesAt != nil && !t.Before(w.RotatesAt.Time()) {
		return Keys{Primary: w.NextSecret}
	}
	return Keys{Primary: w.Secret, Next: w.NextSecret}
}

// Subscribed reports whether the webhook wants events of type typ.
func (w Webhook) Subscribed(typ string) bool {
	return slices.Contains(w.Events, AllEvents) || slices.Contains(w.Events, typ)
}

// Receives reports whether the webhook is to receive event e (delivered, or recorded as skipped
// while disabled): it is subscribed to e's type, and e's change was made at or after the
// webhook's creation (CONTRACT.md section 14).
func (w Webhook) Receives(e Event) bool {
	return w.Subscribed(e.Type) && !e.CreatedAt.Time().Before(w.CreatedAt.Time())
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

// Rotate returns the webhook with a fresh secret, which it returns too (shown once). For grace the
// current secret keeps signing X-Service-Signature and the new one signs X-Service-Signature-Next;
// afterwards only the new one signs. A rotation during another's grace period first completes that
// one (its new secret becomes the current secret). grace <= 0 switches at once.
func (w Webhook) Rotate(now time.Time, grace time.Duration) (Webhook, string, error) {
	secret, err := NewSecret()
	if err != nil {
		return w, "", err
	}
	if w.NextSecret != "" {
		w.Secret = w.NextSecret
	}
	w.NextSecret, w.RotatesAt = "", nil
	if grace <= 0 {
		w.Secret = secret
	} else {
		w.NextSecret = secret
		at := patio.NewTimestamp(now.Add(grace))
		w.RotatesAt = &at
	}
	w.UpdatedAt = patio.NewTimestamp(now)
	return w, secret, nil
}

// Settle returns the webhook with a finished rotation applied (the next secret promoted once its
// grace period is over), for storage; the signatures are the same either way.
func (w Webhook) Settle(now time.Time) Webhook {
	if w.NextSecret != "" && w.RotatesAt != nil && !now.Before(w.RotatesAt.Time()) {
		w.Secret, w.NextSecret, w.RotatesAt = w.NextSecret, "", nil
	}
	return w
}
