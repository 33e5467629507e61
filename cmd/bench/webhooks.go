package main

import (
	"cmp"
	"context"
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The webhook budgets (docs/webhooks.md, "Throughput"), and the receivers they are measured with.
const (
	slow50Sleep     = 50 * time.Millisecond
	slow50Budget    = 4 * 4 * float64(time.Second/slow50Sleep) // four times a fixed bound of 4, events/s
	callsBudget     = 1.2
	searchLagBudget = time.Second // how soon a filtered list (q) reflects a write at the lag runs' rate
	// indexBacklogBudget is how soon the indexer follows the backlog of changes written while the
	// pipeline was stopped (1,000 by default).
	indexBacklogBudget = 5 * time.Second
	slowBudget         = 1.5
	// The throttling receiver answers every throttleEvery-th request 429; a request within
	// throttleGrace of a 429 was in flight when it was answered.
	throttledBacklog, throttleEvery, throttleRetryAfter = 200, 3, 2
	throttleGrace                                       = 100 * time.Millisecond
	throttleSchedule                                    = "0s,1s,1s,1s,1s,1s"
)

// webhookOptions are the webhook bench's flags.
type webhookOptions struct {
	backlog, rate       int           // changes drained; writes per second of the lag runs
	duration, slowSleep time.Duration // length of each lag run; the timing-out receiver's sleep
}

// callStats counts the pipeline's AWS calls per operation ("DynamoDB PutItem").
type callStats struct {
	mu sync.Mutex
	n  map[string]int
}

// take returns the counts since the last take, and resets them.
func (s *callStats) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.n
	s.n = map[string]int{}
	return n
}

// counted returns cfg with a middleware that counts every call in s.
func counted(cfg aws.Config, s *callStats) aws.Config {
	cfg = cfg.Copy()
	cfg.APIOptions = append(slices.Clone(cfg.APIOptions), func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("benchCount", func(ctx context.Context, in middleware.InitializeInput,
			next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			s.mu.Lock()
			op := middleware.GetServiceID(ctx) + " " + middleware.GetOperationName(ctx)
			if op == " " { // a call of shared/awsjson, which names it as the SDK's aws/middleware reads
				op = awsmiddleware.GetServiceID(ctx) + " " + awsmiddleware.GetOperationName(ctx)
			}
			s.n[op]++
			s.mu.Unlock()
			return out, md, err
		}), middleware.Before)
	})
	return cfg
}

// benchReceiver is the bench's HTTPS receiver: it checks signatures and keeps, per webhook, each
// object's first delivery and the event ids answered; it may sleep, answer late, or answer 429.
type benchReceiver struct {
	srv                  *httptest.Server
	sleep, delay         time.Duration
	throttle, retryAfter int

	mu       sync.Mutex
	secrets  map[string]string               // webhook id → its secret (several teams' webhooks may share the receiver)
	arrived  map[string]map[string]time.Time // webhook id → object id → first delivery
	events   map[string]map[string]bool      // webhook id → event ids answered 2xx
	bad      int
	requests int
	holds    []time.Time // when each 429 was answered
	// throttled counts, per event id, the requests answered 429.
	throttled map[string]int
	// Requests during a hold: later than throttleGrace after its 429, within it.
	early, inFlight int
}

// newBenchReceiver starts a receiver that sleeps for sleep, answers after delay.
func newBenchReceiver(sleep, delay time.Duration) *benchReceiver {
	r := &benchReceiver{sleep: sleep, delay: delay, secrets: map[string]string{}, arrived: map[string]map[string]time.Time{},
		events: map[string]map[string]bool{}, throttled: map[string]int{}}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	return r
}

