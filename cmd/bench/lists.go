package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Lists at any size (issues 10 and 24): one team per size, its vehicles bulk-loaded with a
// dealership's history (historyVehicles), and on each team the lists that must cost what their
// page costs (the default list, cursors, sorts, every equality filter alone and with status, a
// range, q, a combination and the sync recipe), beside GET /vehicles/{id} and beside their floor
// (listFloor); then a team of clients and one of deals, for their filters. Items examined are
// split between the page's reads and the count's (classify).

// maxDeepPage bounds how deep the cursor page goes: the deepest page the data allows, up to this.
const maxDeepPage = 100

// syncChanges is how many records the sync recipe's window holds.
const syncChanges = 100

// sizedTeam is one team of the lists' measurements: of vehicles, clients or deals.
type sizedTeam struct {
	resource string
	size     int
	p        principal
	ids      []string
	seeded   time.Duration

	vs []patio.Vehicle // the vehicles, clients or deals seeded, to compute what a list matches
	cs []patio.Client
	ds []patio.Deal

	// The deep page of the default list, reached by walking next_cursor from page 1: its number,
	// its cursor, and the id of the last record before it (the cursor's position). deepPage is 0
	// when the default list has a single page.
	deepPage   int
	deepCursor string
	deepAfter  string

	since   patio.Timestamp // the sync recipe's updated_since: syncChanges vehicles changed since
	plate   string          // the plate of a vehicle the default list shows
	client  string          // a client with deals (deals teams)
	changed int             // vehicles changed since since (ties at the second may add some)
}

// listClass is what a list's budget is.
type listClass int

const (
	classGet      listClass = iota // GET by id: the reference
	classBase                      // default, cursor, status, sorts (issue 10)
	classEquality                  // an equality filter alone or with status: k × limit + 10, counted from counts, ≤ 2× GET
	classFiltered                  // a range, q, a combination: (k × limit + 10) ÷ s, count ≤ matches, ≤ 5× GET
	classSync                      // the sync recipe: ≤ 2× GET
)

// listEndpoint is one measured request on a sized team, and its raw side.
type listEndpoint struct {
	name     string
	resource string
	class    listClass
	// k is the number of ranges the list merges (statuses shown), limit its page size; 0 for GET
	// by id, which has no items budget.
	k, limit int
	path     func(t *sizedTeam) string
	raw      func(t *sizedTeam) op
	// matches returns how many records the list matches, and how many its indexed filter reads
	// from (the share s is their ratio); nil when the budget needs neither.
	matches func(t *sizedTeam) (match, indexed int)
	// countedOnMatches says the count's most selective filter is the list's whole condition (a
	// range alone): its count may read the matches, not the indexed filter's.
	countedOnMatches bool
	// missing says why a team has no such request (a single page has no cursor page), or "".
	missing func(t *sizedTeam) string
}

// listRow is one endpoint on one team at one concurrency.
type listRow struct {
	endpoint string
	class    listClass
	k, limit int
	size     int
	conc     int
	missing  string
	request  result
	raw      result
	sample   sample
	match    int
	indexed  int
	counted  int // the matches of the most selective filter, which the count may read
}

// share is the row's s: the share of its indexed filter's matches that pass the other filters.
func (rw listRow) share() float64 {
	if rw.indexed == 0 {
		return 1
	}
	return float64(rw.match) / float64(rw.indexed)
}

// listReport is what the lists' measurements print.
type listReport struct {
	teams  []*sizedTeam
	rows   []listRow
	writes []writeCost
}

// examined returns the items a sample's calls examined (the ScannedCount of its queries, and the
// keys of its batch reads) and the number of its calls.
func examined(calls []sdkCall) (items, n int) {
	for _, c := range calls {
		items += max(c.scanned, 0)
	}
	return items, len(calls)
}

// classify splits the items a list's calls examined between its page (the reads of records:
// queries, and the keys of batch reads), its count (COUNT queries, reads of the matches' keys and
// order, word items) and the counter items it read (maintained counts and month sums).
func classify(calls []sdkCall) (page, count, counters int) {
	for _, c := range calls {
		n := max(c.scanned, 0)
		switch {
		case c.op == "BatchGetItem":
			page += strings.Count(c.body, `"sk":`)
		case c.op != "Query":
		case strings.Contains(c.body, `"n#`), strings.Contains(c.body, `"nf#`), strings.Contains(c.body, `"nm#`):
			counters += n
		case strings.Contains(c.body, `"Select":"COUNT"`),
			// A count's read of the matches projects their keys and order; a page of cards
			// (patio.ListQuery.Brief) projects a card's fields, its title among them (guregu/dynamo
			// writes a name that is no reserved word as it is: "pk, sk, id, title, …").
			strings.Contains(c.body, `"ProjectionExpression"`) && !strings.Contains(c.body, `, title,`),
			strings.Contains(c.body, `w#`) && !strings.Contains(c.body, `"IndexName"`):
			count += n
		default:
			page += n
		}
	}
	return page, count, counters
}

