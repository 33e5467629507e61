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
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/app"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// principal is a team and the key that acts for it.
type principal struct {
	teamID  string
	secret  string // the key itself, sent by the load client
	keyHash string // what the raw side reads, as the API does
}

// benchEnv is everything one run sets up: tables, teams, the served API, the load client, the raw
// DynamoDB client and the seeded data.
type benchEnv struct {
	root   string
	prefix string
	tables dynamostore.Tables
	cfg    aws.Config
	conf   app.Config
	rec    *recorder
	store  *dynamostore.Store

	main  principal // the team with the seeded vehicles and clients
	deals principal // the team whose deals are won

	served   []app.Resource
	rateNote string // how the plan's rate limit was handled
	apiNote  string // why a resource is missing from served, when it is
	srv      *http.Server
	api      *apiClient
	raw      *rawClient

	clientsServed bool
	seedNote      string

	vehicleIDs []string      // the seeded vehicles of main
	appWins    *pool[string] // ids of open deals the API side wins, each on a vehicle of its own
	rawWins    *pool[string] // ids of open deals the raw side wins, each on a vehicle of its own
	sameWins   *pool[string] // ids of open deals the same side wins, each on a vehicle of its own
	nextPlate  *counter      // plate index of the next created vehicle
}

func setup(ctx context.Context) (*benchEnv, error) {
	endpoint := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if endpoint == "" {
		return nil, errors.New("AWS_ENDPOINT_URL_DYNAMODB is not set: run `make bench` " +
			"(go run ./cmd/local with-engines -- go run ./cmd/bench), never against AWS")
	}
	tpl, tplPath, err := samtemplate.LoadModule()
	if err != nil {
		return nil, err
	}
	env := &benchEnv{root: filepath.Dir(tplPath), nextPlate: newCounter(plateIndexCreated)}

	cfg, err := app.LoadAWS(ctx)
	if err != nil {
		return nil, err
	}
	// One recorder in front of the SDK's HTTP client, shared by the API's store and the raw client,
	// so both go through the same connection pool and can be compared call by call.
	inner := awshttp.NewBuildableClient() // what the SDK uses when the configuration names none
	if cfg.HTTPClient != nil {
		var ok bool
		if inner, ok = cfg.HTTPClient.(*awshttp.BuildableClient); !ok {
			return nil, fmt.Errorf("unexpected AWS HTTP client %T", cfg.HTTPClient)
		}
	}
	env.rec = newRecorder(inner)
	cfg.HTTPClient = env.rec
	env.cfg = cfg

	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	env.prefix = "bench" + hex.EncodeToString(b[:]) + "-"
	progress("DynamoDB Local at %s; creating the tables and queues of template.yaml with prefix %s", endpoint, env.prefix)
	// The API does not use the queues (in moto, which with-engines starts too), but the functions'
	// environment names them; without its endpoint an SQS client would reach for AWS itself.
	if os.Getenv("AWS_ENDPOINT_URL_SQS") == "" {
		return nil, errors.New("AWS_ENDPOINT_URL_SQS is not set: run `make bench`, never against AWS")
	}
	tctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	res, err := samtemplate.Provision(tctx, dynamodb.NewFromConfig(cfg), sqs.NewFromConfig(cfg), tpl, env.prefix)
	if err != nil {
		return nil, err
	}
	for k, v := range res.Env {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	// No function's needs are checked here: app.API checks those of the resources it serves.
	if env.conf, err = app.LoadConfig(os.LookupEnv); err != nil {
		return nil, err
	}
	env.tables = env.conf.Tables
	env.store = dynamostore.New(cfg, env.tables)

	if env.main, err = createTeam(ctx, env.store, "Bench dealership"); err != nil {
		return nil, err
	}
	if env.deals, err = createTeam(ctx, env.store, "Bench deals dealership"); err != nil {
		return nil, err
	}

	h, err := env.buildAPI()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	env.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = env.srv.Serve(ln) }()
	env.api = newAPIClient("http://" + ln.Addr().String())
	env.raw = newRawClient(cfg, env.tables)
	progress("API served on %s (%v)", ln.Addr(), env.served)
	if err := env.liftRateLimits(ctx); err != nil {
		return nil, err
	}
	return env, nil
}

