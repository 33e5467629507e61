package session

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/patio"
)

// memStore keeps sessions and memberships in maps.
type memStore struct {
	sessions map[string]patio.Session
	members  map[string][]patio.Member // email → memberships
	// the reads of a session alone, of a member and team, and of the three at once
	sessionReads, memberReads, withReads int
}

func (m *memStore) CreateSession(_ context.Context, s patio.Session) error {
	m.sessions[s.Hash] = s
	return nil
}

func (m *memStore) Session(_ context.Context, hash string) (patio.Session, error) {
	m.sessionReads++
	s, ok := m.sessions[hash]
	if !ok {
		return s, patio.NotFoundf("session not found")
	}
	return s, nil
}

func (m *memStore) SaveSession(_ context.Context, s patio.Session) error {
	m.sessions[s.Hash] = s
	return nil
}

func (m *memStore) DeleteSession(_ context.Context, hash string) error {
	delete(m.sessions, hash)
	return nil
}

func (m *memStore) MemberAndTeam(_ context.Context, teamID, email string) (patio.Member, patio.Team, error) {
	m.memberReads++
	for _, mb := range m.members[email] {
		if mb.TeamID == teamID {
			return mb, patio.Team{ID: teamID}, nil
		}
	}
	return patio.Member{}, patio.Team{}, patio.NotFoundf("member not found")
}

func (m *memStore) SessionWith(ctx context.Context, hash, teamID, email string) (patio.Session, patio.Member, patio.Team, error) {
	m.withReads++
	s, err := m.Session(ctx, hash)
	m.sessionReads-- // one read, counted here
	if err != nil {
		return s, patio.Member{}, patio.Team{}, err
	}
	mb, team, err := m.MemberAndTeam(ctx, teamID, email)
	m.memberReads--
	if err != nil {
		return s, patio.Member{}, patio.Team{}, nil
	}
	return s, mb, team, nil
}

func (m *memStore) Memberships(_ context.Context, email string) ([]patio.Member, error) {
	return m.members[email], nil
}

func (m *memStore) ActivateMember(context.Context, string, string, time.Time) error { return nil }

// TestStartThenLoad: a session started for a person is found again by its cookie, in their first
// team; one whose person is in no team any more ends, and so does an unknown one.
func TestStartThenLoad(t *testing.T) {
	ctx, now := context.Background(), time.Now()
	st := &memStore{sessions: map[string]patio.Session{},
		members: map[string][]patio.Member{"a@dealer.example": {{TeamID: "t1", Email: "a@dealer.example", TeamName: "One"}}}}
	if _, err := Start(ctx, st, "nobody@dealer.example", "", now); !patio.IsKind(err, patio.KindForbidden) {
		t.Errorf("Start for a person in no team = %v; want KindForbidden", err)
	}
	id, err := Start(ctx, st, "a@dealer.example", "en", now)
	if err != nil {
		t.Fatal(err)
	}
	req := func(cookie string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/console/", nil)
		r.AddCookie(&http.Cookie{Name: Cookie, Value: cookie})
		return r
	}
	got, err := Load(ctx, st, req(id), now.Add(time.Minute))
	if err != nil || got.Session == nil || got.Session.TeamID != "t1" || got.Session.Lang != "en" || got.Ended {
		t.Fatalf("Load = %+v, %v; want the session in t1, in English", got, err)
	}
	if got, err := Load(ctx, st, req("unknown"), now); err != nil || got.Session != nil || !got.Ended {
		t.Errorf("Load of an unknown session = %+v, %v; want it ended", got, err)
	}
	st.members["a@dealer.example"] = nil
	if got, err := Load(ctx, st, req(id), now); err != nil || got.Session != nil || !got.Ended || len(st.sessions) != 0 {
		t.Errorf("Load of a session whose person is in no team = %+v, %v (%d kept); want it ended and deleted", got, err, len(st.sessions))
	}
	if got, err := Load(ctx, st, httptest.NewRequest(http.MethodGet, "/console/", nil), now); err != nil || got.Session != nil || got.Ended {
		t.Errorf("Load without a cookie = %+v, %v; want signed out, nothing to clear", got, err)
	}
}

