package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/patio-dev/patio/dev/faults"
	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/localstack"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// stack is a whole local stack with a fault injector in front of its engines, a team with a key,
// and two webhooks of the team (every event) to receivers of this process. The engines and the
// injector run beside this process; the API and the workers (dispatcher, indexer, deliverer,
// sweeper, timer) run in a child process of their own, as Lambda runs them apart from the engines,
// so that the kill phase can SIGKILL it and start it again on the same data.
type stack struct {
	apiURL, key, teamID string
	inj                 *faults.Injector
	store               *dynamostore.Store
	receivers           []*receiver
	stop                func() error

	child       *exec.Cmd
	childEnv    []string
	childLog    *os.File
	apiAddr     string
	checkpoints string

	// moto is moto's own address (the injector's is in the environment), where the emails SES
	// sent are read.
	moto string
	// failing is a receiver that answers 500 to everything: a webhook to it, created when the SES
	// phase begins, fails its 4th attempts (a warning email) while SES refuses to send, then its
	// 6th (disabled, an alert email) after.
	failing     *httptest.Server
	failingHook string
	sesRefused  int
}

// Variables of the child process that serves the stack (serveChild).
const (
	serveVar  = "PATIO_CHAOS_SERVE"  // the API's address; set only in the child
	tablesVar = "PATIO_CHAOS_TABLES" // the template's tables (logical id → name), as JSON
	checksVar = "PATIO_CHAOS_CHECKPOINTS"
)

// chaosKnobs are the webhook settings of the run, unless the environment sets them: a short
// sweep, so a delivery whose queue message SQS refused is queued again within the run.
var chaosKnobs = map[string]string{
	"WEBHOOK_SWEEP_AFTER":    "20s",
	"WEBHOOK_RETRY_SCHEDULE": "0s,2s,5s,10s,30s,60s",
	"LOG_LEVEL":              "WARN",
}

// startStack starts the stack with its engines in memory, logs and checkpoints under dir.
func startStack(ctx context.Context, root, dir string) (_ *stack, err error) {
	s := &stack{checkpoints: filepath.Join(dir, "stream-checkpoints.json")}
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
	stops = append(stops, s.closeReceivers)
	if err := s.startReceivers(dir); err != nil {
		return nil, err
	}
	os.Remove(s.checkpoints)
	os.Remove(localstack.IndexCheckpoints(s.checkpoints))
	st, err := localaws.Start(ctx, localaws.Options{Dir: root, LogFile: filepath.Join(dir, "engines.log")})
	if err != nil {
		return nil, err
	}
	stops = append(stops, st.Stop)
	s.moto = st.MotoEndpoint
	if s.inj, err = faults.Wrap(st, nil); err != nil {
		return nil, err
	}
	stops = append(stops, s.inj.Close)
	localstack.LocalEnv(st)
	if err := st.Setenv(); err != nil {
		return nil, err
	}
	if err := s.team(ctx); err != nil {
		return nil, err
	}
	tables, _ := json.Marshal(st.Tables)
	if s.apiAddr, err = freeAddr(); err != nil {
		return nil, err
	}
	s.apiURL = "http://" + s.apiAddr
	s.childEnv = append(os.Environ(), serveVar+"="+s.apiAddr, tablesVar+"="+string(tables), checksVar+"="+s.checkpoints)
	if s.childLog, err = os.Create(filepath.Join(dir, "stack.log")); err != nil {
		return nil, err
	}
	stops = append(stops, s.childLog.Close, s.stopChild)
	return s, s.startChild(ctx)
}

// startReceivers starts the two webhook receivers and sets the workers' knobs: the receivers'
// certificate (every httptest TLS server shares one) as WEBHOOK_CA_FILE, and chaosKnobs.
func (s *stack) startReceivers(dir string) error {
	for range 2 {
		s.receivers = append(s.receivers, newReceiver())
	}
	s.failing = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	ca := filepath.Join(dir, "receivers-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.receivers[0].srv.Certificate().Raw}), 0o600); err != nil {
		return err
	}
	os.Setenv("WEBHOOK_CA_FILE", ca)
	for k, v := range chaosKnobs {
		if _, ok := os.LookupEnv(k); !ok {
			os.Setenv(k, v)
		}
	}
	return nil
}

func (s *stack) closeReceivers() error {
	for _, r := range s.receivers {
		r.srv.Close()
	}
	if s.failing != nil {
		s.failing.Close()
	}
	return nil
}

