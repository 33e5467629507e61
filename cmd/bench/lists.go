package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Budgets of lists at any size (issues 10 and 24: on a team per size, and one of clients, one of
// deals, lists cost what their page costs, beside GET by id and their floor), and their filters.
const (
	maxListVsGet       = 2.0 // the default list, an equality filter, the sync recipe at the largest size, × GET by id, modeled
	maxFilteredVsGet   = 5.0 // a range, q, a combination at the largest size, × GET by id
	maxTotalVsGet      = 3.0 // a 5 % price range, q and the sync recipe, with their total, at the largest size (issue 32)
	maxListGrowth      = 1.2 // a list's ratio to its floor at the largest size × that at the smallest
	itemsSlack         = 10  // items examined per page ≤ k × limit + itemsSlack
	maxCursorDeviation = 0.2 // a deep cursor page costs page 1's, ± this
	maxDeepPage        = 100 // how deep the cursor page goes at most
	syncChanges        = 100 // records the sync recipe's window holds
	maxSyncGrowth      = 1.2 // the sync recipe at the largest size (its history sold or archived) × at the smallest, p50 and items
	// Toyota is one vehicle in 12, a price range of 20,000 about 5 % of them.
	benchBrand    = "Toyota"
	benchModel    = "Corolla"
	benchFuel     = "diesel"
	benchPhase    = "disponivel"
	benchQ        = "corolla"
	rangeMin      = money.Cents(10_000_000)
	rangeMax      = money.Cents(12_000_000)
	comboPriceMax = money.Cents(20_000_000)
)

// sizedTeam is one team of the lists' measurements: of vehicles, clients or deals.
type sizedTeam struct {
	resource              string
	size                  int
	p                     principal
	ids                   []string
	vs                    []patio.Vehicle // the records seeded, to compute what a list matches
	cs                    []patio.Client
	ds                    []patio.Deal
	deepPage              int // the default list's deep page (walkToDeepPage; 0 for a single page)
	deepCursor, deepAfter string
	since                 patio.Timestamp // the sync recipe's updated_since
	changed               int             // vehicles changed since since (ties at the second may add some)
	plate, client         string          // a vehicle's plate the default list shows; a client with deals
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
	k        int // ranges the list merges (statuses shown); 0 for GET by id
	path     func(t *sizedTeam) string
	raw      func(t *sizedTeam) op
	matches  func(t *sizedTeam) (match, indexed int) // what the list matches, and its indexed filter reads
	// countedOnMatches: the count may read the matches (a range alone), not the indexed filter's.
	countedOnMatches bool
}

// listRow is one endpoint on one team.
type listRow struct {
	endpoint, resource    string
	class                 listClass
	k, limit, size        int
	missing               string // why the team has no such request, or ""
	sample                sample // request and floor
	match, indexed        int
	counted               int // the matches of the most selective filter, which the count may read
	page, count, counters int // the request's items examined (classify)
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
	teams []*sizedTeam
	rows  []listRow
}

// req is the row's request side, floor its floor's.
func (rw listRow) req() sampleSide   { return rw.sample.sides[0] }
func (rw listRow) floor() sampleSide { return rw.sample.sides[1] }

// examined returns the items calls examined (their ScannedCount).
func examined(calls []sdkCall) (items int) {
	for _, c := range calls {
		items += max(c.scanned, 0)
	}
	return items
}

// classify splits the items a list's calls examined between its page (reads of records), its count
// (COUNT queries, reads of the matches' keys, word items) and counter items (counts, month sums),
// telling each Query by the keys it reads (storeformat) and what it projects.
func classify(calls []sdkCall) (page, count, counters int) {
	for _, c := range calls {
		n, q := max(c.scanned, 0), queryOf(c)
		switch {
		case c.op == "BatchGetItem":
			page += c.items
		case c.op != "Query":
		case q.reads(isCounterKey):
			counters += n
		case q.Select == "COUNT", q.projected() > 0 && q.projected() <= maxKeysProjected, q.IndexName == "" && q.reads(isWordKey):
			count += n
		default:
			page += n
		}
	}
	return page, count, counters
}

// maxKeysProjected is the most attributes a count's read of the matches projects (their keys and
// order: partition, sort, id, status, the order's attribute); a page of cards projects a card's.
const maxKeysProjected = 5

// query is what classify reads of a Query's request: its key condition's values are in
// KeyConditions (guregu/dynamo's form without a filter) or in ExpressionAttributeValues.
type query struct {
	TableName, Select, IndexName, ProjectionExpression string
	ExpressionAttributeValues                          map[string]value
	KeyConditions                                      map[string]struct{ AttributeValueList []value }
}

// value is an attribute value of a request, when it is a string.
type value struct{ S *string }

// queryOf decodes a recorded call's request as a Query's.
func queryOf(c sdkCall) (q query) {
	_ = json.Unmarshal([]byte(c.body), &q)
	return q
}

// projected is how many attributes the query projects (0: whole items).
func (q query) projected() int {
	if q.ProjectionExpression == "" {
		return 0
	}
	return strings.Count(q.ProjectionExpression, ",") + 1
}

// reads reports whether a string value of the query's key condition is one is tells.
func (q query) reads(is func(sk string) bool) bool {
	values := slices.Collect(maps.Values(q.ExpressionAttributeValues))
	for _, c := range q.KeyConditions {
		values = append(values, c.AttributeValueList...)
	}
	return slices.ContainsFunc(values, func(v value) bool { return v.S != nil && is(*v.S) })
}

// isCounterKey tells a counter item's sort key, or a bound of a read of them: a status shard, an
// open facet value's, month sums.
func isCounterKey(sk string) bool {
	return strings.HasPrefix(sk, storeformat.CountPrefix) || strings.HasPrefix(sk, storeformat.FacetCountPrefix) ||
		strings.HasPrefix(sk, storeformat.MonthSumPrefix)
}

// isWordKey tells a word item's sort key, of any listed kind.
func isWordKey(sk string) bool {
	return slices.ContainsFunc([]*storeformat.Layout{storeformat.Vehicles, storeformat.Clients, storeformat.Deals,
		storeformat.Activities, storeformat.Financial}, func(l *storeformat.Layout) bool { return l.IsWordKey(sk) })
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

// countWhere counts the records keep keeps.
func countWhere[T any](recs []T, keep func(T) bool) int {
	n := 0
	for _, r := range recs {
		if keep(r) {
			n++
		}
	}
	return n
}

// listEndpoints are the lists measured at every size, and GET by id beside them.
func (env *benchEnv) listEndpoints() []listEndpoint {
	raw, tables, limit := env.raw, env.tables, patio.DefaultLimit
	shown := defaultStatuses(patio.VehicleStatuses, string(patio.VehicleArchived))
	active := []string{string(patio.VehicleActive)}
	floor := func(table, resource, field string, desc bool, status, facet string) func(t *sizedTeam) op {
		f := newListFloor(table, resource, field, desc, status, facet, limit)
		return func(t *sizedTeam) op {
			return func(ctx context.Context, _ *rand.Rand) error { return raw.list(ctx, t.p, f) }
		}
	}
	vehicleFloor := func(field string, desc bool, status, facet string) func(t *sizedTeam) op {
		return floor(tables.Vehicles, patio.ResourceVehicle, field, desc, status, facet)
	}
	byCreation := vehicleFloor("created_at", true, shown[0], "")
	fixed := func(path string) func(*sizedTeam) string { return func(*sizedTeam) string { return path } }
	// filtered: what a list matches, and what its indexed filter reads (s = match ÷ indexed).
	filtered := func(status []string, indexed, rest func(patio.Vehicle) bool) func(t *sizedTeam) (int, int) {
		return func(t *sizedTeam) (int, int) {
			in := func(v patio.Vehicle) bool { return slices.Contains(status, string(v.Status)) && indexed(v) }
			return countWhere(t.vs, func(v patio.Vehicle) bool { return in(v) && rest(v) }), countWhere(t.vs, in)
		}
	}
	all := func(patio.Vehicle) bool { return true }
	brand := func(v patio.Vehicle) bool { return v.Brand == benchBrand }
	one := func(*sizedTeam) (int, int) { return 1, 1 }
	getByID := func(resource, table string) listEndpoint {
		return listEndpoint{name: "GET /" + resource + "s/{id}", resource: resource, class: classGet, raw: func(t *sizedTeam) op {
			return func(ctx context.Context, rng *rand.Rand) error {
				return raw.getRecord(ctx, t.p, table, resource, t.ids[rng.IntN(len(t.ids))])
			}
		}}
	}
	eps := []listEndpoint{
		getByID(patio.ResourceVehicle, tables.Vehicles),
		{name: "GET /vehicles", class: classBase, k: len(shown), path: fixed("/api/v1/vehicles"), raw: byCreation},
		{name: "GET /vehicles?cursor=(deep)", class: classBase, k: len(shown),
			path: func(t *sizedTeam) string { return "/api/v1/vehicles?cursor=" + url.QueryEscape(t.deepCursor) },
			raw: func(t *sizedTeam) op {
				// The floor from the cursor's position: the first status's order items after it.
				f := newListFloor(tables.Vehicles, patio.ResourceVehicle, "created_at", true, shown[0], "", limit)
				f.hi = storeformat.Vehicles.OrderKey(shown[0], t.deepAfter)
				return func(ctx context.Context, _ *rand.Rand) error { return raw.list(ctx, t.p, f) }
			}},
		{name: "GET /vehicles?status=ativo", class: classBase, k: 1, path: fixed("/api/v1/vehicles?status=ativo"),
			raw: vehicleFloor("created_at", true, string(patio.VehicleActive), "")},
		{name: "GET /vehicles?sort=-price", class: classBase, k: len(shown), path: fixed("/api/v1/vehicles?sort=-price"),
			raw: vehicleFloor("price", true, shown[0], "")},
		{name: "GET /vehicles?sort=title", class: classBase, k: len(shown), path: fixed("/api/v1/vehicles?sort=title"),
			raw: vehicleFloor("title", false, shown[0], "")},
	}
	for _, f := range []struct {
		param, value, facet string
		keep                func(patio.Vehicle) bool
	}{
		{"brand", benchBrand, storeformat.FacetKey("brand", patio.Fold(benchBrand)), brand},
		{"model", benchModel, storeformat.FacetKey("model", patio.Fold(benchModel)), func(v patio.Vehicle) bool { return v.Model == benchModel }},
		{"fuel", benchFuel, storeformat.FacetKey("fuel", benchFuel), func(v patio.Vehicle) bool { return v.Fuel != nil && *v.Fuel == benchFuel }},
		{"phase", benchPhase, storeformat.FacetKey("phase", benchPhase), func(v patio.Vehicle) bool { return v.Phase == benchPhase }},
	} {
		q := f.param + "=" + f.value
		eps = append(eps,
			listEndpoint{name: "GET /vehicles?" + q, class: classEquality, k: len(shown), path: fixed("/api/v1/vehicles?" + q),
				raw: vehicleFloor("created_at", true, shown[0], f.facet), matches: filtered(shown, f.keep, all)},
			listEndpoint{name: "GET /vehicles?status=ativo&" + q, class: classEquality, k: 1, path: fixed("/api/v1/vehicles?status=ativo&" + q),
				raw: vehicleFloor("created_at", true, string(patio.VehicleActive), f.facet), matches: filtered(active, f.keep, all)})
	}
	combo := fmt.Sprintf("/vehicles?status=ativo&brand=%s&price_max=%s", benchBrand, comboPriceMax)
	eps = append(eps,
		listEndpoint{name: "GET /vehicles?plate=…", class: classEquality, k: len(shown),
			path: func(t *sizedTeam) string { return "/api/v1/vehicles?plate=" + t.plate }, raw: byCreation, matches: one},
		listEndpoint{name: "GET /vehicles?status=ativo&plate=…", class: classEquality, k: 1,
			path: func(t *sizedTeam) string { return "/api/v1/vehicles?status=ativo&plate=" + t.plate },
			raw:  vehicleFloor("created_at", true, string(patio.VehicleActive), ""), matches: one},
		listEndpoint{name: "GET /vehicles?price_min=100000&price_max=120000", class: classFiltered, k: len(shown),
			path: fixed(fmt.Sprintf("/api/v1/vehicles?price_min=%s&price_max=%s", rangeMin, rangeMax)), raw: byCreation,
			matches: filtered(shown, all, func(v patio.Vehicle) bool { return v.Price >= rangeMin && v.Price <= rangeMax }), countedOnMatches: true},
		listEndpoint{name: "GET /vehicles?q=" + benchQ, class: classFiltered, k: len(shown), path: fixed("/api/v1/vehicles?q=" + benchQ), raw: byCreation,
			matches: filtered(shown, func(v patio.Vehicle) bool { return patio.MatchesTerms(v.Words(), []string{benchQ}) }, all)},
		listEndpoint{name: "GET " + combo, class: classFiltered, k: 1, path: fixed("/api/v1" + combo),
			raw:     vehicleFloor("created_at", true, string(patio.VehicleActive), storeformat.FacetKey("brand", patio.Fold(benchBrand))),
			matches: filtered(active, brand, func(v patio.Vehicle) bool { return v.Price <= comboPriceMax })},
		listEndpoint{name: fmt.Sprintf("GET /vehicles?sort=updated_at&updated_since=… (%d changes)", syncChanges), class: classSync,
			k: len(patio.VehicleStatuses),
			path: func(t *sizedTeam) string {
				return "/api/v1/vehicles?sort=updated_at&updated_since=" + url.QueryEscape(t.since.String())
			},
			raw: func(t *sizedTeam) op {
				f := newListFloor(tables.Vehicles, patio.ResourceVehicle, "updated_at", false, string(patio.VehicleSold), "", limit)
				since := t.since.String()
				f.lo = storeformat.SortKey(string(patio.VehicleSold), &since, "") // the first key updated at since or later
				return func(ctx context.Context, _ *rand.Rand) error { return raw.list(ctx, t.p, f) }
			},
			matches: func(t *sizedTeam) (int, int) { return t.changed, t.changed }},
		// A team of clients and one of deals, at their own sizes.
		getByID(patio.ResourceClient, tables.Clients),
		listEndpoint{name: "GET /clients?type=company", resource: patio.ResourceClient, class: classEquality, k: 1,
			path: fixed("/api/v1/clients?type=company"),
			raw:  floor(tables.Clients, patio.ResourceClient, "created_at", true, string(patio.ClientActive), storeformat.FacetKey("type", patio.ClientCompany)),
			matches: func(t *sizedTeam) (int, int) {
				n := countWhere(t.cs, func(c patio.Client) bool { return c.Type == patio.ClientCompany && c.Status == patio.ClientActive })
				return n, n
			}},
		getByID(patio.ResourceDeal, tables.Deals),
		listEndpoint{name: "GET /deals?client_id=…", resource: patio.ResourceDeal, class: classEquality,
			k:    len(defaultStatuses(patio.DealStatuses, string(patio.DealArchived))),
			path: func(t *sizedTeam) string { return "/api/v1/deals?client_id=" + t.client },
			raw: func(t *sizedTeam) op {
				return floor(tables.Deals, patio.ResourceDeal, "created_at", true, string(patio.DealOpen), storeformat.FacetKey("client_id", t.client))(t)
			},
			matches: func(t *sizedTeam) (int, int) {
				n := countWhere(t.ds, func(d patio.Deal) bool { return d.ClientID == t.client && d.Status != patio.DealArchived })
				return n, n
			}},
	)
	for i := range eps {
		if eps[i].resource == "" {
			eps[i].resource = patio.ResourceVehicle
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
	return env.get(t.p, ep.path(t))
}

// seedTeam creates a team of its own, lifts its rate limit and seeds its records.
func seedTeam[T any](ctx context.Context, env *benchEnv, resource string, size int, build func(teamID string) []T, id func(T) string) (*sizedTeam, []T) {
	p := createTeam(ctx, env.store, fmt.Sprintf("Bench %d %ss", size, resource))
	env.raw.liftRateLimits(ctx, p.teamID, rateLimitMinutes)
	recs := build(p.teamID)
	seedAll(ctx, env.store, recs)
	t := &sizedTeam{resource: resource, size: size, p: p, ids: ids(recs, id)}
	return t, recs
}

// seedSized seeds a team of size vehicles, opens its sync window and finds its deep page.
func (env *benchEnv) seedSized(ctx context.Context, size int) *sizedTeam {
	rng := rand.New(rand.NewPCG(uint64(size), 20))
	t, vs := seedTeam(ctx, env, patio.ResourceVehicle, size, func(teamID string) []patio.Vehicle {
		return historyVehicles(teamID, size, 0, time.Now(), historyStatus(rng))
	}, func(v patio.Vehicle) string { return v.ID })
	t.vs = vs
	for _, v := range vs {
		if t.plate == "" && v.Status == patio.VehicleActive && v.Plate != nil {
			t.plate = *v.Plate
		}
	}
	// The sync recipe's window: syncChanges vehicles, drawn at random, get a new price through the
	// use cases after an instant no other vehicle changed since.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	t.since = patio.NewTimestamp(time.Now())
	svc := patio.NewVehicles(env.store.Vehicles())
	for _, i := range rng.Perm(len(t.vs))[:min(syncChanges, len(t.vs))] {
		v, err := svc.Update(ctx, t.p.teamID, t.vs[i].ID, patio.VehicleInput{Price: patio.Some(t.vs[i].Price + 100)})
		if err != nil {
			check(fmt.Errorf("sync window: %w", err))
		}
		t.vs[i] = v
	}
	t.changed = countWhere(t.vs, func(v patio.Vehicle) bool { return !v.UpdatedAt.Time().Before(t.since.Time()) })
	env.walkToDeepPage(ctx, t)
	return t
}

// seedClients seeds a team of size clients (a tenth inactive).
func (env *benchEnv) seedClients(ctx context.Context, size int) *sizedTeam {
	rng := rand.New(rand.NewPCG(uint64(size), 30))
	t, cs := seedTeam(ctx, env, patio.ResourceClient, size, func(teamID string) []patio.Client {
		return historyClients(teamID, size, 0, time.Now(), func() string {
			if rng.IntN(10) == 0 {
				return string(patio.ClientInactive)
			}
			return string(patio.ClientActive)
		})
	}, func(c patio.Client) string { return c.ID })
	t.cs = cs
	return t
}

// seedDeals seeds a team of size deals over size/20 clients.
func (env *benchEnv) seedDeals(ctx context.Context, size int) *sizedTeam {
	clients := make([]string, max(size/20, 1))
	for i := range clients {
		clients[i], _ = patio.NewID()
	}
	t, ds := seedTeam(ctx, env, patio.ResourceDeal, size, func(teamID string) []patio.Deal {
		return historyDeals(teamID, size, time.Now(), clients)
	}, func(d patio.Deal) string { return d.ID })
	t.ds, t.client = ds, clients[len(clients)/2]
	return t
}

// walkToDeepPage follows next_cursor from page 1 to page maxDeepPage at most, and keeps that page.
func (env *benchEnv) walkToDeepPage(ctx context.Context, t *sizedTeam) {
	var pg struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Pagination struct {
			Page       int     `json:"page"`
			NextCursor *string `json:"next_cursor"`
		} `json:"pagination"`
	}
	get := func(path string) {
		_, body := must2(env.api.send(ctx, t.p, http.MethodGet, path, nil, nil, http.StatusOK, true))
		check(json.Unmarshal(body, &pg))
	}
	for get("/api/v1/vehicles"); pg.Pagination.Page < maxDeepPage && pg.Pagination.NextCursor != nil && len(pg.Data) > 0; {
		cursor, after := *pg.Pagination.NextCursor, pg.Data[len(pg.Data)-1].ID
		get("/api/v1/vehicles?cursor=" + url.QueryEscape(cursor))
		t.deepPage, t.deepCursor, t.deepAfter = pg.Pagination.Page, cursor, after
	}
}

// measureLists seeds the lists' teams and samples every list on each beside its floor.
func (env *benchEnv) measureLists(ctx context.Context, o options) *listReport {
	lr := &listReport{}
	if len(o.listSizes) == 0 {
		return lr
	}
	for _, size := range o.listSizes {
		lr.teams = append(lr.teams, env.seedSized(ctx, size))
	}
	if o.listClients > 0 {
		lr.teams = append(lr.teams, env.seedClients(ctx, o.listClients))
	}
	if o.listDeals > 0 {
		lr.teams = append(lr.teams, env.seedDeals(ctx, o.listDeals))
	}
	env.skipStreams(ctx)
	rng := rand.New(rand.NewPCG(8, 8))
	for _, ep := range env.listEndpoints() {
		for _, t := range lr.teams {
			if ep.resource != t.resource {
				continue
			}
			rw := listRow{endpoint: ep.name, resource: ep.resource, class: ep.class, k: ep.k, size: t.size}
			if ep.class != classGet {
				rw.limit = patio.DefaultLimit
			}
			if ep.matches != nil {
				rw.match, rw.indexed = ep.matches(t)
				rw.counted = rw.indexed
				if ep.countedOnMatches {
					rw.counted = rw.match
				}
			}
			if ep.name == "GET /vehicles?cursor=(deep)" && t.deepPage == 0 {
				rw.missing = "a single page: no cursor page"
			} else {
				rw.sample = env.sampleOf(ctx, rng, sample{endpoint: fmt.Sprintf("%s (%d %ss)", ep.name, t.size, t.resource)},
					env.request(ep, t), ep.raw(t))
				rw.page, rw.count, rw.counters = classify(rw.req().calls)
				progress("lists: %-60s %6d: modeled %s, local %s, floor local %s", rw.endpoint, rw.size, ms(rw.req().m.latency()),
					ms(rw.req().local), ms(rw.floor().local))
			}
			lr.rows = append(lr.rows, rw)
		}
	}
	check(ctx.Err())
	return lr
}

// row returns the first row at a size that is, and whether it was sampled.
func (lr *listReport) row(size int, is func(listRow) bool) (listRow, bool) {
	for _, rw := range lr.rows {
		if rw.size == size && is(rw) {
			return rw, rw.missing == ""
		}
	}
	return listRow{}, false
}

// named is a row test: the endpoint's.
func named(endpoint string) func(listRow) bool {
	return func(rw listRow) bool { return rw.endpoint == endpoint }
}

// sizes returns the smallest and largest vehicle team sizes measured.
func (lr *listReport) sizes() (smallest, largest int) {
	for _, t := range lr.teams {
		if t.resource == patio.ResourceVehicle {
			if smallest == 0 || t.size < smallest {
				smallest = t.size
			}
			largest = max(largest, t.size)
		}
	}
	return smallest, largest
}

// printLists prints the lists' table and budgets.
func printLists(w io.Writer, lr *listReport) {
	if lr == nil || len(lr.teams) == 0 {
		return
	}
	fmt.Fprintf(w, "\nLists at any size (issues 10, 24): one team per size, seeded in batches in the store's own item format (storeseed.Seed):\n")
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
		fmt.Fprintf(w, "      %6d %ss%s\n", t.size, t.resource, deep)
	}
	fmt.Fprintf(w, "floor of a list: the request's authentication and rate counting (4 calls) then one strongly consistent Query of limit\n")
	fmt.Fprintf(w, "      items of the range the store reads first (first status shown, list order, from the cursor's position; a facet\n")
	fmt.Fprintf(w, "      value's range for a list filtered by one); local: DynamoDB Local's median of %d runs; AWS: the model (model.go)\n", sampleRuns)
	fmt.Fprintf(w, "      examined: items the request's calls examined, split: page (reads of records) + count (COUNT queries, counter items,\n")
	fmt.Fprintf(w, "      word items); s: the share of the indexed filter's matches that pass the others; matches: the records the list matches\n\n")
	tw := table(w, "endpoint\tsize\tlocal ms\tlocal ×floor\tAWS ms\tAWS ×floor\trounds\tRRU\t$/M\texamined page\tcount\tcounters\tfloor\tcalls\tmatches\ts\t")
	for _, rw := range lr.rows {
		if rw.missing != "" {
			fmt.Fprintf(tw, "%s\t%d\t%s\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", rw.endpoint, rw.size, rw.missing)
			continue
		}
		matches, share := "", ""
		if rw.class != classGet && rw.class != classBase {
			matches, share = strconv.Itoa(rw.match), fmt.Sprintf("%.3f", rw.share())
		}
		req, floor := rw.req(), rw.floor()
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.2f\t%d\t%g\t%.2f\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n",
			rw.endpoint, rw.size, ms(req.local), times(req.local, floor.local), ms(req.m.latency()), ratio(req.m.latency(), floor.m.latency()),
			req.m.rounds, req.m.reads, requestBill(req.m).perMillion(), rw.page, rw.count, rw.counters, examined(floor.calls),
			len(req.calls), matches, share)
	}
	_ = tw.Flush()
	printListBudgets(w, lr)
}

// beside is what a budget judged on the model prints of DynamoDB Local: its ratio, and why when it
// is more than maxEmulatorGap from the model's (the emulator's per-item read cost).
func beside(x, local float64, examined, ref int) string {
	s := fmt.Sprintf("DynamoDB Local ×%.2f", local)
	if gap := local / x; gap > maxEmulatorGap || gap < 1/maxEmulatorGap {
		s += fmt.Sprintf(", more than 2× from the model: the emulator's per-item read cost (%d items examined, reference %d), "+
			"which AWS does not have within a page", examined, ref)
	}
	return s
}

// printListBudgets prints the budgets of lists at any size: items examined, and, on the model,
// against GET by id, across sizes and at depth.
func printListBudgets(w io.Writer, lr *listReport) {
	fmt.Fprintln(w, "\nbudgets of lists at any size (issues 10, 24; printed, not enforced):")
	smallest, largest := lr.sizes()
	for _, rw := range lr.rows {
		if rw.class == classGet || rw.missing != "" {
			continue
		}
		fmt.Fprint(w, itemsBudget(rw))
		get, ok := lr.row(rw.size, func(g listRow) bool { return g.class == classGet && g.resource == rw.resource })
		if !ok || (rw.size != largest && rw.resource == patio.ResourceVehicle) || (rw.class == classBase && rw.endpoint != "GET /vehicles") {
			continue
		}
		limit, what := maxListVsGet, "2×"
		if rw.class == classFiltered {
			limit, what = maxFilteredVsGet, "5×"
		}
		req, g := rw.req(), get.req()
		x := ratio(req.m.latency(), g.m.latency())
		fmt.Fprintf(w, "  %s  %s at %d: modeled p50 on AWS %s ≤ %s %s (%s) (×%.2f; %d rounds, GET %d; %s)\n", verdict(x <= limit), rw.endpoint, rw.size,
			ms(req.m.latency()), what, get.endpoint, ms(g.m.latency()), x, req.m.rounds, g.m.rounds,
			beside(x, ratio(req.local, g.local), examined(req.calls), examined(g.calls)))
		if strings.HasPrefix(rw.endpoint, "GET /vehicles?price_min=") || rw.class == classSync || rw.endpoint == "GET /vehicles?q="+benchQ {
			fmt.Fprintf(w, "  %s  %s at %d, with its total: modeled p50 ≤ %.0f× GET (×%.2f)\n", verdict(x <= maxTotalVsGet),
				rw.endpoint, rw.size, maxTotalVsGet, x)
		}
	}
	if smallest == largest {
		return
	}
	for _, rw := range lr.rows {
		small, ok := lr.row(smallest, named(rw.endpoint))
		if rw.size != largest || rw.resource != patio.ResourceVehicle || rw.class == classGet || rw.missing != "" || !ok {
			continue
		}
		big, little := ratio(rw.req().m.latency(), rw.floor().m.latency()), ratio(small.req().m.latency(), small.floor().m.latency())
		x, local := big/max(little, 1e-9), ratio(rw.req().local, rw.floor().local)/max(ratio(small.req().local, small.floor().local), 1e-9)
		fmt.Fprintf(w, "  %s  %s: modeled ratio to its floor at %d (×%.2f) ≤ %.1f × that at %d (×%.2f): ×%.2f; DynamoDB Local ×%.2f\n",
			verdict(x <= maxListGrowth), rw.endpoint, largest, big, maxListGrowth, smallest, little, x, local)
		if rw.class == classSync {
			bigItems, smallItems := rw.page+rw.count+rw.counters, small.page+small.count+small.counters
			x, xi := ratio(rw.req().m.latency(), small.req().m.latency()), float64(bigItems)/float64(max(smallItems, 1))
			fmt.Fprintf(w, "  %s  the sync recipe at %d vehicles (90 %% sold or archived) ≤ %.1f× its modeled p50 and items at %d: %s vs %s (×%.2f), %d vs %d items (×%.2f); DynamoDB Local ×%.2f\n",
				verdict(x <= maxSyncGrowth && xi <= maxSyncGrowth), largest, maxSyncGrowth, smallest, ms(rw.req().m.latency()),
				ms(small.req().m.latency()), x, bigItems, smallItems, xi, ratio(rw.req().local, small.req().local))
		}
	}
	for _, t := range lr.teams {
		if t.resource == patio.ResourceVehicle {
			fmt.Fprint(w, cursorBudget(lr, t))
		}
	}
}

// itemsBudget is a list's budget of the items its calls examine, by its class.
func itemsBudget(rw listRow) string {
	page, count, counters := rw.page, rw.count, rw.counters
	most := rw.k*rw.limit + itemsSlack
	switch rw.class {
	case classBase:
		return fmt.Sprintf("  %s  %s at %d: %d items examined (%s) ≤ k × limit + %d = %d\n", verdict(page+count+counters <= most),
			rw.endpoint, rw.size, page+count+counters, perQuery(rw.req().calls), itemsSlack, most)
	case classEquality:
		return fmt.Sprintf("  %s  %s at %d: page %d + counters %d items ≤ k × limit + %d = %d; counted (COUNT, word items): %d, want 0\n",
			verdict(page+counters <= most && count == 0), rw.endpoint, rw.size, page, counters, itemsSlack, most, count)
	case classFiltered:
		bound := int(float64(most) / max(rw.share(), 1e-9))
		return fmt.Sprintf("  %s  %s at %d: page %d items ≤ (k × limit + %d) ÷ s = %d ÷ %.3f = %d; count %d items ≤ the %d matches of the indexed filter (and %d counter items)\n",
			verdict(page <= bound && count <= rw.counted), rw.endpoint, rw.size, page, itemsSlack, most, rw.share(), bound,
			count, rw.counted, counters)
	case classSync:
		return fmt.Sprintf("  %s  %s at %d: page %d items ≤ the %d changes + %d, count %d ≤ the changes (nothing older read)\n",
			verdict(page <= rw.match+itemsSlack && count <= rw.match), rw.endpoint, rw.size, page, rw.match, itemsSlack, count)
	}
	return ""
}

// cursorBudget is the budget of a team's deep cursor page against page 1, on the model.
func cursorBudget(lr *listReport, t *sizedTeam) string {
	page1, ok1 := lr.row(t.size, named("GET /vehicles"))
	deep, okDeep := lr.row(t.size, named("GET /vehicles?cursor=(deep)"))
	if !ok1 || !okDeep {
		return fmt.Sprintf("  SKIP  cursor page at %d vehicles: no cursor page\n", t.size)
	}
	x := ratio(deep.req().m.latency(), page1.req().m.latency())
	ok, bound := x >= 1-maxCursorDeviation && x <= 1+maxCursorDeviation, fmt.Sprintf("±%.0f %%", 100*maxCursorDeviation)
	if examined(deep.req().calls) < examined(page1.req().calls) {
		// A page near the end of the data reads what is left of each status: fewer items than
		// page 1, at less cost. Only the upper bound says something about depth then.
		ok, bound = x <= 1+maxCursorDeviation, fmt.Sprintf("+%.0f %% at most (near the end of the data)", 100*maxCursorDeviation)
	}
	return fmt.Sprintf("  %s  cursor page %d at %d vehicles costs page 1's %s, modeled p50: %s vs %s (×%.2f); DynamoDB Local ×%.2f\n",
		verdict(ok), t.deepPage, t.size, bound, ms(deep.req().m.latency()), ms(page1.req().m.latency()), x, ratio(deep.req().local, page1.req().local))
}
