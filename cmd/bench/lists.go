package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// Lists at any size (issue 10): one team per size, its vehicles bulk-loaded with a dealership's
// history (historyVehicles), and on each team the lists that must cost what their page costs,
// beside GET /vehicles/{id} and beside their floor (listFloor).

// maxDeepPage bounds how deep the cursor page goes: the deepest page the data allows, up to this.
const maxDeepPage = 100

// sizedTeam is one team of the lists' measurements.
type sizedTeam struct {
	size   int
	p      principal
	ids    []string
	seeded time.Duration

	// The deep page of the default list, reached by walking next_cursor from page 1: its number,
	// its cursor, and the id of the last record before it (the cursor's position). deepPage is 0
	// when the default list has a single page.
	deepPage   int
	deepCursor string
	deepAfter  string
}

// listEndpoint is one measured request on a sized team, and its raw side.
type listEndpoint struct {
	name string
	// k is the number of statuses the list shows, limit its page size; 0 for GET by id, which has
	// no items budget.
	k, limit int
	request  func(t *sizedTeam) op
	raw      func(t *sizedTeam) op
	// missing says why a team has no such request (a single page has no cursor page), or "".
	missing func(t *sizedTeam) string
}

// listRow is one endpoint on one team at one concurrency.
type listRow struct {
	endpoint string
	k, limit int
	size     int
	conc     int
	missing  string
	request  result
	raw      result
	sample   sample
}

// listReport is what the lists' measurements print.
type listReport struct {
	teams []*sizedTeam
	rows  []listRow
}

