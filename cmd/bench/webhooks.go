package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dynamotypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/workers"
	"github.com/patio-dev/patio/shared/delivery"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The webhook budgets (issue 11, docs/webhooks.md): the local pipeline drains a backlog at half the
// floor's rate or better, and a receiver that always times out leaves a healthy webhook's p99 lag
// within 1.5 times what it is without it.
const (
	drainBudget = 0.5
	slowBudget  = 1.5
)

// webhookOptions are the webhook bench's flags.
type webhookOptions struct {
	backlog   int           // changes drained
	rate      int           // writes per second of the lag runs
	duration  time.Duration // length of each lag run
	slowSleep time.Duration // how long the always-timing-out receiver sleeps
}

// callStats counts the AWS calls of the pipeline, per operation, with their total time.
type callStats struct {
	mu    sync.Mutex
	n     map[string]int
	total map[string]time.Duration
}

func (s *callStats) add(op string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n[op]++
	s.total[op] += d
}

// snapshot returns a copy of the counts and times, and resets them.
func (s *callStats) take() (map[string]int, map[string]time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, total := s.n, s.total
	s.n, s.total = map[string]int{}, map[string]time.Duration{}
	return n, total
}

// counted returns cfg with a middleware that counts every call in s.
func counted(cfg aws.Config, s *callStats) aws.Config {
	cfg = cfg.Copy()
	cfg.APIOptions = append(slices.Clone(cfg.APIOptions), func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("benchCount", func(ctx context.Context, in middleware.InitializeInput,
			next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			start := time.Now()
			out, md, err := next.HandleInitialize(ctx, in)
			s.add(middleware.GetServiceID(ctx)+" "+middleware.GetOperationName(ctx), time.Since(start))
			return out, md, err
		}), middleware.Before)
	})
	return cfg
}

// benchReceiver is the HTTPS receiver of the bench: it checks X-Service-Signature (HMAC-SHA256 of
// "<timestamp>.<body>") and keeps, per webhook id of the payload, when each event first arrived,
// keyed by its object's id.
type benchReceiver struct {
	srv    *httptest.Server
	secret string
	sleep  time.Duration // > 0: answers after sleeping (or when the sender gives up)

	mu      sync.Mutex
	arrived map[string]map[string]time.Time // webhook id → object id → first arrival
	bad     int
}

func newBenchReceiver(sleep time.Duration) *benchReceiver {
	r := &benchReceiver{sleep: sleep, arrived: map[string]map[string]time.Time{}}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	return r
}