// perQuery returns the items each query of calls examined, largest first: "48 + 20 + 20 + 20 + 0".
func perQuery(calls []sdkCall) string {
	var ns []int
	for _, c := range calls {
		if c.scanned >= 0 {
			ns = append(ns, c.scanned)
		}
	}
	slices.SortFunc(ns, func(a, b int) int { return b - a })
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " + ")
}

// Data the filters measured at every size select (historyVehicles): Toyota is one vehicle in 12,
// a price range of 20,000 about 5 % of them (prices spread evenly over 15,000 to 414,999.99).
const (
	benchBrand    = "Toyota"
	benchModel    = "Corolla"
	benchFuel     = "diesel"
	benchPhase    = "disponivel"
	benchQ        = "corolla"
	rangeMin      = money.Cents(10_000_000)
	rangeMax      = money.Cents(12_000_000)
	comboPriceMax = money.Cents(20_000_000)
)

func (env *benchEnv) listEndpoints() []listEndpoint {
	raw, tables := env.raw, env.tables
	shown := defaultStatuses(patio.VehicleStatuses, patio.VehicleArchived)
	limit := patio.DefaultLimit
	floor := func(f listFloor) func(t *sizedTeam) op {
		return func(t *sizedTeam) op {
			return func(ctx context.Context, _ *rand.Rand) error { return raw.list(ctx, t.p, f) }
		}
	}
	vehicleFloor := func(field string, desc bool, status, facet string) func(t *sizedTeam) op {
		return floor(newListFloor(tables.Vehicles, patio.ResourceVehicle, field, desc, status, facet, limit))
	}
	fixed := func(path string) func(*sizedTeam) string { return func(*sizedTeam) string { return path } }
	byCreation := newListFloor(tables.Vehicles, patio.ResourceVehicle, "created_at", true, shown[0], "", limit)
	shownVehicles := func(status []string, keep func(patio.Vehicle) bool) func(t *sizedTeam) (int, int) {
		return func(t *sizedTeam) (int, int) {
			n := 0
			for _, v := range t.vs {
				if slices.Contains(status, v.Status) && keep(v) {
					n++
				}
			}
			return n, n
		}
	}
	brand := func(v patio.Vehicle) bool { return v.Brand == benchBrand }
	inRange := func(v patio.Vehicle) bool { return v.Price >= rangeMin && v.Price <= rangeMax }
	// filtered lists: what they match, and what their indexed filter reads (s = match ÷ indexed).
	filtered := func(status []string, indexed, rest func(patio.Vehicle) bool) func(t *sizedTeam) (int, int) {
		return func(t *sizedTeam) (int, int) {
			match, from := 0, 0
			for _, v := range t.vs {
				if !slices.Contains(status, v.Status) || !indexed(v) {
					continue
				}
				from++
				if rest(v) {
					match++
				}
			}
			return match, from
		}
	}
	all := func(patio.Vehicle) bool { return true }
	words := func(v patio.Vehicle) bool { return patio.MatchesTerms(v.Words(), []string{benchQ}) }
	eps := []listEndpoint{
		{name: "GET /vehicles/{id}", resource: patio.ResourceVehicle, class: classGet,
			raw: func(t *sizedTeam) op {
				return func(ctx context.Context, rng *rand.Rand) error {
					return raw.getVehicle(ctx, t.p, t.ids[rng.IntN(len(t.ids))])
				}
			}},
		{name: "GET /vehicles", class: classBase, k: len(shown), path: fixed("/api/v1/vehicles"), raw: floor(byCreation)},
		{name: "GET /vehicles?cursor=(deep)", class: classBase, k: len(shown),
			path: func(t *sizedTeam) string { return "/api/v1/vehicles?cursor=" + url.QueryEscape(t.deepCursor) },
			raw: func(t *sizedTeam) op {
				// The floor from the cursor's position: the first status's order items after it.
				f := byCreation
				f.hi = storeformat.Vehicles.OrderKey(shown[0], t.deepAfter)
				return floor(f)(t)
			},
			missing: func(t *sizedTeam) string {
				if t.deepPage == 0 {
					return "a single page: no cursor page"
				}
				return ""
			}},
		{name: "GET /vehicles?status=ativo", class: classBase, k: 1, path: fixed("/api/v1/vehicles?status=ativo"),
			raw: vehicleFloor("created_at", true, patio.VehicleActive, "")},
		{name: "GET /vehicles?sort=-price", class: classBase, k: len(shown), path: fixed("/api/v1/vehicles?sort=-price"),
			raw: vehicleFloor("price", true, shown[0], "")},
		{name: "GET /vehicles?sort=title", class: classBase, k: len(shown), path: fixed("/api/v1/vehicles?sort=title"),
			raw: vehicleFloor("title", false, shown[0], "")},
	}
	for _, f := range []struct {
		param, value, facet string
		keep                func(patio.Vehicle) bool
	}{
		{"brand", benchBrand, "brand=toyota", brand},
		{"model", benchModel, "model=corolla", func(v patio.Vehicle) bool { return v.Model == benchModel }},
		{"fuel", benchFuel, storeformat.FacetKey("fuel", benchFuel), func(v patio.Vehicle) bool { return v.Fuel != nil && *v.Fuel == benchFuel }},
		{"phase", benchPhase, storeformat.FacetKey("phase", benchPhase), func(v patio.Vehicle) bool { return v.Phase == benchPhase }},
	} {
		eps = append(eps,
			listEndpoint{name: "GET /vehicles?" + f.param + "=" + f.value, class: classEquality, k: len(shown),
				path: fixed("/api/v1/vehicles?" + f.param + "=" + f.value), raw: vehicleFloor("created_at", true, shown[0], f.facet),
				matches: shownVehicles(shown, f.keep)},
			listEndpoint{name: "GET /vehicles?status=ativo&" + f.param + "=" + f.value, class: classEquality, k: 1,
				path: fixed("/api/v1/vehicles?status=ativo&" + f.param + "=" + f.value),
				raw:  vehicleFloor("created_at", true, patio.VehicleActive, f.facet), matches: shownVehicles([]string{patio.VehicleActive}, f.keep)})
	}
	eps = append(eps,
		listEndpoint{name: "GET /vehicles?plate=…", class: classEquality, k: len(shown),
			path: func(t *sizedTeam) string { return "/api/v1/vehicles?plate=" + t.plate }, raw: floor(byCreation),
			matches: func(t *sizedTeam) (int, int) { return 1, 1 }},
		listEndpoint{name: "GET /vehicles?status=ativo&plate=…", class: classEquality, k: 1,
			path: func(t *sizedTeam) string { return "/api/v1/vehicles?status=ativo&plate=" + t.plate },
			raw:  vehicleFloor("created_at", true, patio.VehicleActive, ""), matches: func(t *sizedTeam) (int, int) { return 1, 1 }},
		listEndpoint{name: "GET /vehicles?price_min=100000&price_max=120000", class: classFiltered, k: len(shown),
			path: fixed(fmt.Sprintf("/api/v1/vehicles?price_min=%s&price_max=%s", rangeMin, rangeMax)), raw: floor(byCreation),
			matches: filtered(shown, all, inRange), countedOnMatches: true},
		listEndpoint{name: "GET /vehicles?q=" + benchQ, class: classFiltered, k: len(shown),
			path: fixed("/api/v1/vehicles?q=" + benchQ), raw: floor(byCreation), matches: filtered(shown, words, all)},
		listEndpoint{name: fmt.Sprintf("GET /vehicles?status=ativo&brand=%s&price_max=%s", benchBrand, comboPriceMax), class: classFiltered, k: 1,
			path:    fixed(fmt.Sprintf("/api/v1/vehicles?status=ativo&brand=%s&price_max=%s", benchBrand, comboPriceMax)),
			raw:     vehicleFloor("created_at", true, patio.VehicleActive, "brand=toyota"),
			matches: filtered([]string{patio.VehicleActive}, brand, func(v patio.Vehicle) bool { return v.Price <= comboPriceMax })},
		listEndpoint{name: fmt.Sprintf("GET /vehicles?sort=updated_at&updated_since=… (%d changes)", syncChanges), class: classSync,
			k: len(patio.VehicleStatuses),
			path: func(t *sizedTeam) string {
				return "/api/v1/vehicles?sort=updated_at&updated_since=" + url.QueryEscape(t.since.String())
			},
			raw: func(t *sizedTeam) op {
				f := newListFloor(tables.Vehicles, patio.ResourceVehicle, "updated_at", false, patio.VehicleSold, "", limit)
				f.lo = patio.VehicleSold + "#1#" + t.since.String()
				return floor(f)(t)
			},
			matches: func(t *sizedTeam) (int, int) { return t.changed, t.changed }},
		// A team of clients and one of deals, at their own sizes.
		listEndpoint{name: "GET /clients/{id}", resource: patio.ResourceClient, class: classGet,
			raw: func(t *sizedTeam) op {
				return func(ctx context.Context, rng *rand.Rand) error {
					return raw.getRecord(ctx, t.p, tables.Clients, patio.ResourceClient, t.ids[rng.IntN(len(t.ids))])
				}
			}},
		listEndpoint{name: "GET /clients?type=company", resource: patio.ResourceClient, class: classEquality, k: 1,
			path: fixed("/api/v1/clients?type=company"),
			raw: floor(newListFloor(tables.Clients, patio.ResourceClient, "created_at", true, patio.ClientActive,
				storeformat.FacetKey("type", patio.ClientCompany), limit)),
			matches: func(t *sizedTeam) (int, int) {
				n := 0
				for _, c := range t.cs {
					if c.Type == patio.ClientCompany && c.Status == patio.ClientActive {
						n++
					}
				}
				return n, n
			}},
		listEndpoint{name: "GET /deals/{id}", resource: patio.ResourceDeal, class: classGet,
			raw: func(t *sizedTeam) op {
				return func(ctx context.Context, rng *rand.Rand) error {
					return raw.getRecord(ctx, t.p, tables.Deals, patio.ResourceDeal, t.ids[rng.IntN(len(t.ids))])
				}
			}},
		listEndpoint{name: "GET /deals?client_id=…", resource: patio.ResourceDeal, class: classEquality,
			k:    len(defaultStatuses(patio.DealStatuses, patio.DealArchived)),
			path: func(t *sizedTeam) string { return "/api/v1/deals?client_id=" + t.client },
			raw: func(t *sizedTeam) op {
				return floor(newListFloor(tables.Deals, patio.ResourceDeal, "created_at", true, patio.DealOpen, storeformat.FacetKey("client_id", t.client), limit))(t)
			},
			matches: func(t *sizedTeam) (int, int) {
				n := 0
				for _, d := range t.ds {
					if d.ClientID == t.client && d.Status != patio.DealArchived {
						n++
					}
				}
				return n, n
			}},
	)
	for i := range eps {
		eps[i].resource = cmp.Or(eps[i].resource, patio.ResourceVehicle)
		if eps[i].class != classGet {
			eps[i].limit = limit
		}
	}
	return eps
}

