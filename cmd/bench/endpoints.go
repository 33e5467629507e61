package main

import (
	"cmp"

	"context"
	"fmt"
	"github.com/aws/aws-lambda-go/events"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// endpoint is one measured API operation and its raw DynamoDB side.
type endpoint struct {
	name  string // as printed
	rawIs string // what the raw side is when it is deliberately not the request's calls, or ""
	// budget is the most request/raw may be, modeled on AWS (maxModelWrite when 0).
	budget       float64
	request, raw op
}

// maxRatioIdempotency is issue 9's budget: a POST with an Idempotency-Key within this times the
// same POST without one, modeled on AWS.
const maxRatioIdempotency = 1.2

// writeFloor says what a write's raw side is (raw.go: a write's floor).
const writeFloor = "raw is the write's floor (the records any design must write, in one transaction)"

// updateBrands are the brands the measured updates move vehicles between.
var updateBrands = []string{"Honda", "Hyundai"}

// defaultStatuses is the status filter of a list without one: every status but the soft-deleted
// one (patio.ListQuery.Check).
func defaultStatuses(all []string, softDeleted string) []string {
	return slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == softDeleted })
}

// get returns an op that GETs path as p.
func (env *benchEnv) get(p principal, path string) op {
	return func(ctx context.Context, _ *rand.Rand) error {
		return env.api.do(ctx, p, http.MethodGet, path, nil, http.StatusOK)
	}
}

// endpoints are the API part's measured operations, reads first, so that every read run sees the
// seeded team as seeded.
func (env *benchEnv) endpoints() []endpoint {
	api, raw, main := env.api, env.raw, env.main
	randomVehicle := func(rng *rand.Rand) string { return env.vehicleIDs[rng.IntN(len(env.vehicleIDs))] }
	post := func(key bool) op {
		return func(ctx context.Context, rng *rand.Rand) error {
			var h http.Header
			if key {
				h = http.Header{"Idempotency-Key": {fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), rng.Uint64())}}
			}
			_, _, err := api.send(ctx, main, http.MethodPost, "/api/v1/vehicles", vehicleBody(env.nextPlate.take(), time.Now()), h, http.StatusCreated, false)
			return err
		}
	}
	return []endpoint{
		{name: "GET /vehicles/{id}", budget: maxModelGet,
			request: func(ctx context.Context, rng *rand.Rand) error {
				return api.do(ctx, main, http.MethodGet, "/api/v1/vehicles/"+randomVehicle(rng), nil, http.StatusOK)
			},
			raw: func(ctx context.Context, rng *rand.Rand) error {
				return raw.getRecord(ctx, main, env.tables.Vehicles, patio.ResourceVehicle, randomVehicle(rng))
			}},
		{name: "POST /vehicles", rawIs: writeFloor, request: post(false),
			raw: func(ctx context.Context, _ *rand.Rand) error {
				return raw.createVehicle(ctx, main, env.nextPlate.take())
			}},
		// Issue 24's write: an update that moves the vehicle's brand facet item, counts and words,
		// and every copy (price). Each call flips a random vehicle between two brands.
		{name: "PUT /vehicles/{id} brand and price", rawIs: writeFloor,
			request: func(ctx context.Context, rng *rand.Rand) error {
				id, brand, price := randomVehicle(rng), updateBrands[rng.IntN(2)], money.Cents(1_000_000+rng.IntN(9_000_000))
				body := fmt.Appendf(nil, `{"brand":%q,"price":%s}`, brand, price)
				return api.do(ctx, main, http.MethodPut, "/api/v1/vehicles/"+id, body, http.StatusOK)
			},
			raw: func(ctx context.Context, rng *rand.Rand) error {
				return raw.updateVehicle(ctx, main, randomVehicle(rng), updateBrands[rng.IntN(2)], money.Cents(1_000_000+rng.IntN(9_000_000)))
			}},
		// Issue 9's budget: the cost of idempotency; the "raw" side is the same POST without a key.
		{name: "POST /vehicles + Idempotency-Key (raw: without)", budget: maxRatioIdempotency,
			rawIs:   "raw is the same POST without the key (the cost of idempotency), not the request's calls",
			request: post(true), raw: post(false)},
		{name: "PUT /deals/{id} → ganho", rawIs: writeFloor,
			request: func(ctx context.Context, _ *rand.Rand) error {
				id, err := env.appWins.take()
				if err != nil {
					return err
				}
				return api.do(ctx, env.deals, http.MethodPut, "/api/v1/deals/"+id, []byte(`{"status":"ganho"}`), http.StatusOK)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				id, err := env.rawWins.take()
				if err != nil {
					return err
				}
				return raw.winDeal(ctx, env.deals, id)
			}},
	}
}

