package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/httpapi"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/sesmail"
	"github.com/patio-dev/patio/shared/webhook"
	"github.com/patio-dev/patio/shared/webhooksig"
)

// The compressed schedule of these tests, and a one-second hop so that waits of 2 s and more are
// carried by several queue messages.
const (
	testSchedule = "0s,1s,2s,3s,4s,5s"
	testMaxHop   = "1s"
	testTimeout  = 2 * time.Second // WEBHOOK_TIMEOUT: a receiver sleeping longer times out
	// testSweepAfter is WEBHOOK_SWEEP_AFTER: an attempt this overdue is queued again; the sweep
	// runs every half of it.
	testSweepAfter = 3 * time.Second
)

var testGaps = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second}

// received is one request a receiver got.
type received struct {
	at     time.Time
	header http.Header
	body   []byte
	event  map[string]any
}

// receiver is an HTTPS webhook receiver written from the published signature rules alone
// (docs/webhooks.md, Verifying signatures): it checks the signature itself (HMAC-SHA256 of
// "<timestamp>.<raw body>", hex, constant-time, 300 s tolerance) and answers with status(n) for its
// n-th request (1-based).
type receiver struct {
	t      testing.TB
	srv    *httptest.Server
	secret string
	status func(n int) int
	// sleep, when set, is how long the receiver takes before it answers; body, when set, gives the
	// body of its n-th answer, and retryAfter its Retry-After header ("" for none).
	sleep      time.Duration
	body       func(n int) string
	retryAfter func(n int) string
	mu         sync.Mutex
	got        []received
	bad        []string
	// inFlight and peak count the requests being answered at once.
	inFlight, peak int
}

func newReceiver(t testing.TB, status func(n int) int) *receiver {
	r := &receiver{t: t, status: status}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	now := time.Now()
	r.mu.Lock()
	r.inFlight++
	r.peak = max(r.peak, r.inFlight)
	sleep := r.sleep
	r.mu.Unlock()
	if sleep > 0 {
		// The sender gives up at its timeout: from then on the request is no longer in flight.
		select {
		case <-time.After(sleep):
		case <-req.Context().Done():
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inFlight--
	ts := req.Header.Get("X-Service-Timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	mac := hmac.New(sha256.New, []byte(r.secret))
	mac.Write([]byte(ts + "." + string(body)))
	want := hex.EncodeToString(mac.Sum(nil))
	switch {
	case err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 300*time.Second:
		r.bad = append(r.bad, "timestamp "+ts)
	case !hmac.Equal([]byte(req.Header.Get("X-Service-Signature")), []byte(want)):
		r.bad = append(r.bad, "signature of "+string(body))
	case req.Header.Get("Content-Type") != "application/json":
		r.bad = append(r.bad, "content type "+req.Header.Get("Content-Type"))
	}
	if webhooksig.VerifyStandard(r.secret, req.Header, body, now) != nil {
		r.bad = append(r.bad, "standard webhooks signature")
	}
	var ev map[string]any
	if json.Unmarshal(body, &ev) != nil {
		r.bad = append(r.bad, "body is not JSON")
	}
	if id, _ := ev["id"].(string); req.Header.Get("X-Service-Event-Id") != id || req.Header.Get("webhook-id") != id {
		r.bad = append(r.bad, "event id headers do not match the body")
	}
	r.got = append(r.got, received{at: now, header: req.Header.Clone(), body: body, event: ev})
	if r.retryAfter != nil {
		if v := r.retryAfter(len(r.got)); v != "" {
			w.Header().Set("Retry-After", v)
		}
	}
	w.WriteHeader(r.status(len(r.got)))
	if r.body != nil {
		_, _ = io.WriteString(w, r.body(len(r.got)))
	}
}

func (r *receiver) snapshot() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		r.t.Errorf("receiver %s rejected deliveries: %v", r.srv.URL, r.bad)
		r.bad = nil
	}
	return slices.Clone(r.got)
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func always(code int) func(int) int { return func(int) int { return code } }

// pipeline is the webhook machinery of a test package: the dispatcher fed from the DynamoDB Local
// streams (every resource table, activities and financial records included), the deliverer fed
// from the moto queue and the sweeper on a ticker, exactly as the local stack runs them.
type pipeline struct {
	awsCfg   aws.Config
	cfg      app.Config
	tables   map[string]string
	logger   *slog.Logger
	store    *dynamostore.Store
	admin    webhook.Webhooks
	dispatch workers.StreamHandler
	deliver  workers.QueueHandler
	sweep    workers.SweepHandler
	mu       sync.Mutex
	batches  []events.DynamoDBEvent
}

var (
	pipeOnce sync.Once
	pipe     *pipeline
	pipeErr  error
)

// startPipeline returns the package's pipeline, on the tables and queues testenv.Tables made,
// running from its first call until the test binary ends.
func startPipeline(t testing.TB) *pipeline {
	t.Helper()
	tables := testenv.Tables(t)
	requireMoto(t)
	pipeOnce.Do(func() {
		pipe, pipeErr = newPipeline(t, tables, os.LookupEnv)
		if pipeErr == nil {
			pipe.run(context.Background(), "")
		}
	})
	if pipeErr != nil {
		t.Fatal(pipeErr)
	}
	return pipe
}

func requireMoto(t testing.TB) {
	t.Helper()
	if os.Getenv("AWS_ENDPOINT_URL_SQS") == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("moto (AWS_ENDPOINT_URL_SQS) is required under CI=true")
		}
		t.Skip("moto is not running; run under `go run ./cmd/local with-engines -- go test ...`")
	}
}

