package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/patio-dev/patio/shared/patio"
)

// seedWorkers bounds the concurrency of seeding.
const seedWorkers = 16

// parallel runs f(0) … f(n-1) on at most workers goroutines and returns the first error.
func parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return f(gctx, i) })
	}
	return g.Wait()
}

type created struct {
	ID string `json:"id"`
}

// createVehicle creates the vehicle with plate index i in p's team, the way -seed says, and
// returns its id.
func (env *benchEnv) createVehicle(ctx context.Context, seed string, p principal, i int) (string, error) {
	if seed == "api" {
		body := vehicleBody(i, time.Now())
		var v created
		err := env.api.do(ctx, p, http.MethodPost, "/api/v1/vehicles", body, http.StatusCreated, &v)
		return v.ID, err
	}
	v, err := patio.NewVehicles(env.store.Vehicles()).Create(ctx, p.teamID, benchVehicle(i, time.Now()))
	return v.ID, err
}

// createDeal opens a deal of the deals team for clientID on vehicleID and returns its id.
func (env *benchEnv) createDeal(ctx context.Context, seed, clientID, vehicleID string) (string, error) {
	if seed == "api" {
		body := fmt.Appendf(nil, `{"title":"Venda bench","client_id":%q,"vehicle_id":%q,"phase":"negociacao","payment_method":"financiamento"}`,
			clientID, vehicleID)
		var d created
		err := env.api.do(ctx, env.deals, http.MethodPost, "/api/v1/deals", body, http.StatusCreated, &d)
		return d.ID, err
	}
	in := patio.DealInput{Title: patio.Some("Venda bench"), ClientID: patio.Some(clientID), VehicleID: patio.Some(vehicleID),
		Phase: patio.Some("negociacao"), PaymentMethod: patio.Some("financiamento")}
	d, err := patio.NewDeals(env.store.Deals(), env.store.Vehicles()).Create(ctx, env.deals.teamID, in)
	return d.ID, err
}

// createClient creates the i-th client in p's team, the way -seed says, and returns its id.
func (env *benchEnv) createClient(ctx context.Context, seed string, p principal, i int) (string, error) {
	if seed == "api" {
		body := clientBody(i)
		var c created
		err := env.api.do(ctx, p, http.MethodPost, "/api/v1/clients", body, http.StatusCreated, &c)
		return c.ID, err
	}
	c, err := patio.NewClients(env.store.Clients()).Create(ctx, p.teamID, benchClient(i))
	return c.ID, err
}

// seed fills the tables: the deals to win, the measured team's clients, then its vehicles. The
// vehicles come last because, once VehiclesTable holds thousands of items, DynamoDB Local runs
// transactions on the other tables several times slower (client creation: about 12/s instead of
// 40 to 60/s, measured); the measured runs see the same data either way.
func (env *benchEnv) seed(ctx context.Context, o options) error {
	how := map[string]string{
		"store": "through the domain use cases on the DynamoDB store (patio.Vehicles.Create and the like: the API's code path minus HTTP, authentication and rate counting)",
		"api":   "through the API (POST over HTTP)",
	}[o.seed]
	env.seedNote = fmt.Sprintf("seeded %s, %d at a time", how, seedWorkers)

	status, err := env.api.status(ctx, env.main, http.MethodGet, "/api/v1/clients")
	if err != nil {
		return err
	}
	switch status {
	case http.StatusOK:
		env.clientsServed = true
	case http.StatusNotFound:
		progress("clients: not available (GET /api/v1/clients answers 404)")
	default:
		return fmt.Errorf("GET /api/v1/clients: unexpected status %d", status)
	}

	if err := env.seedDeals(ctx, o); err != nil {
		return err
	}

	if env.clientsServed && o.clients > 0 {
		start := time.Now()
		err := parallel(ctx, o.clients, seedWorkers, func(ctx context.Context, i int) error {
			_, err := env.createClient(ctx, o.seed, env.main, i)
			return err
		})
		if err != nil {
			return fmt.Errorf("seed clients: %w", err)
		}
		progress("seeded %d clients in %s", o.clients, time.Since(start).Round(time.Millisecond))
	}

	start := time.Now()
	env.vehicleIDs = make([]string, o.vehicles)
	err = parallel(ctx, o.vehicles, seedWorkers, func(ctx context.Context, i int) error {
		id, err := env.createVehicle(ctx, o.seed, env.main, plateIndexSeeded+i)
		env.vehicleIDs[i] = id
		return err
	})
	if err != nil {
		return fmt.Errorf("seed vehicles: %w", err)
	}
	took := time.Since(start)
	progress("seeded %d vehicles in %s (%.0f/s)", o.vehicles, took.Round(time.Millisecond), float64(o.vehicles)/took.Seconds())
	return env.raw.useVehicleTemplate(ctx, env.main.teamID, env.vehicleIDs[0])
}

// dealClients is how many clients the prepared deals are spread over: opening a deal checks its
// client in the same transaction, and concurrent transactions on one item conflict and back off.
const dealClients = 32

// seedDeals prepares, in the deals team, dealClients clients and three pools of -deals open deals,
// each on a vehicle of its own: one pool for each side (request, raw, same). A run that empties
// its pool ends early and says so.
func (env *benchEnv) seedDeals(ctx context.Context, o options) error {
	start := time.Now()
	clientIDs := make([]string, dealClients)
	err := parallel(ctx, dealClients, seedWorkers, func(ctx context.Context, i int) error {
		// Clients of the deals team go through the store when the API does not serve them yet.
		seed := o.seed
		if !env.clientsServed {
			seed = "store"
		}
		var err error
		clientIDs[i], err = env.createClient(ctx, seed, env.deals, 90_000_000+i)
		return err
	})
	if err != nil {
		return fmt.Errorf("seed the deals' clients: %w", err)
	}
	ids := make([]string, 3*o.pool)
	plate := newCounter(plateIndexDeals)
	err = parallel(ctx, len(ids), seedWorkers, func(ctx context.Context, i int) error {
		vid, err := env.createVehicle(ctx, o.seed, env.deals, plate.take())
		if err != nil {
			return err
		}
		ids[i], err = env.createDeal(ctx, o.seed, clientIDs[i%dealClients], vid)
		return err
	})
	if err != nil {
		return fmt.Errorf("seed deals: %w", err)
	}
	env.appWins = &pool[string]{items: ids[:o.pool]}
	env.rawWins = &pool[string]{items: ids[o.pool : 2*o.pool]}
	env.sameWins = &pool[string]{items: ids[2*o.pool:]}
	progress("prepared 3 × %d open deals, each on a fresh vehicle, for %d clients in %s", o.pool, dealClients,
		time.Since(start).Round(time.Millisecond))
	return nil
}
