package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/patio-dev/patio/dev/runtimeapi"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Budgets of the functions under the Runtime API (the issues', printed by the report).
const (
	maxColdRatio        = 1.3 // cold start of an API function / the floor function's (a GET's four calls at once), medians
	maxConsoleColdRatio = 1.3 // cold start of the console / the vehicles function's, medians
	maxWarmRatio        = 1.3 // warm GET by id through the Runtime API / in process, p50
	coldStarts          = 5   // cold starts measured per function
	warmCalls           = 300 // warm invocations measured per function, after 20 unmeasured
)

// lambdaRow is one function measured as Lambda runs it: its bootstrap, built as deployed for this
// machine's architecture, a child process under the Runtime API (dev/runtimeapi).
type lambdaRow struct {
	name      string // functions/<name>, or "minimal"
	event     string // what it was invoked with
	api       bool   // an API function (cold start budget)
	console   bool   // the console (its own cold start budget)
	init      time.Duration
	cold      time.Duration // median of coldStarts: process start to the first answer
	first     time.Duration // median of coldStarts: the first invocation alone (cold minus init)
	warm      []time.Duration
	p50, p99  time.Duration
	peakRSS   int64
	err       error
	bytesSize int64
}

// lambdaReport is the Runtime API section of the report.
type lambdaReport struct {
	rows              []lambdaRow
	inProcP50, inProc time.Duration // in-process GET by id p50, p99
	err               error
}

// measureLambdas builds the minimal function and every function, runs each under the Runtime API
// against the bench's tables (the process environment setup set), and measures init, cold start,
// warm latency and peak memory. Tracing is on: the functions get an X-Ray daemon address (a UDP
// socket that discards), so its cost is in the figures.
func (env *benchEnv) measureLambdas(ctx context.Context) lambdaReport {
	var rep lambdaReport
	dir, err := os.MkdirTemp("", "patio-bench-lambda-")
	if err != nil {
		return lambdaReport{err: err}
	}
	defer os.RemoveAll(dir)
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return lambdaReport{err: err}
	}
	defer sink.Close()
	go func() {
		buf := make([]byte, 64*1024)
		for {
			if _, err := sink.Read(buf); err != nil {
				return
			}
		}
	}()
	extra := []string{"AWS_XRAY_DAEMON_ADDRESS=" + sink.LocalAddr().String()}

	getByID, clientByID, dealByID, err := env.getEvents(ctx)
	if err != nil {
		return lambdaReport{err: err}
	}
	// The same GET by id in process: the handler the vehicles function serves (app.API behind
	// aws-lambda-go-api-proxy), called directly with the decoded event. Its calls alternate with
	// the Runtime API's, so both meet the same DynamoDB Local and the same machine load; it also
	// warms DynamoDB Local (its JIT) before anything is measured.
	h, err := env.buildAPI()
	if err != nil {
		return lambdaReport{err: err}
	}
	proxy := httpadapter.New(h)
	var inProc []time.Duration
	inProcess := func(measured bool) error {
		start := time.Now()
		res, err := proxy.ProxyWithContext(ctx, getByID)
		d := time.Since(start)
		if err != nil || res.StatusCode != 200 {
			return fmt.Errorf("in-process GET by id: status %d, %v", res.StatusCode, err)
		}
		if measured {
			inProc = append(inProc, d)
		}
		return nil
	}
	for range 1000 {
		if err := inProcess(false); err != nil {
			return lambdaReport{err: err}
		}
	}

	plan := []struct {
		name, pkg, event string
		payload          func() ([]byte, error)
		api              bool
		alongside        func(measured bool) error
		console          bool
		eachCall         bool // payload is made anew for each invocation (it depends on the time)
	}{
		{"minimal", "./dev/runtimeapi/minimal", "{}", func() ([]byte, error) { return []byte("{}"), nil }, false, nil, false, false},
		{"floor", "./dev/runtimeapi/floor", "the items a hinted GET by id needs, at once: key+team (BatchGetItem), minute and day counters (UpdateItem ADD), the vehicle (GetItem)",
			func() ([]byte, error) { return env.floorEvent(time.Now()) }, false, nil, false, true},
		{"vehicles", "./functions/vehicles", "GET /api/v1/vehicles/{id}", func() ([]byte, error) { return json.Marshal(getByID) }, true, inProcess, false, false},
		{"clients", "./functions/clients", "GET /api/v1/clients/{id}", func() ([]byte, error) { return json.Marshal(clientByID) }, true, nil, false, false},
		{"deals", "./functions/deals", "GET /api/v1/deals/{id}", func() ([]byte, error) { return json.Marshal(dealByID) }, true, nil, false, false},
		{"authorizer", "./functions/authorizer", "events/authorizer-valid.json, a valid key", env.sampleEvent("authorizer-valid.json", true), false, nil, false, false},
		{"dispatcher", "./functions/dispatcher", "events/dispatcher-vehicles.json", env.sampleEvent("dispatcher-vehicles.json", false), false, nil, false, false},
		{"deliverer", "./functions/deliverer", "events/deliverer-tasks.json", env.sampleEvent("deliverer-tasks.json", false), false, nil, false, false},
		{"console", "./functions/console", "GET /console/login (events/console-login.json)", env.sampleEvent("console-login.json", false), false, nil, true, false},
		{"console-webhooks", "./functions/console", "GET /console/webhooks signed in (events/console-webhooks.json)", env.consoleSession, false, nil, true, false},
	}
	for _, p := range plan {
		progress("Runtime API: building and measuring %s", p.name)
		row := lambdaRow{name: p.name, event: p.event, api: p.api, console: p.console}
		payload, err := p.payload()
		if err == nil {
			next := func() ([]byte, error) { return payload, nil }
			if p.eachCall {
				next = p.payload
			}
			vars := append(runtimeapi.LambdaEnv(os.Environ()), extra...)
			if p.console {
				// As on AWS: the console refuses to start with its user pool's endpoint overridden
				// (the local stack's moto). The pages measured make no call to the user pool.
				vars = slices.DeleteFunc(vars, func(kv string) bool {
					return strings.HasPrefix(kv, "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER=")
				})
			}
			row = measureLambda(ctx, env.root, p.pkg, filepath.Join(dir, p.name), next, vars, row, p.alongside)
		} else {
			row.err = err
		}
		rep.rows = append(rep.rows, row)
	}
	if len(inProc) > 0 {
		slices.Sort(inProc)
		rep.inProcP50, rep.inProc = percentile(inProc, 50), percentile(inProc, 99)
	}
	return rep
}

