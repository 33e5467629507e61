package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/patio-dev/patio/dev/faults"
	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/localstack"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/webhook"
)

// stack is a whole local stack in memory with a fault injector in front of its engines, a team
// with a key, and two webhooks of the team (every event) to receivers of this process.
type stack struct {
	apiURL, key, teamID string
	inj                 *faults.Injector
	store               *dynamostore.Store
	receivers           []*receiver
	stop                func() error
}

// chaosKnobs are the webhook settings of the run, unless the environment sets them: a short
// sweep, so a delivery whose queue message SQS refused is queued again within the run.
var chaosKnobs = map[string]string{
	"WEBHOOK_SWEEP_AFTER":    "20s",
	"WEBHOOK_RETRY_SCHEDULE": "0s,2s,5s,10s,30s,60s",
	"LOG_LEVEL":              "WARN",
}

// startStack starts the stack with its engines in memory, logs under dir.
func startStack(ctx context.Context, root, dir string) (_ *stack, err error) {
	s := &stack{}
	var stops []func() error
	s.stop = func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.stop())
		}
	}()
	for range 2 {
		r := newReceiver()
		s.receivers = append(s.receivers, r)
		stops = append(stops, func() error { r.srv.Close(); return nil })
	}
	// Every httptest TLS server shares one certificate: the deliverer trusts it.
	ca := filepath.Join(dir, "receivers-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.receivers[0].srv.Certificate().Raw}), 0o600); err != nil {
		return nil, err
	}
	os.Setenv("WEBHOOK_CA_FILE", ca)
	for k, v := range chaosKnobs {
		if _, ok := os.LookupEnv(k); !ok {
			os.Setenv(k, v)
		}
	}
	st, err := localaws.Start(ctx, localaws.Options{Dir: root, LogFile: filepath.Join(dir, "engines.log")})
	if err != nil {
		return nil, err
	}
	stops = append(stops, st.Stop)
	if s.inj, err = faults.Wrap(st, nil); err != nil {
		return nil, err
	}
	stops = append(stops, s.inj.Close)
	localstack.LocalEnv(st)
	if err := st.Setenv(); err != nil {
		return nil, err
	}
	logs, err := os.Create(filepath.Join(dir, "stack.log"))
	if err != nil {
		return nil, err
	}
	stops = append(stops, logs.Close)
	workersCtx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	ls, err := localstack.Start(workersCtx, localstack.Options{Tables: st.Tables, APIAddr: "127.0.0.1:0", Dir: root,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		stopWorkers()
		return nil, err
	}
	stops = append(stops, func() error { stopWorkers(); return ls.Shutdown() })
	creds, err := ls.NewTeam(ctx, "Chaos dealership", "chaos@patio.local")
	if err != nil {
		return nil, err
	}
	s.apiURL, s.key, s.teamID, s.store = ls.APIURL, creds.Key, creds.TeamID, ls.Store
	hooks := webhook.Webhooks{Store: workers.NewWebhookStore(ls.Store)}
	for _, r := range s.receivers {
		if _, _, err := hooks.Create(ctx, s.teamID, webhook.Settings{URL: r.srv.URL + "/hook", Events: []string{"*"}}); err != nil {
			return nil, fmt.Errorf("create webhook: %w", err)
		}
	}
	return s, nil
}

// delivery is one webhook request a receiver got: the event it carried.
type delivery struct {
	EventID  string
	Type     string
	ObjectID string
	Revision int
}

// receiver is a webhook receiver that answers 200 to every delivery and keeps them.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []delivery
}

func newReceiver() *receiver {
	r := &receiver{}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		var ev struct {
			ID   string `json:"id"`
			Type string `json:"type"`
			Data struct {
				Object struct {
					ID       string `json:"id"`
					Revision int    `json:"revision"`
				} `json:"object"`
			} `json:"data"`
		}
		if json.Unmarshal(body, &ev) == nil {
			r.mu.Lock()
			r.got = append(r.got, delivery{EventID: ev.ID, Type: ev.Type, ObjectID: ev.Data.Object.ID, Revision: ev.Data.Object.Revision})
			r.mu.Unlock()
		}
		w.WriteHeader(http.StatusOK)
	}))
	return r
}

// deliveries returns what the receiver got so far.
func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// waitQuiet waits until no receiver got anything for quiet, or until deadline.
func (s *stack) waitQuiet(ctx context.Context, quiet time.Duration, deadline time.Time) {
	last, lastChange := -1, time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		n := 0
		for _, r := range s.receivers {
			n += len(r.deliveries())
		}
		if n != last {
			last, lastChange = n, time.Now()
		} else if time.Since(lastChange) >= quiet {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