// serve answers one delivery.
func (r *benchReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	now := time.Now()
	if r.sleep > 0 {
		sleepCtx(req.Context(), r.sleep)
		return
	}
	time.Sleep(r.delay)
	var ev struct {
		WebhookID string `json:"webhook_id"`
		Data      struct{ Object struct{ ID string } }
	}
	_ = json.Unmarshal(body, &ev)
	r.mu.Lock()
	defer r.mu.Unlock()
	secret, known := r.secrets[ev.WebhookID]
	ok := known && hmac.Equal([]byte(req.Header.Get(webhook.HeaderSignature)), []byte(webhook.SignHex(secret, req.Header.Get(webhook.HeaderTimestamp), body)))
	if !ok {
		r.bad++
	}
	r.requests++
	for _, h := range r.holds {
		switch since := now.Sub(h); {
		case since < 0 || since >= time.Duration(r.retryAfter)*time.Second:
		case since <= throttleGrace:
			r.inFlight++
		default:
			r.early++
		}
	}
	if r.throttle > 0 && r.requests%r.throttle == 0 {
		r.holds = append(r.holds, time.Now())
		r.throttled[req.Header.Get(webhook.HeaderEventID)]++
		w.Header().Set("Retry-After", strconv.Itoa(r.retryAfter))
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	if r.arrived[ev.WebhookID] == nil {
		r.arrived[ev.WebhookID], r.events[ev.WebhookID] = map[string]time.Time{}, map[string]bool{}
	}
	if _, seen := r.arrived[ev.WebhookID][ev.Data.Object.ID]; !seen {
		r.arrived[ev.WebhookID][ev.Data.Object.ID] = now
	}
	r.events[ev.WebhookID][req.Header.Get(webhook.HeaderEventID)] = true
	w.WriteHeader(http.StatusOK)
}

// arrivals returns a copy of the first arrivals for a webhook id.
func (r *benchReceiver) arrivals(webhookID string) map[string]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.arrived[webhookID])
}

// whBench is one run of the webhook bench (and of the timer's): cfg is the bench's configuration,
// pipeCfg the pipeline's (its calls counted), checkpoints the stream positions.
type whBench struct {
	o                   webhookOptions
	cfg, pipeCfg        aws.Config
	calls               *callStats
	conf                app.Config
	tables              map[string]string
	store               *dynamostore.Store
	recv                *benchReceiver
	teamID, checkpoints string
	hook                webhook.Webhook
	vehicles            patio.Vehicles
	logger              *slog.Logger
}

// whReport is what the webhook bench measured: rates in events/s, calls and write units per
// delivery, lags; searchLag is from a write of the first lag run to the indexer done with it.
type whReport struct {
	o                              webhookOptions
	drainDDB, drainWCU, slow50Rate float64
	slow50Bound, slowSent          int
	throttled                      throttleReport
	lagA, lagB, searchLag          result
	badSignatures, missingAB       int
	searchMissing, backlogN        int
	indexBacklog, elapsed          time.Duration
	trip                           webhookTrip
}

// throttleReport is the drain to a receiver that answers 429 with Retry-After, with the deliveries
// still pending at the deadline by what held them. A delivery that failed after six 429s of its
// own (refused, each attempt, by the receiver's every-third rule) is no loss: refused is what
// a delivery whose receiver keeps refusing it becomes. lost counts every other delivery not
// delivered, and unfinished describes each delivery not delivered, its attempts one by one.
type throttleReport struct {
	backlog, delivered, failed, refused, lost, requests, holds, early, inFlight int
	pending                                                                     map[string]int
	unfinished                                                                  []string
	took                                                                        time.Duration
}

// expectedRefused is how many of n deliveries a receiver answering one request in every
// throttleEvery 429 refuses six times, when which request gets the 429 is left to chance (the
// sends after a hold go out together, in no set order): n ÷ throttleEvery^6.
func expectedRefused(n int) float64 {
	return float64(n) / math.Pow(throttleEvery, webhook.MaxAttempts)
}