// examined returns the items a sample's calls examined (the ScannedCount of its queries) and the
// number of its calls.
func examined(calls []sdkCall) (items, n int) {
	for _, c := range calls {
		if c.scanned > 0 {
			items += c.scanned
		}
	}
	return items, len(calls)
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

func (env *benchEnv) listEndpoints() []listEndpoint {
	api, raw, tables := env.api, env.raw, env.tables
	shown := defaultStatuses(patio.VehicleStatuses, patio.VehicleArchived)
	limit := patio.DefaultLimit
	get := func(path string) func(t *sizedTeam) op {
		return func(t *sizedTeam) op {
			return func(ctx context.Context, _ *rand.Rand) error {
				return api.do(ctx, t.p, http.MethodGet, path, nil, http.StatusOK, nil)
			}
		}
	}
	floor := func(f listFloor) func(t *sizedTeam) op {
		return func(t *sizedTeam) op {
			return func(ctx context.Context, _ *rand.Rand) error { return raw.list(ctx, t.p, f) }
		}
	}
	byCreation := newListFloor(tables.Vehicles, patio.ResourceVehicle, "created_at", true, shown[0], limit)
	return []listEndpoint{
		{
			name: "GET /vehicles/{id}",
			request: func(t *sizedTeam) op {
				return func(ctx context.Context, rng *rand.Rand) error {
					return api.do(ctx, t.p, http.MethodGet, "/api/v1/vehicles/"+t.ids[rng.IntN(len(t.ids))], nil, http.StatusOK, nil)
				}
			},
			raw: func(t *sizedTeam) op {
				return func(ctx context.Context, rng *rand.Rand) error {
					return raw.getVehicle(ctx, t.p, t.ids[rng.IntN(len(t.ids))])
				}
			},
		},
		{name: "GET /vehicles", k: len(shown), limit: limit, request: get("/api/v1/vehicles"), raw: floor(byCreation)},
		{
			name: "GET /vehicles?cursor=(deep)", k: len(shown), limit: limit,
			request: func(t *sizedTeam) op {
				return get("/api/v1/vehicles?cursor=" + url.QueryEscape(t.deepCursor))(t)
			},
			raw: func(t *sizedTeam) op {
				// The floor from the cursor's position: the first status's order items after it.
				f := byCreation
				var err error
				if f.hi, err = dynamostore.OrderKey(patio.ResourceVehicle, shown[0], t.deepAfter); err != nil {
					panic(err)
				}
				return floor(f)(t)
			},
			missing: func(t *sizedTeam) string {
				if t.deepPage == 0 {
					return "a single page: no cursor page"
				}
				return ""
			},
		},
		{name: "GET /vehicles?status=ativo", k: 1, limit: limit, request: get("/api/v1/vehicles?status=ativo"),
			raw: floor(newListFloor(tables.Vehicles, patio.ResourceVehicle, "created_at", true, patio.VehicleActive, limit))},
		{name: "GET /vehicles?sort=-price", k: len(shown), limit: limit, request: get("/api/v1/vehicles?sort=-price"),
			raw: floor(newListFloor(tables.Vehicles, patio.ResourceVehicle, "price", true, shown[0], limit))},
		{name: "GET /vehicles?sort=title", k: len(shown), limit: limit, request: get("/api/v1/vehicles?sort=title"),
			raw: floor(newListFloor(tables.Vehicles, patio.ResourceVehicle, "title", false, shown[0], limit))},
	}
}

// seedSized creates a team of size vehicles with a dealership's history, bulk-loaded, and walks
// its default list to the deep page.
func (env *benchEnv) seedSized(ctx context.Context, size int) (*sizedTeam, error) {
	p, err := createTeam(ctx, env.store, fmt.Sprintf("Bench %d vehicles", size))
	if err != nil {
		return nil, err
	}
	if err := env.raw.liftRateLimits(ctx, p.teamID, rateLimitMinutes); err != nil {
		return nil, fmt.Errorf("lift rate limits: %w", err)
	}
	rng := rand.New(rand.NewPCG(uint64(size), 20))
	vs, err := historyVehicles(p.teamID, size, time.Now(), func() string { return historyStatus(rng) })
	if err != nil {
		return nil, err
	}
	t := &sizedTeam{size: size, p: p, ids: make([]string, len(vs))}
	for i, v := range vs {
		t.ids[i] = v.ID
	}
	start := time.Now()
	if err := env.importVehicles(ctx, p.teamID, vs); err != nil {
		return nil, fmt.Errorf("seed %d vehicles: %w", size, err)
	}
	t.seeded = time.Since(start)
	progress("lists: imported %d vehicles in %s (%.0f/s)", size, t.seeded.Round(time.Millisecond),
		float64(size)/t.seeded.Seconds())
	return t, env.walkToDeepPage(ctx, t)
}

// listPage is the part of a list answer the cursor walk reads.
type listPage struct {
	Data []struct {
		ID string `json:"id"`
	} `json:"data"`
	Pagination struct {
		Page       int     `json:"page"`
		NextCursor *string `json:"next_cursor"`
	} `json:"pagination"`
}

// walkToDeepPage follows the default list's next_cursor from page 1 to the deepest page the data
// allows, up to maxDeepPage, and keeps that page's cursor and position.
func (env *benchEnv) walkToDeepPage(ctx context.Context, t *sizedTeam) error {
	pg, err := env.getListPage(ctx, t.p, "/api/v1/vehicles")
	if err != nil {
		return err
	}
	for pg.Pagination.Page < maxDeepPage && pg.Pagination.NextCursor != nil && len(pg.Data) > 0 {
		cursor, after := *pg.Pagination.NextCursor, pg.Data[len(pg.Data)-1].ID
		if pg, err = env.getListPage(ctx, t.p, "/api/v1/vehicles?cursor="+url.QueryEscape(cursor)); err != nil {
			return err
		}
		t.deepPage, t.deepCursor, t.deepAfter = pg.Pagination.Page, cursor, after
	}
	return nil
}

func (env *benchEnv) getListPage(ctx context.Context, p principal, path string) (listPage, error) {
	var pg listPage
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.api.base+path, nil)
	if err != nil {
		return pg, err
	}
	req.Header.Set("Authorization", "Bearer "+p.secret)
	resp, err := env.api.http.Do(req)
	if err != nil {
		return pg, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return pg, err
	}
	if resp.StatusCode != http.StatusOK {
		return pg, &statusError{method: http.MethodGet, path: path, status: resp.StatusCode, body: string(data)}
	}
	return pg, json.Unmarshal(data, &pg)
}

