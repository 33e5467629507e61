package main

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// endpoint is one measured API operation and its raw DynamoDB equivalent.
type endpoint struct {
	name    string // as printed
	missing string // why it is not measured, or ""
	floor   bool   // raw is the floor of a list page (listFloor), not the request's own calls
	rawIs   string // what the raw side is when it is deliberately not the request's calls, or ""
	// budget is the most request/raw may be at p50 at concurrency 1: issue 2's maxRatioP50 when 0.
	budget  float64
	request op
	raw     op
	// same, for an endpoint whose raw side is a floor below the request's own calls (a write), is
	// the request's own calls with the bare SDK: request/same is our code's cost, same/raw the
	// store's design's.
	same op
}

// writeFloor says what a write's raw side is (raw.go: a write's floor).
const writeFloor = "raw is the write's floor (the records any design must write, in one transaction); " +
	"same is the request's own calls, its order items and counts included"

// maxRatioIdempotency is issue 9's budget: a POST with an Idempotency-Key within this many times
// the same POST without one, at p50 and concurrency 1.
const maxRatioIdempotency = 1.2

// updateBrands are the brands the measured updates move vehicles between.
var updateBrands = []string{"Honda", "Hyundai"}

// winBody is the PUT that wins a deal.
var winBody = []byte(`{"status":"ganho"}`)

// defaultStatuses is the status filter of a list without one: every status but the soft-deleted
// one (patio.ListQuery.Check).
func defaultStatuses(all []string, softDeleted string) []string {
	return slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == softDeleted })
}