// runWebhookBench measures the webhook pipeline on tables of its own.
func runWebhookBench(ctx context.Context, o webhookOptions) *whReport {
	started := time.Now()
	b := setupWebhookBench(ctx, o)
	defer b.recv.srv.Close()
	rep := &whReport{o: o}
	progress("webhooks: writing a backlog of %d vehicle changes", o.backlog)
	backlog := must(writeVehicles(ctx, b.vehicles, b.teamID, o.backlog, 16, 0))
	progress("webhooks: the pipeline drains the backlog")
	b.drain(ctx, rep)
	progress("webhooks: one event's trip recorded function by function")
	rep.trip = b.traceTrip(ctx)
	rep.drainWCU = rep.trip.dispatch.writes + rep.trip.deliver.writes
	progress("webhooks: a backlog of %d to a receiver that answers in %s", o.backlog, slow50Sleep)
	rep.slow50Rate, rep.slow50Bound = b.drainSlow50(ctx)
	progress("webhooks: a backlog of %d to a receiver that answers 429 to one request in %d", throttledBacklog, throttleEvery)
	rep.throttled = b.drainThrottled(ctx)
	// Lag at o.rate writes/s, without then with a timing-out webhook, and the indexer as the local
	// stack wires it, once it followed the backlog and the other drains' changes (one shard, in
	// order: a change written now comes after them all).
	progress("webhooks: the indexer follows the backlog")
	indexed, stopIndexer := b.startIndexer(ctx)
	defer stopIndexer()
	rep.backlogN = len(backlog)
	rep.indexBacklog, _ = indexed.wait(ctx, backlog, 5*time.Minute)
	_, _ = indexed.wait(ctx, must(writeVehicles(ctx, b.vehicles, b.teamID, 1, 1, 0)), 5*time.Minute)
	stopPipe := b.startPipeline(ctx, b.conf)
	defer stopPipe()
	progress("webhooks: lag at %d writes/s for %s", o.rate, o.duration)
	var written map[string]time.Time
	rep.lagA, rep.missingAB, written = b.lagRun(ctx)
	_, _ = indexed.wait(ctx, written, time.Minute)
	rep.searchLag, rep.searchMissing = lags(written, indexed.times(), nil)
	slow := newBenchReceiver(o.slowSleep, 0)
	defer slow.srv.Close()
	_, sw := b.scenario(ctx, "", slow, "")
	progress("webhooks: lag again, beside a webhook whose receiver always times out")
	var missing int
	rep.lagB, missing, _ = b.lagRun(ctx)
	rep.missingAB += missing
	b.recv.mu.Lock()
	rep.badSignatures = b.recv.bad
	b.recv.mu.Unlock()
	if ds, err := webhookdb.New(b.store.DB()).Deliveries(ctx, sw.ID, ""); err == nil {
		for _, d := range ds {
			rep.slowSent += d.Attempt
		}
	}
	stopPipe()
	stopIndexer()
	rep.elapsed = time.Since(started)
	return rep
}

// drain runs the pipeline until the backlog arrived, and notes its DynamoDB calls per delivery.
func (b *whBench) drain(ctx context.Context, rep *whReport) {
	b.calls.take()
	stopPipe := b.startPipeline(ctx, b.conf)
	defer stopPipe()
	must(waitArrivals(ctx, b.recv, b.hook.ID, nil, b.o.backlog, 5*time.Minute))
	b.quiesce(ctx)
	n := b.calls.take()
	for op, c := range n {
		if strings.HasPrefix(op, "DynamoDB ") && !strings.HasPrefix(op, "DynamoDB Streams ") {
			rep.drainDDB += float64(c) / float64(b.o.backlog)
		}
	}
}

// scenario stores a team of its own (unless name is "": the bench's team) and a webhook of it,
// subscribed to event (vehicle.created when none), to r.
func (b *whBench) scenario(ctx context.Context, name string, r *benchReceiver, event string) (string, webhook.Webhook) {
	teamID := b.teamID
	if name != "" {
		teamID = storeTeam(ctx, b.store, name).ID
	}
	return teamID, subscribe(ctx, b.store, teamID, r, cmp.Or(event, webhook.VehicleCreated))
}

// backlogTo writes a backlog of n changes of a team of its own, whose webhook's receiver is r,
// then starts the pipeline on conf; stop stops it.
func (b *whBench) backlogTo(ctx context.Context, name string, r *benchReceiver, n int, conf app.Config) (teamID string, hook webhook.Webhook,
	start time.Time, stop func()) {
	teamID, hook = b.scenario(ctx, name, r, "")
	must(writeVehicles(ctx, b.vehicles, teamID, n, 16, 0))
	return teamID, hook, time.Now(), b.startPipeline(ctx, conf)
}

// drainSlow50 drains a backlog of o.backlog changes to a receiver that answers in 50 ms, and
// returns the deliveries per second and the webhook's bound once they all arrived.
func (b *whBench) drainSlow50(ctx context.Context) (float64, int) {
	recv := newBenchReceiver(0, slow50Sleep)
	defer recv.srv.Close()
	team, hook, start, stop := b.backlogTo(ctx, "Webhook bench, 50 ms receiver", recv, b.o.backlog, b.conf)
	defer stop()
	last := must(waitArrivals(ctx, recv, hook.ID, nil, b.o.backlog, 5*time.Minute))
	return float64(b.o.backlog) / last.Sub(start).Seconds(), must(webhookdb.New(b.store.DB()).Gate(ctx, team, hook.ID)).Bound
}

