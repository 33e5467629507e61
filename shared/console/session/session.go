// Package session is the console's signed-in state: the cookies it keeps in the browser (a
// session's id, a sign-in waiting for its new password, the language chosen while signed out),
// each HttpOnly, Secure and SameSite=Lax for the console's path; a session's start once a person
// proved who they are, and its loading on every request (only the hash of its id is stored, and a
// session whose member left their team moves to another team of theirs, or ends); the language a
// request is answered in; and the cross-site check of every form post. The handlers that sign in,
// out and switch team or language are package console's.
package session

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// Cookie names: the session, a sign-in waiting for its new password, and the language chosen while
// signed out.
const (
	Cookie       = "patio_session"
	SignInCookie = "patio_signin"
	LangCookie   = "patio_lang"
)

// Store is what sessions are kept in, with the memberships they are loaded with.
type Store interface {
	CreateSession(ctx context.Context, s patio.Session) error
	// Session returns a session by the hash of its id (KindNotFound when there is none).
	Session(ctx context.Context, hash string) (patio.Session, error)
	// SaveSession writes a session's team, language, teams and last use (KindNotFound when it
	// ended meanwhile).
	SaveSession(ctx context.Context, s patio.Session) error
	DeleteSession(ctx context.Context, hash string) error

	// MemberAndTeam reads the session's membership and team, in one round trip.
	MemberAndTeam(ctx context.Context, teamID, email string) (patio.Member, patio.Team, error)
	// SessionWith reads a session by the hash of its id and, in the same round trip, a membership
	// and its team (the ones its cookie names): the member's Email and the team's ID are empty
	// when there is no such member or team; KindNotFound when there is no session.
	SessionWith(ctx context.Context, hash, teamID, email string) (patio.Session, patio.Member, patio.Team, error)
	Memberships(ctx context.Context, email string) ([]patio.Member, error)
	ActivateMember(ctx context.Context, teamID, email string, now time.Time) error
}

// State is a request's session, with its member and team; Session is nil for a signed-out request.
type State struct {
	Session *patio.Session
	Member  patio.Member
	Team    patio.Team
	// ID is the session's id, as its cookie holds it (see Value).
	ID string
	// Ended says the request's cookie names a session that is over (expired, ended, or its person
	// in no team any more): the answer clears the cookie.
	Ended bool
}

// Value is the session cookie's value: the session's id and, after a dot, the team and email the
// session is in (base64url), so that a request reads the session, its member and its team in one
// round trip. Only the id is a secret, and only the stored session is trusted: a cookie whose team
// or email the session does not hold costs a second read, nothing else.
func Value(id, teamID, email string) string {
	return id + "." + base64.RawURLEncoding.EncodeToString([]byte(teamID+"\n"+email))
}

// parseValue splits a session cookie's value into the session's id and the team and email it
// names (ok false when it names none: a cookie of an id alone, or a hint that does not decode).
func parseValue(v string) (id, teamID, email string, ok bool) {
	id, hint, _ := strings.Cut(v, ".")
	raw, err := base64.RawURLEncoding.DecodeString(hint)
	if err != nil {
		return id, "", "", false
	}
	teamID, email, ok = strings.Cut(string(raw), "\n")
	return id, teamID, email, ok && teamID != "" && email != ""
}

// Hint returns the team a request's session cookie names ("" when it names none), so that a
// page's own read can start beside the session's (see Value). It proves nothing: whatever is read
// for it is used only once Load has confirmed the session, for that same team.
func Hint(r *http.Request) string {
	ck, err := r.Cookie(Cookie)
	if err != nil {
		return ""
	}
	_, teamID, _, ok := parseValue(ck.Value)
	if !ok {
		return ""
	}
	return teamID
}

