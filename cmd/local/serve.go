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

// serve runs the API on 127.0.0.1:$PORT (default 3000) against a started stack until ctx ends,
// for the local team kept in credsFile, and writes stackFile for the operators' tool.
func serve(ctx context.Context, st *localaws.Stack) error {
	localEnv(st)
	if err := st.Setenv(); err != nil {
		return err
	}
	if err := writeJSON(stackFile, st.Env); err != nil {
		return err
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "3000"
	}
	a, err := startAPI(ctx, st, port, localTeam)
	if err != nil {
		return err
	}
	fmt.Printf(`
Patio is running on %s
  team id   %s (plan autoshopping)
  API key   %s

  curl -s %s/api/v1/vehicles \
    -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' \
    -d '{"brand":"Toyota","model":"Corolla","price":119990.50,"plate":"ABC1D23"}'

  curl -s '%s/api/v1/vehicles?sort=-price' -H 'Authorization: Bearer %s'

Operators' tool: go run ./cmd/admin --help      (logs: JSON on stderr; Ctrl-C stops everything)

`, a.url, a.creds.TeamID, a.creds.Key, a.url, a.creds.Key, a.url, a.creds.Key)
	return a.wait(ctx)
}

// localAPI is the API served by this process over plain HTTP, and the team it is served for.
type localAPI struct {
	url   string // http://127.0.0.1:<port>
	creds localCreds
	srv   *http.Server
	done  chan error // Serve's result
}

// startAPI serves the API of a started stack (st.Setenv already applied) on 127.0.0.1:port ("0"
// for a free port), with the webhook workers running until ctx ends. team returns the team and
// key the API is served for. It builds its AWS clients from the environment, exactly as the
// Lambda functions do.
func startAPI(ctx context.Context, st *localaws.Stack, port string,
	team func(context.Context, *dynamostore.Store) (localCreds, error)) (*localAPI, error) {
	// The stack runs every API resource and both webhook workers, in one process.
	conf, err := app.LoadConfig(os.LookupEnv, app.VehiclesFunction, app.ClientsFunction, app.DealsFunction,
		app.DispatcherFunction, app.DelivererFunction, app.SweeperFunction, app.TimerFunction)
	if err != nil {
		return nil, err
	}
	logger := conf.Logger()
	cfg, err := app.LoadAWS(ctx)
	if err != nil {
		return nil, err
	}
	creds, err := team(ctx, dynamostore.New(cfg, conf.Tables))
	if err != nil {
		return nil, err
	}
	h, err := app.API(cfg, conf, logger, app.Vehicles, app.Clients, app.Deals)
	if err != nil {
		return nil, err
	}
	if err := startWebhooks(ctx, cfg, conf, logger, st); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, fmt.Errorf("listen on port %s (set PORT to use another): %w", port, err)
	}
	a := &localAPI{
		url:   "http://" + ln.Addr().String(),
		creds: creds,
		srv:   &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
		done:  make(chan error, 1),
	}
	go func() { a.done <- a.srv.Serve(envelopeListener{ln}) }()
	return a, nil
}

// wait serves until ctx ends, then shuts the server down gracefully.
func (a *localAPI) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
	case err := <-a.done:
		return err
	}
	return a.shutdown()
}

// shutdown stops the server, letting requests in flight finish for a few seconds.
func (a *localAPI) shutdown() error {
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return a.srv.Shutdown(shutdown)
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
	c, err := newTeam(ctx, store)
	if err != nil {
		return c, err
	}
	return c, writeJSON(credsFile, c)
}

// newTeam creates a team on the Autoshopping plan (the highest limits, no daily limit) and a key
// with every scope.
func newTeam(ctx context.Context, store *dynamostore.Store) (localCreds, error) {
	team, err := patio.NewTeam("Local dealership", "dev@patio.local", string(patio.PlanAutoshopping))
	if err != nil {
		return localCreds{}, err
	}
	if err := store.CreateTeam(ctx, team); err != nil {
		return localCreds{}, err
	}
	key, secret, err := patio.NewAPIKey(team.ID, "local", patio.Scopes, patio.TestKeyPrefix)
	if err != nil {
		return localCreds{}, err
	}
	if err := store.CreateKey(ctx, key); err != nil {
		return localCreds{}, err
	}
	return localCreds{TeamID: team.ID, KeyID: key.ID, Key: secret}, nil
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