// measureLists seeds one team per size and measures every list endpoint on each: a sample of each
// request and its raw side with the recorder on (the items they examine), then, concurrency by
// concurrency, every endpoint at every size in rounds taking turns, so that the figures the
// budgets compare (concurrency 1: the default list at each size, GET by id, cursor pages) are
// measured alike.
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
	eps := env.listEndpoints()
	samples := map[[2]int]sample{}
	rng := rand.New(rand.NewPCG(8, 8))
	for ti, t := range lr.teams {
		for ei, ep := range eps {
			if ep.missing != nil && ep.missing(t) != "" {
				continue
			}
			req, raw := ep.request(t), ep.raw(t)
			if err := req(ctx, rng); err != nil {
				return nil, fmt.Errorf("%s (%d vehicles): %w", ep.name, t.size, err)
			}
			if err := raw(ctx, rng); err != nil {
				return nil, fmt.Errorf("%s (%d vehicles, raw): %w", ep.name, t.size, err)
			}
			sm := sample{endpoint: fmt.Sprintf("%s (%d vehicles)", ep.name, t.size), floor: ep.k > 0}
			sm.request, sm.requestErr = env.rec.record(func() error { return req(ctx, rng) })
			sm.raw, sm.rawErr = env.rec.record(func() error { return raw(ctx, rng) })
			samples[[2]int{ti, ei}] = sm
		}
	}
	// Each concurrency's runs, endpoints and sizes, take turns in rounds (see rounds), so that the
	// figures the budgets compare across endpoints and sizes are measured alike.
	for _, c := range o.concurrency {
		var runs []timedRun
		var keys [][3]int // endpoint, team, side (0 request, 1 raw) of each run
		for ei, ep := range eps {
			for ti, t := range lr.teams {
				if ep.missing != nil && ep.missing(t) != "" {
					continue
				}
				seed := uint64(100_000 + ei*1000 + ti*100 + c)
				runs = append(runs, timedRun{ep.request(t), seed}, timedRun{ep.raw(t), seed})
				keys = append(keys, [3]int{ei, ti, 0}, [3]int{ei, ti, 1})
			}
		}
		res := measureRounds(ctx, c, o.warmup, o.listDuration, runs, func(round, i int, part func(context.Context)) {
			if i == 0 {
				progress("lists: c=%d, round %d of %d", c, round+1, rounds)
			}
			k := keys[i]
			pprof.Do(ctx, pprof.Labels("side", []string{"request", "raw"}[k[2]], "endpoint", eps[k[0]].name), part)
		})
		if ctx.Err() != nil {
			return lr, ctx.Err()
		}
		merged := map[[3]int]result{}
		for i, k := range keys {
			merged[k] = res[i]
		}
		for ei, ep := range eps {
			for ti, t := range lr.teams {
				rw := listRow{endpoint: ep.name, k: ep.k, limit: ep.limit, size: t.size, conc: c, sample: samples[[2]int{ti, ei}]}
				if ep.missing != nil {
					rw.missing = ep.missing(t)
				}
				if rw.missing == "" {
					rw.request, rw.raw = merged[[3]int{ei, ti, 0}], merged[[3]int{ei, ti, 1}]
					progress("lists: %-28s %6d vehicles c=%-3d request p50 %s (%d)   raw p50 %s (%d)", ep.name, t.size, c,
						ms(rw.request.p50), rw.request.n, ms(rw.raw.p50), rw.raw.n)
				}
				lr.rows = append(lr.rows, rw)
			}
		}
	}
	return lr, nil
}