func (r *benchReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	now := time.Now()
	if r.sleep > 0 {
		select {
		case <-time.After(r.sleep):
		case <-req.Context().Done():
		}
		return
	}
	ts := req.Header.Get(webhook.HeaderTimestamp)
	ok := hmac.Equal([]byte(req.Header.Get(webhook.HeaderSignature)), []byte(webhook.SignHex(r.secret, ts, body)))
	var ev struct {
		WebhookID string `json:"webhook_id"`
		Data      struct {
			Object struct {
				ID string `json:"id"`
			} `json:"object"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &ev)
	r.mu.Lock()
	if !ok {
		r.bad++
	}
	m := r.arrived[ev.WebhookID]
	if m == nil {
		m = map[string]time.Time{}
		r.arrived[ev.WebhookID] = m
	}
	if _, seen := m[ev.Data.Object.ID]; !seen {
		m[ev.Data.Object.ID] = now
	}
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// arrivals returns a copy of the first arrivals for a webhook id.
func (r *benchReceiver) arrivals(webhookID string) map[string]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]time.Time, len(r.arrived[webhookID]))
	for k, v := range r.arrived[webhookID] {
		out[k] = v
	}
	return out
}

// floorHook is the webhook id the floor loop puts in its payloads, so that the receiver tells its
// requests from the pipeline's.
const floorHook = "floor"

// whBench is one run of the webhook bench.
type whBench struct {
	o        webhookOptions
	cfg      aws.Config // uncounted: the bench's own writes
	tpl      *samtemplate.Template
	pipeCfg  aws.Config // counted: the pipeline's calls
	calls    *callStats
	conf     app.Config
	tables   map[string]string
	store    *dynamostore.Store
	recv     *benchReceiver
	client   *http.Client // the floor's
	teamID   string
	hook     webhook.Webhook
	vehicles patio.Vehicles
	logger   *slog.Logger
}

// whReport is what the webhook bench measured.
type whReport struct {
	backlog                  int
	floorLoopRate, floor4    float64 // events/s: the loop (one POST at a time), and 4 POSTs in flight
	drainRate                float64 // deliveries/s of the pipeline
	drainDDB, drainSQS       float64 // calls per delivery
	drainStreams             float64
	drainOps                 []opRow
	ceiling                  engineCeiling
	lagA, lagB, floorA       lagStats
	slowSent                 int
	writesA, writesB, rate   int
	duration                 time.Duration
	badSignatures, missingAB int
	elapsed                  time.Duration
}

type opRow struct {
	op    string
	n     int
	avg   time.Duration
	share float64 // of the calls' total time
}

type lagStats struct {
	n        int
	p50, p99 time.Duration
}

func runWebhookBench(ctx context.Context, o webhookOptions) (*whReport, error) {
	started := time.Now()
	b, err := setupWebhookBench(ctx, o)
	if err != nil {
		return nil, err
	}
	defer b.recv.srv.Close()
	rep := &whReport{backlog: o.backlog, rate: o.rate, duration: o.duration}

	// 1. The backlog: o.backlog vehicles written with nothing reading the streams yet.
	progress("webhooks: writing a backlog of %d vehicle changes", o.backlog)
	if _, err := b.write(ctx, o.backlog, 16, 0); err != nil {
		return nil, err
	}
	// 2. The floor: the same stream records, read, turned into events, signed and POSTed to the same
	// receiver, with no bookkeeping; once as a loop (one POST at a time), once with as many POSTs in
	// flight as the pipeline may have for one webhook.
	progress("webhooks: floor loops over the backlog")
	for _, conc := range []int{1, delivery.InitialBound} {
		r, err := b.floorDrain(ctx, conc, nil)
		if err != nil {
			return nil, err
		}
		if conc == 1 {
			rep.floorLoopRate = r
		} else {
			rep.floor4 = r
		}
	}
	// 3. The pipeline drains the backlog: dispatcher on the streams, deliverer on the queue.
	progress("webhooks: the pipeline drains the backlog")
	b.calls.take()
	pipeCtx, stopPipe := context.WithCancel(ctx)
	defer stopPipe()
	start := time.Now()
	waitPipe, err := b.startPipeline(pipeCtx, "VehiclesTable", "ClientsTable", "DealsTable")
	if err != nil {
		return nil, err
	}
	defer waitPipe()
	last, err := b.waitArrivals(ctx, b.hook.ID, nil, o.backlog, 5*time.Minute)
	if err != nil {
		n, total := b.calls.take()
		for op, c := range n {
			progress("  %s: %d calls, %s avg", op, c, ms(total[op]/time.Duration(c)))
		}
		return nil, err
	}
	drain := last.Sub(start)
	// The calls are counted until the pipeline is done with the backlog (attempts recorded after
	// their POST arrived): until no DynamoDB write happened for a second and a half.
	b.quiesce(ctx)
	n, total := b.calls.take()
	rep.drainRate = float64(o.backlog) / drain.Seconds()
	var all time.Duration
	for op, c := range n {
		switch {
		case strings.HasPrefix(op, "DynamoDB Streams "):
			rep.drainStreams += float64(c)
		case strings.HasPrefix(op, "DynamoDB "):
			rep.drainDDB += float64(c)
		case strings.HasPrefix(op, "SQS "):
			rep.drainSQS += float64(c)
		}
		all += total[op]
	}
	for op, c := range n {
		rep.drainOps = append(rep.drainOps, opRow{op: op, n: c, avg: total[op] / time.Duration(c), share: float64(total[op]) / float64(all)})
	}
	sort.Slice(rep.drainOps, func(i, j int) bool { return rep.drainOps[i].share > rep.drainOps[j].share })
	rep.drainDDB /= float64(o.backlog)
	rep.drainSQS /= float64(o.backlog)
	rep.drainStreams /= float64(o.backlog)
	progress("webhooks: the engine's ceiling for a delivery's writes")
	if rep.ceiling, err = b.ceiling(ctx); err != nil {
		return nil, err
	}

	// 4. Lag at o.rate writes/s, without then with a webhook whose receiver always times out; the
	// floor loop tails the stream meanwhile and POSTs each change as it comes.
	progress("webhooks: lag at %d writes/s for %s", o.rate, o.duration)
	a, floor, writes, missing, err := b.lagRun(ctx)
	if err != nil {
		return nil, err
	}
	rep.lagA, rep.floorA, rep.writesA, rep.missingAB = a, floor, writes, missing
	slow := newBenchReceiver(o.slowSleep)
	defer slow.srv.Close()
	sw, err := webhook.New(b.teamID, slow.srv.URL+"/in", []string{webhook.VehicleCreated}, time.Now())
	if err != nil {
		return nil, err
	}
	slow.secret = sw.Secret
	if err := b.store.CreateWebhook(ctx, sw); err != nil {
		return nil, err
	}
	progress("webhooks: lag again, beside a webhook whose receiver always times out")
	bl, _, writes, missing, err := b.lagRun(ctx)
	if err != nil {
		return nil, err
	}
	rep.lagB, rep.writesB, rep.missingAB = bl, writes, rep.missingAB+missing
	b.recv.mu.Lock()
	rep.badSignatures = b.recv.bad
	b.recv.mu.Unlock()
	if ds, err := b.store.Deliveries(ctx, sw.ID, ""); err == nil {
		for _, d := range ds {
			rep.slowSent += d.Attempt
		}
	}
	stopPipe()
	rep.elapsed = time.Since(started)
	return rep, nil
}

func setupWebhookBench(ctx context.Context, o webhookOptions) (*whBench, error) {
	cfg, err := app.LoadAWS(ctx)
	if err != nil {
		return nil, err
	}
	tpl, _, err := samtemplate.LoadModule()
	if err != nil {
		return nil, err
	}
	var r [4]byte
	_, _ = rand.Read(r[:])
	prefix := "wh" + hex.EncodeToString(r[:]) + "-"
	res, err := samtemplate.Provision(ctx, dynamodb.NewFromConfig(cfg), sqs.NewFromConfig(cfg), tpl, prefix)
	if err != nil {
		return nil, err
	}
	recv := newBenchReceiver(0)
	caFile := filepath.Join(os.TempDir(), "patio-bench-ca-"+prefix+"pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: recv.srv.Certificate().Raw}), 0o600); err != nil {
		return nil, err
	}
	knobs := map[string]string{"WEBHOOK_ALLOW_PRIVATE_TARGETS": "true", "WEBHOOK_CA_FILE": caFile, "LOG_LEVEL": "ERROR"}
	conf, err := app.LoadConfig(func(name string) (string, bool) {
		if v, ok := knobs[name]; ok {
			return v, true
		}
		v, ok := res.Env[name]
		return v, ok
	}, app.DispatcherFunction, app.DelivererFunction, app.SweeperFunction)
	if err != nil {
		return nil, err
	}
	calls := &callStats{n: map[string]int{}, total: map[string]time.Duration{}}
	b := &whBench{o: o, cfg: cfg, tpl: tpl, pipeCfg: counted(cfg, calls), calls: calls, conf: conf, tables: res.Tables,
		store: dynamostore.New(cfg, conf.Tables), recv: recv, logger: slog.New(slog.DiscardHandler)}
	pool := x509.NewCertPool()
	pool.AddCert(recv.srv.Certificate())
	b.client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: delivery.InitialBound}}
	team, err := storeTeam(ctx, b.store, "Webhook bench")
	if err != nil {
		return nil, err
	}
	b.teamID = team.ID
	// The webhook predates every change of the bench.
	if b.hook, err = webhook.New(team.ID, recv.srv.URL+"/in", []string{webhook.VehicleCreated}, time.Now().Add(-time.Minute)); err != nil {
		return nil, err
	}
	if err := b.store.CreateWebhook(ctx, b.hook); err != nil {
		return nil, err
	}
	recv.secret = b.hook.Secret
	b.vehicles = patio.NewVehicles(b.store.Vehicles())
	return b, nil
}

// startPipeline runs the local stack's webhook pipeline (stream poller → dispatcher on the streams
// of the tables named by their logical ids, queue poller → deliverer, the sweep every minute) on
// the counted configuration until ctx ends; wait waits for it to stop.
func (b *whBench) startPipeline(ctx context.Context, streams ...string) (wait func(), err error) {
	dispatch, err := workers.Dispatcher(b.pipeCfg, b.conf, b.logger)
	if err != nil {
		return nil, err
	}
	deliver, err := workers.Deliverer(b.pipeCfg, b.conf, b.logger)
	if err != nil {
		return nil, err
	}
	sweep, err := workers.Sweeper(b.pipeCfg, b.conf, b.logger)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() { localaws.Every(ctx, time.Minute, sweep, b.logger) })
	var tables []string
	for _, id := range streams {
		tables = append(tables, b.tables[id])
	}
	wg.Go(func() { _ = localaws.PollStreams(ctx, b.pipeCfg, tables, dispatch, b.logger, localaws.StreamOptions{}) })
	wg.Go(func() { _ = localaws.PollQueue(ctx, b.pipeCfg, b.conf.QueueURL, deliver, b.logger) })
	return wg.Wait, nil
}

// ceiling measures the engine's ceiling with items shaped like a delivery of the drain, on a copy
// of the deliveries table as template.yaml declares it (the pipeline idle, nothing else writes
// meanwhile), and the floor loop keeping its deliveries in that copy.
func (b *whBench) ceiling(ctx context.Context) (engineCeiling, error) {
	db := dynamodb.NewFromConfig(b.cfg)
	table := b.tables["DeliveriesTable"]
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("by_webhook"),
		KeyConditionExpression:    aws.String("webhook_id = :w"),
		ExpressionAttributeValues: map[string]dynamotypes.AttributeValue{":w": &dynamotypes.AttributeValueMemberS{Value: b.hook.ID}},
		Limit:                     aws.Int32(1)})
	if err != nil {
		return engineCeiling{}, err
	}
	if len(out.Items) == 0 {
		return engineCeiling{}, errors.New("webhooks: no delivery of the drain to copy")
	}
	tb, ok := b.tpl.Table("DeliveriesTable")
	if !ok {
		return engineCeiling{}, errors.New("webhooks: template.yaml declares no DeliveriesTable")
	}
	copied := tb.CreateTableInput(table + "-ceiling")
	copied.StreamSpecification = nil
	return measureCeiling(ctx, db, copied, out.Items[0], b.o.backlog, func(keep *keeper) (float64, error) {
		return b.floorDrain(ctx, delivery.InitialBound, keep)
	})
}

// quiesce waits until the pipeline made no DynamoDB write for 1.5 s (the idle pollers' reads go on).
func (b *whBench) quiesce(ctx context.Context) {
	writes := func() int {
		b.calls.mu.Lock()
		defer b.calls.mu.Unlock()
		n := 0
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

// write creates n vehicles, conc at a time, or one every 1/rate second when rate > 0; it returns
// when each write returned, by vehicle id.
func (b *whBench) write(ctx context.Context, n, conc, rate int) (map[string]time.Time, error) {
	var (
		mu      sync.Mutex
		written = map[string]time.Time{}
		first   error
		wg      sync.WaitGroup
	)
	one := func(i int) {
		in := patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some(fmt.Sprintf("Bench %d", i)),
			Price: patio.Some(money.Cents(5000000 + i))}
		v, err := b.vehicles.Create(ctx, b.teamID, in)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			first = cmpFirst(first, err)
			return
		}
		written[v.ID] = time.Now()
	}
	if rate > 0 {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for i := range n {
			<-tick.C
			wg.Go(func() { one(i) })
		}
	} else {
		work := make(chan int)
		for range conc {
			wg.Go(func() {
				for i := range work {
					one(i)
				}
			})
		}
		for i := range n {
			work <- i
		}
		close(work)
	}
	wg.Wait()
	return written, first
}

func cmpFirst(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// shards returns the shards of the vehicles table's stream.
func (b *whBench) shards(ctx context.Context, client *dynamodbstreams.Client) (string, []string, error) {
	out, err := dynamodb.NewFromConfig(b.cfg).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(b.tables["VehiclesTable"])})
	if err != nil {
		return "", nil, err
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	desc, err := client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		return "", nil, err
	}
	var ids []string
	for _, s := range desc.StreamDescription.Shards {
		ids = append(ids, aws.ToString(s.ShardId))
	}
	return arn, ids, nil
}

// floorPOST is the signed POST of one vehicle.created event of the floor loops.
type floorPOST struct {
	id   string
	body []byte
}

// floorEvent turns one stream record into the vehicle.created event the floor loops POST for the
// bench's team, or nothing.
func (b *whBench) floorEvent(arn string, r streamtypes.Record) (floorPOST, bool, error) {
	rec := localaws.StreamRecord(arn, r)
	if rec.EventName != string(events.DynamoDBOperationTypeInsert) {
		return floorPOST{}, false, nil
	}
	resource, obj, team, ok, err := dynamostore.DecodeStreamImage(rec.Change.NewImage)
	if err != nil || !ok || team != b.teamID {
		return floorPOST{}, false, err
	}
	evs, err := webhook.Derive(webhook.Change{SourceID: rec.EventID, Resource: resource, TeamID: team, New: obj,
		At: rec.Change.ApproximateCreationDateTime.Time})
	if err != nil || len(evs) == 0 || evs[0].Type != webhook.VehicleCreated {
		return floorPOST{}, false, err
	}
	body, err := evs[0].Payload(floorHook)
	return floorPOST{id: evs[0].ID, body: body}, err == nil, err
}

// post signs and POSTs p to the bench's receiver.
func (b *whBench) post(ctx context.Context, p floorPOST) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.recv.srv.URL+"/in", strings.NewReader(string(p.body)))
	if err != nil {
		return err
	}
	for k, v := range webhook.Headers(p.id, p.body, webhook.Keys{b.hook.Secret}, time.Now()) {
		req.Header[k] = []string{v}
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// keeper is the least bookkeeping of a pipeline that stores each delivery: every delivery written
// before its POST (created pending) and after it (its outcome), chunk at a time in unconditional
// batches. write stores the deliveries of the event ids with a status.
type keeper struct {
	chunk int
	write func(ctx context.Context, ids []string, status string) error
}

// floorChunk POSTs the vehicle.created events of rs one at a time, and with keep writes their
// deliveries before and after; it returns how many it POSTed.
func (b *whBench) floorChunk(ctx context.Context, arn string, rs []streamtypes.Record, keep *keeper) (int, error) {
	var posts []floorPOST
	var ids []string
	for _, r := range rs {
		p, ok, err := b.floorEvent(arn, r)
		if err != nil {
			return 0, err
		}
		if ok {
			posts, ids = append(posts, p), append(ids, p.id)
		}
	}
	if len(posts) == 0 {
		return 0, nil
	}
	if keep != nil {
		if err := keep.write(ctx, ids, webhook.DeliveryPending); err != nil {
			return 0, err
		}
	}
	for i, p := range posts {
		if err := b.post(ctx, p); err != nil {
			return i, err
		}
	}
	if keep != nil {
		if err := keep.write(ctx, ids, webhook.DeliverySucceeded); err != nil {
			return len(posts), err
		}
	}
	return len(posts), nil
}

// floorDrain reads the vehicles stream from its trim horizon and POSTs each vehicle.created of the
// team, conc at a time; with keep, conc chunks of keep.chunk records at a time, each chunk's
// deliveries written as keep says. It returns the events POSTed per second, and an error unless it
// POSTed the whole backlog.
func (b *whBench) floorDrain(ctx context.Context, conc int, keep *keeper) (float64, error) {
	client := dynamodbstreams.NewFromConfig(b.cfg)
	start := time.Now()
	arn, shards, err := b.shards(ctx, client)
	if err != nil {
		return 0, err
	}
	size := 1
	if keep != nil {
		size = keep.chunk
	}
	var (
		sent  atomic.Int64
		first error
		mu    sync.Mutex
		wg    sync.WaitGroup
	)
	work := make(chan []streamtypes.Record, 1000/size+1)
	for range conc {
		wg.Go(func() {
			for rs := range work {
				n, err := b.floorChunk(ctx, arn, rs, keep)
				if err != nil {
					mu.Lock()
					first = cmpFirst(first, err)
					mu.Unlock()
				}
				sent.Add(int64(n))
			}
		})
	}
	read := func() error {
		var chunk []streamtypes.Record
		for _, shard := range shards {
			it, err := client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
				ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
			if err != nil {
				return err
			}
			iter := it.ShardIterator
			for iter != nil {
				out, err := client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(1000)})
				if err != nil {
					return err
				}
				for _, r := range out.Records {
					if chunk = append(chunk, r); len(chunk) == size {
						work <- chunk
						chunk = nil
					}
				}
				if len(out.Records) == 0 {
					break // the open shard's end, for now
				}
				iter = out.NextShardIterator
			}
		}
		if len(chunk) > 0 {
			work <- chunk
		}
		return nil
	}
	err = read()
	close(work)
	wg.Wait()
	took := time.Since(start)
	switch n := int(sent.Load()); {
	case err != nil || first != nil:
		return 0, cmpFirst(err, first)
	case n != b.o.backlog:
		return 0, fmt.Errorf("webhooks: the floor found %d vehicle.created events; want %d", n, b.o.backlog)
	default:
		return float64(n) / took.Seconds(), nil
	}
}

// floorTail tails the vehicles stream from now on and POSTs each vehicle.created as it comes, one at
// a time, polling an idle shard as the local stream poller does, until ctx ends.
func (b *whBench) floorTail(ctx context.Context, ready chan<- struct{}) error {
	client := dynamodbstreams.NewFromConfig(b.cfg)
	arn, shards, err := b.shards(ctx, client)
	if err != nil {
		close(ready)
		return err
	}
	var iters []*string
	for _, shard := range shards {
		it, err := client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
			ShardIteratorType: streamtypes.ShardIteratorTypeLatest})
		if err != nil {
			close(ready)
			return err
		}
		iters = append(iters, it.ShardIterator)
	}
	close(ready)
	for ctx.Err() == nil {
		idle := true
		for i, iter := range iters {
			if iter == nil {
				continue
			}
			out, err := client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(1000)})
			if err != nil {
				return err
			}
			for _, r := range out.Records {
				if _, err := b.floorChunk(ctx, arn, []streamtypes.Record{r}, nil); err != nil && ctx.Err() == nil {
					return err
				}
			}
			idle = idle && len(out.Records) == 0
			iters[i] = out.NextShardIterator
		}
		if idle {
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

// lagRun writes at o.rate for o.duration with the floor tailing the stream, and returns the
// healthy webhook's lags, the floor's, how many writes, and how many arrivals were missing.
func (b *whBench) lagRun(ctx context.Context) (pipe, floor lagStats, writes, missing int, err error) {
	tailCtx, stopTail := context.WithCancel(ctx)
	ready := make(chan struct{})
	tailErr := make(chan error, 1)
	go func() { tailErr <- b.floorTail(tailCtx, ready) }()
	<-ready
	before := b.recv.arrivals(b.hook.ID)
	n := b.o.rate * int(b.o.duration/time.Second)
	written, err := b.write(ctx, n, 0, b.o.rate)
	if err != nil {
		stopTail()
		return pipe, floor, 0, 0, err
	}
	_, werr := b.waitArrivals(ctx, b.hook.ID, written, len(written), time.Minute)
	_, ferr := b.waitArrivals(ctx, floorHook, written, len(written), 30*time.Second)
	stopTail()
	if err := <-tailErr; err != nil && !errors.Is(err, context.Canceled) {
		return pipe, floor, 0, 0, err
	}
	if werr != nil || ferr != nil {
		progress("webhooks: %v %v", werr, ferr)
	}
	pipe, m1 := lags(written, b.recv.arrivals(b.hook.ID), before)
	floor, m2 := lags(written, b.recv.arrivals(floorHook), nil)
	return pipe, floor, len(written), m1 + m2, nil
}

// lags returns the p50 and p99 of arrival − write over the written ids (ignoring arrivals already
// in before), and how many never arrived.
func lags(written, arrived, before map[string]time.Time) (lagStats, int) {
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
	slices.Sort(ds)
	q := func(p float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		return ds[max(0, int(math.Ceil(p*float64(len(ds))))-1)]
	}
	return lagStats{n: len(ds), p50: q(0.5), p99: q(0.99)}, missing
}

// waitArrivals waits until the receiver has n events for webhookID (among ids, when given), and
// returns the last arrival.
func (b *whBench) waitArrivals(ctx context.Context, webhookID string, ids map[string]time.Time, n int, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for {
		got := b.recv.arrivals(webhookID)
		count, last := 0, time.Time{}
		for id, at := range got {
			if ids != nil {
				if _, ok := ids[id]; !ok {
					continue
				}
			}
			count++
			if at.After(last) {
				last = at
			}
		}
		if count >= n {
			return last, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return last, fmt.Errorf("webhooks: %d of %d events for %s arrived within %s", count, n, webhookID, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// printWebhookReport prints the webhook bench's table and budgets.
func printWebhookReport(w io.Writer, r *whReport) {
	fmt.Fprintf(w, "\nWebhooks (local pipeline: DynamoDB Local streams -> dispatcher -> moto SQS -> deliverer -> HTTPS receiver)\n\n")
	fmt.Fprintf(w, "Drain a backlog of %d changes to one webhook\n", r.backlog)
	fmt.Fprintf(w, "  %-58s %10s\n", "", "events/s")
	fmt.Fprintf(w, "  %-58s %10s\n", "floor: a loop reading the stream, signing, POSTing (1 at once)", perSecond(r.floorLoopRate))
	fmt.Fprintf(w, "  %-58s %10s\n", "floor with 4 POSTs in flight (the per-webhook bound)", perSecond(r.floor4))
	fmt.Fprintf(w, "  %-58s %10s\n", "pipeline", perSecond(r.drainRate))
	fmt.Fprintf(w, "  calls per delivery: DynamoDB %.2f, SQS %.2f, DynamoDB Streams %.2f\n", r.drainDDB, r.drainSQS, r.drainStreams)
	fmt.Fprintf(w, "  where the pipeline's AWS time went:\n")
	for _, op := range r.drainOps {
		fmt.Fprintf(w, "    %-40s %7d calls  %8s avg  %5.1f%%\n", op.op, op.n, ms(op.avg), 100*op.share)
	}
	r.ceiling.print(w, r.floorLoopRate)
	fmt.Fprintf(w, "\nLag, change committed -> signed POST received, %d writes/s for %s\n", r.rate, r.duration)
	fmt.Fprintf(w, "  %-58s %10s %10s %6s\n", "", "p50", "p99", "n")
	fmt.Fprintf(w, "  %-58s %10s %10s %6d\n", "floor loop (tailing the stream, one POST at a time)", ms(r.floorA.p50), ms(r.floorA.p99), r.floorA.n)
	fmt.Fprintf(w, "  %-58s %10s %10s %6d\n", "pipeline", ms(r.lagA.p50), ms(r.lagA.p99), r.lagA.n)
	fmt.Fprintf(w, "  %-58s %10s %10s %6d\n", "pipeline, beside a webhook whose receiver always times out", ms(r.lagB.p50), ms(r.lagB.p99), r.lagB.n)
	fmt.Fprintf(w, "  (the timing-out webhook got %d attempts; missing arrivals: %d; bad signatures: %d)\n", r.slowSent, r.missingAB, r.badSignatures)
	fmt.Fprintf(w, "\nWebhook budgets\n")
	drain := r.drainRate / r.floorLoopRate
	fmt.Fprintf(w, "  %-4s drain >= %.1fx the floor loop: %.2fx (%.2fx the 4-in-flight floor)\n", verdict(drain >= drainBudget), drainBudget, drain, r.drainRate/r.floor4)
	slow := ratio(r.lagB.p99, r.lagA.p99)
	fmt.Fprintf(w, "  %-4s healthy p99 beside a timing-out receiver <= %.1fx without: %.2fx\n", verdict(slow <= slowBudget && r.missingAB == 0), slowBudget, slow)
	fmt.Fprintf(w, "  (webhook bench took %s)\n", r.elapsed.Round(time.Second))
}