// measureLambda builds pkg, starts it coldStarts times (each: process start to the first answer)
// with the process environment env, then invokes the last process warmCalls times, each invocation
// followed by a call of alongside when it is not nil. Each invocation's payload is made by payload
// before it is timed.
func measureLambda(ctx context.Context, root, pkg, dir string, payload func() ([]byte, error), env []string, row lambdaRow,
	alongside func(measured bool) error) lambdaRow {
	bin, err := runtimeapi.BuildPackage(ctx, root, pkg, dir)
	if err != nil {
		row.err = err
		return row
	}
	if fi, err := os.Stat(bin); err == nil {
		row.bytesSize = fi.Size()
	}
	var colds, inits, firsts []time.Duration
	var f *runtimeapi.Function
	for i := range coldStarts {
		if f != nil {
			f.Stop()
		}
		in, err := payload()
		if err != nil {
			row.err = err
			return row
		}
		start := time.Now()
		f, err = runtimeapi.Start(bin, runtimeapi.Options{Name: row.name, Env: env, Stderr: io.Discard})
		if err != nil {
			row.err = err
			return row
		}
		initD, err := f.Ready(ctx)
		if err != nil {
			row.err = err
			f.Stop()
			return row
		}
		r, err := f.Invoke(ctx, in)
		if err == nil {
			err = answerError(row, r)
		}
		if err != nil {
			row.err = fmt.Errorf("cold start %d: %w", i+1, err)
			f.Stop()
			return row
		}
		colds = append(colds, time.Since(start))
		inits = append(inits, initD)
		firsts = append(firsts, time.Since(start)-initD)
	}
	defer f.Stop()
	for i := range warmCalls + 20 {
		in, err := payload()
		if err != nil {
			row.err = err
			return row
		}
		start := time.Now()
		r, err := f.Invoke(ctx, in)
		d := time.Since(start)
		if err == nil {
			err = answerError(row, r)
		}
		if err != nil {
			row.err = fmt.Errorf("warm call %d: %w", i+1, err)
			return row
		}
		if i >= 20 {
			row.warm = append(row.warm, d)
		}
		if alongside != nil {
			if err := alongside(i >= 20); err != nil {
				row.err = err
				return row
			}
		}
	}
	slices.Sort(colds)
	slices.Sort(inits)
	slices.Sort(firsts)
	slices.Sort(row.warm)
	row.cold, row.init, row.first = colds[len(colds)/2], inits[len(inits)/2], firsts[len(firsts)/2]
	row.p50, row.p99 = percentile(row.warm, 50), percentile(row.warm, 99)
	row.peakRSS = f.PeakRSS()
	return row
}