// drainThrottled drains a backlog of throttledBacklog changes to a receiver that answers every
// third request 429 with Retry-After, the retries a second apart, and reports what it saw.
func (b *whBench) drainThrottled(ctx context.Context) throttleReport {
	rep := throttleReport{backlog: throttledBacklog}
	recv := newBenchReceiver(0, 0)
	recv.throttle, recv.retryAfter = throttleEvery, throttleRetryAfter
	defer recv.srv.Close()
	conf := b.conf
	conf.RetrySchedule = must(webhook.ParseSchedule(throttleSchedule))
	_, hook, start, stop := b.backlogTo(ctx, "Webhook bench, throttling receiver", recv, throttledBacklog, conf)
	defer stop()
	// Every delivery ends, delivered or failed after its six attempts; what never does fails the budget.
	for deadline := time.Now().Add(15 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		ds := must(webhookdb.New(b.store.DB()).Deliveries(ctx, hook.ID, ""))
		rep.delivered, rep.failed, rep.pending = 0, 0, map[string]int{}
		for _, d := range ds {
			switch d.Status {
			case webhook.DeliveryPending:
				rep.pending[d.HeldBy]++
			case webhook.DeliverySucceeded:
				rep.delivered++
			default:
				rep.failed++
			}
		}
		pending := len(ds) - rep.delivered - rep.failed
		if len(ds) == throttledBacklog && pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			progress("webhooks: the throttled backlog left %d deliveries pending after 15 minutes", pending)
			break
		}
	}
	rep.took = time.Since(start)
	recv.mu.Lock()
	rep.requests, rep.holds, rep.early, rep.inFlight = recv.requests, len(recv.holds), recv.early, recv.inFlight
	throttled := maps.Clone(recv.throttled)
	recv.mu.Unlock()
	b.explainUnfinished(ctx, hook.ID, throttled, &rep)
	return rep
}

// explainUnfinished describes each delivery of the webhook not delivered, its attempts as
// recorded beside the 429s the receiver answered its event, and counts those refused six times by
// the receiver (failed, every attempt a 429 it answered) apart from those lost.
func (b *whBench) explainUnfinished(ctx context.Context, webhookID string, throttled map[string]int, rep *throttleReport) {
	log := webhookdb.New(b.store.DB())
	ds := must(log.Deliveries(ctx, webhookID, ""))
	for _, d := range ds {
		if d.Status == webhook.DeliverySucceeded {
			continue
		}
		if full, err := log.Delivery(ctx, d.ID); err == nil {
			d = full
		}
		var steps []string
		all429 := len(d.Attempts) == webhook.MaxAttempts
		for _, a := range d.Attempts {
			step := fmt.Sprintf("#%d %d", a.N, a.StatusCode)
			if a.ErrorClass != "" {
				step += " " + a.ErrorClass
			}
			if a.HeldBy != "" {
				step += fmt.Sprintf(" (held by %s %d ms)", a.HeldBy, a.HeldMs)
			}
			steps = append(steps, step)
			all429 = all429 && a.StatusCode == http.StatusTooManyRequests
		}
		if d.Status == webhook.DeliveryFailed && all429 && throttled[d.EventID] >= webhook.MaxAttempts {
			rep.refused++
		} else {
			rep.lost++
		}
		rep.unfinished = append(rep.unfinished, fmt.Sprintf("%s %s: attempts %s; the receiver answered its event 429 %d times",
			d.ID, d.Status, strings.Join(steps, ", "), throttled[d.EventID]))
	}
}