// Load finds the session the request's cookie names, its member and team: a signed-out request's
// State has no Session. A session whose member was removed from its team moves to another team of
// theirs, or ends. A cookie that names the session's team and member (Value) has them read with
// the session, in one round trip; otherwise they are read after it.
func Load(ctx context.Context, st Store, r *http.Request, now time.Time) (State, error) {
	ck, err := r.Cookie(Cookie)
	if err != nil || ck.Value == "" {
		return State{}, nil
	}
	id, teamID, email, hinted := parseValue(ck.Value)
	var s patio.Session
	var m patio.Member
	var team patio.Team
	if hinted {
		s, m, team, err = st.SessionWith(ctx, patio.HashKey(id), teamID, email)
		hinted = err == nil && s.TeamID == teamID && s.Email == email && m.Email != "" && team.ID != ""
	} else {
		s, err = st.Session(ctx, patio.HashKey(id))
	}
	if patio.IsKind(err, patio.KindNotFound) || (err == nil && !s.Live(now)) {
		return State{Ended: true}, nil
	}
	if err != nil {
		return State{}, err
	}
	if !hinted {
		m, team, err = st.MemberAndTeam(ctx, s.TeamID, s.Email)
	}
	if patio.IsKind(err, patio.KindNotFound) {
		// Removed from this team: another team of theirs, or no session at all.
		var ms []patio.Member
		if ms, err = st.Memberships(ctx, s.Email); err != nil {
			return State{}, err
		}
		if len(ms) == 0 {
			_ = st.DeleteSession(ctx, s.Hash)
			return State{Ended: true}, nil
		}
		s.TeamID, s.Teams = ms[0].TeamID, Teams(ms)
		if m, team, err = st.MemberAndTeam(ctx, s.TeamID, s.Email); err != nil {
			return State{}, err
		}
		s.SeenAt = time.Time{} // saved below
	}
	if err != nil {
		return State{}, err
	}
	if s.NeedsTouch(now) {
		s.SeenAt = now
		if err := st.SaveSession(ctx, s); err != nil && !patio.IsKind(err, patio.KindNotFound) {
			return State{}, err
		}
	}
	return State{Session: &s, Member: m, Team: team, ID: id}, nil
}

// Start begins a session for a person who proved who they are, in the first of their teams, in
// lang (the language chosen while signed out; "" for none), and returns its cookie's value (see
// Value: its id, which only the browser keeps, with its team and email). A person with no team
// left cannot sign in (KindForbidden).
func Start(ctx context.Context, st Store, email, lang string, now time.Time) (string, error) {
	ms, err := st.Memberships(ctx, email)
	if err != nil {
		return "", err
	}
	if len(ms) == 0 {
		return "", patio.Errorf(patio.KindForbidden, "your account belongs to no team; ask a team's owner to invite you")
	}
	id, hash, err := patio.NewSessionID()
	if err != nil {
		return "", err
	}
	s := patio.Session{Hash: hash, Email: email, TeamID: ms[0].TeamID, Teams: Teams(ms), Lang: lang,
		CreatedAt: now, SeenAt: now}
	if err := st.CreateSession(ctx, s); err != nil {
		return "", err
	}
	for _, m := range ms {
		if err := st.ActivateMember(ctx, m.TeamID, email, now); err != nil {
			return "", err
		}
	}
	return Value(id, s.TeamID, email), nil
}

// Teams lists memberships as a session's teams.
func Teams(ms []patio.Member) []patio.SessionTeam {
	out := make([]patio.SessionTeam, len(ms))
	for i, m := range ms {
		out[i] = patio.SessionTeam{ID: m.TeamID, Name: m.TeamName}
	}
	return out
}

// Language picks a request's language: the session's choice (s nil when signed out), the cookie
// of a signed-out choice, the browser's Accept-Language, Portuguese.
func Language(r *http.Request, s *patio.Session) string {
	if s != nil && s.Lang != "" {
		return s.Lang
	}
	if ck, err := r.Cookie(LangCookie); err == nil && locale.Supported(ck.Value) != "" {
		return locale.Supported(ck.Value)
	}
	return locale.Negotiate(r.Header.Get("Accept-Language"))
}

// SignedOutLanguage is the language a signed-out person chose (the language cookie), "" when none.
func SignedOutLanguage(r *http.Request) string {
	if ck, err := r.Cookie(LangCookie); err == nil {
		return locale.Supported(ck.Value)
	}
	return ""
}