// answerError checks an answer: no invocation error, and for API functions and the console a 200.
func answerError(row lambdaRow, r runtimeapi.Result) error {
	if err := r.Err(); err != nil {
		return err
	}
	if row.api || row.console {
		var res events.APIGatewayProxyResponse
		if err := json.Unmarshal(r.Payload, &res); err != nil {
			return err
		}
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d: %s", res.StatusCode, res.Body)
		}
	}
	return nil
}

// getEvent is events/<resource>-get.json pointed at the main team's record id, with its key: a
// GET by id, what every API function's cold start is measured with (the floor is a GET by id's
// calls).
func (env *benchEnv) getEvent(resource, id string) (events.APIGatewayProxyRequest, error) {
	var e events.APIGatewayProxyRequest
	b, err := os.ReadFile(filepath.Join(env.root, "events", resource+"-get.json"))
	if err != nil {
		return e, err
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return e, err
	}
	old := e.PathParameters["id"]
	e.PathParameters["id"] = id
	e.Path = strings.ReplaceAll(e.Path, old, id)
	e.RequestContext.Path = strings.ReplaceAll(e.RequestContext.Path, old, id)
	e.Headers["Authorization"] = "Bearer " + env.main.secret
	if e.MultiValueHeaders != nil {
		e.MultiValueHeaders["Authorization"] = []string{"Bearer " + env.main.secret}
	}
	// As the authorizer puts it: the team and its plan (storeTeam's).
	e.RequestContext.Authorizer["team_id"] = env.main.teamID
	e.RequestContext.Authorizer["plan"] = string(patio.PlanAutoshopping)
	return e, nil
}

// getEvents returns a GET by id for each API function: the main team's first seeded vehicle, and
// a client and a deal made for it here (the main team's seeded clients keep no ids, and it has no
// deals).
func (env *benchEnv) getEvents(ctx context.Context) (vehicle, client, deal events.APIGatewayProxyRequest, err error) {
	now := time.Now()
	cs, err := historyClients(env.main.teamID, 1, 80_000_000, now, func() string { return patio.ClientActive })
	if err == nil {
		_, err = seedAll(ctx, env.store, cs)
	}
	var ds []patio.Deal
	if err == nil {
		ds, err = historyDeals(env.main.teamID, 1, now, []string{cs[0].ID})
	}
	if err == nil {
		_, err = seedAll(ctx, env.store, ds)
	}
	if err != nil {
		return vehicle, client, deal, err
	}
	if vehicle, err = env.getEvent("vehicles", env.vehicleIDs[0]); err != nil {
		return vehicle, client, deal, err
	}
	if client, err = env.getEvent("clients", cs[0].ID); err != nil {
		return vehicle, client, deal, err
	}
	deal, err = env.getEvent("deals", ds[0].ID)
	return vehicle, client, deal, err
}

// floorEvent names, for the floor function, the items the GET by id of the vehicle getEvents reads needs at
// now when the edge hints its team and plan (the API's hinted read, all at once): the key's item
// and the team's (dynamostore's KeyAndTeam, one BatchGetItem), the team's request counters of
// now's minute and day (dynamostore's Count: rateKeys, each an ADD conditioned on the plan's limit
// of its window when it has one) and the vehicle's record.
func (env *benchEnv) floorEvent(now time.Time) ([]byte, error) {
	now = now.UTC()
	minute, day := rateKeys(env.main.teamID, now)
	limits := patio.PlanAutoshopping.Limits() // the main team's plan (getEvent's hint)
	type itemKey struct {
		PK string `json:"pk"`
		SK string `json:"sk"`
	}
	type counter struct {
		itemKey
		Limit     int   `json:"limit"`
		ExpiresAt int64 `json:"expires_at"`
	}
	return json.Marshal(struct {
		Accounts string  `json:"accounts"`
		Key      itemKey `json:"key"`
		Team     itemKey `json:"team"`
		Minute   counter `json:"minute"`
		Day      counter `json:"day"`
		Records  string  `json:"records"`
		Record   itemKey `json:"record"`
	}{
		Accounts: env.tables.Accounts,
		Key:      itemKey{"key#" + env.main.keyHash, "key"},
		Team:     itemKey{"team#" + env.main.teamID, "team"},
		Minute:   counter{itemKey{minute, "rate"}, limits.PerMinute, now.Truncate(time.Minute).Add(time.Hour).Unix()},
		Day:      counter{itemKey{day, "rate"}, limits.PerDay, now.Truncate(24 * time.Hour).Add(48 * time.Hour).Unix()},
		Records:  env.tables.Vehicles,
		Record:   itemKey{env.main.teamID, storeformat.Vehicles.RowKey(env.vehicleIDs[0])},
	})
}