// request is an endpoint's request on a team: GET by id of a random seeded record, or its path.
func (env *benchEnv) request(ep listEndpoint, t *sizedTeam) op {
	if ep.class == classGet {
		return func(ctx context.Context, rng *rand.Rand) error {
			return env.api.do(ctx, t.p, http.MethodGet, "/api/v1/"+ep.resource+"s/"+t.ids[rng.IntN(len(t.ids))], nil, http.StatusOK)
		}
	}
	path := ep.path(t)
	return func(ctx context.Context, _ *rand.Rand) error {
		return env.api.do(ctx, t.p, http.MethodGet, path, nil, http.StatusOK)
	}
}

// seedTeam creates a team of its own, lifts its rate limit and seeds its records, built by build.
func seedTeam[T any](ctx context.Context, env *benchEnv, resource string, size int, build func(teamID string) ([]T, error)) (*sizedTeam, []T, error) {
	p, err := createTeam(ctx, env.store, fmt.Sprintf("Bench %d %ss", size, resource))
	if err != nil {
		return nil, nil, err
	}
	if err := env.raw.liftRateLimits(ctx, p.teamID, rateLimitMinutes); err != nil {
		return nil, nil, fmt.Errorf("lift rate limits: %w", err)
	}
	recs, err := build(p.teamID)
	if err != nil {
		return nil, nil, err
	}
	t := &sizedTeam{resource: resource, size: size, p: p}
	if t.seeded, err = seedAll(ctx, env.store, recs); err != nil {
		return nil, nil, fmt.Errorf("seed %d %ss: %w", size, resource, err)
	}
	return t, recs, nil
}