// TestLoadMovesToAnotherTeam: a session whose person was removed from its team, but is still in
// another, loads in that other team and is saved there, so the next request finds it directly.
func TestLoadMovesToAnotherTeam(t *testing.T) {
	ctx, now := context.Background(), time.Now()
	email := "a@dealer.example"
	st := &memStore{sessions: map[string]patio.Session{}, members: map[string][]patio.Member{email: {
		{TeamID: "t1", Email: email, TeamName: "One"}, {TeamID: "t2", Email: email, TeamName: "Two"}}}}
	id, err := Start(ctx, st, email, "", now)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/console/", nil)
	r.AddCookie(&http.Cookie{Name: Cookie, Value: id})
	st.members[email] = st.members[email][1:] // removed from t1, the session's team
	got, err := Load(ctx, st, r, now.Add(time.Minute))
	if err != nil || got.Session == nil || got.Ended || got.Session.TeamID != "t2" || got.Team.ID != "t2" {
		t.Fatalf("Load after removal from t1 = %+v, %v; want the session in t2", got, err)
	}
	sessID, _, _ := strings.Cut(id, ".")
	if s := st.sessions[patio.HashKey(sessID)]; s.TeamID != "t2" || len(s.Teams) != 1 || s.Teams[0].ID != "t2" {
		t.Errorf("saved session = %+v; want it in t2, with t2 its only team", s)
	}
}

// TestLoadInOneRead: the cookie a sign-in sets has the session, its member and team read at once;
// a cookie of the id alone (set before it named them) loads the same session in two reads; one
// naming another person of another team loads the session's own member, never the one it names.
func TestLoadInOneRead(t *testing.T) {
	ctx, now := context.Background(), time.Now()
	st := &memStore{sessions: map[string]patio.Session{}, members: map[string][]patio.Member{
		"a@dealer.example": {{TeamID: "t1", Email: "a@dealer.example", Role: patio.RoleViewer}},
		"b@dealer.example": {{TeamID: "t2", Email: "b@dealer.example", Role: patio.RoleOwner}}}}
	value, err := Start(ctx, st, "a@dealer.example", "", now)
	if err != nil {
		t.Fatal(err)
	}
	id, _, _ := strings.Cut(value, ".")
	for _, tt := range []struct {
		name, cookie string
		reads        int
	}{
		{"as signed in", value, 1},
		{"id alone", id, 2},
		{"another's team and email", Value(id, "t2", "b@dealer.example"), 2},
	} {
		st.sessionReads, st.memberReads, st.withReads = 0, 0, 0
		r := httptest.NewRequest(http.MethodGet, "/console/", nil)
		r.AddCookie(&http.Cookie{Name: Cookie, Value: tt.cookie})
		got, err := Load(ctx, st, r, now.Add(time.Minute))
		if err != nil || got.Session == nil || got.Member.Email != "a@dealer.example" || got.Member.Role != patio.RoleViewer ||
			got.Team.ID != "t1" || got.ID != id {
			t.Errorf("Load(%s) = %+v, %v; want a@dealer.example, a viewer of t1", tt.name, got, err)
		}
		if reads := st.sessionReads + st.memberReads + st.withReads; reads != tt.reads {
			t.Errorf("Load(%s) made %d reads; want %d", tt.name, reads, tt.reads)
		}
	}
}

// TestCrossSite: a post from another site is refused by Fetch metadata, else by Origin; one with
// neither is left to the session.
func TestCrossSite(t *testing.T) {
	for _, c := range []struct {
		headers map[string]string
		want    bool
	}{
		{map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
		{map[string]string{"Sec-Fetch-Site": "none"}, false},
		{map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{map[string]string{"Sec-Fetch-Site": "same-site"}, true},
		{map[string]string{"Origin": "http://console.example"}, false},
		{map[string]string{"Origin": "https://console.example", "X-Forwarded-Proto": "https"}, false},
		{map[string]string{"Origin": "https://evil.example"}, true},
		{map[string]string{}, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://console.example/console/logout", nil)
		for k, v := range c.headers {
			r.Header.Set(k, v)
		}
		if got := CrossSite(r); got != c.want {
			t.Errorf("CrossSite with %v = %v; want %v", c.headers, got, c.want)
		}
	}
}

// TestHint: the team a cookie names, for a page's read to start beside the session's; none for a
// cookie of the id alone, one whose hint does not decode, or no cookie.
func TestHint(t *testing.T) {
	for _, tt := range []struct {
		name, cookie, want string
	}{
		{"as signed in", Value("id", "t1", "a@dealer.example"), "t1"},
		{"id alone", "id", ""},
		{"hint that does not decode", "id.%%%", ""},
		{"team without email", "id." + base64.RawURLEncoding.EncodeToString([]byte("t1")), ""},
		{"no cookie", "", ""},
	} {
		r := httptest.NewRequest(http.MethodGet, "/console/webhooks", nil)
		if tt.cookie != "" {
			r.AddCookie(&http.Cookie{Name: Cookie, Value: tt.cookie})
		}
		if got := Hint(r); got != tt.want {
			t.Errorf("Hint(%s) = %q; want %q", tt.name, got, tt.want)
		}
	}
}