// consoleSession returns events/console-webhooks.json carrying the session cookie of an owner of
// the main team, made as signing in makes it (a member and a session in the store).
func (env *benchEnv) consoleSession() ([]byte, error) {
	id, err := env.ownerSession(context.Background(), env.main.teamID)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(env.root, "events", "console-webhooks.json"))
	if err != nil {
		return nil, err
	}
	var e events.APIGatewayProxyRequest
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, err
	}
	cookie := "patio_session=" + id
	e.Headers["Cookie"], e.MultiValueHeaders["Cookie"] = cookie, []string{cookie}
	return json.Marshal(e)
}

// sampleEvent returns events/<name>, with withKey the main team's key in its Authorization
// header and, in an API event, its team and plan in the authorizer's context.
func (env *benchEnv) sampleEvent(name string, withKey bool) func() ([]byte, error) {
	return func() ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(env.root, "events", name))
		if err != nil || !withKey {
			return b, err
		}
		var e map[string]any
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, err
		}
		if h, ok := e["headers"].(map[string]any); ok {
			h["Authorization"] = "Bearer " + env.main.secret
		}
		if h, ok := e["multiValueHeaders"].(map[string]any); ok {
			h["Authorization"] = []string{"Bearer " + env.main.secret}
		}
		if rc, ok := e["requestContext"].(map[string]any); ok {
			if a, ok := rc["authorizer"].(map[string]any); ok {
				a["team_id"], a["plan"] = env.main.teamID, string(patio.PlanAutoshopping)
			}
		}
		return json.Marshal(e)
	}
}

