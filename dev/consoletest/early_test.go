package consoletest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// sessions are the console's sessions on the stack's store, with the memberships they start with.
func sessions() session.Store {
	return struct {
		*accountdb.Sessions
		*accountdb.Members
	}{accountdb.NewSessions(stack.Store.DB()), accountdb.NewMembers(stack.Store.DB())}
}

// webhookOf creates a webhook of the team and returns its URL.
func webhookOf(t *testing.T, tm team) string {
	t.Helper()
	target := fmt.Sprintf("https://hooks.example/%s", tm.TeamID)
	_, _, err := webhook.Webhooks{Store: webhookdb.New(stack.Store.DB())}.Create(context.Background(), tm.TeamID,
		webhook.Settings{URL: target, Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// TestPageReadBesideSession: a page's data is read beside the session, yet shown only for the
// session's own team and only while the session lasts. A cookie naming another team than its
// session's shows the session's own team's webhooks, never the other's; the same cookie after
// signing out, and a session past its 12 hours with a cookie naming its team, are sent to sign-in
// with nothing of the team's.
func TestPageReadBesideSession(t *testing.T) {
	a, b := newTeam(t), newTeam(t)
	hookA, hookB := webhookOf(t, a), webhookOf(t, b)
	ctx, now := context.Background(), time.Now()
	value, err := session.Start(ctx, sessions(), a.OwnerEmail, "", now)
	if err != nil {
		t.Fatal(err)
	}
	id, _, _ := strings.Cut(value, ".")

	for _, tt := range []struct{ name, cookie string }{
		{"as signed in", value},
		{"naming team B", session.Value(id, b.TeamID, a.OwnerEmail)},
		{"naming team B and its owner", session.Value(id, b.TeamID, b.OwnerEmail)},
		{"of the id alone", id},
	} {
		resp, page := newClient(t, tt.cookie).get("/console/webhooks")
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, hookA) || strings.Contains(page, hookB) {
			t.Errorf("GET /console/webhooks with a cookie %s = %d, team A's webhook shown %v, team B's %v; want 200, A's only",
				tt.name, resp.StatusCode, strings.Contains(page, hookA), strings.Contains(page, hookB))
		}
	}

	id2, hash, err := patio.NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	began := now.Add(-patio.SessionMax - time.Minute)
	expired := patio.Session{Hash: hash, Email: a.OwnerEmail, TeamID: a.TeamID, CreatedAt: began, SeenAt: now.Add(-time.Minute),
		Teams: []patio.SessionTeam{{ID: a.TeamID}}}
	if err := sessions().CreateSession(ctx, expired); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, value)
	if resp, _ := c.post("/console/logout", url.Values{}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out = %d; want 303", resp.StatusCode)
	}
	for _, tt := range []struct{ name, cookie string }{
		{"signed out", value},
		{"expired", session.Value(id2, a.TeamID, a.OwnerEmail)},
	} {
		resp, page := newClient(t, tt.cookie).get("/console/webhooks")
		if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), "/console/login") ||
			strings.Contains(page, hookA) {
			t.Errorf("GET /console/webhooks with the cookie of a session %s = %d to %q, team A's webhook shown %v; want 303 to sign-in, nothing shown",
				tt.name, resp.StatusCode, resp.Header.Get("Location"), strings.Contains(page, hookA))
		}
	}
}
