package runtimeapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/patio-dev/patio/dev/runtimeapi"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
	"github.com/patio-dev/patio/shared/xray"
)

// The functions of template.yaml (functions/<name>).
var functions = []string{"vehicles", "clients", "deals", "authorizer", "dispatcher", "indexer", "deliverer", "timer", "sweeper", "console"}

var (
	buildOnce sync.Once
	built     map[string]string
	buildErr  error
)

// bootstraps builds every function once per test binary, as deployed but for this machine.
func bootstraps(t *testing.T) map[string]string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "patio-bootstraps-")
		if err != nil {
			buildErr = err
			return
		}
		built = map[string]string{}
		for _, name := range functions {
			bin, err := runtimeapi.Build(context.Background(), filepath.Join("..", ".."), name, dir)
			if err != nil {
				buildErr = err
				return
			}
			built[name] = bin
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// start runs a function's bootstrap under the Runtime API with the environment the template gives
// it (testenv.Tables sets it in this process) plus extra variables, and waits for its init.
func start(t *testing.T, name string, extra ...string) *runtimeapi.Function {
	t.Helper()
	f, _ := startLogged(t, name, extra...)
	return f
}

// startLogged is start, also returning the function's logs so far.
func startLogged(t *testing.T, name string, extra ...string) (*runtimeapi.Function, func() string) {
	t.Helper()
	bin := bootstraps(t)[name]
	var logs strings.Builder
	var mu sync.Mutex
	f, err := runtimeapi.Start(bin, runtimeapi.Options{Name: name, Env: append(runtimeapi.LambdaEnv(os.Environ()), extra...),
		Stderr: writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) })})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Stop()
		if t.Failed() {
			mu.Lock()
			t.Logf("%s logs:\n%s", name, logs.String())
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := f.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return f, func() string { mu.Lock(); defer mu.Unlock(); return logs.String() }
}

