package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/app/consoleapp"
	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/console/session"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// The console part (-console-only; issues 22, 23 and 31): each page's p50 against GET by id in the
// same rounds, and the items its DynamoDB calls examined (counted as the lists count them).

// consoleOptions size the console part's teams: the busy dealership's (deliveries, activities,
// financial records) and the workplace's (vehicles, clients, deals).
type consoleOptions struct {
	deliveries, activities, financial int
	vehicles, clients, deals          int
}

// boardMonthReads are the board's reads of the month's closed deals beside its columns: one page
// of the deals won since the first of the month and one of those lost (the head's results).
const boardMonthReads = 2

// consolePage is one measured page: the statuses its list shows (k), its budget (× GET by id), its
// session, and for the board its columns (a page of deals each, boardMonthReads beside them).
type consolePage struct {
	name, path string
	k          int
	budget     float64
	session    string
	columns    int
}

// consoleRow is one page's figures: what its reads examined (records, and the session's and
// member's keys), what its total's count examined, its DynamoDB calls and its queries of deals.
type consoleRow struct {
	page                                 consolePage
	sample                               sample // the page and the GET by id beside it
	items, counted, queries, dealQueries int
}

// consoleReport is the console part's figures.
type consoleReport struct {
	rows []consoleRow
	o    consoleOptions
}

// consoleLimit is the page size of the console's module lists (shared/console's moduleLimit).
const consoleLimit = 25

// measureConsole seeds the console's teams, serves the console, and samples each page beside a
// GET by id of the API.
func (env *benchEnv) measureConsole(ctx context.Context, o options) *consoleReport {
	h := must(consoleapp.Handler(env.cfg, env.conf, slog.New(slog.NewJSONHandler(io.Discard, nil)), consoleapp.Options{KeyPrefix: patio.TestKeyPrefix}))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	pages := env.consolePages(ctx, o.console)
	get := env.get(env.main, "/api/v1/vehicles/"+env.anyVehicle(ctx, env.main.teamID))
	env.skipStreams(ctx) // seeded as the indexer leaves them: the samples' indexer runs follow nothing of it
	rep := &consoleReport{o: o.console}
	clients := map[string]*http.Client{}
	rng := rand.New(rand.NewPCG(10, 10))
	for _, p := range pages {
		if clients[p.session] == nil {
			clients[p.session] = sessionClient(base, p.session)
		}
		client := clients[p.session]
		page := func(ctx context.Context, _ *rand.Rand) error {
			_, _, _, err := fetch(ctx, client, http.MethodGet, base+p.path, nil, nil, http.StatusOK, false)
			return err
		}
		sm := env.sampleOf(ctx, rng, sample{endpoint: p.name}, page, get)
		items, counted, counters := classify(sm.sides[0].calls)
		row := consoleRow{page: p, sample: sm, items: items, counted: counted + counters, queries: len(sm.sides[0].calls)}
		for _, c := range sm.sides[0].calls {
			// A page's query, not a read of the maintained counts, which classify counts apart.
			if q := queryOf(c); c.op == "Query" && q.TableName == env.tables.Deals && !q.reads(isCounterKey) {
				row.dealQueries++
			}
		}
		progress("console: %-28s modeled %s, local %s", p.name, ms(sm.sides[0].m.latency()), ms(sm.sides[0].local))
		rep.rows = append(rep.rows, row)
	}
	return rep
}

// sessionClient is a client of the console at base signed in with the session cookie's value.
func sessionClient(base, session string) *http.Client {
	u, _ := url.Parse(base)
	jar, _ := cookiejar.New(nil)
	jar.SetCookies(u, []*http.Cookie{{Name: "patio_session", Value: session, Path: "/console/"}})
	return &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 4},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// consolePages seeds the console's teams (the main team's deliveries, activities and financial
// records; a workplace's stock, clients and pipeline) and returns the pages measured on them.
func (env *benchEnv) consolePages(ctx context.Context, o consoleOptions) []consolePage {
	team := env.main.teamID
	cookie := must(env.ownerSession(ctx, team))
	hook := env.seedDeliveries(ctx, team, o.deliveries)
	env.seedModules(ctx, team, o)
	month := time.Now().UTC()
	first := time.Date(month.Year(), month.Month(), 1, 0, 0, 0, 0, time.UTC)
	wp := env.seedWorkplace(ctx, o)
	vehiclesK := len(defaultStatuses(patio.VehicleStatuses, string(patio.VehicleArchived)))
	clientsK := len(defaultStatuses(patio.ClientStatuses, string(patio.ClientInactive)))
	return []consolePage{
		{"webhooks", "/console/webhooks", 0, 3, cookie, 0},
		{"deliveries of a webhook", "/console/webhooks/" + hook + "/deliveries", 0, 3, cookie, 0},
		{"activities", "/console/activities", 3, 3, cookie, 0},
		{"overdue activities", "/console/activities?overdue=1", 2, 3, cookie, 0},
		{"overdue financial records", "/console/financial?overdue=1", 1, 3, cookie, 0},
		{"financial, type=revenue", "/console/financial?type=revenue", 2, 3, cookie, 0},
		{"summary of a month", "/console/financial/summary?" + url.Values{"from": {first.Format("2006-01-02")},
			"to": {first.AddDate(0, 1, -1).Format("2006-01-02")}}.Encode(), 0, 5, cookie, 0},
		// The workplace (issue 31): its lists read a page of the statuses they show, plus the
		// maintained counts at the stock's head; the board one page per column.
		{"stock", "/console/vehicles", vehiclesK, 3, wp.session, 0},
		{"stock, brand=" + benchBrand, "/console/vehicles?brand=" + benchBrand, vehiclesK, 3, wp.session, 0},
		{"clients, q=CPF", "/console/clients?" + url.Values{"q": {wp.cpf}}.Encode(), clientsK, 3, wp.session, 0},
		{"clients, q=name", "/console/clients?" + url.Values{"q": {wp.name}}.Encode(), clientsK, 3, wp.session, 0},
		{"pipeline board", "/console/deals", 0, 3, wp.session, len(patio.DealPhases)},
	}
}