// Issue 10's budgets on lists.
const (
	maxListVsGet       = 2.0 // the default list at the largest size, × GET /vehicles/{id} at p50, c=1
	maxListGrowth      = 1.2 // the default list at the largest size, × itself at the smallest
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

func printLists(w io.Writer, lr *listReport, o options) {
	if lr == nil || len(lr.teams) == 0 {
		return
	}
	fmt.Fprintf(w, "\nLists at any size (issue 10): one team per size, bulk-loaded with dynamostore.ImportVehicles in the store's own item format:\n")
	fmt.Fprintln(w, "      a history of vehicles (45 % vendido, 45 % arquivado, 5 % ativo, 5 % reservado, created evenly over 5 years)")
	for _, t := range lr.teams {
		deep := "no cursor page (a single page)"
		if t.deepPage > 0 {
			deep = fmt.Sprintf("cursor page: page %d, reached by walking next_cursor", t.deepPage)
		}
		fmt.Fprintf(w, "      %6d vehicles: seeded in %s (%.0f vehicles/s); %s\n", t.size, t.seeded.Round(time.Millisecond),
			float64(t.size)/t.seeded.Seconds(), deep)
	}
	fmt.Fprintf(w, "runs: %s measured per side of each line, in %d rounds in which every line of a concurrency takes its turn; warm-up %s, then %s a round\n",
		o.listDuration, rounds, o.warmup, roundWarmup(o.warmup, 1))
	fmt.Fprintf(w, "      raw of a list: its floor, the request's authentication and rate counting (4 calls) then one strongly consistent\n")
	fmt.Fprintf(w, "      Query of limit items of the range the store reads first (first status shown, list order, from the cursor's position)\n")
	fmt.Fprintf(w, "      examined: items the sample request's Queries examined (ScannedCount, every query of the request: pages, counts, probe)\n\n")

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\tvehicles\tc\tn\treq p50\treq p99\treq/s\traw n\traw p50\traw p99\t×p50\tCPU/call req\traw\texamined req\traw\tcalls req\traw\t")
	for _, rw := range lr.rows {
		if rw.missing != "" {
			fmt.Fprintf(tw, "%s\t%d\t%d\t\t%s\t\t\t\t\t\t\t\t\t\t\t\t\t\n", rw.endpoint, rw.size, rw.conc, rw.missing)
			continue
		}
		reqItems, reqCalls := examined(rw.sample.request)
		rawItems, rawCalls := examined(rw.sample.raw)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t\n",
			rw.endpoint, rw.size, rw.conc, rw.request.n, ms(rw.request.p50), ms(rw.request.p99), perSecond(rw.request.rps),
			rw.raw.n, ms(rw.raw.p50), ms(rw.raw.p99), times(rw.request.p50, rw.raw.p50),
			ms(rw.request.cpuPerCall), ms(rw.raw.cpuPerCall), reqItems, rawItems, reqCalls, rawCalls)
	}
	_ = tw.Flush()
	for _, rw := range lr.rows {
		for _, side := range []struct {
			name string
			res  result
		}{{"request", rw.request}, {"raw", rw.raw}} {
			if side.res.errors > 0 {
				fmt.Fprintf(w, "note: %s (%d vehicles) c=%d %s: %d failed calls, first: %v\n",
					rw.endpoint, rw.size, rw.conc, side.name, side.res.errors, side.res.firstErr)
			}
		}
	}

	smallest, largest := lr.teams[0].size, lr.teams[0].size
	for _, t := range lr.teams {
		smallest, largest = min(smallest, t.size), max(largest, t.size)
	}
	fmt.Fprintf(w, "\nDynamoDB calls of one sample request per list at %d vehicles (operation, bytes sent → received, items examined):\n", largest)
	seen := map[string]bool{}
	for _, rw := range lr.rows {
		sm := rw.sample
		if rw.missing != "" || rw.size != largest || seen[sm.endpoint] {
			continue
		}
		seen[sm.endpoint] = true
		fmt.Fprintf(w, "  %s\n", sm.endpoint)
		for _, side := range []struct {
			name  string
			calls []sdkCall
			err   error
		}{{"request", sm.request, sm.requestErr}, {"raw", sm.raw, sm.rawErr}} {
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

	fmt.Fprintln(w, "\nbudgets of lists at any size (issue 10; printed, not enforced):")
	list, get := "GET /vehicles", "GET /vehicles/{id}"
	def, okDef := lr.row(list, largest, 1)
	byID, okID := lr.row(get, largest, 1)
	if okDef && okID {
		x := ratio(def.request.p50, byID.request.p50)
		fmt.Fprintf(w, "  %s  %s at %d vehicles ≤ %.0f× %s at p50, c=1: %s vs %s (×%.2f)\n", verdict(x <= maxListVsGet),
			list, largest, maxListVsGet, get, ms(def.request.p50), ms(byID.request.p50), x)
	} else {
		fmt.Fprintf(w, "  SKIP  %s at %d vehicles vs %s: not measured at concurrency 1\n", list, largest, get)
	}
	small, okSmall := lr.row(list, smallest, 1)
	switch {
	case smallest == largest:
		fmt.Fprintf(w, "  SKIP  %s growth: a single size was measured\n", list)
	case okDef && okSmall:
		x := ratio(def.request.p50, small.request.p50)
		fmt.Fprintf(w, "  %s  %s at %d vehicles ≤ %.1f× itself at %d at p50, c=1: %s vs %s (×%.2f)\n", verdict(x <= maxListGrowth),
			list, largest, maxListGrowth, smallest, ms(def.request.p50), ms(small.request.p50), x)
	default:
		fmt.Fprintf(w, "  SKIP  %s growth: not measured at concurrency 1\n", list)
	}
	for _, rw := range lr.rows {
		if rw.k == 0 || rw.conc != o.concurrency[0] || rw.missing != "" {
			continue
		}
		items, _ := examined(rw.sample.request)
		most := rw.k*rw.limit + itemsSlack
		fmt.Fprintf(w, "  %s  %s at %d vehicles: %d items examined (%s) ≤ k × limit + %d = %d×%d+%d = %d\n", verdict(items <= most),
			rw.endpoint, rw.size, items, perQuery(rw.sample.request), itemsSlack, rw.k, rw.limit, itemsSlack, most)
	}
	for _, t := range lr.teams {
		page1, ok1 := lr.row(list, t.size, 1)
		deep, okDeep := lr.row("GET /vehicles?cursor=(deep)", t.size, 1)
		if !ok1 || !okDeep {
			fmt.Fprintf(w, "  SKIP  cursor page at %d vehicles: no cursor page or not measured at concurrency 1\n", t.size)
			continue
		}
		a, _ := examined(deep.sample.request)
		b, _ := examined(page1.sample.request)
		// A page near the end of the data reads what is left of each status: fewer items than
		// page 1, at less cost. Only the upper bound says something about depth then.
		within := func(x float64) bool { return x >= 1-maxCursorDeviation && x <= 1+maxCursorDeviation }
		bound := fmt.Sprintf("±%.0f %%", 100*maxCursorDeviation)
		if a < b {
			within = func(x float64) bool { return x <= 1+maxCursorDeviation }
			bound = fmt.Sprintf("+%.0f %% at most (near the end of the data: fewer items left to read)", 100*maxCursorDeviation)
		}
		x := ratio(deep.request.p50, page1.request.p50)
		fmt.Fprintf(w, "  %s  cursor page %d at %d vehicles costs page 1's %s at p50, c=1: %s vs %s (×%.2f)\n",
			verdict(within(x)), t.deepPage, t.size, bound, ms(deep.request.p50), ms(page1.request.p50), x)
		y := float64(a) / float64(max(b, 1))
		fmt.Fprintf(w, "  %s  cursor page %d at %d vehicles examines page 1's items %s: %d vs %d (×%.2f)\n",
			verdict(within(y)), t.deepPage, t.size, bound, a, b, y)
	}
}
