package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// stackFile is read by the operators' tool (cmd/admin) to reach this stack; credsFile keeps the
// local team's key between runs so the printed curl examples stay valid.
const (
	stackFile = ".data/stack.json"
	credsFile = ".data/local-key.json"
)

// localCreds is the local team and its key, as kept in credsFile (local stack only: dk_test_ keys).
type localCreds struct {
	TeamID string `json:"team_id"`
	KeyID  string `json:"key_id"`
	Key    string `json:"key"`
}

// serve runs the API on 127.0.0.1:$PORT (default 3000) against a started stack until ctx ends.
func serve(ctx context.Context, st *localaws.Stack) error {
	webhookEnv(st)
	if err := st.Setenv(); err != nil {
		return err
	}
	if err := writeJSON(stackFile, st.Env); err != nil {
		return err
	}
	// The stack runs every API resource and both webhook workers, in one process.
	conf, err := app.LoadConfig(os.LookupEnv, app.VehiclesFunction, app.ClientsFunction, app.DealsFunction,
		app.DispatcherFunction, app.DelivererFunction, app.SweeperFunction)
	if err != nil {
		return err
	}
	logger := conf.Logger()
	cfg, err := app.LoadAWS(ctx)
	if err != nil {
		return err
	}
	store := dynamostore.New(cfg, conf.Tables)
	creds, err := localTeam(ctx, store)
	if err != nil {
		return err
	}
	h, err := app.API(cfg, conf, logger, app.Vehicles, app.Clients, app.Deals)
	if err != nil {
		return err
	}
	if err := startWebhooks(ctx, cfg, conf, logger, st); err != nil {
		return err
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "3000"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return fmt.Errorf("listen on port %s (set PORT to use another): %w", port, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	fmt.Printf(`
Patio is running on %s
  team id   %s (plan autoshopping)
  API key   %s

  curl -s %s/api/v1/vehicles \
    -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' \
    -d '{"brand":"Toyota","model":"Corolla","price":119990.50,"plate":"ABC1D23"}'

  curl -s '%s/api/v1/vehicles?sort=-price' -H 'Authorization: Bearer %s'

Operators' tool: go run ./cmd/admin --help      (logs: JSON on stderr; Ctrl-C stops everything)

`, base, creds.TeamID, creds.Key, base, creds.Key, base, creds.Key)

	select {
	case <-ctx.Done():
	case err := <-done:
		return err
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

// localTeam returns the local team and key kept in credsFile, creating them when missing or when
// the key no longer works (wiped data, revoked key).
func localTeam(ctx context.Context, store *dynamostore.Store) (localCreds, error) {
	var c localCreds
	if data, err := os.ReadFile(credsFile); err == nil && json.Unmarshal(data, &c) == nil {
		if _, err := patio.Authenticate(ctx, store, "Bearer "+c.Key); err == nil {
			return c, nil
		} else if !patio.IsKind(err, patio.KindUnauthenticated) {
			return c, err
		}
	}
	team, err := patio.NewTeam("Local dealership", "dev@patio.local", string(patio.PlanAutoshopping))
	if err != nil {
		return c, err
	}
	if err := store.CreateTeam(ctx, team); err != nil {
		return c, err
	}
	key, secret, err := patio.NewAPIKey(team.ID, "local", patio.Scopes, patio.TestKeyPrefix)
	if err != nil {
		return c, err
	}
	if err := store.CreateKey(ctx, key); err != nil {
		return c, err
	}
	c = localCreds{TeamID: team.ID, KeyID: key.ID, Key: secret}
	return c, writeJSON(credsFile, c)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return errors.Join(fmt.Errorf("write %s", path), err)
	}
	return nil
}