// seedSized seeds a team of size vehicles with a dealership's history, opens its sync window and
// walks its default list to the deep page.
func (env *benchEnv) seedSized(ctx context.Context, size int) (*sizedTeam, error) {
	rng := rand.New(rand.NewPCG(uint64(size), 20))
	t, vs, err := seedTeam(ctx, env, patio.ResourceVehicle, size, func(teamID string) ([]patio.Vehicle, error) {
		return historyVehicles(teamID, size, 0, time.Now(), func() string { return historyStatus(rng) })
	})
	if err != nil {
		return nil, err
	}
	t.vs, t.ids = vs, ids(vs, func(v patio.Vehicle) string { return v.ID })
	for _, v := range vs {
		if t.plate == "" && v.Status == patio.VehicleActive && v.Plate != nil {
			t.plate = *v.Plate
		}
	}
	if err := env.changeSome(ctx, t, rng); err != nil {
		return nil, err
	}
	return t, env.walkToDeepPage(ctx, t)
}

// changeSome opens the sync recipe's window: syncChanges vehicles of the team, drawn at random,
// get a new price through the use cases after an instant no other vehicle changed since.
func (env *benchEnv) changeSome(ctx context.Context, t *sizedTeam, rng *rand.Rand) error {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	t.since = patio.NewTimestamp(time.Now())
	svc := patio.NewVehicles(env.store.Vehicles())
	for _, i := range rng.Perm(len(t.vs))[:min(syncChanges, len(t.vs))] {
		v, err := svc.Update(ctx, t.p.teamID, t.vs[i].ID, patio.VehicleInput{Price: patio.Some(t.vs[i].Price + 100)})
		if err != nil {
			return fmt.Errorf("sync window: %w", err)
		}
		t.vs[i] = v
	}
	for _, v := range t.vs {
		if !v.UpdatedAt.Time().Before(t.since.Time()) {
			t.changed++
		}
	}
	return nil
}

