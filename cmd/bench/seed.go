package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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
	body := vehicleBody(i, time.Now())
	if seed == "api" {
		var v created
		err := env.api.do(ctx, p, http.MethodPost, "/api/v1/vehicles", body, http.StatusCreated, &v)
		return v.ID, err
	}
	var b patio.Body
	if err := json.Unmarshal(body, &b); err != nil {
		return "", err
	}
	v, err := patio.Vehicles{Store: env.store}.Create(ctx, p.teamID, b)
	return v.ID, err
}

// createDeal opens a deal of the deals team for clientID on vehicleID and returns its id.
func (env *benchEnv) createDeal(ctx context.Context, seed, clientID, vehicleID string) (string, error) {
	body := fmt.Appendf(nil, `{"title":"Venda bench","client_id":%q,"vehicle_id":%q,"phase":"negociacao","payment_method":"financiamento"}`,
		clientID, vehicleID)
	if seed == "api" {
		var d created
		err := env.api.do(ctx, env.deals, http.MethodPost, "/api/v1/deals", body, http.StatusCreated, &d)
		return d.ID, err
	}
	var b patio.Body
	if err := json.Unmarshal(body, &b); err != nil {
		return "", err
	}
	d, err := patio.Deals{Store: env.store, Vehicles: env.store}.Create(ctx, env.deals.teamID, b)
	return d.ID, err
}

// seed fills the tables: the measured team's vehicles and clients, and the deals to win.
func (env *benchEnv) seed(ctx context.Context, o options) error {
	how := map[string]string{
		"store": "through the domain use cases on the DynamoDB store (patio.Vehicles.Create: the API's code path minus HTTP and authentication)",
		"api":   "through the API (POST over HTTP)",
	}[o.seed]
	env.seedNote = fmt.Sprintf("seeded %s, %d at a time", how, seedWorkers)

	start := time.Now()
	env.vehicleIDs = make([]string, o.vehicles)
	err := parallel(ctx, o.vehicles, seedWorkers, func(ctx context.Context, i int) error {
		id, err := env.createVehicle(ctx, o.seed, env.main, plateIndexSeeded+i)
		env.vehicleIDs[i] = id
		return err
	})
	if err != nil {
		return fmt.Errorf("seed vehicles: %w", err)
	}
	took := time.Since(start)
	seedRate := float64(o.vehicles) / took.Seconds()
	progress("seeded %d vehicles in %s (%.0f/s)", o.vehicles, took.Round(time.Millisecond), seedRate)
	if err := env.raw.useVehicleTemplate(ctx, env.main.teamID, env.vehicleIDs[0]); err != nil {
		return err
	}

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
	if env.clientsServed && o.clients > 0 {
		start := time.Now()
		err := parallel(ctx, o.clients, seedWorkers, func(ctx context.Context, i int) error {
			return env.api.do(ctx, env.main, http.MethodPost, "/api/v1/clients", clientBody(i), http.StatusCreated, nil)
		})
		if err != nil {
			return fmt.Errorf("seed clients: %w", err)
		}
		progress("seeded %d clients through the API in %s", o.clients, time.Since(start).Round(time.Millisecond))
	}

	return env.seedDeals(ctx, o, seedRate)
}

// seedDeals prepares, in the deals team, one client and two pools of open deals, each on a vehicle
// of its own: one pool for the API side, one for the raw side. Unless -deals says otherwise, a pool
// holds what the win runs would use if winning (seven DynamoDB calls) went at 60% of the rate of
// seeding (one transaction); a run that empties its pool ends early and says so.
func (env *benchEnv) seedDeals(ctx context.Context, o options, seedRate float64) error {
	// Deals are spread over several clients: opening a deal checks its client in the same
	// transaction, and concurrent transactions on one item conflict and back off.
	clientIDs := make([]string, dealClients)
	how := "created through the API"
	if !env.clientsServed {
		how = "put directly in CLIENTS_TABLE, since the API does not serve clients yet"
	}
	err := parallel(ctx, dealClients, seedWorkers, func(ctx context.Context, i int) error {
		var err error
		clientIDs[i], err = env.dealsClient(ctx, i)
		return err
	})
	if err != nil {
		return fmt.Errorf("seed the deals' clients: %w", err)
	}
	n := o.pool
	if n <= 0 {
		runs := float64(len(o.concurrency)) * (o.warmup + o.duration).Seconds()
		n = int(math.Ceil(seedRate * runs * 0.6))
		n = min(max(n, 200), 4000)
	}
	start := time.Now()
	refs := make([]dealRef, 2*n)
	plate := newCounter(plateIndexDeals)
	err = parallel(ctx, len(refs), seedWorkers, func(ctx context.Context, i int) error {
		vid, err := env.createVehicle(ctx, o.seed, env.deals, plate.take())
		if err != nil {
			return err
		}
		did, err := env.createDeal(ctx, o.seed, clientIDs[i%dealClients], vid)
		refs[i] = dealRef{dealID: did, vehicleID: vid}
		return err
	})
	if err != nil {
		return fmt.Errorf("seed deals: %w", err)
	}
	env.appWins = &pool[dealRef]{items: refs[:n]}
	env.rawWins = &pool[dealRef]{items: refs[n:]}
	progress("prepared 2 × %d open deals on fresh vehicles (%d clients %s) in %s", n, dealClients, how,
		time.Since(start).Round(time.Millisecond))
	return nil
}

// dealClients is how many clients the prepared deals are spread over.
const dealClients = 32

// dealsClient returns the i-th active client of the deals team: created through the API when
// clients are served; otherwise (clients not merged yet) its item is put directly, holding only
// what the deals store's transaction checks (the item's key and status active).
func (env *benchEnv) dealsClient(ctx context.Context, i int) (string, error) {
	if env.clientsServed {
		var c created
		err := env.api.do(ctx, env.deals, http.MethodPost, "/api/v1/clients", clientBody(90_000_000+i), http.StatusCreated, &c)
		return c.ID, err
	}
	id, _ := patio.NewID()
	return id, env.raw.putBareClient(ctx, env.deals.teamID, id, cpf(90_000_000+i))
}