// addFailingWebhook subscribes the failing receiver to the deals won.
func (s *stack) addFailingWebhook(ctx context.Context) error {
	w, _, err := webhook.Webhooks{Store: webhookdb.New(s.store.DB())}.Create(ctx, s.teamID,
		webhook.Settings{URL: s.failing.URL + "/hook", Events: []string{webhook.DealWon}})
	if err != nil {
		return fmt.Errorf("create the failing webhook: %w", err)
	}
	s.failingHook = w.ID
	return nil
}

// emailsAboutFailing waits until the team got two emails naming the failing webhook (its warning
// and its alert), or until deadline, and returns how many it got (0 when no such webhook).
func (s *stack) emailsAboutFailing(ctx context.Context, deadline time.Time) (int, error) {
	if s.failingHook == "" {
		return 0, nil
	}
	for {
		mails, err := testenv.MotoEmails(s.moto, "chaos@patio.local")
		n := 0
		for _, m := range mails {
			if strings.Contains(m.Body, s.failing.URL) {
				n++
			}
		}
		if err == nil && n >= 2 || time.Now().After(deadline) || ctx.Err() != nil {
			return n, err
		}
		sleep(ctx, 5*time.Second)
	}
}

// team creates the run's team, its key and its two webhooks.
func (s *stack) team(ctx context.Context) error {
	cfg, err := awsconfig.Load(ctx)
	if err != nil {
		return err
	}
	conf, err := app.LoadConfig(os.LookupEnv, app.AdminTool, app.VehiclesFunction, app.ClientsFunction, app.DealsFunction)
	if err != nil {
		return err
	}
	s.store = dynamostore.New(cfg, conf.Tables)
	team, err := patio.NewTeam("Chaos dealership", "chaos@patio.local", string(patio.PlanAutoshopping))
	if err != nil {
		return err
	}
	if err := accountdb.NewAccounts(s.store.DB()).CreateTeam(ctx, team); err != nil {
		return err
	}
	key, secret, err := patio.NewAPIKey(team.ID, "chaos", patio.Scopes, patio.TestKeyPrefix)
	if err != nil {
		return err
	}
	if err := accountdb.NewAccounts(s.store.DB()).CreateKey(ctx, key); err != nil {
		return err
	}
	s.teamID, s.key = team.ID, secret
	hooks := webhook.Webhooks{Store: webhookdb.New(s.store.DB())}
	for _, r := range s.receivers {
		if _, _, err := hooks.Create(ctx, s.teamID, webhook.Settings{URL: r.srv.URL + "/hook", Events: []string{"*"}}); err != nil {
			return fmt.Errorf("create webhook: %w", err)
		}
	}
	return nil
}

// startChild starts the process that serves the API and runs the workers, and waits until the
// API answers.
func (s *stack) startChild(ctx context.Context) error {
	s.child = exec.Command(os.Args[0])
	s.child.Env, s.child.Stdout, s.child.Stderr = s.childEnv, s.childLog, s.childLog
	if err := s.child.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(s.apiURL + "/api/v1/unknown")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the stack's API did not answer on %s within 2 minutes: %w (see %s)", s.apiURL, err, s.childLog.Name())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// kill ends the child with SIGKILL (no shutdown, batches cut off wherever they were) and starts
// it again on the same data and stream checkpoints.
func (s *stack) kill(ctx context.Context) error {
	_ = s.child.Process.Signal(syscall.SIGKILL)
	_ = s.child.Wait()
	return s.startChild(ctx)
}

// stopChild stops the child with SIGTERM (SIGKILL after 10 s).
func (s *stack) stopChild() error {
	if s.child == nil || s.child.Process == nil {
		return nil
	}
	_ = s.child.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.child.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.child.Process.Kill()
		<-done
	}
	return nil
}

// serveChild is the child process: it serves the API on the address serveVar gives and runs the
// workers until SIGTERM (or SIGKILL).
func serveChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var tables map[string]string
	if err := json.Unmarshal([]byte(os.Getenv(tablesVar)), &tables); err != nil {
		fmt.Fprintln(os.Stderr, "chaos: stack:", err)
		return 1
	}
	ls, err := localstack.Start(ctx, localstack.Options{Tables: tables, APIAddr: os.Getenv(serveVar),
		Checkpoints: os.Getenv(checksVar), Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos: stack:", err)
		return 1
	}
	if err := ls.Wait(ctx); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "chaos: stack:", err)
		return 1
	}
	return 0
}

// freeAddr returns a loopback address with a port free now, for the API to keep across restarts.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
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