// setupWebhookBench provisions tables of the bench's own, with the pipeline's configuration and a
// team whose webhook predates every change of the bench.
func setupWebhookBench(ctx context.Context, o webhookOptions) *whBench {
	cfg := must(awsconfig.Load(ctx))
	_, _, res := provision(ctx, cfg, "wh")
	recv := newBenchReceiver(0, 0)
	tmp := func(kind string) string {
		return filepath.Join(os.TempDir(), "patio-bench-"+kind+"-"+filepath.Base(res.Tables["VehiclesTable"]))
	}
	caFile := tmp("ca") + ".pem"
	check(writeCAs(caFile, recv.srv.Certificate()))
	vars := maps.Clone(res.Env)
	maps.Copy(vars, map[string]string{"WEBHOOK_ALLOW_PRIVATE_TARGETS": "true", "WEBHOOK_CA_FILE": caFile, "LOG_LEVEL": "ERROR"})
	conf := must(app.LoadConfig(func(name string) (string, bool) { v, ok := vars[name]; return v, ok },
		app.DispatcherFunction, app.DelivererFunction, app.SweeperFunction))
	calls := &callStats{n: map[string]int{}}
	b := &whBench{o: o, cfg: cfg, pipeCfg: counted(cfg, calls), calls: calls, conf: conf, tables: res.Tables,
		store: dynamostore.New(cfg, conf.Tables), recv: recv, logger: slog.New(slog.DiscardHandler), checkpoints: tmp("streams") + ".json"}
	b.teamID, b.vehicles = storeTeam(ctx, b.store, "Webhook bench").ID, patio.NewVehicles(b.store.Vehicles())
	_, b.hook = b.scenario(ctx, "", recv, "")
	return b
}

// startPipeline runs the local stack's pipeline with conf on the counted configuration, on the
// streams of the tables named (the vehicles', clients' and deals' by default), until stop.
func (b *whBench) startPipeline(ctx context.Context, conf app.Config, streams ...string) (stop func()) {
	dispatch := must(workers.Dispatcher(b.pipeCfg, conf, b.logger))
	deliver := must(workers.Deliverer(b.pipeCfg, conf, b.logger))
	sweep := must(workers.Sweeper(b.pipeCfg, conf, b.logger))
	if len(streams) == 0 {
		streams = []string{"VehiclesTable", "ClientsTable", "DealsTable"}
	}
	var tables []string
	for _, id := range streams {
		tables = append(tables, b.tables[id])
	}
	return goUntilStop(ctx,
		func(ctx context.Context) { localaws.Every(ctx, time.Minute, sweep, b.logger) },
		func(ctx context.Context) {
			_ = localaws.PollStreams(ctx, b.pipeCfg, tables, dispatch, b.logger, localaws.StreamOptions{Checkpoints: b.checkpoints})
		},
		func(ctx context.Context) { _ = localaws.PollQueue(ctx, b.pipeCfg, conf.QueueURL, deliver, b.logger, 0) })
}

// goUntilStop runs each of fs in a goroutine until stop, which cancels them and waits.
func goUntilStop(ctx context.Context, fs ...func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(func() { f(ctx) })
	}
	return func() { cancel(); wg.Wait() }
}

// quiesce waits until the pipeline made no DynamoDB write for 1.5 s (the idle pollers' reads go on).
func (b *whBench) quiesce(ctx context.Context) {
	writes := func() (n int) {
		b.calls.mu.Lock()
		defer b.calls.mu.Unlock()
		for op, c := range b.calls.n {
			if strings.HasPrefix(op, "DynamoDB ") && !strings.Contains(op, "Get") && !strings.Contains(op, "Query") &&
				!strings.Contains(op, "Describe") {
				n += c
			}
		}
		return n
	}
	last, since := writes(), time.Now()
	for time.Since(since) < 1500*time.Millisecond && ctx.Err() == nil {
		time.Sleep(250 * time.Millisecond)
		if w := writes(); w != last {
			last, since = w, time.Now()
		}
	}
}

// writeVehicles creates n vehicles of a team through the use case, conc at a time, or one every
// 1/rate second when rate > 0; it returns when each write returned, by vehicle id.
func writeVehicles(ctx context.Context, vehicles patio.Vehicles, teamID string, n, conc, rate int) (map[string]time.Time, error) {
	var (
		mu      sync.Mutex
		written = map[string]time.Time{}
		first   error
		wg      sync.WaitGroup
	)
	one := func(i int) {
		in := patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some(fmt.Sprintf("Bench %d", i)), Price: patio.Some(money.Cents(5000000 + i))}
		v, err := vehicles.Create(ctx, teamID, in)
		mu.Lock()
		defer mu.Unlock()
		if first = cmp.Or(first, err); err == nil {
			written[v.ID] = time.Now()
		}
	}
	if rate > 0 {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for i := range n {
			<-tick.C
			wg.Go(func() { one(i) })
		}
	} else {
		next := newCounter(0)
		for range conc {
			wg.Go(func() {
				for i := next.take(); i < n && ctx.Err() == nil; i = next.take() {
					one(i)
				}
			})
		}
	}
	wg.Wait()
	return written, cmp.Or(first, ctx.Err())
}

