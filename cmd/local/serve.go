package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/localstack"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// stackFile is read by the operators' tool (cmd/admin) to reach this stack; credsFile keeps the
// local team's key and its owner's console sign-in between runs, so the printed examples stay
// valid.
const (
	stackFile = ".data/stack.json"
	credsFile = ".data/local-key.json"
)

// localOwner is the local team owner's email: the console's first sign-in.
const localOwner = "owner@patio.local"

// serve runs the API on 127.0.0.1:$PORT (default 3000) and the console on 127.0.0.1:$CONSOLE_PORT
// (default 3001) against a started stack until ctx ends, for the local team kept in credsFile, and
// writes stackFile for the operators' tool.
func serve(ctx context.Context, st *localaws.Stack, callsEvery time.Duration) error {
	var calls *localaws.Calls
	if callsEvery > 0 {
		calls = localaws.NewCalls()
		go calls.Report(ctx, callsEvery, os.Stderr)
	}
	port, consolePort := envOr("PORT", "3000"), envOr("CONSOLE_PORT", "3001")
	localstack.LocalEnv(st)
	st.Env["CONSOLE_URL"] = "http://localhost:" + consolePort + "/console/login"
	if err := st.Setenv(); err != nil {
		return err
	}
	if err := writeJSON(stackFile, st.Env); err != nil {
		return err
	}
	s, err := localstack.Start(ctx, localstack.Options{Tables: st.Tables, APIAddr: net.JoinHostPort("127.0.0.1", port),
		ConsoleAddr: net.JoinHostPort("127.0.0.1", consolePort), Checkpoints: streamCheckpoints, API: envelopeWrap, Calls: calls})
	if err != nil {
		return fmt.Errorf("%w (PORT and CONSOLE_PORT choose other ports)", err)
	}
	creds, err := localTeam(ctx, s)
	if err != nil {
		return errors.Join(err, s.Shutdown())
	}
	temp, err := patio.NewTemporaryPassword()
	if err != nil {
		return errors.Join(err, s.Shutdown())
	}
	others, err := s.RecreateUsers(ctx, creds.OwnerEmail, temp)
	if err != nil {
		return errors.Join(err, s.Shutdown())
	}
	go printEmails(ctx, st.MotoEndpoint, os.Stdout, 2*time.Second)
	consoleURL := "http://localhost:" + consolePort + "/console/"
	fmt.Printf(`
Patio is running on %s
  team id   %s (plan autoshopping)
  API key   %s

  curl -s %s/api/v1/vehicles \
    -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' \
    -d '{"brand":"Toyota","model":"Corolla","price":119990.50,"plate":"ABC1D23"}'

  curl -s '%s/api/v1/vehicles?sort=-price' -H 'Authorization: Bearer %s'

The console: %s
  email     %s
  password  %s
`, s.APIURL, creds.TeamID, creds.Key, s.APIURL, creds.Key, s.APIURL, creds.Key, consoleURL, creds.OwnerEmail, creds.OwnerPassword)
	if others > 0 {
		fmt.Printf("  %d other member(s): the local user pool forgets passwords when it stops; they sign in once with\n"+
			"  the temporary password %s and choose a new one\n", others, temp)
	}
	fmt.Print(`
Operators' tool: go run ./cmd/admin --help      (logs: JSON on stderr; Ctrl-C stops everything)
Every email the stack sends (invitations, webhook warnings) is printed here: none leaves the machine.

`)
	return s.Wait(ctx)
}

// envOr returns the variable's value, or def when it is unset or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// envelopeWrap answers malformed HTTP to the API in the envelope (see envelopeListener).
func envelopeWrap(ln net.Listener) net.Listener { return envelopeListener{ln} }

// localTeam returns the local team, key and owner kept in credsFile, creating the team and key when
// missing or when the key no longer works (wiped data, revoked key), and giving the owner their
// console sign-in (again: the user pool emulator forgets users when it stops).
func localTeam(ctx context.Context, s *localstack.Stack) (localstack.Creds, error) {
	var c localstack.Creds
	ok := false
	if data, err := os.ReadFile(credsFile); err == nil && json.Unmarshal(data, &c) == nil {
		if _, err := patio.Authenticate(ctx, accountdb.NewAccounts(s.Store.DB()), "Bearer "+c.Key); err == nil {
			ok = true
		} else if !patio.IsKind(err, patio.KindUnauthenticated) {
			return c, err
		}
	}
	if !ok {
		fresh, err := s.NewTeam(ctx, "Local dealership", "dev@patio.local")
		if err != nil {
			return c, err
		}
		fresh.OwnerEmail, fresh.OwnerPassword = c.OwnerEmail, c.OwnerPassword
		c = fresh
	}
	if c.OwnerEmail == "" {
		c.OwnerEmail = localOwner
	}
	pw, err := s.Owner(ctx, c.TeamID, c.OwnerEmail, c.OwnerPassword)
	if err != nil {
		return c, err
	}
	c.OwnerPassword = pw
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

// streamCheckpoints keeps how far the dispatcher got in each stream, so that a restart resumes there
// instead of handing every change of the last 24 hours over again; the indexer keeps its own
// positions beside it, in .data/index-checkpoints.json (localstack.IndexCheckpoints).
const streamCheckpoints = ".data/stream-checkpoints.json"