// ownerSession makes an owner of the team and signs them in as the console does (session.Start),
// and returns the session cookie's value.
func (env *benchEnv) ownerSession(ctx context.Context, team string) (string, error) {
	email := "owner+" + team + "@dealer.example" // one person per team: Start signs them in to it
	ts := patio.NewTimestamp(time.Now())
	err := accountdb.NewMembers(env.store.DB()).AddMember(ctx, patio.Member{TeamID: team, Email: email, Role: patio.RoleOwner, Status: patio.MemberActive,
		CreatedAt: ts, UpdatedAt: ts})
	if err != nil && !patio.IsKind(err, patio.KindConflict) { // the Runtime API part made them already
		return "", err
	}
	return session.Start(ctx, struct {
		*accountdb.Sessions
		*accountdb.Members
	}{accountdb.NewSessions(env.store.DB()), accountdb.NewMembers(env.store.DB())}, email, "", time.Now())
}

// seedDeliveries creates a webhook of the team with n logged deliveries (a tenth failed, the others
// succeeded), spread over the last 30 days, and returns its id.
func (env *benchEnv) seedDeliveries(ctx context.Context, team string, n int) string {
	w, _ := must2(webhook.Webhooks{Store: webhookdb.New(env.store.DB())}.Create(ctx, team, webhook.Settings{URL: "https://hooks.bench.example/patio",
		Events: []string{"*"}}))
	progress("console: %d deliveries of one webhook", n)
	now := time.Now()
	const batch = 200
	check(parallel(ctx, (n+batch-1)/batch, 4, func(ctx context.Context, i int) error {
		var ds []webhook.Delivery
		for j := i * batch; j < min(n, (i+1)*batch); j++ {
			at := now.Add(-time.Duration(j) * 30 * 24 * time.Hour / time.Duration(n))
			ev := fmt.Sprintf("evt_bench%010d", j)
			st := webhook.DeliverySucceeded
			if j%10 == 0 {
				st = webhook.DeliveryFailed
			}
			ds = append(ds, webhook.Delivery{ID: webhook.DeliveryID(ev, w.ID), WebhookID: w.ID, TeamID: team, EventID: ev,
				EventType: webhook.VehicleUpdated, Status: st, Attempt: 1, Payload: []byte(`{"id":"` + ev + `"}`), CreatedAt: at, UpdatedAt: at})
		}
		_, _, _, err := webhookdb.New(env.store.DB()).CreateDeliveries(ctx, ds)
		return err
	}))
	return w.ID
}

// seedModules seeds the team's activities (due over 60 days around now) and financial records (due
// over a year around now), a tenth of the past ones still open, the others done.
func (env *benchEnv) seedModules(ctx context.Context, team string, o consoleOptions) {
	t := must(accountdb.NewAccounts(env.store.DB()).Team(ctx, team))
	now := time.Now()
	seedAll(ctx, env.store, history(o.activities, now, 0, func(i int, id string, at time.Time) (patio.Activity, error) {
		due := patio.NewTimestamp(now.Add(time.Duration(i%60-30) * 24 * time.Hour).Add(time.Duration(i%24) * time.Hour))
		w, err := patio.NewActivity(team, id, at, patio.ActivityInput{Type: patio.Some(patio.ActivityTypes[i%len(patio.ActivityTypes)]),
			Title: patio.Some(fmt.Sprintf("Atividade %d", i)), DueAt: patio.Some(due)})
		if err == nil && i%10 != 0 && due.Time().Before(now) {
			w, err = w.Record.Apply(patio.ActivityInput{Status: patio.Some(string(patio.ActivityCompleted))}, at)
		}
		return w.Record, err
	}))
	seedAll(ctx, env.store, history(o.financial, now, 0, func(i int, id string, at time.Time) (patio.FinancialRecord, error) {
		typ := patio.FinancialTypes[i%len(patio.FinancialTypes)]
		cats := patio.FinancialCategories[typ]
		due := patio.DateOf(now.AddDate(0, 0, i%360-180))
		in := patio.FinancialInput{Type: patio.Some(typ), Category: patio.Some(cats[(i/3)%len(cats)]),
			Description: patio.Some(fmt.Sprintf("Lançamento %d", i)), Amount: patio.Some(money.Cents(1000 + i*37)), DueDate: patio.Some(due)}
		if i%10 != 0 && due.Start().Before(now) {
			in.Status = patio.Some(string(patio.FinancialPaid))
		}
		w, err := patio.NewFinancialRecord(team, id, at, in)
		w.Record.Zone = t.TimeZone
		return w.Record, err
	}))
}