// seedClients seeds a team of size clients (a tenth inactive); seedDeals one of size deals over
// size/20 clients.
func (env *benchEnv) seedClients(ctx context.Context, size int) (*sizedTeam, error) {
	rng := rand.New(rand.NewPCG(uint64(size), 30))
	t, cs, err := seedTeam(ctx, env, patio.ResourceClient, size, func(teamID string) ([]patio.Client, error) {
		return historyClients(teamID, size, 0, time.Now(), func() string {
			if rng.IntN(10) == 0 {
				return patio.ClientInactive
			}
			return patio.ClientActive
		})
	})
	if err != nil {
		return nil, err
	}
	t.cs, t.ids = cs, ids(cs, func(c patio.Client) string { return c.ID })
	return t, nil
}

func (env *benchEnv) seedDeals(ctx context.Context, size int) (*sizedTeam, error) {
	clients := make([]string, max(size/20, 1))
	for i := range clients {
		clients[i], _ = patio.NewID()
	}
	t, ds, err := seedTeam(ctx, env, patio.ResourceDeal, size, func(teamID string) ([]patio.Deal, error) {
		return historyDeals(teamID, size, time.Now(), clients)
	})
	if err != nil {
		return nil, err
	}
	t.ds, t.ids, t.client = ds, ids(ds, func(d patio.Deal) string { return d.ID }), clients[len(clients)/2]
	return t, nil
}

// walkToDeepPage follows the default list's next_cursor from page 1 to the deepest page the data
// allows, up to maxDeepPage, and keeps that page's cursor and position.
func (env *benchEnv) walkToDeepPage(ctx context.Context, t *sizedTeam) error {
	var pg struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Pagination struct {
			Page       int     `json:"page"`
			NextCursor *string `json:"next_cursor"`
		} `json:"pagination"`
	}
	get := func(path string) error {
		_, body, err := env.api.send(ctx, t.p, http.MethodGet, path, nil, nil, http.StatusOK, true)
		if err == nil {
			err = json.Unmarshal(body, &pg)
		}
		return err
	}
	if err := get("/api/v1/vehicles"); err != nil {
		return err
	}
	for pg.Pagination.Page < maxDeepPage && pg.Pagination.NextCursor != nil && len(pg.Data) > 0 {
		cursor, after := *pg.Pagination.NextCursor, pg.Data[len(pg.Data)-1].ID
		if err := get("/api/v1/vehicles?cursor=" + url.QueryEscape(cursor)); err != nil {
			return err
		}
		t.deepPage, t.deepCursor, t.deepAfter = pg.Pagination.Page, cursor, after
	}
	return nil
}