// lagRun writes at o.rate for o.duration, and returns the pipeline's lags, the missing arrivals
// and the changes written.
func (b *whBench) lagRun(ctx context.Context) (pipe result, missing int, written map[string]time.Time) {
	before := b.recv.arrivals(b.hook.ID)
	written = must(writeVehicles(ctx, b.vehicles, b.teamID, b.o.rate*int(b.o.duration/time.Second), 0, b.o.rate))
	if _, err := waitArrivals(ctx, b.recv, b.hook.ID, written, len(written), time.Minute); err != nil {
		progress("webhooks: %v", err)
	}
	pipe, missing = lags(written, b.recv.arrivals(b.hook.ID), before)
	return pipe, missing, written
}

// indexTimes is when the indexer was done with each vehicle's first change it handled.
type indexTimes struct {
	mu sync.Mutex
	at map[string]time.Time
}

// startIndexer runs the indexer function's handler on the vehicles table's stream, as the local
// stack does (from the trim horizon, its filter: the records' rows), and records when each batch
// it is done with was done.
func (b *whBench) startIndexer(ctx context.Context) (*indexTimes, func()) {
	index := must(app.Indexer(b.pipeCfg, b.conf, b.logger))
	it := &indexTimes{at: map[string]time.Time{}}
	h := func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		resp, err := index(ctx, ev)
		if err != nil || len(resp.BatchItemFailures) > 0 {
			return resp, err
		}
		now := time.Now()
		it.mu.Lock()
		defer it.mu.Unlock()
		for _, rec := range ev.Records {
			id := strings.TrimPrefix(rec.Change.Keys[storeformat.SortAttr].String(), storeformat.Vehicles.RowPrefix())
			if _, ok := it.at[id]; !ok {
				it.at[id] = now
			}
		}
		return resp, nil
	}
	filter := must(localaws.ParseFilter([]string{`{"dynamodb": {"Keys": {"` + storeformat.SortAttr + `": {"S": [{"prefix": "` + storeformat.Vehicles.RowPrefix() + `"}]}}}}`}))
	table := b.tables["VehiclesTable"]
	return it, goUntilStop(ctx, func(ctx context.Context) {
		_ = localaws.PollStreams(ctx, b.pipeCfg, []string{table}, h, b.logger, localaws.StreamOptions{Filters: map[string]localaws.Filter{table: filter}})
	})
}

// times returns a copy of the times recorded.
func (it *indexTimes) times() map[string]time.Time {
	it.mu.Lock()
	defer it.mu.Unlock()
	return maps.Clone(it.at)
}

// wait waits until the indexer was done with every id of ids (or limit passes), and returns how
// long that took and whether it happened.
func (it *indexTimes) wait(ctx context.Context, ids map[string]time.Time, limit time.Duration) (time.Duration, bool) {
	start := time.Now()
	done := func() bool {
		it.mu.Lock()
		defer it.mu.Unlock()
		for id := range ids {
			if _, ok := it.at[id]; !ok {
				return false
			}
		}
		return true
	}
	ok := waitFor(ctx, limit, 50*time.Millisecond, done)
	return time.Since(start), ok
}

// lags returns the p50 and p99 of arrival − write over the written ids (ignoring arrivals already
// in before), and how many never arrived.
func lags(written, arrived, before map[string]time.Time) (result, int) {
	var ds []time.Duration
	missing := 0
	for id, w := range written {
		at, ok := arrived[id]
		if _, old := before[id]; !ok || old {
			missing++
			continue
		}
		ds = append(ds, at.Sub(w))
	}
	return resultOf(ds), missing
}