// xrayDaemon is a UDP socket standing in for the X-Ray daemon Lambda runs; segments returns the
// subsegments received so far.
func xrayDaemon(t *testing.T) (addr string, segments func() []xray.Subsegment) {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var mu sync.Mutex
	var got []xray.Subsegment
	go func() {
		buf := make([]byte, 64*1024)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			_, doc, _ := bytes.Cut(buf[:n], []byte("\n"))
			var s xray.Subsegment
			if json.Unmarshal(doc, &s) == nil {
				mu.Lock()
				got = append(got, s)
				mu.Unlock()
			}
		}
	}()
	return c.LocalAddr().String(), func() []xray.Subsegment {
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// traced reports whether segments hold a subsegment of service under the invocation's trace.
func traced(segments []xray.Subsegment, service string, r runtimeapi.Result) bool {
	h, _ := xray.ParseHeader(r.Trace)
	for _, s := range segments {
		if s.Name == service && s.TraceID == h.Root && s.ParentID == h.Parent {
			return true
		}
	}
	return false
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// sample reads events/<name> as the raw JSON AWS delivers.
func sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixture is a team with a key of every scope and an active client, on the test tables.
type fixture struct {
	store  *dynamostore.Store
	team   patio.Team
	secret string
	client patio.Client
	conf   app.Config
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	testenv.Tables(t)
	cfg := testenv.AWSConfig(t)
	conf, err := app.LoadConfig(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store := dynamostore.New(cfg, conf.Tables)
	team, _ := patio.NewTeam("Runtime API", "ops@example.com", "starter")
	if err := accountdb.NewAccounts(store.DB()).CreateTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	key, secret, _ := patio.NewAPIKey(team.ID, "runtime", patio.Scopes, patio.TestKeyPrefix)
	if err := accountdb.NewAccounts(store.DB()).CreateKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	client, err := patio.NewClients(store.Clients()).Create(ctx, team.ID, patio.ClientInput{
		Type: patio.Some(patio.ClientIndividual), Name: patio.Some("Maria"), CPF: patio.Some("529.982.247-25")})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{store: store, team: team, secret: secret, client: client, conf: conf}
}

// TestAPIFunctions runs each API function's bootstrap under the Runtime API and feeds it its
// resource's sample events: create, get, update, list, delete, and a get of an unknown id.
func TestAPIFunctions(t *testing.T) {
	fx := newFixture(t)
	const placeholderClient = "0193a2b4-0000-7000-8000-00000000c1e7"
	tests := []struct {
		resource     string
		field, value string
		deleted      string
	}{
		{resource: "vehicles", field: "plate", value: "ABC1D23", deleted: "arquivado"},
		{resource: "clients", field: "cnpj", value: "12ABC34501DE35", deleted: "inactive"},
		{resource: "deals", field: "phase", value: "lead", deleted: "arquivado"},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			daemon, segments := xrayDaemon(t)
			f, logs := startLogged(t, tt.resource, "AWS_XRAY_DAEMON_ADDRESS="+daemon)
			ctx := context.Background()
			var last runtimeapi.Result
			invoke := func(t *testing.T, op, id string, want int) map[string]any {
				t.Helper()
				name := tt.resource + "-" + op + ".json"
				var e events.APIGatewayProxyRequest
				if err := json.Unmarshal(sample(t, name), &e); err != nil {
					t.Fatal(err)
				}
				auth := "Bearer " + fx.secret
				e.Headers["Authorization"] = auth
				e.MultiValueHeaders["Authorization"] = []string{auth}
				// The authorizer's context names the key's team and its plan, as on AWS: the
				// function reads the key and the team, counts the request and, for a read, reads
				// the record all at once.
				e.RequestContext.Authorizer["team_id"] = fx.team.ID
				e.RequestContext.Authorizer["plan"] = string(fx.team.Plan)
				if old, ok := e.PathParameters["id"]; ok {
					e.PathParameters["id"] = id
					e.Path = strings.ReplaceAll(e.Path, old, id)
					e.RequestContext.Path = strings.ReplaceAll(e.RequestContext.Path, old, id)
				}
				e.Body = strings.ReplaceAll(e.Body, placeholderClient, fx.client.ID)
				var res events.APIGatewayProxyResponse
				r, err := f.InvokeJSON(ctx, e, &res)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				last = r
				if res.StatusCode != want {
					t.Fatalf("%s: status %d %s; want %d", name, res.StatusCode, res.Body, want)
				}
				got := res.Headers["X-Request-Id"]
				if ids := res.MultiValueHeaders["X-Request-Id"]; got == "" && len(ids) == 1 {
					got = ids[0]
				}
				if got != e.RequestContext.RequestID {
					t.Errorf("%s: X-Request-Id = %q; want API Gateway's %q", name, got, e.RequestContext.RequestID)
				}
				var env map[string]any
				if err := json.Unmarshal([]byte(res.Body), &env); err != nil {
					t.Fatalf("%s: body %q: %v", name, res.Body, err)
				}
				return env
			}
			data := func(env map[string]any) map[string]any {
				m, _ := env["data"].(map[string]any)
				return m
			}
			created := data(invoke(t, "create", "", 201))
			id, _ := created["id"].(string)
			if created[tt.field] != tt.value {
				t.Fatalf("created %s = %v; want %s", tt.field, created[tt.field], tt.value)
			}
			if got := data(invoke(t, "get", id, 200)); got["id"] != id {
				t.Errorf("get returned %v", got)
			}
			invoke(t, "update", id, 200)
			list := invoke(t, "list", "", 200)
			if p, _ := list["pagination"].(map[string]any); p == nil || p["total"] != float64(1) {
				t.Errorf("list pagination = %v; want total 1", list["pagination"])
			}
			if del := data(invoke(t, "delete", id, 200)); del["status"] != tt.deleted {
				t.Errorf("delete left status %v; want %s", del["status"], tt.deleted)
			}
			missing := invoke(t, "get", "0193a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b", 404)
			if e, _ := missing["error"].(map[string]any); e == nil || e["code"] != "NOT_FOUND" {
				t.Errorf("unknown id: %v", missing)
			}
			if !traced(segments(), "DynamoDB", last) {
				t.Errorf("no DynamoDB subsegment under the last invocation's trace %s", last.Trace)
			}
			if l := logs(); !strings.Contains(l, `"_aws"`) || !strings.Contains(l, `"Plan":"starter"`) {
				t.Errorf("request logs carry no embedded metrics per plan:\n%s", l)
			}
		})
	}
}

// TestAuthorizerFunction runs the authorizer's bootstrap: a valid key is allowed with the team in
// the context; unknown, malformed and missing keys fail with exactly "Unauthorized" (API Gateway's
// 401).
func TestAuthorizerFunction(t *testing.T) {
	fx := newFixture(t)
	f := start(t, "authorizer")
	ctx := context.Background()
	tests := []struct {
		name, sample, header string
		allow                bool
	}{
		{"valid", "authorizer-valid.json", "Bearer " + fx.secret, true},
		{"unknown", "authorizer-revoked.json", "Bearer dk_test_" + strings.Repeat("x", 32), false},
		{"malformed", "authorizer-malformed.json", "", false},
		{"missing", "authorizer-missing.json", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e events.APIGatewayCustomAuthorizerRequestTypeRequest
			if err := json.Unmarshal(sample(t, tt.sample), &e); err != nil {
				t.Fatal(err)
			}
			if tt.header != "" {
				e.Headers["Authorization"] = tt.header
				e.MultiValueHeaders["Authorization"] = []string{tt.header}
			}
			var res events.APIGatewayCustomAuthorizerResponse
			r, err := f.InvokeJSON(ctx, e, &res)
			if !tt.allow {
				if r.Error != "Unauthorized" {
					t.Fatalf("authorizer(%s) = %+v, %v; want the invocation error Unauthorized", tt.sample, res, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.PolicyDocument.Statement) != 1 || res.PolicyDocument.Statement[0].Effect != "Allow" {
				t.Errorf("policy = %+v; want one Allow", res.PolicyDocument)
			}
			if res.Context["team_id"] != fx.team.ID || res.Context["plan"] != string(fx.team.Plan) {
				t.Errorf("context = %v; want team_id %s, plan %s", res.Context, fx.team.ID, fx.team.Plan)
			}
		})
	}
}

// TestWebhookFunctions runs the dispatcher and the deliverer: the dispatcher takes the sample
// stream batch and queues its deliveries without failures, and reports the failing record by its
// sequence number when the queue is unreachable; the deliverer reports the sample's malformed
// message alone.
func TestWebhookFunctions(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	var stream events.DynamoDBEvent
	if err := json.Unmarshal(sample(t, "dispatcher-vehicles.json"), &stream); err != nil {
		t.Fatal(err)
	}
	// A webhook of the sample's team, created before the sample's changes (a webhook receives only
	// changes made since its creation), so that the dispatcher records and queues deliveries.
	team := stream.Records[0].Change.NewImage["pk"].String()
	hookStore := dynamostore.New(testenv.AWSConfig(t), fx.conf.Tables)
	newHook := func(url string) {
		t.Helper()
		hook, err := webhook.New(team, url, []string{"*"}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		if err := webhookdb.New(hookStore.DB()).CreateWebhook(ctx, hook); err != nil {
			t.Fatal(err)
		}
	}
	newHook("https://127.0.0.1:9/hooks")

	t.Run("dispatcher", func(t *testing.T) {
		daemon, segments := xrayDaemon(t)
		f := start(t, "dispatcher", "AWS_XRAY_DAEMON_ADDRESS="+daemon)
		var res events.DynamoDBEventResponse
		r, err := f.InvokeJSON(ctx, sample(t, "dispatcher-vehicles.json"), &res)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.BatchItemFailures) != 0 {
			t.Errorf("dispatcher(sample) failures = %+v; want none", res.BatchItemFailures)
		}
		if got := segments(); !traced(got, "SQS", r) || !traced(got, "DynamoDB", r) {
			t.Errorf("subsegments %+v; want SQS and DynamoDB under the invocation's trace", got)
		}
	})
	t.Run("dispatcher, queue unreachable", func(t *testing.T) {
		// Re-processing yields the same event ids: the deliveries exist, so to fail the sample
		// must queue afresh; a new webhook gets new deliveries.
		newHook("https://127.0.0.1:9/other")
		f := start(t, "dispatcher", "DELIVERY_QUEUE_URL="+fx.conf.QueueURL+"-missing")
		var res events.DynamoDBEventResponse
		if _, err := f.InvokeJSON(ctx, sample(t, "dispatcher-vehicles.json"), &res); err != nil {
			t.Fatal(err)
		}
		seqs := []string{}
		for _, r := range stream.Records {
			seqs = append(seqs, r.Change.SequenceNumber)
		}
		if len(res.BatchItemFailures) != 1 || !slices.Contains(seqs, res.BatchItemFailures[0].ItemIdentifier) {
			t.Errorf("dispatcher failures = %+v; want one, a sequence number of the batch %v", res.BatchItemFailures, seqs)
		}
	})
	t.Run("deliverer", func(t *testing.T) {
		f := start(t, "deliverer")
		var queue events.SQSEvent
		if err := json.Unmarshal(sample(t, "deliverer-tasks.json"), &queue); err != nil {
			t.Fatal(err)
		}
		var res events.SQSEventResponse
		if _, err := f.InvokeJSON(ctx, queue, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.BatchItemFailures) != 1 || res.BatchItemFailures[0].ItemIdentifier != queue.Records[1].MessageId {
			t.Errorf("deliverer(sample) failures = %+v; want only %s", res.BatchItemFailures, queue.Records[1].MessageId)
		}
	})
}

// TestIndexerFunction runs the indexer on its sample batch (events/indexer-vehicles.json): a
// vehicle inserted then modified (one word changed), a plate guard, and another vehicle removed.
// It answers without failures, and the vehicles table then holds the modified vehicle's words
// alone: the word it lost and the removed vehicle's words are deleted, the guard is skipped.
func TestIndexerFunction(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	var batch events.DynamoDBEvent
	if err := json.Unmarshal(sample(t, "indexer-vehicles.json"), &batch); err != nil {
		t.Fatal(err)
	}
	team := batch.Records[0].Change.Keys["pk"].String()
	kept, removed := batch.Records[0].Change.NewImage["id"].String(), batch.Records[3].Change.OldImage["id"].String()
	db := dynamodb.NewFromConfig(testenv.AWSConfig(t))
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	// The removed vehicle's word item, as the indexer wrote it at the vehicle's creation.
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(fx.conf.Tables.Vehicles),
		Item: map[string]types.AttributeValue{"pk": str(team), "sk": str("vw#ativo#fiat#" + removed)}}); err != nil {
		t.Fatal(err)
	}
	daemon, segments := xrayDaemon(t)
	f := start(t, "indexer", "AWS_XRAY_DAEMON_ADDRESS="+daemon)
	var res events.DynamoDBEventResponse
	r, err := f.InvokeJSON(ctx, batch, &res)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BatchItemFailures) != 0 {
		t.Errorf("indexer(sample) failures = %+v; want none", res.BatchItemFailures)
	}
	if got := segments(); !traced(got, "DynamoDB", r) {
		t.Errorf("subsegments %+v; want DynamoDB under the invocation's trace", got)
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(fx.conf.Tables.Vehicles), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("pk = :pk AND begins_with(sk, :w)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(team), ":w": str("vw#")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, item := range out.Items {
		if sk, ok := item["sk"].(*types.AttributeValueMemberS); ok {
			got = append(got, sk.Value)
		}
	}
	var want []string
	// Its words, and its price's bucket of its first two digits (the item a narrow price range
	// pages from).
	for _, w := range []string{"abc1d23", "corolla", "gli", "toyota", "~price:2:08:11"} {
		want = append(want, "vw#ativo#"+w+"#"+kept)
	}
	if !slices.Equal(got, want) {
		t.Errorf("word items after the batch = %v; want %v", got, want)
	}
}

// TestScheduledFunctions runs the timer and the sweeper on the sample schedule event: a run that
// finds nothing due answers at once, without error.
func TestScheduledFunctions(t *testing.T) {
	newFixture(t)
	var ev events.EventBridgeEvent
	if err := json.Unmarshal(sample(t, "timer-schedule.json"), &ev); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"timer", "sweeper"} {
		t.Run(name, func(t *testing.T) {
			f := start(t, name)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := f.InvokeJSON(ctx, ev, nil); err != nil {
				t.Errorf("%s(sample) = %v; want a run without error", name, err)
			}
		})
	}
}

// TestInitError checks the server's side of a failed start: a function missing its configuration
// posts an init error (or exits) and Ready says so.
func TestInitError(t *testing.T) {
	bin := bootstraps(t)["vehicles"]
	f, err := runtimeapi.Start(bin, runtimeapi.Options{Name: "vehicles", Env: []string{"AWS_REGION=us-east-1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := f.Ready(ctx); err == nil {
		t.Fatal("Ready() = nil; want the function's start failure (no table variables)")
	}
}