// sample is one request of an endpoint and its raw calls, as seen on the wire.
type sample struct {
	endpoint string
	rawIs    string
	budget   float64      // the endpoint's, on the model
	sides    []sampleSide // request and raw
}

// sampleSide is one side of a sample, named: the calls of its median trace (by modeled latency)
// of sampleRuns, that trace's model, the median of the runs' times on DynamoDB Local, and, for the
// request, the indexer's work its change caused.
type sampleSide struct {
	name  string
	calls []sdkCall
	m     modeled
	local time.Duration
	off   []modeled // the indexer's batches that followed the request's change
	err   error
}

// sideNames are the sides of a line in the report's order.
var sideNames = []string{"request", "raw"}

// sampleRuns is how many times each side of a sample is recorded: the model takes the median run,
// so that one slow moment of this machine does not decide our own code's time, and DynamoDB
// Local's figure is the median of the runs' times.
const sampleRuns = 9

// sampleOf runs request and raw once unrecorded (so that one-off work, guregu/dynamo's cached
// DescribeTable and new connections, does not show), then sampleRuns times each with the recorder
// on, taking turns so that the machine's load weighs on both alike, the indexer following each
// change between them (recorded after the request).
func (env *benchEnv) sampleOf(ctx context.Context, rng *rand.Rand, sm sample, request, raw op) sample {
	for i, call := range []op{request, raw} {
		if err := call(ctx, rng); err != nil {
			check(fmt.Errorf("%s (%s): %w", sm.endpoint, sideNames[i], err))
		}
	}
	env.followStreams(ctx, false)
	runs := make([][]sampleSide, 2)
	for range sampleRuns {
		for i, call := range []op{request, raw} {
			t, err := env.rec.trace(func() error { return call(ctx, rng) })
			side := sampleSide{name: sideNames[i], calls: t.calls, m: model(t), err: err}
			side.off = env.followStreams(ctx, i == 0)
			runs[i] = append(runs[i], side)
		}
	}
	for _, sides := range runs {
		sm.sides = append(sm.sides, medianSide(sides))
	}
	return sm
}

// medianSide returns the run of median modeled latency, with the median of the runs' local times.
func medianSide(runs []sampleSide) sampleSide {
	local := make([]time.Duration, len(runs))
	for i, r := range runs {
		local[i] = r.m.measured
	}
	slices.SortFunc(runs, func(a, b sampleSide) int { return cmp.Compare(a.m.latency(), b.m.latency()) })
	side := runs[len(runs)/2]
	side.local = median(local)
	return side
}

// skipStreams passes over what the resource tables' streams hold: records seeded as the indexer
// would leave them.
func (env *benchEnv) skipStreams(ctx context.Context) {
	check(env.streams.CatchUp(ctx, func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		return events.DynamoDBEventResponse{}, nil
	}))
}

// followStreams runs the indexer over the records the resource tables' streams got since it last
// ran, and returns the model of each of its batches when recorded.
func (env *benchEnv) followStreams(ctx context.Context, recorded bool) []modeled {
	var out []modeled
	check(env.streams.CatchUp(ctx, func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		if !recorded {
			return env.indexer(ctx, ev)
		}
		var resp events.DynamoDBEventResponse
		t, err := env.rec.trace(func() (err error) {
			resp, err = env.indexer(ctx, ev)
			return err
		})
		out = append(out, model(t))
		return resp, err
	}))
	return out
}

// sample takes a sample of each endpoint.
func (env *benchEnv) sample(ctx context.Context, eps []endpoint) []sample {
	rng := rand.New(rand.NewPCG(7, 7))
	var out []sample
	for _, ep := range eps {
		out = append(out, env.sampleOf(ctx, rng, sample{endpoint: ep.name, rawIs: ep.rawIs, budget: cmp.Or(ep.budget, maxModelWrite)}, ep.request, ep.raw))
	}
	check(ctx.Err())
	return out
}