// waitArrivals waits until r has n events for webhookID (among ids, when given), and returns the
// last arrival.
func waitArrivals(ctx context.Context, r *benchReceiver, webhookID string, ids map[string]time.Time, n int, limit time.Duration) (time.Time, error) {
	var count int
	var last time.Time
	if waitFor(ctx, limit, 50*time.Millisecond, func() bool {
		count, last = 0, time.Time{}
		for id, at := range r.arrivals(webhookID) {
			if _, ok := ids[id]; ok || ids == nil {
				if count++; at.After(last) {
					last = at
				}
			}
		}
		return count >= n
	}) {
		return last, nil
	}
	return last, fmt.Errorf("webhooks: %d of %d events for %s arrived within %s", count, n, webhookID, limit)
}

// printWebhookReport prints the webhook bench's budgets, each with its figures.
func printWebhookReport(w io.Writer, r *whReport) {
	t := r.throttled
	fmt.Fprintf(w, "\nWebhooks (local pipeline: DynamoDB Local streams → dispatcher → moto SQS → deliverer → HTTPS receiver): a backlog of\n")
	fmt.Fprintf(w, "%d changes drained to one webhook, then to a receiver answering in %s, %d to one answering 429 (Retry-After: %d) to\n",
		r.o.backlog, slow50Sleep, t.backlog, throttleRetryAfter)
	fmt.Fprintf(w, "one request in %d (retries 1 s apart); lag at %d writes/s for %s, without then beside a webhook that always times out\n",
		throttleEvery, r.o.rate, r.o.duration)
	budgets := printTrip(w, r.trip)
	fmt.Fprintf(w, "\nWebhook budgets\n")
	fmt.Fprint(w, strings.Join(budgets, ""))
	budget := func(ok bool, format string, args ...any) {
		fmt.Fprintf(w, "  %-4s "+format+"\n", append([]any{verdict(ok)}, args...)...)
	}
	budget(r.slow50Rate >= slow50Budget, "drain to a 50 ms receiver >= %.0f/s (4x a fixed bound of 4): %s/s (the bound once drained: %d)",
		slow50Budget, perSecond(r.slow50Rate), r.slow50Bound)
	budget(t.early == 0 && t.lost == 0 && t.delivered+t.refused == t.backlog, "a receiver's Retry-After: no request during a hold, every event "+
		"delivered or refused six times by the receiver, none lost: %d early, %d of %d delivered, %d refused six times (%.2f expected by chance), "+
		"%d lost (%d requests, %d answered 429, %d failed, %d sent before a 429 came back, in %s; pending at the end by holder: %v)",
		t.early, t.delivered, t.backlog, t.refused, expectedRefused(t.backlog), t.lost, t.requests, t.holds, t.failed, t.inFlight,
		t.took.Round(time.Second), t.pending)
	for _, u := range t.unfinished {
		fmt.Fprintf(w, "         not delivered: %s\n", u)
	}
	budget(r.drainDDB <= callsBudget, "DynamoDB calls per delivered event <= %.1f: %.2f (%.1f write units per delivery)", callsBudget, r.drainDDB, r.drainWCU)
	slow := ratio(r.lagB.p99, r.lagA.p99)
	budget(slow <= slowBudget && r.missingAB == 0, "healthy p99 beside a timing-out receiver <= %.1fx without: %.2fx (%s vs %s; the timing-out "+
		"webhook got %d attempts; missing arrivals %d, bad signatures %d)", slowBudget, slow, ms(r.lagB.p99), ms(r.lagA.p99), r.slowSent, r.missingAB, r.badSignatures)
	budget(r.searchLag.p99 <= searchLagBudget && r.searchMissing == 0, "a filtered list (q, brand) reflects a write within p99 <= %s at %d writes/s: %s (p50 %s, %d never)",
		searchLagBudget, r.o.rate, ms(r.searchLag.p99), ms(r.searchLag.p50), r.searchMissing)
	budget(r.indexBacklog > 0 && r.indexBacklog <= indexBacklogBudget, "the indexer follows a backlog of %d changes within %s: %s (%.0f changes/s)",
		r.backlogN, indexBacklogBudget, r.indexBacklog.Round(time.Millisecond), float64(r.backlogN)/max(r.indexBacklog.Seconds(), 1e-9))
	fmt.Fprintf(w, "  (webhook bench took %s)\n", r.elapsed.Round(time.Second))
}
