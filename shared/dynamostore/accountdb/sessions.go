package accountdb

import (
	"context"
	"crypto/rand"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/dynamostore/storecore"
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
func (s *Sessions) CreateSession(ctx context.Context, sess patio.Session) error {
	return storecore.Wrap(s.db.PutNew(ctx, s.accounts(), toSessionRow(sess)), "create session", "")
}

// Session returns the session with this hash (strongly consistent, so signing out applies at
// once), or KindNotFound. Expired sessions are returned too: the caller judges (patio.Session.Live),
// since the table's TTL removes them only eventually.
func (s *Sessions) Session(ctx context.Context, hash string) (patio.Session, error) {
	var row sessionRow
	err := s.accounts().Get("pk", sessionPK(hash)).Range("sk", dynamo.Equal, "session").Consistent(true).One(ctx, &row)
	if err != nil {
		return patio.Session{}, storecore.Wrap(storecore.NotFound(err, "session"), "get session", "")
	}
	return row.session(), nil
}

// SaveSession writes a session's changing parts (team, language, last seen and so its expiry) if
// it still exists: a session ended meanwhile stays ended (KindNotFound).
func (s *Sessions) SaveSession(ctx context.Context, sess patio.Session) error {
	row := toSessionRow(sess)
	err := s.accounts().Update("pk", row.PK).Range("sk", "session").Set("team", row.Team).Set("lang", row.Lang).Set("teams", row.Teams).
		Set("seen_ms", row.SeenAt).Set("expires_at", row.ExpiresAt).If("attribute_exists(pk)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return patio.NotFoundf("session not found")
	}
	return storecore.Wrap(err, "save session", "")
}

// DeleteSession ends a session at once; an unknown one is no error.
func (s *Sessions) DeleteSession(ctx context.Context, hash string) error {
	return storecore.Wrap(s.accounts().Delete("pk", sessionPK(hash)).Range("sk", "session").Run(ctx), "delete session", "")
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
func (s *Sessions) PutSignIn(ctx context.Context, hash string, p patio.PendingSignIn) error {
	row := signInRow{PK: "signin#" + hash, SK: "signin", Email: p.Email, Challenge: p.Challenge, Next: p.Next,
		ExpiresAt: p.ExpiresAt.Unix()}
	return storecore.Wrap(s.accounts().Put(row).Run(ctx), "put pending sign-in", "")
}

// SignIn returns the pending sign-in stored under hash, or KindNotFound (also once expired).
func (s *Sessions) SignIn(ctx context.Context, hash string, now time.Time) (patio.PendingSignIn, error) {
	var row signInRow
	err := s.accounts().Get("pk", "signin#"+hash).Range("sk", dynamo.Equal, "signin").Consistent(true).One(ctx, &row)
	if err == nil && row.ExpiresAt <= now.Unix() {
		err = dynamo.ErrNotFound
	}
	if err != nil {
		return patio.PendingSignIn{}, storecore.Wrap(storecore.NotFound(err, "sign-in"), "get pending sign-in", "")
	}
	return patio.PendingSignIn{Email: row.Email, Challenge: row.Challenge, Next: row.Next,
		ExpiresAt: time.Unix(row.ExpiresAt, 0).UTC()}, nil
}

// DeleteSignIn removes a pending sign-in.
func (s *Sessions) DeleteSignIn(ctx context.Context, hash string) error {
	return storecore.Wrap(s.accounts().Delete("pk", "signin#"+hash).Range("sk", "signin").Run(ctx), "delete pending sign-in", "")
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
func (s *Sessions) ClaimForm(ctx context.Context, hash string, now, expires time.Time) (bool, string, error) {
	pk := "form#" + hash
	claim := rand.Text()
	err := s.accounts().Put(formRow{PK: pk, SK: "form", ExpiresAt: expires.Unix(), Claim: claim}).
		If("attribute_not_exists(pk) OR 'expires_at' <= ?", now.Unix()).Run(ctx)
	if err == nil {
		return true, "", nil
	}
	if !dynamo.IsCondCheckFailed(err) {
		return false, "", storecore.Wrap(err, "claim form", "")
	}
	var row formRow
	err = s.accounts().Get("pk", pk).Range("sk", dynamo.Equal, "form").Consistent(true).One(ctx, &row)
	if err == nil && row.Claim == claim && row.Result == "" {
		return true, "", nil // this post's own claim, whose answer was lost
	}
	return false, row.Result, storecore.Wrap(err, "read claimed form", "")
}

// SetFormResult records what a claimed form created (a path of the console).
func (s *Sessions) SetFormResult(ctx context.Context, hash, result string) error {
	return storecore.Wrap(s.accounts().Update("pk", "form#"+hash).Range("sk", "form").Set("result", result).Run(ctx), "record form", "")
}

// ReleaseForm gives a claimed token back, when its post created nothing (a refused form may be
// corrected and posted again).
func (s *Sessions) ReleaseForm(ctx context.Context, hash string) error {
	return storecore.Wrap(s.accounts().Delete("pk", "form#"+hash).Range("sk", "form").Run(ctx), "release form", "")
}

// MemberAndTeam reads a membership and its team in one strongly consistent BatchGetItem: the
// console's check of every request (a removed member or a changed role applies at once).
// KindNotFound when either is missing.
func (s *Sessions) MemberAndTeam(ctx context.Context, teamID, email string) (patio.Member, patio.Team, error) {
	var items []dynamo.Item
	err := s.accounts().Batch("pk", "sk").Get(dynamo.Keys{teamPK(teamID), memberKey(email)}, dynamo.Keys{teamPK(teamID), "team"}).
		Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return patio.Member{}, patio.Team{}, storecore.Wrap(err, "get member and team", teamID)
	}
	_, m, t, err := decodeSessionWith(items, teamID)
	if err == nil && (m.Email == "" || t.ID == "") {
		err = patio.NotFoundf("member not found")
	}
	return m, t, err
}

// SessionWith reads a session by its hash and, in the same round trip, a membership and its team
// (strongly consistent): the member's Email and the team's ID are empty when either is missing;
// KindNotFound when the session is.
func (s *Sessions) SessionWith(ctx context.Context, hash, teamID, email string) (patio.Session, patio.Member, patio.Team, error) {
	var items []dynamo.Item
	err := s.accounts().Batch("pk", "sk").Get(dynamo.Keys{sessionPK(hash), "session"},
		dynamo.Keys{teamPK(teamID), memberKey(email)}, dynamo.Keys{teamPK(teamID), "team"}).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return patio.Session{}, patio.Member{}, patio.Team{}, storecore.Wrap(err, "get session, member and team", teamID)
	}
	sess, m, t, err := decodeSessionWith(items, teamID)
	if err == nil && sess.Hash == "" {
		err = storecore.Wrap(patio.NotFoundf("session not found"), "get session", "")
	}
	return sess, m, t, err
}

// decodeSessionWith decodes the items of a session, a member and a team read together (any may be
// missing: zero).
func decodeSessionWith(items []dynamo.Item, teamID string) (sess patio.Session, m patio.Member, t patio.Team, err error) {
	for _, item := range items {
		sk, _ := item["sk"].(*types.AttributeValueMemberS)
		switch {
		case sk == nil:
			continue
		case sk.Value == "session":
			var row sessionRow
			if err := dynamo.UnmarshalItem(item, &row); err != nil {
				return sess, m, t, storecore.Wrap(err, "decode session", "")
			}
			sess = row.session()
		case sk.Value == "team":
			var row teamRow
			if err := dynamo.UnmarshalItem(item, &row); err != nil {
				return sess, m, t, storecore.Wrap(err, "decode team", teamID)
			}
			if t, err = row.team(); err != nil {
				return sess, m, t, storecore.Wrap(err, "decode team", teamID)
			}
		default:
			var row memberRow
			if err := dynamo.UnmarshalItem(item, &row); err != nil {
				return sess, m, t, storecore.Wrap(err, "decode member", teamID)
			}
			if m, err = row.member(); err != nil {
				return sess, m, t, storecore.Wrap(err, "decode member", teamID)
			}
		}
	}
	return sess, m, t, nil
}