func (env *benchEnv) endpoints() []endpoint {
	api, raw, main, deals := env.api, env.raw, env.main, env.deals
	randomVehicle := func(rng *rand.Rand) string { return env.vehicleIDs[rng.IntN(len(env.vehicleIDs))] }
	byPrice := newListFloor(env.tables.Vehicles, patio.ResourceVehicle, "price", true,
		defaultStatuses(patio.VehicleStatuses, patio.VehicleArchived)[0], "", 20)
	clientsByCreation := newListFloor(env.tables.Clients, patio.ResourceClient, "created_at", true,
		defaultStatuses(patio.ClientStatuses, patio.ClientInactive)[0], "", patio.DefaultLimit)

	eps := []endpoint{
		{
			name: "GET /vehicles/{id}",
			request: func(ctx context.Context, rng *rand.Rand) error {
				return api.do(ctx, main, http.MethodGet, "/api/v1/vehicles/"+randomVehicle(rng), nil, http.StatusOK, nil)
			},
			raw: func(ctx context.Context, rng *rand.Rand) error {
				return raw.getVehicle(ctx, main, randomVehicle(rng))
			},
		},
		{
			name:  "GET /vehicles?limit=20&sort=-price",
			floor: true,
			request: func(ctx context.Context, _ *rand.Rand) error {
				return api.do(ctx, main, http.MethodGet, "/api/v1/vehicles?limit=20&sort=-price", nil, http.StatusOK, nil)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				return raw.list(ctx, main, byPrice)
			},
		},
		{
			name:  "GET /clients",
			floor: true,
			request: func(ctx context.Context, _ *rand.Rand) error {
				return api.do(ctx, main, http.MethodGet, "/api/v1/clients", nil, http.StatusOK, nil)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				return raw.list(ctx, main, clientsByCreation)
			},
		},
		// Writes come after the reads, so that every read run sees the seeded team as seeded.
		{
			name:  "POST /vehicles",
			rawIs: writeFloor,
			request: func(ctx context.Context, _ *rand.Rand) error {
				body := vehicleBody(env.nextPlate.take(), time.Now())
				return api.do(ctx, main, http.MethodPost, "/api/v1/vehicles", body, http.StatusCreated, nil)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				return raw.createVehicle(ctx, main, env.nextPlate.take(), false)
			},
			same: func(ctx context.Context, _ *rand.Rand) error {
				return raw.createVehicle(ctx, main, env.nextPlate.take(), true)
			},
		},
		{
			// Issue 24's write: an update that moves the vehicle's brand facet item, counts and
			// words, and every copy (price). Each call flips a random vehicle between two brands.
			name:  "PUT /vehicles/{id} brand and price",
			rawIs: writeFloor,
			request: func(ctx context.Context, rng *rand.Rand) error {
				id, brand, price := randomVehicle(rng), updateBrands[rng.IntN(2)], money.Cents(1_000_000+rng.IntN(9_000_000))
				body := fmt.Appendf(nil, `{"brand":%q,"price":%s}`, brand, price)
				return api.do(ctx, main, http.MethodPut, "/api/v1/vehicles/"+id, body, http.StatusOK, nil)
			},
			raw: func(ctx context.Context, rng *rand.Rand) error {
				return raw.updateVehicle(ctx, main, randomVehicle(rng), updateBrands[rng.IntN(2)], money.Cents(1_000_000+rng.IntN(9_000_000)), false)
			},
			same: func(ctx context.Context, rng *rand.Rand) error {
				return raw.updateVehicle(ctx, main, randomVehicle(rng), updateBrands[rng.IntN(2)], money.Cents(1_000_000+rng.IntN(9_000_000)), true)
			},
		},
		{
			// Issue 9's budget: the cost of idempotency. The "raw" side of this row is the same POST
			// without a key, through the API, in the same run.
			name:   "POST /vehicles + Idempotency-Key (raw: without)",
			rawIs:  "raw is the same POST without the key (the cost of idempotency), not the request's calls",
			budget: maxRatioIdempotency,
			request: func(ctx context.Context, rng *rand.Rand) error {
				body := vehicleBody(env.nextPlate.take(), time.Now())
				key := http.Header{"Idempotency-Key": {fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), rng.Uint64())}}
				return api.doWith(ctx, main, http.MethodPost, "/api/v1/vehicles", body, key, http.StatusCreated, nil)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				body := vehicleBody(env.nextPlate.take(), time.Now())
				return api.do(ctx, main, http.MethodPost, "/api/v1/vehicles", body, http.StatusCreated, nil)
			},
		},
		{
			name:  "PUT /deals/{id} → ganho",
			rawIs: writeFloor,
			request: func(ctx context.Context, _ *rand.Rand) error {
				id, err := env.appWins.take()
				if err != nil {
					return err
				}
				return api.do(ctx, deals, http.MethodPut, "/api/v1/deals/"+id, winBody, http.StatusOK, nil)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				id, err := env.rawWins.take()
				if err != nil {
					return err
				}
				return raw.winDeal(ctx, deals, id, false)
			},
			same: func(ctx context.Context, _ *rand.Rand) error {
				id, err := env.sameWins.take()
				if err != nil {
					return err
				}
				return raw.winDeal(ctx, deals, id, true)
			},
		},
	}
	if !env.clientsServed {
		eps[2].missing = "not available"
	}
	return eps
}

// sample is one request of an endpoint and its raw calls, as seen on the wire.
type sample struct {
	endpoint     string
	floor        bool
	rawIs        string
	request, raw []sdkCall
	requestErr   error
	rawErr       error
	hasSame      bool
	same         []sdkCall
	sameErr      error
}

// sampleSide is one side of a sample, named.
type sampleSide struct {
	name  string
	calls []sdkCall
	err   error
}

// sides returns the sample's sides in the report's order.
func (sm sample) sides() []sampleSide {
	out := []sampleSide{{"request", sm.request, sm.requestErr}, {"raw", sm.raw, sm.rawErr}}
	if sm.hasSame {
		out = append(out, sampleSide{"same", sm.same, sm.sameErr})
	}
	return out
}

