package patio

import (
	"crypto/rand"
	"encoding/base64"
	"time"
)

// The console's session rules: a session ends after SessionIdle without a request, and SessionMax
// after it began, whichever comes first; signing out ends it at once.
const (
	SessionIdle = 2 * time.Hour
	SessionMax  = 12 * time.Hour
)

// Session is a signed-in person's console session. Only the hash of its id is stored (see
// HashKey); the id itself lives in the person's cookie.
type Session struct {
	// Hash is HashKey of the session id.
	Hash  string
	Email string
	// TeamID is the team the console currently shows (the team switcher changes it).
	TeamID string
	// Lang is the person's language choice ("" until chosen: the browser's then applies).
	Lang string
	// Teams are the person's teams when the session began (for the team switcher; the role in
	// the current team is read again on every request).
	Teams     []SessionTeam
	CreatedAt time.Time
	SeenAt    time.Time
}

// SessionTeam is a team a session may switch to.
type SessionTeam struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ExpiresAt is when the session ends unless used again: SessionIdle after it was last seen, and
// never later than SessionMax after it began.
func (s Session) ExpiresAt() time.Time {
	return minTime(s.SeenAt.Add(SessionIdle), s.CreatedAt.Add(SessionMax))
}

// Live reports whether the session is still valid at now.
func (s Session) Live(now time.Time) bool { return now.Before(s.ExpiresAt()) }

// SessionTouchEvery is how stale SeenAt may grow before a request writes it again: requests within
// a minute of one another do not each write the session.
const SessionTouchEvery = time.Minute

// NeedsTouch reports whether a request at now should record itself in SeenAt.
func (s Session) NeedsTouch(now time.Time) bool { return now.Sub(s.SeenAt) >= SessionTouchEvery }

// NewSessionID returns a fresh random session id (256 bits, URL-safe base64) and its hash, the
// only form stored.
func NewSessionID() (id, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", Internal(err)
	}
	id = base64.RawURLEncoding.EncodeToString(b[:])
	return id, HashKey(id), nil
}

// SignInWait is how long a sign-in whose password was temporary waits for the new password.
const SignInWait = 5 * time.Minute

// PendingSignIn is a sign-in whose password was temporary: who, the identity provider's challenge,
// the page to go to afterwards, and until when it waits for the new password.
type PendingSignIn struct {
	Email, Challenge, Next string
	ExpiresAt              time.Time
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