// rateLimitMinutes is how long the bench's teams are let through their plan's per-minute limit.
const rateLimitMinutes = 60

// liftRateLimits pre-credits the minute counters of both teams (see rawClient.liftRateLimits), so
// that the Autoshopping plan's 1,000 requests a minute do not turn the runs into 429s, and checks
// on one request that the API sees the credit.
func (env *benchEnv) liftRateLimits(ctx context.Context) error {
	for _, p := range []principal{env.main, env.deals} {
		if err := env.raw.liftRateLimits(ctx, p.teamID, rateLimitMinutes); err != nil {
			return fmt.Errorf("lift rate limits: %w", err)
		}
	}
	h, err := env.api.header(ctx, env.main, "/api/v1/vehicles?limit=1")
	if err != nil {
		return err
	}
	limit := patio.PlanAutoshopping.Limits().PerMinute
	remaining, err := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	switch {
	case err != nil:
		env.rateNote = "the API sent no X-RateLimit-Remaining: rate limits may not be lifted"
	case remaining <= limit:
		return fmt.Errorf("lift rate limits: the API still counts against %d requests a minute "+
			"(X-RateLimit-Remaining %d): dynamostore's rate counter keys changed; update cmd/bench", limit, remaining)
	default:
		env.rateNote = fmt.Sprintf("the teams' per-minute counters start at -%d, so the plan's limit of %d/min "+
			"never refuses a bench request; the limiter's two counter updates still run on every request", rateCredit, limit)
	}
	return nil
}

// buildAPI builds the handler the way the functions and the local stack do, for every resource. A
// resource app.API does not know yet (clients, while it is being added) is left out and noted, so
// that its routes answer 404 and the bench reports them as not available.
func (env *benchEnv) buildAPI() (http.Handler, error) {
	logger := slog.New(slog.DiscardHandler)
	all := []app.Resource{app.Vehicles, app.Clients, app.Deals}
	h, err := app.API(env.cfg, env.conf, logger, all...)
	if err == nil {
		env.served = all
		return h, nil
	}
	env.served = []app.Resource{app.Vehicles, app.Deals}
	h, err2 := app.API(env.cfg, env.conf, logger, env.served...)
	if err2 != nil {
		return nil, errors.Join(err, err2)
	}
	env.apiNote = fmt.Sprintf("app.API refused the full list of resources (%v); serving %v", err, env.served)
	return h, nil
}

// storeTeam stores a new team on the Autoshopping plan (the highest limits).
func storeTeam(ctx context.Context, store *dynamostore.Store, name string) (patio.Team, error) {
	team, err := patio.NewTeam(name, "bench@patio.local", string(patio.PlanAutoshopping))
	if err != nil {
		return team, err
	}
	return team, store.Accounts().CreateTeam(ctx, team)
}

// createTeam stores a new team and an API key of it with every scope.
func createTeam(ctx context.Context, store *dynamostore.Store, name string) (principal, error) {
	team, err := storeTeam(ctx, store, name)
	if err != nil {
		return principal{}, err
	}
	key, secret, err := patio.NewAPIKey(team.ID, "bench", patio.Scopes, patio.TestKeyPrefix)
	if err != nil {
		return principal{}, err
	}
	if err := store.Accounts().CreateKey(ctx, key); err != nil {
		return principal{}, err
	}
	return principal{teamID: team.ID, secret: secret, keyHash: key.Hash}, nil
}

func (env *benchEnv) close() {
	if env.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = env.srv.Shutdown(ctx)
	}
}
