package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/patio-dev/patio/dev/apitest"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// stack is the API under test on DynamoDB Local, served over real HTTP.
type stack struct {
	url   string
	store *dynamostore.Store
}

func newStack(t *testing.T) *stack {
	t.Helper()
	testenv.Tables(t)
	cfg := testenv.AWSConfig(t)
	conf := envConfig(t)
	h, err := app.API(cfg, conf, slog.New(slog.NewJSONHandler(io.Discard, nil)), app.Vehicles, app.Clients, app.Deals)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &stack{url: srv.URL, store: dynamostore.New(cfg, conf.Tables)}
}

// envConfig is the configuration the functions read from the environment that testenv.Tables sets.
func envConfig(tb testing.TB) app.Config {
	tb.Helper()
	c, err := app.LoadConfig(os.LookupEnv)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// team creates a team and returns it with a client holding a key of the given scopes (all if none).
func (s *stack) team(t *testing.T, scopes ...string) (patio.Team, *apitest.Client) {
	t.Helper()
	ctx := context.Background()
	team, err := patio.NewTeam("Test "+t.Name(), "ops@example.com", "autoshopping")
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(s.store.DB()).CreateTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	c, _ := s.client(t, team.ID, scopes...)
	return team, c
}

// client returns a client with a new key of the team, and the key.
func (s *stack) client(t *testing.T, teamID string, scopes ...string) (*apitest.Client, patio.APIKey) {
	t.Helper()
	if len(scopes) == 0 {
		scopes = patio.Scopes
	}
	k, secret, err := patio.NewAPIKey(teamID, "test", scopes, patio.TestKeyPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(s.store.DB()).CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return &apitest.Client{T: t, BaseURL: s.url, Key: secret}, k
}