// workplace is the team the stock, clients and pipeline pages are measured on, with what their
// searches look for: a client's CPF as people write it, and their name's distinctive words.
type workplace struct{ session, cpf, name string }

// seedWorkplace seeds a dealership's stock, clients and pipeline into one team of its own, and
// signs its owner in.
func (env *benchEnv) seedWorkplace(ctx context.Context, o consoleOptions) (wp workplace) {
	p := createTeam(ctx, env.store, "Bench workplace")
	now := time.Now()
	vs := historyVehicles(p.teamID, o.vehicles, 0, now, historyStatus(rand.New(rand.NewPCG(uint64(o.vehicles), 40))))
	cs := historyClients(p.teamID, o.clients, 0, now, always(string(patio.ClientActive)))
	ds := historyDeals(p.teamID, o.deals, now, ids(cs, func(c patio.Client) string { return c.ID }))
	progress("console: seeding %d vehicles, %d clients and %d deals into one team", o.vehicles, o.clients, o.deals)
	seedAll(ctx, env.store, vs)
	seedAll(ctx, env.store, cs)
	seedAll(ctx, env.store, ds)
	c := cs[len(cs)/2]
	for i := len(cs) / 2; c.CPF == nil && i < len(cs)-1; i++ { // one in five is a company
		c = cs[i+1]
	}
	if c.CPF == nil {
		check(fmt.Errorf("workplace: no client with a CPF among %d", len(cs)))
	}
	wp.cpf = br.FormatCPF(*c.CPF)
	wp.name = strings.Join(strings.Fields(c.Name)[1:], " ")
	wp.session = must(env.ownerSession(ctx, p.teamID))
	return wp
}

// anyVehicle returns a vehicle of the team (the GET by id the pages are compared with).
func (env *benchEnv) anyVehicle(ctx context.Context, team string) string {
	if len(env.vehicleIDs) == 0 {
		v := must(patio.NewVehicles(env.store.Vehicles()).Create(ctx, team, patio.VehicleInput{Brand: patio.Some("Fiat"),
			Model: patio.Some("Argo"), Price: patio.Some(money.Cents(7999000))}))
		env.vehicleIDs = append(env.vehicleIDs, v.ID)
	}
	return env.vehicleIDs[0]
}

// printConsole prints the console part and its budgets.
func printConsole(w io.Writer, r *consoleReport) {
	fmt.Fprintf(w, "\nThe console (issues 22, 23 and 31): a team with %d deliveries of one webhook, %d activities, %d financial records; a workplace team with %d vehicles, %d clients and %d deals\n",
		r.o.deliveries, r.o.activities, r.o.financial, r.o.vehicles, r.o.clients, r.o.deals)
	tw := table(w, "page\tlocal ms\tlocal × GET\tAWS ms\tAWS × GET\tbudget\tpage items\tcount items\tcalls\tpage items budget\t")
	var notes []string
	for _, row := range r.rows {
		page, get := row.sample.sides[0], row.sample.sides[1]
		local, x := ratio(page.local, get.local), ratio(page.m.latency(), get.m.latency())
		items := ""
		switch {
		case row.page.k > 0:
			limit := row.page.k*consoleLimit + 10
			items = fmt.Sprintf("%s ≤ %d", verdict(row.items <= limit), limit)
		case row.page.columns > 0:
			limit := row.page.columns + boardMonthReads
			items = fmt.Sprintf("%d deal queries: %s ≤ %d (a page per column, one for the month's won and one for its lost)",
				row.dealQueries, verdict(row.dealQueries <= limit), limit)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%.2f\t%s ≤ %.0f×\t%d\t%d\t%d\t%s\t\n", row.page.name, ms(page.local), local,
			ms(page.m.latency()), x, verdict(x <= row.page.budget), row.page.budget, row.items, row.counted, row.queries, items)
		if gap := local / x; gap > maxEmulatorGap || gap < 1/maxEmulatorGap {
			notes = append(notes, fmt.Sprintf("  %s: DynamoDB Local %.2f× GET, the model %.2f× (%d rounds, GET %d): more than 2× apart: "+
				"the emulator's per-item read cost (%d items examined), which AWS does not have within a page\n",
				row.page.name, local, x, page.m.rounds, get.m.rounds, row.items+row.counted))
		}
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "  each page and GET /api/v1/vehicles/{id} recorded %d times, taking turns; local: DynamoDB Local's median; × GET judged\n", sampleRuns)
	fmt.Fprintln(w, "  on the model (cmd/bench/model.go): each page's calls at AWS's published p50s, its rounds, our own time")
	fmt.Fprint(w, strings.Join(notes, ""))
}