// printLambdas writes the Runtime API section and its budgets.
func printLambdas(w io.Writer, rep lambdaReport) (budgets []string) {
	fmt.Fprintf(w, "\nFunctions under the Lambda Runtime API (dev/runtimeapi): each bootstrap built with the deploy flags for\n")
	fmt.Fprintf(w, "linux/%s (this machine; the size budget above is the arm64 build's), a child process with X-Ray tracing\n", runtime.GOARCH)
	fmt.Fprintf(w, "on. Medians of %d cold starts: init = process start to its first /next, first call = the first\n", coldStarts)
	fmt.Fprintf(w, "invocation (new connections, its DynamoDB calls), cold = both; warm = %d sequential invocations after\n", warmCalls)
	fmt.Fprintf(w, "20, nearest-rank; peak = the process's VmHWM.\n\n")
	if rep.err != nil && len(rep.rows) == 0 {
		fmt.Fprintf(w, "  not measured: %v\n", rep.err)
		return []string{fmt.Sprintf("  FAIL  Runtime API: not measured (%v)", rep.err)}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "function\tsize MB\tinit\tfirst call\tcold\twarm p50\twarm p99\tpeak MB\tinvoked with\t")
	var minimal, floor, vehicles *lambdaRow
	for i, r := range rep.rows {
		if r.name == "minimal" && r.err == nil {
			minimal = &rep.rows[i]
		}
		if r.name == "floor" && r.err == nil {
			floor = &rep.rows[i]
		}
		if r.name == "vehicles" && r.err == nil {
			vehicles = &rep.rows[i]
		}
		if r.err != nil {
			fmt.Fprintf(tw, "%s\t\t\t\t\t\t\t\terror: %v\t\n", r.name, r.err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t\n", r.name, float64(r.bytesSize)/1e6, ms(r.init), ms(r.first), ms(r.cold),
			ms(r.p50), ms(r.p99), float64(r.peakRSS)/1e6, r.event)
	}
	if rep.inProcP50 > 0 {
		fmt.Fprintf(tw, "vehicles in process\t\t\t\t\t%s\t%s\t\t%s\t\n", ms(rep.inProcP50), ms(rep.inProc), "GET /api/v1/vehicles/{id}: app.API behind the proxy, no process boundary, calls alternating with the line above")
	}
	_ = tw.Flush()
	if rep.err != nil {
		fmt.Fprintf(w, "  %v\n", rep.err)
	}
	// Cold start budgets: an API function's against the floor function's (its ratio to the minimal
	// function's beside it), the console's against the vehicles function's.
	for _, r := range rep.rows {
		var base *lambdaRow
		var limit float64
		var of string
		switch {
		case r.api:
			base, limit, of = floor, maxColdRatio, "the floor's (key+team, two counters, record: four calls at once)"
		case r.console:
			base, limit, of = vehicles, maxConsoleColdRatio, "the vehicles function's"
		default:
			continue
		}
		if r.err != nil || base == nil {
			budgets = append(budgets, fmt.Sprintf("  FAIL  %s cold start: not measured", r.name))
			continue
		}
		x := ratio(r.cold, base.cold)
		line := fmt.Sprintf("  %s  %s cold start under the Runtime API = %.2f × %s (≤ %.1f)", verdict(x <= limit), r.name, x, of, limit)
		if r.api && minimal != nil {
			line += fmt.Sprintf("; %.2f × the minimal function's", ratio(r.cold, minimal.cold))
		}
		if r.console {
			line += ": " + r.event
		}
		budgets = append(budgets, line)
	}
	for _, r := range rep.rows {
		if r.name != "vehicles" {
			continue
		}
		if r.err != nil || rep.inProcP50 == 0 {
			budgets = append(budgets, "  FAIL  warm GET by id: not measured")
			continue
		}
		x := ratio(r.p50, rep.inProcP50)
		budgets = append(budgets, fmt.Sprintf("  %s  warm GET by id through the Runtime API = %.2f × in process at p50 (≤ %.1f)",
			verdict(x <= maxWarmRatio), x, maxWarmRatio))
	}
	return budgets
}

// lambdasOnlyVehicles is how many vehicles -lambdas-only seeds: a GET by id reads one, whatever the
// table holds.
const lambdasOnlyVehicles = 100

// runLambdasOnly is -lambdas-only: on the fresh tables setup made, the data the functions' sample
// events read (the main team's -clients clients, as the whole bench seeds them, and a few vehicles;
// the deals list reads the main team, which has no deals in either), then the binaries' sizes and
// the functions under the Runtime API, printed with their budgets as the whole bench prints them.
func (env *benchEnv) runLambdasOnly(ctx context.Context, o options) error {
	started := time.Now()
	now := time.Now()
	cs, err := historyClients(env.main.teamID, o.clients, 0, now, func() string { return patio.ClientActive })
	if err != nil {
		return err
	}
	vs, err := historyVehicles(env.main.teamID, lambdasOnlyVehicles, plateIndexSeeded, now, func() string { return patio.VehicleActive })
	if err != nil {
		return err
	}
	if _, err := seedAll(ctx, env.store, cs); err != nil {
		return err
	}
	if _, err := seedAll(ctx, env.store, vs); err != nil {
		return err
	}
	env.vehicleIDs = ids(vs, func(v patio.Vehicle) string { return v.ID })
	progress("seeded %d clients and %d vehicles in %s", o.clients, lambdasOnlyVehicles, time.Since(started).Round(time.Millisecond))
	var sizes []binarySize
	var sizeErr error
	if !o.skipSizes {
		progress("building the functions (linux/arm64, as deployed) for their sizes")
		sizes, sizeErr = buildSizes(ctx, env.root)
	}
	rep := env.measureLambdas(ctx)
	w := os.Stdout
	fmt.Fprintf(w, "\nPatio bench -lambdas-only: %s, %s %s/%s, %d CPUs, DynamoDB Local in memory\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintf(w, "data: one team with %d clients and %d vehicles, seeded in batches by dynamostore.Seed\n",
		o.clients, lambdasOnlyVehicles)
	printSizes(w, sizes, sizeErr, o.skipSizes)
	budgets := printLambdas(w, rep)
	fmt.Fprintln(w, "\nbudgets (printed, not enforced: the bench exits 0 either way):")
	printSizeBudgets(w, sizes, sizeErr, o.skipSizes)
	for _, b := range budgets {
		fmt.Fprintln(w, b)
	}
	fmt.Fprintf(w, "\nbench took %s\n", time.Since(started).Round(time.Second))
	return nil
}