// measureLists seeds one team per size (and the clients' and deals' teams) and measures every
// list endpoint on each: a sample of each request and its raw side with the recorder on (the
// items they examine), then, concurrency by concurrency, every endpoint at every size in rounds
// taking turns, so that the figures the budgets compare (concurrency 1: the lists at each size,
// GET by id, cursor pages) are measured alike.
func (env *benchEnv) measureLists(ctx context.Context, o options) (*listReport, error) {
	lr := &listReport{}
	if len(o.listSizes) == 0 {
		return lr, nil
	}
	for _, size := range o.listSizes {
		t, err := env.seedSized(ctx, size)
		if err != nil {
			return nil, err
		}
		lr.teams = append(lr.teams, t)
	}
	for _, r := range []struct {
		size int
		seed func(context.Context, int) (*sizedTeam, error)
	}{{o.listClients, env.seedClients}, {o.listDeals, env.seedDeals}} {
		if r.size > 0 {
			t, err := r.seed(ctx, r.size)
			if err != nil {
				return nil, err
			}
			lr.teams = append(lr.teams, t)
		}
	}
	var err error
	if lr.writes, err = env.measureWriteCosts(ctx); err != nil {
		return nil, err
	}
	// Every endpoint on every team of its resource, with a sample of each side (the items they
	// examine).
	type pair struct {
		ep       listEndpoint
		t        *sizedTeam
		seed     uint64
		missing  string
		req, raw op
		sample   sample
	}
	var pairs []*pair
	rng := rand.New(rand.NewPCG(8, 8))
	for ei, ep := range env.listEndpoints() {
		for ti, t := range lr.teams {
			if ep.resource != t.resource {
				continue
			}
			pr := &pair{ep: ep, t: t, seed: uint64(100_000 + ei*1000 + ti*100)}
			pairs = append(pairs, pr)
			if ep.missing != nil {
				if pr.missing = ep.missing(t); pr.missing != "" {
					continue
				}
			}
			pr.req, pr.raw = env.request(ep, t), ep.raw(t)
			pr.sample = sample{endpoint: fmt.Sprintf("%s (%d %ss)", ep.name, t.size, t.resource), floor: ep.k > 0}
			for i, call := range []op{pr.req, pr.raw} {
				if err := call(ctx, rng); err != nil {
					return nil, fmt.Errorf("%s (%d %ss, %s): %w", ep.name, t.size, t.resource, sideNames[i], err)
				}
			}
			for i, call := range []op{pr.req, pr.raw} {
				side := sampleSide{name: sideNames[i]}
				side.calls, side.err = env.rec.record(func() error { return call(ctx, rng) })
				pr.sample.sides = append(pr.sample.sides, side)
			}
		}
	}
	// Each concurrency's runs, endpoints and sizes, take turns in rounds (see rounds), so that the
	// figures the budgets compare across endpoints and sizes are measured alike.
	for _, c := range o.concurrency {
		var runs []timedRun
		for _, pr := range pairs {
			if pr.missing == "" {
				runs = append(runs, timedRun{pr.req, pr.seed + uint64(c)}, timedRun{pr.raw, pr.seed + uint64(c)})
			}
		}
		res := measureRounds(ctx, c, o.warmup, o.listDuration, runs, func(round, i int, part func(context.Context)) {
			if i == 0 {
				progress("lists: c=%d, round %d of %d", c, round+1, rounds)
			}
			part(ctx)
		})
		if ctx.Err() != nil {
			return lr, ctx.Err()
		}
		for _, pr := range pairs {
			ep, t := pr.ep, pr.t
			rw := listRow{endpoint: ep.name, class: ep.class, k: ep.k, limit: ep.limit, size: t.size, conc: c, sample: pr.sample, missing: pr.missing}
			if ep.matches != nil {
				rw.match, rw.indexed = ep.matches(t)
				rw.counted = rw.indexed
				if ep.countedOnMatches {
					rw.counted = rw.match
				}
			}
			if rw.missing == "" {
				rw.request, rw.raw, res = res[0], res[1], res[2:]
				progress("lists: %-60s %6d c=%-3d request p50 %s (%d)   raw p50 %s (%d)", ep.name, t.size, c,
					ms(rw.request.p50), rw.request.n, ms(rw.raw.p50), rw.raw.n)
			}
			lr.rows = append(lr.rows, rw)
		}
	}
	return lr, nil
}

// Budgets of lists at any size (issues 10 and 24).
const (
	maxListVsGet       = 2.0 // the default list, an equality filter, the sync recipe at the largest size, × GET by id at p50, c=1
	maxFilteredVsGet   = 5.0 // a range, q, a combination at the largest size, × GET by id
	maxListGrowth      = 1.2 // the default list at the largest size × itself at the smallest; a filter's ratio to its floor likewise
	itemsSlack         = 10  // items examined per page ≤ k × limit + itemsSlack
	maxCursorDeviation = 0.2 // a deep cursor page costs page 1's, ± this
)

func (lr *listReport) row(endpoint string, size, conc int) (listRow, bool) {
	for _, rw := range lr.rows {
		if rw.endpoint == endpoint && rw.size == size && rw.conc == conc {
			return rw, rw.missing == "" && rw.request.n > 0
		}
	}
	return listRow{}, false
}

// getOf returns the GET by id row of an endpoint's resource at a size.
func (lr *listReport) getOf(rw listRow, conc int) (listRow, bool) {
	for _, g := range lr.rows {
		if g.class == classGet && g.size == rw.size && g.conc == conc && strings.HasPrefix(g.endpoint, "GET /"+resourcePath(rw.endpoint)+"/") {
			return g, g.request.n > 0
		}
	}
	return listRow{}, false
}

// resourcePath is the collection an endpoint's path names ("vehicles").
func resourcePath(endpoint string) string {
	p := strings.TrimPrefix(endpoint, "GET /")
	return p[:strings.IndexAny(p+"?", "?/")]
}

