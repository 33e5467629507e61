package main

import (
	"cmp"
	"context"
	"fmt"
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
	floor bool   // raw is the floor of a list page (listFloor), not the request's own calls
	rawIs string // what the raw side is when it is deliberately not the request's calls, or ""
	// budget is the most request/raw may be at p50 at concurrency 1 (issue 2's maxRatioP50 when 0).
	budget       float64
	request, raw op
}

// writeFloor says what a write's raw side is (raw.go: a write's floor).
const writeFloor = "raw is the write's floor (the records any design must write, in one transaction)"

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
				return api.do(ctx, main, http.MethodGet, "/api/v1/vehicles/"+randomVehicle(rng), nil, http.StatusOK)
			},
			raw: func(ctx context.Context, rng *rand.Rand) error {
				return raw.getVehicle(ctx, main, randomVehicle(rng))
			},
		},
		{
			name:  "GET /vehicles?limit=20&sort=-price",
			floor: true,
			request: func(ctx context.Context, _ *rand.Rand) error {
				return api.do(ctx, main, http.MethodGet, "/api/v1/vehicles?limit=20&sort=-price", nil, http.StatusOK)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				return raw.list(ctx, main, byPrice)
			},
		},
		{
			name:  "GET /clients",
			floor: true,
			request: func(ctx context.Context, _ *rand.Rand) error {
				return api.do(ctx, main, http.MethodGet, "/api/v1/clients", nil, http.StatusOK)
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
				return api.do(ctx, main, http.MethodPost, "/api/v1/vehicles", body, http.StatusCreated)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				return raw.createVehicle(ctx, main, env.nextPlate.take())
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
				return api.do(ctx, main, http.MethodPut, "/api/v1/vehicles/"+id, body, http.StatusOK)
			},
			raw: func(ctx context.Context, rng *rand.Rand) error {
				return raw.updateVehicle(ctx, main, randomVehicle(rng), updateBrands[rng.IntN(2)], money.Cents(1_000_000+rng.IntN(9_000_000)))
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
				_, _, err := api.send(ctx, main, http.MethodPost, "/api/v1/vehicles", body, key, http.StatusCreated, false)
				return err
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				body := vehicleBody(env.nextPlate.take(), time.Now())
				return api.do(ctx, main, http.MethodPost, "/api/v1/vehicles", body, http.StatusCreated)
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
				return api.do(ctx, deals, http.MethodPut, "/api/v1/deals/"+id, winBody, http.StatusOK)
			},
			raw: func(ctx context.Context, _ *rand.Rand) error {
				id, err := env.rawWins.take()
				if err != nil {
					return err
				}
				return raw.winDeal(ctx, deals, id)
			},
		},
	}
	return eps
}

// sample is one request of an endpoint and its raw calls, as seen on the wire.
type sample struct {
	endpoint string
	floor    bool
	rawIs    string
	sides    []sampleSide // request and raw
}

// sampleSide is one side of a sample, named.
type sampleSide struct {
	name  string
	calls []sdkCall
	err   error
}

// sideNames are the sides of a line in the report's order.
var sideNames = []string{"request", "raw"}

// sample runs each endpoint once on each side unrecorded (so that one-off work, guregu/dynamo's
// cached DescribeTable and new connections, does not show), then once with the recorder on.
func (env *benchEnv) sample(ctx context.Context, eps []endpoint) ([]sample, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	var out []sample
	for _, ep := range eps {
		sm := sample{endpoint: ep.name, floor: ep.floor, rawIs: ep.rawIs}
		calls := ep.sides()
		for i, call := range calls {
			if err := call(ctx, rng); err != nil {
				return nil, fmt.Errorf("%s (%s): %w", ep.name, sideNames[i], err)
			}
		}
		for i, call := range calls {
			side := sampleSide{name: sideNames[i]}
			side.calls, side.err = env.rec.record(func() error { return call(ctx, rng) })
			sm.sides = append(sm.sides, side)
		}
		out = append(out, sm)
	}
	return out, ctx.Err()
}

// sides returns the endpoint's ops in the report's order.
func (ep endpoint) sides() []op { return []op{ep.request, ep.raw} }

// row is one line of the table: an endpoint at one concurrency, each side.
type row struct {
	endpoint string
	floor    bool
	budget   float64
	conc     int
	sides    []result // request and raw
	// TCP connections opened during each side's run: by the load client, and by the SDK.
	httpDials, sdkDials [3]int64
}

func (env *benchEnv) measureAll(ctx context.Context, o options, eps []endpoint) []row {
	var rows []row
	for i, ep := range eps {
		for _, c := range o.concurrency {
			if ctx.Err() != nil {
				return rows
			}
			rw := row{endpoint: ep.name, floor: ep.floor, budget: cmp.Or(ep.budget, maxRatioP50), conc: c}
			var runs []timedRun
			for _, call := range ep.sides() {
				runs = append(runs, timedRun{call, uint64(i*1000 + c)})
			}
			rw.sides = measureRounds(ctx, c, o.warmup, o.duration, runs, func(_, side int, part func(context.Context)) {
				h0, s0 := env.api.dials.Load(), env.rec.dials.Load()
				part(ctx)
				rw.httpDials[side] += env.api.dials.Load() - h0
				rw.sdkDials[side] += env.rec.dials.Load() - s0
			})
			line := ""
			for j, r := range rw.sides {
				line += fmt.Sprintf("   %s p50 %s (%d)", sideNames[j], ms(r.p50), r.n)
			}
			progress("%-36s c=%-3d%s", ep.name, c, line)
			rows = append(rows, rw)
		}
	}
	return rows
}
