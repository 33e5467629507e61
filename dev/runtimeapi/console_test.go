package runtimeapi_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/patio-dev/patio/dev/runtimeapi"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// withoutIdentityOverride is the test's environment as a Lambda execution environment has it: the
// console refuses to start with the user pool's endpoint pointed at the local emulator.
func withoutIdentityOverride() []string {
	var out []string
	for _, kv := range runtimeapi.LambdaEnv(os.Environ()) {
		if !strings.HasPrefix(kv, "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER=") {
			out = append(out, kv)
		}
	}
	return out
}

// links returns every href, action and src of a page.
var linkAttr = regexp.MustCompile(`(?:href|action|src)="([^"]*)"`)

// TestConsoleFunction runs the console's bootstrap under the Runtime API with its sample events,
// which reach it as API Gateway's own domain delivers them, under the stage (/prod): the sign-in
// page, and a signed-in page; every link and form action of both is under /prod/console. With the
// user pool's endpoint overridden it refuses to start.
func TestConsoleFunction(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	bin := bootstraps(t)["console"]
	f, err := runtimeapi.Start(bin, runtimeapi.Options{Name: "console", Env: withoutIdentityOverride()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	ready, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := f.Ready(ready); err != nil {
		t.Fatal(err)
	}

	// A session of the team's owner, as signing in leaves it.
	email := "owner+runtime@dealer.example"
	ts := patio.NewTimestamp(time.Now())
	if err := accountdb.NewMembers(fx.store.DB()).AddMember(ctx, patio.Member{TeamID: fx.team.ID, Email: email, Role: patio.RoleOwner,
		Status: patio.MemberActive, CreatedAt: ts, UpdatedAt: ts}); err != nil {
		t.Fatal(err)
	}
	id, hash, _ := patio.NewSessionID()
	now := time.Now()
	if err := accountdb.NewSessions(fx.store.DB()).CreateSession(ctx, patio.Session{Hash: hash, Email: email, TeamID: fx.team.ID, CreatedAt: now, SeenAt: now}); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name, heading string
	}{
		{"console-login.json", "Entrar no console"},
		{"console-webhooks.json", "Webhooks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var e events.APIGatewayProxyRequest
			if err := json.Unmarshal(sample(t, tt.name), &e); err != nil {
				t.Fatal(err)
			}
			if c := e.Headers["Cookie"]; c != "" {
				c = regexp.MustCompile(`patio_session=[^;]*`).ReplaceAllString(c, "patio_session="+id)
				e.Headers["Cookie"], e.MultiValueHeaders["Cookie"] = c, []string{c}
			}
			var res events.APIGatewayProxyResponse
			if _, err := f.InvokeJSON(ctx, e, &res); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != 200 || !strings.Contains(res.Body, "<h1>"+tt.heading) {
				t.Fatalf("%s: %d %s; want 200 and %q", tt.name, res.StatusCode, res.Body, tt.heading)
			}
			found := linkAttr.FindAllStringSubmatch(res.Body, -1)
			if len(found) < 3 {
				t.Fatalf("%s: %d links; want the page's links", tt.name, len(found))
			}
			for _, m := range found {
				if !strings.HasPrefix(m[1], "/prod/console/") && !strings.HasPrefix(m[1], "#") {
					t.Errorf("%s: link %q is not under the stage's /prod/console/", tt.name, m[1])
				}
			}
		})
	}

	t.Run("refuses the user pool endpoint override", func(t *testing.T) {
		g, err := runtimeapi.Start(bin, runtimeapi.Options{Name: "console",
			Env: append(withoutIdentityOverride(), "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER=http://127.0.0.1:5000")})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Stop()
		ready, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if _, err := g.Ready(ready); err == nil {
			t.Error("Ready() = nil; want the start refused")
		}
	})
}