func printLists(w io.Writer, lr *listReport, o options) {
	if lr == nil || len(lr.teams) == 0 {
		return
	}
	fmt.Fprintf(w, "\nLists at any size (issues 10, 24): one team per size, seeded in batches in the store's own item format (dynamostore.Seed):\n")
	fmt.Fprintln(w, "      a history of vehicles (45 % vendido, 45 % arquivado, 5 % ativo, 5 % reservado, created evenly over 5 years);")
	fmt.Fprintln(w, "      clients (one in five a company, 10 % inactive) and deals (over size/20 clients: 20 % open, 40 % won, 30 % lost, 10 % archived)")
	for _, t := range lr.teams {
		deep := ""
		if t.resource == patio.ResourceVehicle {
			deep = "; no cursor page (a single page)"
			if t.deepPage > 0 {
				deep = fmt.Sprintf("; cursor page: page %d, reached by walking next_cursor", t.deepPage)
			}
			deep += fmt.Sprintf("; sync window: %d vehicles changed since %s", t.changed, t.since)
		}
		fmt.Fprintf(w, "      %6d %ss: seeded in %s (%.0f/s)%s\n", t.size, t.resource, t.seeded.Round(time.Millisecond),
			float64(t.size)/t.seeded.Seconds(), deep)
	}
	fmt.Fprintf(w, "runs: %s measured per side of each line, in %d rounds in which every line of a concurrency takes its turn; warm-up %s, then %s a round\n",
		o.listDuration, rounds, o.warmup, roundWarmup(o.warmup, 1))
	fmt.Fprintf(w, "      raw of a list: its floor, the request's authentication and rate counting (4 calls) then one strongly consistent\n")
	fmt.Fprintf(w, "      Query of limit items of the range the store reads first (first status shown, list order, from the cursor's position;\n")
	fmt.Fprintf(w, "      a facet value's range for a list filtered by one)\n")
	fmt.Fprintf(w, "      examined: items the sample request's calls examined, split: page (reads of records) + count (COUNT queries, counter items, word items)\n")
	fmt.Fprintf(w, "      s: the share of the indexed filter's matches that pass the others; matches: the records the list matches\n\n")

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\tsize\tc\tn\treq p50\treq p99\traw p50\t×p50\texamined page\tcount\tcounters\traw\tcalls\tmatches\ts\t")
	for _, rw := range lr.rows {
		if rw.missing != "" {
			fmt.Fprintf(tw, "%s\t%d\t%d\t\t%s\t\t\t\t\t\t\t\t\t\t\t\n", rw.endpoint, rw.size, rw.conc, rw.missing)
			continue
		}
		page, count, counters := classify(rw.sample.sides[0].calls)
		rawItems, _ := examined(rw.sample.sides[1].calls)
		_, calls := examined(rw.sample.sides[0].calls)
		matches, share := "", ""
		if rw.class == classEquality || rw.class == classFiltered || rw.class == classSync {
			matches, share = strconv.Itoa(rw.match), fmt.Sprintf("%.3f", rw.share())
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n",
			rw.endpoint, rw.size, rw.conc, rw.request.n, ms(rw.request.p50), ms(rw.request.p99), ms(rw.raw.p50),
			times(rw.request.p50, rw.raw.p50), page, count, counters, rawItems, calls, matches, share)
	}
	_ = tw.Flush()
	for _, rw := range lr.rows {
		for i, res := range []result{rw.request, rw.raw} {
			for _, n := range res.notes(fmt.Sprintf("%s (%d) c=%d %s", rw.endpoint, rw.size, rw.conc, sideNames[i])) {
				fmt.Fprintln(w, "note:", n)
			}
		}
	}
	printListCalls(w, lr)
	printListBudgets(w, lr, o)
	printWriteCosts(w, lr.writes)
}

// printListCalls prints the DynamoDB calls of one sample request per list at the largest size.
func printListCalls(w io.Writer, lr *listReport) {
	largest := lr.largest()
	fmt.Fprintf(w, "\nDynamoDB calls of one sample request per list at %d vehicles (operation, bytes sent → received, items examined):\n", largest)
	seen := map[string]bool{}
	for _, rw := range lr.rows {
		sm := rw.sample
		if rw.missing != "" || (rw.size != largest && !strings.Contains(sm.endpoint, "clients") && !strings.Contains(sm.endpoint, "deals")) || seen[sm.endpoint] {
			continue
		}
		seen[sm.endpoint] = true
		fmt.Fprintf(w, "  %s\n", sm.endpoint)
		for _, side := range sm.sides {
			fmt.Fprintf(w, "    %-8s", side.name)
			for _, c := range side.calls {
				if c.scanned >= 0 {
					fmt.Fprintf(w, " %s %s→%s (%d);", c.op, kb(c.sent), kb(c.received), c.scanned)
				} else {
					fmt.Fprintf(w, " %s;", c.op)
				}
			}
			if side.err != nil {
				fmt.Fprintf(w, " error: %v", side.err)
			}
			fmt.Fprintln(w)
		}
	}
}

// smallest and largest are the vehicle team sizes measured.
func (lr *listReport) smallest() int {
	n := 0
	for _, t := range lr.teams {
		if t.resource == patio.ResourceVehicle && (n == 0 || t.size < n) {
			n = t.size
		}
	}
	return n
}

func (lr *listReport) largest() int {
	n := 0
	for _, t := range lr.teams {
		if t.resource == patio.ResourceVehicle {
			n = max(n, t.size)
		}
	}
	return n
}

