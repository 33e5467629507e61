package main

import (
	"context"

	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/patio-dev/patio/dev/localaws"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
)

// principal is a team and the key that acts for it.
type principal struct {
	teamID  string
	secret  string // the key itself, sent by the load client
	keyHash string // what the raw side reads, as the API does
}

// benchEnv is what one run sets up: tables, teams, the served API, the load client, the raw
// DynamoDB client and the seeded data.
type benchEnv struct {
	root     string
	tables   dynamostore.Tables
	cfg      aws.Config
	conf     app.Config
	rec      *recorder
	store    *dynamostore.Store
	main     principal // the team with the seeded vehicles and clients
	deals    principal // the team whose deals are won
	rateNote string    // how the plan's rate limit was handled
	srv      *http.Server
	api      *apiClient
	raw      *rawClient
	// streams reads the resource tables' streams (outside the recorder: Lambda reads a stream
	// for free) for indexer, the indexer function's handler, whose calls are recorded.
	streams *localaws.StreamReader
	indexer app.IndexHandler

	vehicleIDs       []string      // the seeded vehicles of main
	appWins, rawWins *pool[string] // open deals each side wins, each on a vehicle of its own
	nextPlate        *counter      // plate index of the next created vehicle
}

// provision creates every table and queue of template.yaml under a fresh prefix starting with
// name, and returns the template, its path and what was created.
func provision(ctx context.Context, cfg aws.Config, name string) (*samtemplate.Template, string, samtemplate.Resources) {
	for _, v := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS"} {
		if os.Getenv(v) == "" {
			check(errors.New(v + " is not set: run `make bench` (bin/local with-engines -- bin/bench), never against AWS"))
		}
	}
	tpl, path, err := samtemplate.LoadModule()
	check(err)
	var b [4]byte
	_, _ = rand.Read(b[:])
	prefix := name + hex.EncodeToString(b[:]) + "-"
	progress("creating the tables and queues of template.yaml with prefix %s on %s", prefix, os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"))
	tctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return tpl, path, must(samtemplate.Provision(tctx, dynamodb.NewFromConfig(cfg), sqs.NewFromConfig(cfg), tpl, prefix))
}

// setup provisions the tables with the functions' environment, creates the two teams, serves
// app.API (every resource, logs discarded) on 127.0.0.1:0 and lifts the teams' rate limits.
func setup(ctx context.Context) *benchEnv {
	env := &benchEnv{nextPlate: newCounter(plateIndexCreated)}
	// One recorder in front of the SDK's HTTP client, shared by the API's store and the raw client,
	// so that both use the same connection pool and can be compared call by call.
	env.rec, env.cfg = newRecorder(must(awsconfig.Load(ctx)))
	_, path, res := provision(ctx, env.cfg, "bench")
	env.root = filepath.Dir(path)
	for k, v := range res.Env {
		check(os.Setenv(k, v))
	}
	env.conf = must(app.LoadConfig(os.LookupEnv))
	env.tables = env.conf.Tables
	env.store = dynamostore.New(env.cfg, env.tables)
	env.main = createTeam(ctx, env.store, "Bench dealership")
	env.deals = createTeam(ctx, env.store, "Bench deals dealership")
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	env.srv = &http.Server{Handler: env.buildAPI(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = env.srv.Serve(ln) }()
	env.api = newAPIClient("http://" + ln.Addr().String())
	env.raw = newRawClient(env.cfg, env.tables)
	env.streams = localaws.NewStreamReader(must(awsconfig.Load(ctx)), env.tables.Vehicles, env.tables.Clients, env.tables.Deals)
	// The streams are found now, while the tables are empty: DynamoDB Local's DescribeTable takes
	// longer the more a table holds, past the SDK's attempt timeout once the lists' teams are seeded.
	env.skipStreams(ctx)
	env.indexer = must(app.Indexer(env.cfg, env.conf, slog.New(slog.DiscardHandler)))
	progress("API served on %s", ln.Addr())
	env.liftRateLimits(ctx)
	return env
}

// buildAPI builds the handler as the functions and the local stack do, for every resource.
func (env *benchEnv) buildAPI() http.Handler {
	return must(app.API(env.cfg, env.conf, slog.New(slog.DiscardHandler), app.Vehicles, app.Clients, app.Deals))
}

// rateLimitMinutes is how long the bench's teams are let through their plan's per-minute limit.
const rateLimitMinutes = 60

// liftRateLimits pre-credits the minute counters of both teams (rawClient.liftRateLimits), and
// checks on one request that the API sees the credit.
func (env *benchEnv) liftRateLimits(ctx context.Context) {
	for _, p := range []principal{env.main, env.deals} {
		env.raw.liftRateLimits(ctx, p.teamID, rateLimitMinutes)
	}
	h, _ := must2(env.api.send(ctx, env.main, http.MethodGet, "/api/v1/vehicles?limit=1", nil, nil, http.StatusOK, false))
	limit := patio.PlanAutoshopping.Limits().PerMinute
	switch remaining, err := strconv.Atoi(h.Get("X-RateLimit-Remaining")); {
	case err != nil:
		env.rateNote = "the API sent no X-RateLimit-Remaining: rate limits may not be lifted"
	case remaining <= limit:
		check(fmt.Errorf("lift rate limits: the API still counts against %d requests a minute "+
			"(X-RateLimit-Remaining %d): dynamostore's rate counter keys changed; update cmd/bench", limit, remaining))
	default:
		env.rateNote = fmt.Sprintf("the teams' per-minute counters start at -%d, so the plan's limit of %d/min "+
			"never refuses a bench request; the limiter's two counter updates still run on every request", rateCredit, limit)
	}
}

// must2 returns a and b, or ends the part being measured with err (see check).
func must2[A, B any](a A, b B, err error) (A, B) {
	check(err)
	return a, b
}

// storeTeam stores a new team on the Autoshopping plan (the highest limits).
func storeTeam(ctx context.Context, store *dynamostore.Store, name string) patio.Team {
	team := must(patio.NewTeam(name, "bench@patio.local", string(patio.PlanAutoshopping)))
	check(accountdb.NewAccounts(store.DB()).CreateTeam(ctx, team))
	return team
}

// createTeam stores a new team and an API key of it with every scope.
func createTeam(ctx context.Context, store *dynamostore.Store, name string) principal {
	team := storeTeam(ctx, store, name)
	key, secret, err := patio.NewAPIKey(team.ID, "bench", patio.Scopes, patio.TestKeyPrefix)
	check(err)
	check(accountdb.NewAccounts(store.DB()).CreateKey(ctx, key))
	return principal{teamID: team.ID, secret: secret, keyHash: key.Hash}
}

// close stops serving the API.
func (env *benchEnv) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = env.srv.Shutdown(ctx)
}