// sample runs each available endpoint once on each side with the recorder on.
func (env *benchEnv) sample(ctx context.Context, eps []endpoint) ([]sample, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	var out []sample
	for _, ep := range eps {
		if ep.missing != "" {
			continue
		}
		// One unrecorded call first, so that one-off work (guregu/dynamo's cached DescribeTable,
		// new connections) does not show in the sample.
		if err := ep.request(ctx, rng); err != nil {
			return nil, fmt.Errorf("%s: %w", ep.name, err)
		}
		if err := ep.raw(ctx, rng); err != nil {
			return nil, fmt.Errorf("%s (raw): %w", ep.name, err)
		}
		if ep.same != nil {
			if err := ep.same(ctx, rng); err != nil {
				return nil, fmt.Errorf("%s (same): %w", ep.name, err)
			}
		}
		sm := sample{endpoint: ep.name, floor: ep.floor, rawIs: ep.rawIs}
		sm.request, sm.requestErr = env.rec.record(func() error { return ep.request(ctx, rng) })
		sm.raw, sm.rawErr = env.rec.record(func() error { return ep.raw(ctx, rng) })
		if ep.same != nil {
			sm.same, sm.sameErr = env.rec.record(func() error { return ep.same(ctx, rng) })
			sm.hasSame = true
		}
		out = append(out, sm)
	}
	return out, ctx.Err()
}

// row is one line of the table: an endpoint at one concurrency, both sides.
type row struct {
	endpoint string
	floor    bool
	budget   float64
	conc     int
	missing  string
	request  result
	raw      result
	same     *result // nil when the endpoint has no same side
	// TCP connections opened during each side's run: by the load client, and by the SDK.
	httpDials, requestSDKDials, rawSDKDials int64
}

// rowSide is one side of a row, named.
type rowSide struct {
	name string
	res  result
}

// sides returns the row's sides in the report's order.
func (rw row) sides() []rowSide {
	out := []rowSide{{"request", rw.request}, {"raw", rw.raw}}
	if rw.same != nil {
		out = append(out, rowSide{"same", *rw.same})
	}
	return out
}

func (env *benchEnv) measureAll(ctx context.Context, o options, eps []endpoint) []row {
	var rows []row
	for i, ep := range eps {
		for _, c := range o.concurrency {
			rw := row{endpoint: ep.name, floor: ep.floor, budget: cmp.Or(ep.budget, maxRatioP50), conc: c, missing: ep.missing}
			if ep.missing != "" {
				rows = append(rows, rw)
				continue
			}
			if ctx.Err() != nil {
				return rows
			}
			seed := uint64(i*1000 + c)
			sides := []timedRun{{ep.request, seed}, {ep.raw, seed}}
			if ep.same != nil {
				sides = append(sides, timedRun{ep.same, seed})
			}
			names := []string{"request", "raw", "same"}
			var httpDials, sdkDials [3]int64
			res := measureRounds(ctx, c, o.warmup, o.duration, sides, func(_, side int, part func(context.Context)) {
				h0, s0 := env.api.dials.Load(), env.rec.dials.Load()
				// Labels let a -cpuprofile tell the sides apart (the API server's own goroutines
				// carry none: they are what is left once the labels are excluded).
				pprof.Do(ctx, pprof.Labels("side", names[side], "endpoint", ep.name), part)
				httpDials[side] += env.api.dials.Load() - h0
				sdkDials[side] += env.rec.dials.Load() - s0
			})
			rw.request, rw.raw = res[0], res[1]
			if ep.same != nil {
				rw.same = &res[2]
			}
			rw.httpDials, rw.requestSDKDials, rw.rawSDKDials = httpDials[0], sdkDials[0], sdkDials[1]
			same := ""
			if rw.same != nil {
				same = fmt.Sprintf("   same p50 %s (%d)", ms(rw.same.p50), rw.same.n)
			}
			progress("%-36s c=%-3d request p50 %s (%d)   raw p50 %s (%d)%s", ep.name, c,
				ms(rw.request.p50), rw.request.n, ms(rw.raw.p50), rw.raw.n, same)
			rows = append(rows, rw)
		}
	}
	return rows
}