// newPipeline builds the handlers of a pipeline on tables, configured through env (the functions'
// environment) with the local knobs of these tests over it. run starts it.
func newPipeline(t testing.TB, tables map[string]string, env func(string) (string, bool)) (*pipeline, error) {
	testenv.AWSConfig(t)
	// awsconfig.Load, with the functions' logger (app.SDKLogger), which drops DynamoDB Local's checksum false alarms.
	awsCfg, err := awsconfig.Load(context.Background())
	if err != nil {
		return nil, err
	}
	// The receivers' certificate (every httptest TLS server shares it) becomes WEBHOOK_CA_FILE.
	probe := httptest.NewTLSServer(http.NotFoundHandler())
	pemFile := filepath.Join(os.TempDir(), fmt.Sprintf("patio-webhook-ca-%d.pem", os.Getpid()))
	err = os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: probe.Certificate().Raw}), 0o600)
	probe.Close()
	if err != nil {
		return nil, err
	}
	// The local knobs over the functions' environment, as the local stack gives them.
	knobs := map[string]string{
		"WEBHOOK_RETRY_SCHEDULE": testSchedule, "WEBHOOK_MAX_HOP": testMaxHop, "WEBHOOK_TIMEOUT": testTimeout.String(),
		"WEBHOOK_SWEEP_AFTER": testSweepAfter.String(), "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true", "WEBHOOK_CA_FILE": pemFile,
	}
	lookup := func(name string) (string, bool) {
		if v, ok := knobs[name]; ok {
			return v, true
		}
		return env(name)
	}
	c, err := app.LoadConfig(lookup, app.DispatcherFunction, app.DelivererFunction, app.SweeperFunction, app.AdminTool)
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	if err := sesmail.New(awsCfg, c.AlertSender).VerifySender(context.Background()); err != nil {
		return nil, err
	}
	p := &pipeline{awsCfg: awsCfg, cfg: c, tables: tables, logger: logger, store: dynamostore.New(awsCfg, c.Tables)}
	if p.admin, err = workers.Webhooks(awsCfg, c); err != nil {
		return nil, err
	}
	if p.dispatch, err = workers.Dispatcher(awsCfg, c, logger); err != nil {
		return nil, err
	}
	if p.deliver, err = workers.Deliverer(awsCfg, c, logger); err != nil {
		return nil, err
	}
	if p.sweep, err = workers.Sweeper(awsCfg, c, logger); err != nil {
		return nil, err
	}
	return p, nil
}

// run starts the pollers and the sweep's ticker until ctx ends, keeping the stream positions in
// checkpoints ("": none); the returned function waits for them to stop.
func (p *pipeline) run(ctx context.Context, checkpoints string) (wait func()) {
	recording := func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		p.mu.Lock()
		p.batches = append(p.batches, ev)
		p.mu.Unlock()
		return p.dispatch(ctx, ev)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = localaws.PollStreams(ctx, p.awsCfg, []string{p.tables["VehiclesTable"], p.tables["ClientsTable"], p.tables["DealsTable"],
			p.tables["ActivitiesTable"], p.tables["FinancialTable"]}, recording, p.logger, localaws.StreamOptions{Checkpoints: checkpoints})
	})
	wg.Go(func() { _ = localaws.PollQueue(ctx, p.awsCfg, p.cfg.QueueURL, p.deliver, p.logger, 0) })
	wg.Go(func() { localaws.Every(ctx, testSweepAfter/2, p.sweep, p.logger) })
	return wg.Wait
}