func printListBudgets(w io.Writer, lr *listReport, o options) {
	fmt.Fprintln(w, "\nbudgets of lists at any size (issues 10, 24; printed, not enforced):")
	smallest, largest, c1 := lr.smallest(), lr.largest(), o.concurrency[0]
	for _, rw := range lr.rows {
		if rw.class == classGet || rw.conc != c1 || rw.missing != "" || rw.request.n == 0 {
			continue
		}
		page, count, counters := classify(rw.sample.sides[0].calls)
		most := rw.k*rw.limit + itemsSlack
		switch rw.class {
		case classBase:
			fmt.Fprintf(w, "  %s  %s at %d: %d items examined (%s) ≤ k × limit + %d = %d\n", verdict(page+count+counters <= most),
				rw.endpoint, rw.size, page+count+counters, perQuery(rw.sample.sides[0].calls), itemsSlack, most)
		case classEquality:
			fmt.Fprintf(w, "  %s  %s at %d: page %d + counters %d items ≤ k × limit + %d = %d; counted (COUNT, word items): %d, want 0\n",
				verdict(page+counters <= most && count == 0), rw.endpoint, rw.size, page, counters, itemsSlack, most, count)
		case classFiltered:
			bound := int(float64(most) / max(rw.share(), 1e-9))
			fmt.Fprintf(w, "  %s  %s at %d: page %d items ≤ (k × limit + %d) ÷ s = %d ÷ %.3f = %d; count %d items ≤ the %d matches of the indexed filter (and %d counter items)\n",
				verdict(page <= bound && count <= rw.counted), rw.endpoint, rw.size, page, itemsSlack, most, rw.share(), bound,
				count, rw.counted, counters)
		case classSync:
			fmt.Fprintf(w, "  %s  %s at %d: page %d items ≤ the %d changes + %d, count %d ≤ the changes (nothing older read)\n",
				verdict(page <= rw.match+itemsSlack && count <= rw.match), rw.endpoint, rw.size, page, rw.match, itemsSlack, count)
		}
		get, ok := lr.getOf(rw, c1)
		if !ok || (rw.size != largest && rw.resource() == patio.ResourceVehicle) {
			continue
		}
		limit, what := maxListVsGet, "2×"
		if rw.class == classFiltered {
			limit, what = maxFilteredVsGet, "5×"
		}
		if rw.class != classBase || rw.endpoint == "GET /vehicles" {
			x := ratio(rw.request.p50, get.request.p50)
			fmt.Fprintf(w, "  %s  %s at %d: p50 %s ≤ %s %s (%s) (×%.2f)\n", verdict(x <= limit), rw.endpoint, rw.size,
				ms(rw.request.p50), what, get.endpoint, ms(get.request.p50), x)
		}
	}
	for _, rw := range lr.rows {
		if rw.size != largest || rw.conc != c1 || rw.resource() != patio.ResourceVehicle || rw.class == classGet || rw.missing != "" ||
			smallest == largest {
			continue
		}
		small, ok := lr.row(rw.endpoint, smallest, c1)
		if !ok {
			continue
		}
		big, little := ratio(rw.request.p50, rw.raw.p50), ratio(small.request.p50, small.raw.p50)
		x := big / max(little, 1e-9)
		fmt.Fprintf(w, "  %s  %s: ratio to its floor at %d (×%.2f) ≤ %.1f × that at %d (×%.2f): ×%.2f\n", verdict(x <= maxListGrowth),
			rw.endpoint, largest, big, maxListGrowth, smallest, little, x)
	}
	for _, t := range lr.teams {
		if t.resource != patio.ResourceVehicle {
			continue
		}
		page1, ok1 := lr.row("GET /vehicles", t.size, c1)
		deep, okDeep := lr.row("GET /vehicles?cursor=(deep)", t.size, c1)
		if !ok1 || !okDeep {
			fmt.Fprintf(w, "  SKIP  cursor page at %d vehicles: no cursor page or not measured at concurrency 1\n", t.size)
			continue
		}
		a, _ := examined(deep.sample.sides[0].calls)
		b, _ := examined(page1.sample.sides[0].calls)
		within := func(x float64) bool { return x >= 1-maxCursorDeviation && x <= 1+maxCursorDeviation }
		bound := fmt.Sprintf("±%.0f %%", 100*maxCursorDeviation)
		if a < b {
			// A page near the end of the data reads what is left of each status: fewer items than
			// page 1, at less cost. Only the upper bound says something about depth then.
			within = func(x float64) bool { return x <= 1+maxCursorDeviation }
			bound = fmt.Sprintf("+%.0f %% at most (near the end of the data)", 100*maxCursorDeviation)
		}
		x := ratio(deep.request.p50, page1.request.p50)
		fmt.Fprintf(w, "  %s  cursor page %d at %d vehicles costs page 1's %s at p50, c=1: %s vs %s (×%.2f)\n",
			verdict(within(x)), t.deepPage, t.size, bound, ms(deep.request.p50), ms(page1.request.p50), x)
	}
}

// resource is the collection a row's endpoint lists.
func (rw listRow) resource() string {
	switch resourcePath(rw.endpoint) {
	case "clients":
		return patio.ResourceClient
	case "deals":
		return patio.ResourceDeal
	}
	return patio.ResourceVehicle
}
