package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The deliverer's and dispatcher's tests run on the DynamoDB store over DynamoDB Local (the
// package's tables, each test on a team and webhooks of its own); the queue, the sender, the
// mailer and the teams are small fakes, since they are not what these tests are about.

const secret = "whsec_dGVzdC1vbmx5LXNlY3JldA==" // base64 of "test-only-secret"

var (
	// now is the deliverer's clock in these tests; first is when the series under test began. now
	// is the machine's time when the tests start, not a fixed date: a delivery's record expires
	// (the table's TTL) its retention after its last change, and DynamoDB Local deletes expired
	// items every few seconds, so records dated from a fixed day would vanish mid-test once the
	// machine's clock is a retention past it.
	now   = time.Now().UTC().Truncate(time.Second)
	first = now.Add(-(5*time.Minute + 30*time.Minute + 2*time.Hour + 12*time.Hour + 24*time.Hour))

	failure = webhook.Result{StatusCode: 503, Duration: 120 * time.Millisecond, ErrorClass: webhook.ErrHTTPStatus}
	success = webhook.Result{StatusCode: 204, Duration: 80 * time.Millisecond}
	errBoom = errors.New("boom")
	discard = slog.New(slog.DiscardHandler)
	unique  atomic.Int64
)

// store is the DynamoDB store of the package's tables, with failures planned per method and the
// deactivation rule's calls noted: the store's webhooks and delivery log, which the Deliverer's
// ports span.
type store struct {
	webhookdb.Store

	mu   sync.Mutex
	fail map[string]*planned
	// disabledSince holds the first argument of each DisableForFailures call.
	disabledSince []time.Time
	// swaps counts the SwapGate calls.
	swaps atomic.Int64
}

// planned makes a method fail with err after it succeeded pass more times, once.
type planned struct {
	pass int
	err  error
}

// failing returns the error planned for method now, if any.
func (s *store) failing(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.fail[method]
	if p == nil {
		return nil
	}
	if p.pass > 0 {
		p.pass--
		return nil
	}
	delete(s.fail, method)
	return p.err
}

// failOnce makes method fail with err once, after pass successful calls.
func (s *store) failOnce(method string, pass int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[method] = &planned{pass: pass, err: err}
}

func (s *store) SwapGate(ctx context.Context, teamID, webhookID string, g delivery.Gate) (delivery.Gate, bool, error) {
	s.swaps.Add(1)
	if err := s.failing("SwapGate"); err != nil {
		return delivery.Gate{}, false, err
	}
	return s.Gates.SwapGate(ctx, teamID, webhookID, g)
}

func (s *store) NoteSuccess(ctx context.Context, teamID, id string, t time.Time) error {
	if err := s.failing("NoteSuccess"); err != nil {
		return err
	}
	return s.Gates.NoteSuccess(ctx, teamID, id, t)
}

func (s *store) DisableForFailures(ctx context.Context, teamID, id string, first, now time.Time, last webhook.Failure) (bool, error) {
	s.mu.Lock()
	s.disabledSince = append(s.disabledSince, first)
	s.mu.Unlock()
	if err := s.failing("DisableForFailures"); err != nil {
		return false, err
	}
	return s.Webhooks.DisableForFailures(ctx, teamID, id, first, now, last)
}

func (s *store) CreateDeliveries(ctx context.Context, ds []webhook.Delivery) ([]webhook.Delivery, []bool, int, error) {
	if err := s.failing("CreateDeliveries"); err != nil {
		return nil, nil, 0, err
	}
	return s.DeliveryLog.CreateDeliveries(ctx, ds)
}

// env is a deliverer's surroundings: a team of its own with webhook hook, the deliveries given,
// and the fakes.
type env struct {
	t      *testing.T
	store  *store
	queue  *queue
	sender *sender
	mailer *mailer
	team   patio.Team
	hook   webhook.Webhook
	prefix string // of the env's delivery ids
}

// newEnv stores a new team, its active webhook (enabled long before first) and the deliveries
// made by each function given (see pending), and returns the env around them.
func newEnv(t *testing.T, deliveries ...func(*env) webhook.Delivery) *env {
	t.Helper()
	names := testenv.Tables(t)
	s := dynamostore.New(testenv.AWSConfig(t), dynamostore.Tables{Accounts: names["AccountsTable"],
		Webhooks: names["WebhooksTable"], Deliveries: names["DeliveriesTable"]})
	n := unique.Add(1)
	e := &env{t: t, store: &store{Store: webhookdb.New(s.DB()), fail: map[string]*planned{}}, queue: &queue{}, sender: &sender{result: failure},
		mailer: &mailer{}, prefix: fmt.Sprintf("dlv_%d_%d_", time.Now().UnixNano()%1e9, n)}
	e.team = patio.Team{ID: fmt.Sprintf("team_%d_%d", time.Now().UnixNano(), n), Name: "Acme Motors", Email: "ops@acme.example",
		Language: "en"}
	e.hook = e.newHook("wh_1")
	for _, f := range deliveries {
		e.put(f(e))
	}
	return e
}

// newHook stores an active webhook of the env's team, its id made unique from name.
func (e *env) newHook(name string, f ...func(*webhook.Webhook)) webhook.Webhook {
	e.t.Helper()
	w := webhook.Webhook{ID: e.team.ID + "_" + name, TeamID: e.team.ID, URL: "https://hooks.acme.example/" + name,
		Events: []string{webhook.AllEvents}, Status: webhook.StatusActive, Secret: secret, EnabledAt: first.Add(-30 * 24 * time.Hour),
		CreatedAt: patio.NewTimestamp(first.Add(-30 * 24 * time.Hour)), UpdatedAt: patio.NewTimestamp(first)}
	for _, f := range f {
		f(&w)
	}
	if err := e.store.CreateWebhook(context.Background(), w); err != nil {
		e.t.Fatal(err)
	}
	return w
}

// put stores a delivery as it is.
func (e *env) put(d webhook.Delivery) {
	e.t.Helper()
	if _, created, _, err := e.store.CreateDeliveries(context.Background(), []webhook.Delivery{d}); err != nil || !created[0] {
		e.t.Fatalf("storing %s: %v", d.ID, err)
	}
}

// id returns the stored id of the env's delivery name.
func (e *env) id(name string) string { return e.prefix + name }

// pending returns a maker of a pending delivery name to the env's webhook whose series made
// attempts attempts (all failed), the next one due now; each f then changes it.
func pending(name string, attempts int, f ...func(*webhook.Delivery)) func(*env) webhook.Delivery {
	return func(e *env) webhook.Delivery {
		d := webhook.Delivery{ID: e.id(name), WebhookID: e.hook.ID, TeamID: e.team.ID, EventID: "evt_" + e.id(name),
			EventType: webhook.VehicleCreated, Status: webhook.DeliveryPending, Attempt: attempts,
			Payload: []byte(`{"id":"evt_` + e.id(name) + `"}`), CreatedAt: first.Add(-2 * time.Second), UpdatedAt: first}
		if attempts > 0 {
			due := now
			d.FirstAttemptAt, d.NextAttemptAt = first, &due
			for n := 1; n <= attempts; n++ {
				d.Attempts = append(d.Attempts, webhook.Attempt{N: n, At: first, StatusCode: 503, ErrorClass: webhook.ErrHTTPStatus})
			}
		}
		for _, f := range f {
			f(&d)
		}
		return d
	}
}

// delivery returns the env's delivery name as stored.
func (e *env) delivery(name string) webhook.Delivery {
	e.t.Helper()
	d, err := e.store.Delivery(context.Background(), e.id(name))
	if err != nil && !patio.IsKind(err, patio.KindNotFound) {
		e.t.Fatal(err)
	}
	return d
}

// webhook returns the env's webhook as stored.
func (e *env) webhook() webhook.Webhook {
	e.t.Helper()
	w, err := e.store.Webhook(context.Background(), e.team.ID, e.hook.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

// lastSuccess returns when the store last noted a success of the env's webhook.
func (e *env) lastSuccess() time.Time {
	e.t.Helper()
	g, err := e.store.Gate(context.Background(), e.team.ID, e.hook.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return g.LastSuccess
}

// task returns the task of attempt n of the delivery name's current series, due now.
func (e *env) task(name string, n int) webhook.Task {
	d := e.delivery(name)
	if d.ID == "" {
		d = webhook.Delivery{ID: e.id(name), TeamID: e.team.ID, WebhookID: e.hook.ID, EventID: "evt_" + e.id(name)}
	}
	return webhook.Task{DeliveryID: d.ID, TeamID: d.TeamID, WebhookID: d.WebhookID, EventID: d.EventID,
		Series: d.Series, Attempt: n, Due: now, Token: "tok-" + d.ID}
}

func (e *env) deliverer() *delivery.Deliverer {
	return &delivery.Deliverer{Deliveries: e.store, Gates: e.store, Rules: e.store, Queue: e.queue, Sender: e.sender, Mailer: e.mailer,
		Teams: teams{e.team.ID: e.team}, Schedule: webhook.DefaultSchedule, Now: func() time.Time { return now }, Logger: discard,
		ConsoleURL: consoleURL}
}

// consoleURL is the console's sign-in page the deliverer's emails link from.
const consoleURL = "https://console.acme.example/console/login"

// queue is a delivery queue that keeps what it is given, or refuses everything with err.
type queue struct {
	mu    sync.Mutex
	err   error
	tasks []webhook.Task
}

func (q *queue) EnqueueAll(_ context.Context, ts []webhook.Task) []error {
	q.mu.Lock()
	defer q.mu.Unlock()
	errs := make([]error, len(ts))
	for i, t := range ts {
		if errs[i] = q.err; q.err == nil {
			q.tasks = append(q.tasks, t)
		}
	}
	return errs
}

func (q *queue) queued() []webhook.Task {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.tasks)
}

// sender is a webhook sender whose every attempt has result.
type sender struct {
	mu     sync.Mutex
	result webhook.Result
	posts  []post
}

type post struct {
	url     string
	headers map[string]string
	body    []byte
}

func (s *sender) Send(_ context.Context, url string, headers map[string]string, body []byte) webhook.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts = append(s.posts, post{url, headers, body})
	return s.result
}

func (s *sender) sent() []post {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.posts)
}

// mailer keeps the alerts it sends, or fails every send with err.
type mailer struct {
	mu     sync.Mutex
	err    error
	alerts []alert
}

type alert struct{ to, subject, text string }

func (m *mailer) SendAlert(_ context.Context, to, subject, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.alerts = append(m.alerts, alert{to, subject, text})
	return nil
}

func (m *mailer) sent() []alert {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.alerts)
}

// teams finds the teams it holds.
type teams map[string]patio.Team

func (ts teams) Team(_ context.Context, id string) (patio.Team, error) {
	t, ok := ts[id]
	if !ok {
		return t, patio.NotFoundf("team %s not found", id)
	}
	return t, nil
}
