package dynamostore

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
)

// The console's short-lived items live in AccountsTable too, each in a partition of its own keyed
// by a hash (never the secret the browser holds), and removed by the table's TTL once expired:
// sessions (pk session#<hash>), sign-ins waiting for the new password a temporary one requires
// (pk signin#<hash>), and the one-time tokens of forms that create something (pk form#<hash>).

// sessionRow is a console session.
type sessionRow struct {
	PK        string              `dynamo:"pk,hash"`
	SK        string              `dynamo:"sk,range"`
	Email     string              `dynamo:"email"`
	Team      string              `dynamo:"team"`
	Lang      string              `dynamo:"lang,omitempty"`
	Teams     []patio.SessionTeam `dynamo:"teams"`
	CreatedAt int64               `dynamo:"created_ms"`
	SeenAt    int64               `dynamo:"seen_ms"`
	ExpiresAt int64               `dynamo:"expires_at"`
}

func sessionPK(hash string) string { return "session#" + hash }

func toSessionRow(s patio.Session) sessionRow {
	return sessionRow{PK: sessionPK(s.Hash), SK: "session", Email: s.Email, Team: s.TeamID, Lang: s.Lang, Teams: s.Teams,
		CreatedAt: s.CreatedAt.UnixMilli(), SeenAt: s.SeenAt.UnixMilli(), ExpiresAt: s.ExpiresAt().Unix()}
}

func (r sessionRow) session() patio.Session {
	return patio.Session{Hash: r.PK[len("session#"):], Email: r.Email, TeamID: r.Team, Lang: r.Lang, Teams: r.Teams,
		CreatedAt: time.UnixMilli(r.CreatedAt).UTC(), SeenAt: time.UnixMilli(r.SeenAt).UTC()}
}

// CreateSession stores a new session.
func (s *People) CreateSession(ctx context.Context, sess patio.Session) error {
	return wrap(s.putNew(ctx, s.accounts(), toSessionRow(sess)), "create session", "")
}

// Session returns the session with this hash (strongly consistent, so signing out applies at
// once), or KindNotFound. Expired sessions are returned too: the caller judges (patio.Session.Live),
// since the table's TTL removes them only eventually.
func (s *People) Session(ctx context.Context, hash string) (patio.Session, error) {
	var row sessionRow
	err := s.accounts().Get("pk", sessionPK(hash)).Range("sk", dynamo.Equal, "session").Consistent(true).One(ctx, &row)
	if err != nil {
		return patio.Session{}, wrap(notFound(err, "session"), "get session", "")
	}
	return row.session(), nil
}

// SaveSession writes a session's changing parts (team, language, last seen and so its expiry) if
// it still exists: a session ended meanwhile stays ended (KindNotFound).
func (s *People) SaveSession(ctx context.Context, sess patio.Session) error {
	row := toSessionRow(sess)
	err := s.accounts().Update("pk", row.PK).Range("sk", "session").Set("team", row.Team).Set("lang", row.Lang).Set("teams", row.Teams).
		Set("seen_ms", row.SeenAt).Set("expires_at", row.ExpiresAt).If("attribute_exists(pk)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return patio.NotFoundf("session not found")
	}
	return wrap(err, "save session", "")
}

// DeleteSession ends a session at once; an unknown one is no error.
func (s *People) DeleteSession(ctx context.Context, hash string) error {
	return wrap(s.accounts().Delete("pk", sessionPK(hash)).Range("sk", "session").Run(ctx), "delete session", "")
}

// signInRow is a sign-in waiting for the new password its temporary one requires.
type signInRow struct {
	PK        string `dynamo:"pk,hash"`
	SK        string `dynamo:"sk,range"`
	Email     string `dynamo:"email"`
	Challenge string `dynamo:"challenge"`
	Next      string `dynamo:"next"`
	ExpiresAt int64  `dynamo:"expires_at"`
}

// PutSignIn stores a pending sign-in under hash.
func (s *People) PutSignIn(ctx context.Context, hash string, p patio.PendingSignIn) error {
	row := signInRow{PK: "signin#" + hash, SK: "signin", Email: p.Email, Challenge: p.Challenge, Next: p.Next,
		ExpiresAt: p.ExpiresAt.Unix()}
	return wrap(s.accounts().Put(row).Run(ctx), "put pending sign-in", "")
}

// SignIn returns the pending sign-in stored under hash, or KindNotFound (also once expired).
func (s *People) SignIn(ctx context.Context, hash string, now time.Time) (patio.PendingSignIn, error) {
	var row signInRow
	err := s.accounts().Get("pk", "signin#"+hash).Range("sk", dynamo.Equal, "signin").Consistent(true).One(ctx, &row)
	if err == nil && row.ExpiresAt <= now.Unix() {
		err = dynamo.ErrNotFound
	}
	if err != nil {
		return patio.PendingSignIn{}, wrap(notFound(err, "sign-in"), "get pending sign-in", "")
	}
	return patio.PendingSignIn{Email: row.Email, Challenge: row.Challenge, Next: row.Next,
		ExpiresAt: time.Unix(row.ExpiresAt, 0).UTC()}, nil
}

// DeleteSignIn removes a pending sign-in.
func (s *People) DeleteSignIn(ctx context.Context, hash string) error {
	return wrap(s.accounts().Delete("pk", "signin#"+hash).Range("sk", "signin").Run(ctx), "delete pending sign-in", "")
}

// formRow is a one-time form token once posted: what the post created, when it did.
type formRow struct {
	PK        string `dynamo:"pk,hash"`
	SK        string `dynamo:"sk,range"`
	Result    string `dynamo:"result,omitempty"`
	ExpiresAt int64  `dynamo:"expires_at"`
	// Claim is the claiming post's own random value: a retry of its put whose answer was lost
	// finds it, and knows the claim is its own.
	Claim string `dynamo:"claim,omitempty"`
}

// ClaimForm claims a form's one-time token (by its hash) until expires: true for the first post.
// A later post gets false and what the first one created (see SetFormResult; "" while the first is
// still working, or when it created nothing it recorded).
func (s *People) ClaimForm(ctx context.Context, hash string, now, expires time.Time) (bool, string, error) {
	pk := "form#" + hash
	claim := rand.Text()
	err := s.accounts().Put(formRow{PK: pk, SK: "form", ExpiresAt: expires.Unix(), Claim: claim}).
		If("attribute_not_exists(pk) OR 'expires_at' <= ?", now.Unix()).Run(ctx)
	if err == nil {
		return true, "", nil
	}
	if !dynamo.IsCondCheckFailed(err) {
		return false, "", wrap(err, "claim form", "")
	}
	var row formRow
	err = s.accounts().Get("pk", pk).Range("sk", dynamo.Equal, "form").Consistent(true).One(ctx, &row)
	if err == nil && row.Claim == claim && row.Result == "" {
		return true, "", nil // this post's own claim, whose answer was lost
	}
	return false, row.Result, wrap(err, "read claimed form", "")
}

// SetFormResult records what a claimed form created (a path of the console).
func (s *People) SetFormResult(ctx context.Context, hash, result string) error {
	return wrap(s.accounts().Update("pk", "form#"+hash).Range("sk", "form").Set("result", result).Run(ctx), "record form", "")
}

// ReleaseForm gives a claimed token back, when its post created nothing (a refused form may be
// corrected and posted again).
func (s *People) ReleaseForm(ctx context.Context, hash string) error {
	return wrap(s.accounts().Delete("pk", "form#"+hash).Range("sk", "form").Run(ctx), "release form", "")
}