// dealClients is how many clients the prepared deals are spread over.
const dealClients = 32

// seed fills the API part's teams: in the deals team dealClients clients and two pools of -deals
// open deals (one per side: request, raw), each on a vehicle of its own; in the main team
// -clients clients and -vehicles vehicles.
func (env *benchEnv) seed(ctx context.Context, o options) {
	now := time.Now()
	clients := history(dealClients, now, 0, func(i int, id string, at time.Time) (patio.Client, error) {
		return patio.NewClient(env.deals.teamID, id, at, benchClient(90_000_000+i))
	})
	vehicles := historyVehicles(env.deals.teamID, 2*o.pool, plateIndexDeals, now, always(string(patio.VehicleActive)))
	deals := history(2*o.pool, now, 0, func(i int, id string, at time.Time) (patio.Deal, error) {
		in := patio.DealInput{Title: patio.Some("Venda bench"), ClientID: patio.Some(clients[i%dealClients].ID),
			VehicleID: patio.Some(vehicles[i].ID), Phase: patio.Some("negociacao"), PaymentMethod: patio.Some("financiamento")}
		lookup := func(context.Context, string) (patio.Vehicle, error) { return vehicles[i], nil }
		w, err := patio.NewDeal(ctx, env.deals.teamID, id, at, in, lookup)
		return w.Record, err
	})
	mainClients := historyClients(env.main.teamID, o.clients, 0, now, always(string(patio.ClientActive)))
	mainVehicles := historyVehicles(env.main.teamID, o.vehicles, plateIndexSeeded, now, always(string(patio.VehicleActive)))
	seedAll(ctx, env.store, clients)
	seedAll(ctx, env.store, vehicles)
	seedAll(ctx, env.store, deals)
	seedAll(ctx, env.store, mainClients)
	seedAll(ctx, env.store, mainVehicles)
	dealIDs := ids(deals, func(d patio.Deal) string { return d.ID })
	env.appWins, env.rawWins = &pool[string]{items: dealIDs[:o.pool]}, &pool[string]{items: dealIDs[o.pool:]}
	env.vehicleIDs = ids(mainVehicles, func(v patio.Vehicle) string { return v.ID })
	env.raw.useVehicleTemplate(ctx, env.main.teamID, env.vehicleIDs[0])
	// The seeded records are written as the indexer would leave them: their stream records are
	// passed over, so that the samples' indexer runs follow their own changes only.
	env.skipStreams(ctx)
}