// team creates a team with a unique email.
func (p *pipeline) team(t testing.TB) patio.Team {
	t.Helper()
	team, err := patio.NewTeam("Webhook test "+t.Name(), fmt.Sprintf("ops+%d@dealer.example", time.Now().UnixNano()), "starter")
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(p.store.DB()).CreateTeam(context.Background(), team); err != nil {
		t.Fatal(err)
	}
	return team
}

// hook registers a webhook of team to r for events and gives r its secret.
func (p *pipeline) hook(t testing.TB, team patio.Team, r *receiver, events ...string) webhook.Webhook {
	t.Helper()
	w, secret, err := p.admin.Create(context.Background(), team.ID, webhook.Settings{URL: r.srv.URL + "/hooks/patio", Events: events})
	if err != nil {
		t.Fatalf("Create webhook: %v", err)
	}
	r.mu.Lock()
	r.secret = secret
	r.mu.Unlock()
	return w
}

// hookAt stores a webhook of team to r created at the given time (as if it had existed since),
// and gives r its secret.
func (p *pipeline) hookAt(t testing.TB, team patio.Team, r *receiver, at time.Time, events ...string) webhook.Webhook {
	t.Helper()
	w, err := webhook.New(team.ID, r.srv.URL+"/hooks/patio", events, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := webhookdb.New(p.store.DB()).CreateWebhook(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.secret = w.Secret
	r.mu.Unlock()
	return w
}

// vehicleIn, clientIn and dealIn decode a JSON body into the use cases' typed input, as the API
// does.
func vehicleIn(t testing.TB, s string) patio.VehicleInput {
	return decoded(t, s, httpapi.DecodeVehicle)
}
func clientIn(t testing.TB, s string) patio.ClientInput { return decoded(t, s, httpapi.DecodeClient) }
func dealIn(t testing.TB, s string) patio.DealInput     { return decoded(t, s, httpapi.DecodeDeal) }

func decoded[In any](t testing.TB, s string, decode func([]byte) (In, error)) In {
	t.Helper()
	in, err := decode([]byte(s))
	if err != nil {
		t.Fatalf("test body %s: %v", s, err)
	}
	return in
}

// check fails the test on err, and returns v: check(t)(vehicles.Create(...)).
func check[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func eventTypes(got []received) []string {
	var out []string
	for _, g := range got {
		out = append(out, g.event["type"].(string))
	}
	slices.Sort(out)
	return out
}

// TestWebhookEventsEndToEnd changes vehicles, clients and deals through the domain services (real
// DynamoDB Local writes), and checks that every event type reaches the team's receiver, signed,
// with the documented payload (docs/webhooks.md), and that another team's receiver gets none of it.
func TestWebhookEventsEndToEnd(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	teamA, teamB := p.team(t), p.team(t)
	recvA, recvB := newReceiver(t, always(200)), newReceiver(t, always(200))
	hookA := p.hook(t, teamA, recvA, "*")
	p.hook(t, teamB, recvB, "vehicle.created", "deal.won")

	vehicles := patio.NewVehicles(p.store.Vehicles())
	clients := patio.NewClients(p.store.Clients())
	deals := patio.NewDeals(p.store.Deals(), p.store.Vehicles())

	v1 := check[patio.Vehicle](t)(vehicles.Create(ctx, teamA.ID, vehicleIn(t, `{"brand":"Toyota","model":"Corolla","price":119990.50}`)))
	check[patio.Vehicle](t)(vehicles.Update(ctx, teamA.ID, v1.ID, vehicleIn(t, `{"price":115000,"phase":"disponivel"}`)))
	check[patio.Vehicle](t)(vehicles.Update(ctx, teamA.ID, v1.ID, vehicleIn(t, `{"status":"vendido"}`)))
	check[patio.Vehicle](t)(vehicles.Archive(ctx, teamA.ID, v1.ID))
	c := check[patio.Client](t)(clients.Create(ctx, teamA.ID, clientIn(t, `{"type":"individual","name":"Ana Souza","cpf":"52998224725"}`)))
	check[patio.Client](t)(clients.Update(ctx, teamA.ID, c.ID, clientIn(t, `{"name":"Ana S. Souza"}`)))
	v2 := check[patio.Vehicle](t)(vehicles.Create(ctx, teamA.ID, vehicleIn(t, `{"brand":"Fiat","model":"Argo","price":80000}`)))
	d1 := check[patio.Deal](t)(deals.Create(ctx, teamA.ID, dealIn(t, fmt.Sprintf(`{"title":"Argo","client_id":%q,"vehicle_id":%q}`, c.ID, v2.ID))))
	check[patio.Deal](t)(deals.Update(ctx, teamA.ID, d1.ID, dealIn(t, `{"phase":"visita"}`)))
	check[patio.Deal](t)(deals.Update(ctx, teamA.ID, d1.ID, dealIn(t, `{"status":"ganho","value":79000,"payment_method":"pix"}`)))
	d2 := check[patio.Deal](t)(deals.Create(ctx, teamA.ID, dealIn(t, fmt.Sprintf(`{"title":"Outro","client_id":%q}`, c.ID))))
	check[patio.Deal](t)(deals.Update(ctx, teamA.ID, d2.ID, dealIn(t, `{"status":"perdido","lost_reason":"preco"}`)))
	check[patio.Client](t)(clients.Archive(ctx, teamA.ID, c.ID))

	want := map[string]bool{} // every type of the public resources (the modules' have their own test)
	for _, typ := range webhook.EventTypes {
		if !strings.HasPrefix(typ, "activity.") && !strings.HasPrefix(typ, "financial.") {
			want[typ] = true
		}
	}
	waitFor(t, "every event type at team A's receiver", 30*time.Second, func() bool {
		seen := map[string]bool{}
		for _, g := range recvA.snapshot() {
			seen[g.event["type"].(string)] = true
		}
		for typ := range want {
			if !seen[typ] {
				return false
			}
		}
		return true
	})
	time.Sleep(time.Second) // late duplicates would show now
	got := recvA.snapshot()
	ids := map[string]bool{}
	for _, g := range got {
		e := g.event
		id, _ := e["id"].(string)
		if ids[id] {
			t.Errorf("event %s delivered twice to a receiver that answered 200", id)
		}
		ids[id] = true
		if !strings.HasPrefix(id, "evt_") || e["api_version"] != "v1" || e["team_id"] != teamA.ID || e["webhook_id"] != hookA.ID {
			t.Errorf("payload %s: want evt_ id, api_version v1, team_id %s, webhook_id %s", g.body, teamA.ID, hookA.ID)
		}
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(e["created_at"])); err != nil {
			t.Errorf("created_at of %s = %v; want a UTC timestamp", id, e["created_at"])
		}
		data, _ := e["data"].(map[string]any)
		obj, _ := data["object"].(map[string]any)
		if obj == nil || obj["id"] == nil {
			t.Errorf("payload %s: data.object with an id wanted", g.body)
		}
		prev, present := data["previous_attributes"]
		typ := e["type"].(string)
		switch {
		case !present:
			t.Errorf("%s: data.previous_attributes missing", typ)
		case strings.HasSuffix(typ, ".created") && prev != nil:
			t.Errorf("%s: previous_attributes = %v; want null", typ, prev)
		case !strings.HasSuffix(typ, ".created") && prev == nil:
			t.Errorf("%s: previous_attributes = null; want the changed fields", typ)
		}
		if typ == webhook.VehiclePriceChanged {
			pa := prev.(map[string]any)
			delete(pa, "updated_at") // present unless both writes fell in the same second
			if pa["price"] != 119990.5 || pa["phase"] != "preparacao" || pa["revision"] != 1.0 || len(pa) != 3 {
				t.Errorf("vehicle.price_changed previous_attributes = %v; want price, phase, revision 1 (and updated_at) only", pa)
			}
			if obj["price"] != 115000.0 {
				t.Errorf("vehicle.price_changed object price = %v; want 115000", obj["price"])
			}
		}
		for _, k := range []string{"id", "title", "brand", "model", "price", "phase", "status", "created_at"} {
			if strings.HasPrefix(typ, "vehicle.") {
				if _, ok := obj[k]; !ok {
					t.Errorf("%s: data.object lacks %s", typ, k)
				}
			}
		}
	}
	if got := recvB.snapshot(); len(got) != 0 {
		t.Errorf("team B's receiver got %d requests of team A's events: %v", len(got), eventTypes(got))
	}

	// Team B's own event reaches B only.
	check[patio.Vehicle](t)(vehicles.Create(ctx, teamB.ID, vehicleIn(t, `{"brand":"VW","model":"Gol","price":50000}`)))
	waitFor(t, "team B's vehicle.created", 15*time.Second, func() bool { return len(recvB.snapshot()) == 1 })
	if b := recvB.snapshot()[0]; b.event["team_id"] != teamB.ID || b.event["type"] != webhook.VehicleCreated {
		t.Errorf("team B received %s", b.body)
	}
	if n := len(recvA.snapshot()); n != len(got) {
		t.Errorf("team A's receiver got %d more requests after team B's change", n-len(got))
	}

	// Re-processing every stream batch seen so far creates no new event: no new request, no new
	// delivery record.
	before, err := p.admin.Deliveries(ctx, hookA.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	batches := slices.Clone(p.batches)
	p.mu.Unlock()
	for _, b := range batches {
		resp, err := p.dispatch(ctx, b)
		if err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("replaying a stream batch = %+v, %v", resp, err)
		}
	}
	time.Sleep(2 * time.Second)
	if n := len(recvA.snapshot()); n != len(got) {
		t.Errorf("replaying the stream batches delivered %d new requests; want none", n-len(got))
	}
	after, err := p.admin.Deliveries(ctx, hookA.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("replaying the stream batches: %d deliveries, %d before; want the same", len(after), len(before))
	}
	for _, d := range after {
		if d.Status != webhook.DeliverySucceeded || !ids[d.EventID] {
			t.Errorf("delivery %s: status %s, event %s; want succeeded, a received event", d.ID, d.Status, d.EventID)
		}
	}
}

// sentEmails returns the alert emails moto's SES holds for address.
func sentEmails(t *testing.T, address string) []map[string]any {
	t.Helper()
	resp, err := http.Get(os.Getenv("AWS_ENDPOINT_URL_SES") + "/moto-api/data.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var data map[string]map[string][]map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&data); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, m := range data["ses"]["Message"] {
		dest, _ := json.Marshal(m["destinations"])
		if strings.Contains(string(dest), address) {
			out = append(out, m)
		}
	}
	return out
}

// TestWebhookRetriesThenDeactivation: a receiver that always answers 500 sees six attempts of the
// same event at the compressed schedule's times, each signed afresh; the team is warned after the
// fourth; then the webhook is disabled, exactly one alert email goes to the team (naming the URL,
// the last failure, what was cancelled and the commands to recover), and later events are recorded
// as skipped.
func TestWebhookRetriesThenDeactivation(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	team := p.team(t)
	recv := newReceiver(t, always(500))
	hook := p.hook(t, team, recv, "vehicle.created")

	check[patio.Vehicle](t)(patio.NewVehicles(p.store.Vehicles()).Create(ctx, team.ID, vehicleIn(t, `{"brand":"Honda","model":"Civic","price":150000}`)))
	waitFor(t, "six attempts", 40*time.Second, func() bool { return len(recv.snapshot()) >= 6 })
	waitFor(t, "the webhook disabled", 10*time.Second, func() bool {
		w, err := webhookdb.New(p.store.DB()).Webhook(ctx, team.ID, hook.ID)
		return err == nil && w.Status == webhook.StatusDisabled
	})
	time.Sleep(2 * time.Second) // a seventh attempt would show now
	got := recv.snapshot()
	if len(got) != 6 {
		t.Fatalf("receiver got %d attempts; want 6", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].event["id"] != got[0].event["id"] {
			t.Errorf("attempt %d carries event %v; want %v", i+1, got[i].event["id"], got[0].event["id"])
		}
		if string(got[i].body) != string(got[0].body) {
			t.Errorf("attempt %d body differs from the first", i+1)
		}
		gap := got[i].at.Sub(got[i-1].at)
		// Never early; late by at most the queue's whole-second delay (rounded up, so up to 1 s),
		// the local queue's polling and a loaded machine's scheduling.
		if want := testGaps[i-1]; gap < want-200*time.Millisecond || gap > want+2500*time.Millisecond {
			t.Errorf("gap before attempt %d = %s; want %s (within -0.2 s, +2.5 s)", i+1, gap, want)
		}
		if got[i].header.Get("X-Service-Timestamp") == got[0].header.Get("X-Service-Timestamp") {
			t.Errorf("attempt %d reuses the first attempt's timestamp; each attempt is signed afresh", i+1)
		}
	}
	waitFor(t, "the alert email", 10*time.Second, func() bool { return len(sentEmails(t, team.Email)) >= 2 })
	time.Sleep(time.Second)
	// One warning after the 4th failed attempt, one alert when disabled.
	var warnings, alerts []string
	for _, m := range sentEmails(t, team.Email) {
		subject, _ := m["subject"].(string)
		body, _ := m["body"].(string)
		switch {
		case strings.Contains(subject, "será desativado"):
			warnings = append(warnings, body)
		case strings.Contains(subject, "desativado após"):
			alerts = append(alerts, body)
		default:
			t.Errorf("unexpected email %q", subject)
		}
	}
	if len(warnings) != 1 || len(alerts) != 1 {
		t.Fatalf("moto holds %d warnings and %d alerts for %s; want exactly one of each", len(warnings), len(alerts), team.Email)
	}
	// The team's emails are in its language (Portuguese until set) and lead to the webhook's page
	// (named, here where no CONSOLE_URL gives its address; shared/delivery checks the link).
	for _, want := range []string{hook.URL, "status HTTP 500", "Entregas pendentes canceladas: 0.",
		"na página dele no console", "Webhooks, depois " + hook.URL} {
		if !strings.Contains(alerts[0], want) {
			t.Errorf("the alert says:\n%s\nwant it to contain %q", alerts[0], want)
		}
	}
	for _, want := range []string{hook.URL, "status HTTP 500", "será desativado por volta de"} {
		if !strings.Contains(warnings[0], want) {
			t.Errorf("the warning says:\n%s\nwant it to contain %q", warnings[0], want)
		}
	}
	failed := check[[]webhook.Delivery](t)(p.admin.Deliveries(ctx, hook.ID, webhook.DeliveryFailed))
	if len(failed) != 1 || len(failed[0].Attempts) != 6 {
		t.Fatalf("failed deliveries = %+v; want one with 6 attempts", failed)
	}
	for i, a := range failed[0].Attempts {
		if a.StatusCode != 500 || a.ErrorClass != webhook.ErrHTTPStatus || (i < 5) != (a.NextAttemptAt != nil) {
			t.Errorf("attempt %d recorded as %+v; want 500, http_status, a next attempt time except on the last", i+1, a)
		}
	}

	// While disabled: a new event is recorded as skipped and not sent.
	check[patio.Vehicle](t)(patio.NewVehicles(p.store.Vehicles()).Create(ctx, team.ID, vehicleIn(t, `{"brand":"Honda","model":"Fit","price":90000}`)))
	waitFor(t, "a skipped delivery", 15*time.Second, func() bool {
		s, err := p.admin.Deliveries(ctx, hook.ID, webhook.DeliverySkipped)
		return err == nil && len(s) == 1
	})
	if n := len(recv.snapshot()); n != 6 {
		t.Errorf("receiver got %d requests; a disabled webhook must receive none", n)
	}

	// Enabled again and replayed: the skipped delivery goes out with its own event id.
	recv.mu.Lock()
	recv.status = always(200)
	recv.mu.Unlock()
	check[webhook.Webhook](t)(p.admin.Enable(ctx, hook.ID))
	skipped := check[[]webhook.Delivery](t)(p.admin.Deliveries(ctx, hook.ID, webhook.DeliverySkipped))[0]
	check[webhook.Delivery](t)(p.admin.Replay(ctx, skipped.ID))
	waitFor(t, "the replayed delivery", 15*time.Second, func() bool { return len(recv.snapshot()) == 7 })
	if last := recv.snapshot()[6]; last.event["id"] != skipped.EventID {
		t.Errorf("replay sent event %v; want %s", last.event["id"], skipped.EventID)
	}
}

// TestWebhookReceiverRecovers: after two failures the third attempt succeeds and the retries stop.
func TestWebhookReceiverRecovers(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	team := p.team(t)
	recv := newReceiver(t, func(n int) int {
		if n <= 2 {
			return 503
		}
		return 200
	})
	hook := p.hook(t, team, recv, "client.created")
	check[patio.Client](t)(patio.NewClients(p.store.Clients()).Create(ctx, team.ID, clientIn(t, `{"type":"individual","name":"Bia","cpf":"52998224725"}`)))
	waitFor(t, "three attempts", 20*time.Second, func() bool { return len(recv.snapshot()) >= 3 })
	time.Sleep(4 * time.Second) // the fourth attempt would come 3 s after the third
	if n := len(recv.snapshot()); n != 3 {
		t.Errorf("receiver got %d attempts; want 3 (retries stop after a success)", n)
	}
	ok := check[[]webhook.Delivery](t)(p.admin.Deliveries(ctx, hook.ID, webhook.DeliverySucceeded))
	if len(ok) != 1 || ok[0].Attempt != 3 {
		t.Errorf("succeeded deliveries = %+v; want one after 3 attempts", ok)
	}
	if w := check[webhook.Webhook](t)(webhookdb.New(p.store.DB()).Webhook(ctx, team.ID, hook.ID)); w.Status != webhook.StatusActive {
		t.Errorf("webhook status = %s; want active", w.Status)
	}
}

// TestWebhookTargetsRefusedOutsideTheLocalStack: without the local knob, http:// and non-public
// targets are refused when the webhook is created.
func TestWebhookTargetsRefusedOutsideTheLocalStack(t *testing.T) {
	p := startPipeline(t)
	cfg := p.cfg
	cfg.AllowPrivateTargets = false
	admin, err := workers.Webhooks(testenv.AWSConfig(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://example.com/hook", "https://127.0.0.1/hook", "https://169.254.169.254/latest",
		"https://10.0.0.8/hook", "https://localhost/hook", "https://[::1]/hook"} {
		if _, _, err := admin.Create(context.Background(), "team", webhook.Settings{URL: u, Events: []string{"*"}}); !patio.IsKind(err, patio.KindInvalid) {
			t.Errorf("Create(%q) = %v; want KindInvalid", u, err)
		}
	}
}

// TestWebhookSampleEvents feeds the sample events (events/dispatcher-*.json as DynamoDB Streams
// delivers them, events/deliverer-*.json as SQS does) through the functions' handlers.
func TestWebhookSampleEvents(t *testing.T) {
	p := startPipeline(t)
	ctx := context.Background()
	stream := loadSample[events.DynamoDBEvent](t, "dispatcher-vehicles.json")
	team := stream.Records[0].Change.NewImage["pk"].String()
	recv := newReceiver(t, always(200))
	// A webhook receives only changes made at or after its creation: this one predates the sample.
	p.hookAt(t, patio.Team{ID: team}, recv, stream.Records[0].Change.ApproximateCreationDateTime.Add(-time.Hour), "*")

	resp, err := p.dispatch(ctx, stream)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("dispatcher(sample) = %+v, %v; want no failures", resp, err)
	}
	waitFor(t, "the sample's four events", 15*time.Second, func() bool { return len(recv.snapshot()) >= 4 })
	time.Sleep(time.Second)
	got := recv.snapshot()
	want := []string{webhook.VehicleCreated, webhook.VehiclePhaseChanged, webhook.VehiclePriceChanged, webhook.VehicleUpdated}
	if types := eventTypes(got); !slices.Equal(types, want) {
		t.Fatalf("sample events delivered %v; want %v (the guard item yields none)", types, want)
	}
	modify := stream.Records[2]
	for _, g := range got {
		typ := g.event["type"].(string)
		src := modify
		if typ == webhook.VehicleCreated {
			src = stream.Records[0]
		}
		if g.event["id"] != webhook.EventID(src.EventID, typ) {
			t.Errorf("%s id = %v; want the id derived from stream record %s", typ, g.event["id"], src.EventID)
		}
		// The change's time as the record states it, never the stream's approximate time.
		field := "updated_at"
		if typ == webhook.VehicleCreated {
			field = "created_at"
		}
		if want := src.Change.NewImage[field].String(); g.event["created_at"] != want {
			t.Errorf("%s created_at = %v; want the record's %s %s", typ, g.event["created_at"], field, want)
		}
	}

	queue := loadSample[events.SQSEvent](t, "deliverer-tasks.json")
	qresp, err := p.deliver(ctx, queue)
	if err != nil {
		t.Fatal(err)
	}
	// The task of an unknown delivery is dropped (done); the malformed message is reported alone.
	if len(qresp.BatchItemFailures) != 1 || qresp.BatchItemFailures[0].ItemIdentifier != queue.Records[1].MessageId {
		t.Errorf("deliverer(sample) failures = %+v; want only %s", qresp.BatchItemFailures, queue.Records[1].MessageId)
	}
}
