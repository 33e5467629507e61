package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/patio-dev/patio/dev/runtimeapi"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// Budgets of the functions: sizes as deployed (the console's html/template keeps more methods
// linked), and under the Runtime API their cold starts and the warm GET by id.
const (
	maxBinaryBytes      = 12_000_000 // decimal MB, the stricter reading
	maxConsoleBytes     = 16_000_000
	maxColdRatio        = 1.3 // cold start of an API function / the floor function's (a GET's four calls at once), medians
	maxConsoleColdRatio = 1.3 // cold start of the console / the vehicles function's, medians
	maxWarmRatio        = 1.3 // warm GET by id through the Runtime API / in process, p50
	coldStarts          = 5   // cold starts measured per function
	warmCalls           = 300 // warm invocations measured per function, after 20 unmeasured
)

// binarySize is one Lambda function's bootstrap, built as deployed.
type binarySize struct {
	function string // functions/<name>
	bytes    int64
}

// functionsReport is the functions' part: their sizes and their runs under the Runtime API.
type functionsReport struct {
	sizes   []binarySize
	sizeErr error
	lambdas lambdaReport
}

// measureFunctions builds the functions for their sizes and measures them under the Runtime API.
func (env *benchEnv) measureFunctions(ctx context.Context) functionsReport {
	progress("building the functions (linux/arm64, as deployed) for their sizes")
	f := functionsReport{}
	f.sizes, f.sizeErr = buildSizes(ctx, env.root)
	f.lambdas = env.measureLambdas(ctx)
	return f
}

// buildSizes builds every functions/<name> as deployed and returns the binaries' sizes.
func buildSizes(ctx context.Context, root string) (out []binarySize, err error) {
	dirs, err := filepath.Glob(filepath.Join(root, "functions", "*", "main.go"))
	for _, mainGo := range dirs {
		name := "functions/" + filepath.Base(filepath.Dir(mainGo))
		size, err := buildSize(ctx, root, name)
		if err != nil {
			return out, err
		}
		out = append(out, binarySize{function: name, bytes: size})
	}
	return out, err
}

// buildSize builds the function at dir (functions/<name>) as the Makefile's build-<Function>
// targets do, and returns its bootstrap's size (building never reports a stale binary).
func buildSize(ctx context.Context, root, dir string) (int64, error) {
	tmp, err := os.MkdirTemp("", "patio-bench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bootstrap")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w", "-o", bin, "./"+dir)
	cmd.Dir, cmd.Env = root, append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build %s: %w\n%s", dir, err, msg)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// lambdaRow is one function measured as Lambda runs it: its bootstrap, built as deployed for this
// machine's architecture, a child process under the Runtime API (dev/runtimeapi).
type lambdaRow struct {
	name              string // functions/<name>, or "floor"
	event             string // what it was invoked with
	api, console      bool   // an API function, the console (their cold start budgets)
	init, cold, first time.Duration
	firstModel        modeled // the first call of the median cold start, modeled on AWS (coldModeled)
	warm              []time.Duration
	p50, p99          time.Duration
	err               error
}

// lambdaReport is the Runtime API section of the report.
type lambdaReport struct {
	rows              []lambdaRow
	inProcP50, inProc time.Duration // in-process GET by id p50, p99
	err               error
}

// measureLambdas runs each function under the Runtime API against the bench's tables, tracing on
// (to a UDP socket that discards).
func (env *benchEnv) measureLambdas(ctx context.Context) (rep lambdaReport) {
	defer catch(&rep.err)
	dir := must(os.MkdirTemp("", "patio-bench-lambda-"))
	defer os.RemoveAll(dir)
	sink := must(net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}))
	defer sink.Close()
	go func() {
		buf := make([]byte, 64*1024)
		for _, err := sink.Read(buf); err == nil; _, err = sink.Read(buf) {
		}
	}()
	calls := newCallProxy(os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"))
	defer calls.srv.Close()
	vars := append(runtimeapi.LambdaEnv(os.Environ()), "AWS_XRAY_DAEMON_ADDRESS="+sink.LocalAddr().String(),
		"AWS_ENDPOINT_URL_DYNAMODB="+calls.url)
	vehicle, client, deal := env.getEvents(ctx)
	var inProc []time.Duration
	inProcess := env.inProcess(ctx, vehicle, &inProc)
	fixed := func(b []byte) func() ([]byte, error) { return func() ([]byte, error) { return b, nil } }
	plan := []struct {
		lambdaRow
		pkg       string
		payload   func() ([]byte, error)
		alongside func(measured bool) error
	}{
		{lambdaRow{name: "floor", event: "the items a hinted GET by id needs, at once: key+team (BatchGetItem), minute and day counters (UpdateItem ADD), the vehicle (GetItem)"},
			"./dev/runtimeapi/floor", func() ([]byte, error) { return env.floorEvent(time.Now()) }, nil},
		{lambdaRow{name: "vehicles", event: "GET /api/v1/vehicles/{id}", api: true}, "./functions/vehicles", fixed(vehicle), inProcess},
		{lambdaRow{name: "clients", event: "GET /api/v1/clients/{id}", api: true}, "./functions/clients", fixed(client), nil},
		{lambdaRow{name: "deals", event: "GET /api/v1/deals/{id}", api: true}, "./functions/deals", fixed(deal), nil},
		{lambdaRow{name: "console", event: "GET /console/login (events/console-login.json)", console: true}, "./functions/console",
			fixed(must(env.event("console-login.json", nil))), nil},
		{lambdaRow{name: "console-webhooks", event: "GET /console/webhooks signed in (events/console-webhooks.json)", console: true},
			"./functions/console", env.consoleSession, nil},
	}
	// As on AWS: the console refuses to start with its user pool's endpoint overridden (the local
	// stack's moto). The pages measured make no call to the user pool.
	consoleVars := slices.DeleteFunc(slices.Clone(vars), func(kv string) bool {
		return strings.HasPrefix(kv, "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER=")
	})
	for _, p := range plan {
		progress("Runtime API: building and measuring %s", p.name)
		payload, v := p.payload, vars
		if p.console {
			v = consoleVars
		}
		if p.name != "floor" { // the floor's payload depends on the time: made anew for each call
			b, err := p.payload()
			payload = func() ([]byte, error) { return b, err }
		}
		rep.rows = append(rep.rows, measureLambda(ctx, env.root, p.pkg, filepath.Join(dir, p.name), payload, v, p.lambdaRow, p.alongside, calls))
	}
	rep.inProcP50, rep.inProc = percentiles(inProc)
	return rep
}

// inProcess returns the GET by id of event in process: the vehicles function's handler (app.API
// behind aws-lambda-go-api-proxy) called directly, its calls alternating with the Runtime API's so
// that both meet the same load, its measured times appended to times. It warms DynamoDB Local
// before anything is measured.
func (env *benchEnv) inProcess(ctx context.Context, event []byte, times *[]time.Duration) func(measured bool) error {
	var getByID events.APIGatewayProxyRequest
	check(json.Unmarshal(event, &getByID))
	proxy := httpadapter.New(env.buildAPI())
	get := func(measured bool) error {
		start := time.Now()
		res, err := proxy.ProxyWithContext(ctx, getByID)
		d := time.Since(start)
		if err != nil || res.StatusCode != 200 {
			return fmt.Errorf("in-process GET by id: status %d, %v", res.StatusCode, err)
		}
		if measured {
			*times = append(*times, d)
		}
		return nil
	}
	for range 1000 {
		check(get(false))
	}
	return get
}

// measureLambda builds pkg, starts it coldStarts times, then, when alongside is not nil, invokes
// the last process warmCalls times, each invocation followed by alongside.
func measureLambda(ctx context.Context, root, pkg, dir string, payload func() ([]byte, error), env []string, row lambdaRow,
	alongside func(measured bool) error, proxy *callProxy) (out lambdaRow) {
	out = row
	defer catch(&out.err)
	bin := must(runtimeapi.BuildPackage(ctx, root, pkg, dir))
	var f *runtimeapi.Function
	defer func() {
		if f != nil {
			f.Stop()
		}
	}()
	// invoke invokes f with in and returns how long the invocation took, its answer checked after.
	invoke := func(in []byte, what string, i int) time.Duration {
		start := time.Now()
		r, err := f.Invoke(ctx, in)
		d := time.Since(start)
		if err == nil {
			err = answerError(row, r)
		}
		if err != nil {
			check(fmt.Errorf("%s %d: %w", what, i+1, err))
		}
		return d
	}
	var colds, inits, firsts []time.Duration
	var models []modeled
	for i := range coldStarts {
		if f != nil {
			f.Stop()
			f = nil
		}
		in := must(payload())
		start := time.Now()
		f = must(runtimeapi.Start(bin, runtimeapi.Options{Name: row.name, Env: env, Stderr: io.Discard}))
		initD := must(f.Ready(ctx))
		models = append(models, model(proxy.trace(func() { invoke(in, "cold start", i) })))
		colds, inits, firsts = append(colds, time.Since(start)), append(inits, initD), append(firsts, time.Since(start)-initD)
	}
	for i := range warmCalls + 20 {
		if alongside == nil { // only the warm GET by id has a budget
			break
		}
		if d := invoke(must(payload()), "warm call", i); i >= 20 {
			out.warm = append(out.warm, d)
		}
		check(alongside(i >= 20))
	}
	out.cold, out.init, out.first = median(colds), median(inits), median(firsts)
	slices.SortFunc(models, func(a, b modeled) int { return cmp.Compare(a.latency(), b.latency()) })
	out.firstModel = models[len(models)/2]
	out.p50, out.p99 = percentiles(out.warm)
	return out
}

// answerError checks an answer: no invocation error, and for API functions and the console a 200.
func answerError(row lambdaRow, r runtimeapi.Result) error {
	if err := r.Err(); err != nil || !(row.api || row.console) {
		return err
	}
	var res events.APIGatewayProxyResponse
	if err := json.Unmarshal(r.Payload, &res); err != nil {
		return err
	}
	if res.StatusCode != 200 {
		return fmt.Errorf("status %d: %s", res.StatusCode, res.Body)
	}
	return nil
}

// event returns events/<name>, changed by edit when it is not nil.
func (env *benchEnv) event(name string, edit func(e map[string]any)) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(env.root, "events", name))
	if err != nil || edit == nil {
		return b, err
	}
	var e map[string]any
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, err
	}
	edit(e)
	return json.Marshal(e)
}

// header sets header name of an API Gateway event to value.
func header(e map[string]any, name, value string) {
	if h, ok := e["headers"].(map[string]any); ok {
		h[name] = value
	}
	if h, ok := e["multiValueHeaders"].(map[string]any); ok {
		h[name] = []string{value}
	}
}

// withKey puts the main team's key in an event's Authorization header and, in an API event, its
// team and plan in the authorizer's context, as the authorizer puts them.
func (env *benchEnv) withKey(e map[string]any) {
	header(e, "Authorization", "Bearer "+env.main.secret)
	if rc, ok := e["requestContext"].(map[string]any); ok {
		if a, ok := rc["authorizer"].(map[string]any); ok {
			a["team_id"], a["plan"] = env.main.teamID, string(patio.PlanAutoshopping)
		}
	}
}

// getEvent is events/<resource>-get.json pointed at the main team's record id, with its key.
func (env *benchEnv) getEvent(resource, id string) []byte {
	return must(env.event(resource+"-get.json", func(e map[string]any) {
		params := e["pathParameters"].(map[string]any)
		old, _ := params["id"].(string)
		params["id"] = id
		e["path"] = strings.ReplaceAll(e["path"].(string), old, id)
		if rc, ok := e["requestContext"].(map[string]any); ok {
			if p, ok := rc["path"].(string); ok {
				rc["path"] = strings.ReplaceAll(p, old, id)
			}
		}
		env.withKey(e)
	}))
}

// getEvents returns a GET by id for each API function: the main team's first seeded vehicle, and
// a client and a deal made for it here.
func (env *benchEnv) getEvents(ctx context.Context) (vehicle, client, deal []byte) {
	now := time.Now()
	cs := historyClients(env.main.teamID, 1, 80_000_000, now, always(string(patio.ClientActive)))
	seedAll(ctx, env.store, cs)
	ds := historyDeals(env.main.teamID, 1, now, []string{cs[0].ID})
	seedAll(ctx, env.store, ds)
	return env.getEvent("vehicles", env.vehicleIDs[0]), env.getEvent("clients", cs[0].ID), env.getEvent("deals", ds[0].ID)
}

// floorEvent names, for the floor function, the items a hinted GET by id of the vehicle needs at
// now: the key and the team, the minute and day counters, and the record.
func (env *benchEnv) floorEvent(now time.Time) ([]byte, error) {
	now = now.UTC()
	minute, day := storeformat.RateKeys(env.main.teamID, now)
	limits := patio.PlanAutoshopping.Limits() // the main team's plan (getEvent's hint)
	key := func(pk, sk string) map[string]any { return map[string]any{"pk": pk, "sk": sk} }
	counter := func(pk string, limit int, expires time.Time) map[string]any {
		return map[string]any{"pk": pk, "sk": storeformat.RateSort, "limit": limit, "expires_at": expires.Unix()}
	}
	return json.Marshal(map[string]any{"accounts": env.tables.Accounts, "records": env.tables.Vehicles,
		"key":    key(storeformat.APIKeyKey(env.main.keyHash), storeformat.KeySort),
		"team":   key(storeformat.TeamKey(env.main.teamID), storeformat.TeamSort),
		"minute": counter(minute, limits.PerMinute, now.Truncate(time.Minute).Add(time.Hour)),
		"day":    counter(day, limits.PerDay, now.Truncate(24*time.Hour).Add(48*time.Hour)),
		"record": key(env.main.teamID, storeformat.Vehicles.RowKey(env.vehicleIDs[0]))})
}

// consoleSession returns events/console-webhooks.json carrying the session cookie of an owner of
// the main team, made as signing in makes it.
func (env *benchEnv) consoleSession() ([]byte, error) {
	id, err := env.ownerSession(context.Background(), env.main.teamID)
	if err != nil {
		return nil, err
	}
	return env.event("console-webhooks.json", func(e map[string]any) { header(e, "Cookie", "patio_session="+id) })
}

// printFunctions writes the functions' sizes and the Runtime API section, and returns their
// budget lines.
func printFunctions(w io.Writer, f functionsReport) (budgets []string) {
	for _, b := range f.sizes {
		limit := int64(maxBinaryBytes)
		if b.function == "functions/console" {
			limit = maxConsoleBytes
		}
		budgets = append(budgets, fmt.Sprintf("  %s  %s: %.2f MB (≤ %.0f MB; linux/arm64, built as deployed)\n", verdict(b.bytes <= limit),
			b.function, float64(b.bytes)/1e6, float64(limit)/1e6))
	}
	if f.sizeErr != nil {
		budgets = append(budgets, fmt.Sprintf("  SKIP  binary sizes: not all built: %v\n", f.sizeErr))
	}
	return append(budgets, printLambdas(w, f.lambdas)...)
}

// printLambdas writes the Runtime API section and returns its budget lines.
func printLambdas(w io.Writer, rep lambdaReport) (budgets []string) {
	fmt.Fprintf(w, "\nFunctions under the Lambda Runtime API (dev/runtimeapi), built with the deploy flags for linux/%s, X-Ray tracing on.\n", runtime.GOARCH)
	fmt.Fprintf(w, "Medians of %d cold starts: init = process start to its first /next, first call = the first invocation, cold = both;\n", coldStarts)
	fmt.Fprintf(w, "cold on AWS = init + the first call's recorded calls modeled (model.go); warm = %d sequential invocations after 20.\n\n", warmCalls)
	if rep.err != nil && len(rep.rows) == 0 {
		return []string{fmt.Sprintf("  FAIL  Runtime API: not measured (%v)\n", rep.err)}
	}
	tw := table(w, "function\tinit\tfirst call\tcold\tcold on AWS\twarm p50\twarm p99\tinvoked with\t")
	measured := map[string]*lambdaRow{}
	for i, r := range rep.rows {
		if r.err != nil {
			fmt.Fprintf(tw, "%s\t\t\t\t\t\t\terror: %v\t\n", r.name, r.err)
			continue
		}
		measured[r.name] = &rep.rows[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.name, ms(r.init), ms(r.first), ms(r.cold),
			ms(coldModeled(r)), ms(r.p50), ms(r.p99), r.event)
	}
	fmt.Fprintf(tw, "vehicles in process\t\t\t\t\t%s\t%s\t%s\t\n", ms(rep.inProcP50), ms(rep.inProc), "app.API behind the proxy, calls alternating with the line above")
	_ = tw.Flush()
	if rep.err != nil {
		fmt.Fprintf(w, "  %v\n", rep.err)
	}
	// Cold start budgets: an API function's against the floor function's, the console's against
	// the vehicles function's.
	for _, r := range rep.rows {
		base, limit, of := measured["floor"], maxColdRatio, "the floor's (key+team, two counters, record: four calls at once)"
		if r.console {
			base, limit, of = measured["vehicles"], maxConsoleColdRatio, "the vehicles function's"
		} else if !r.api {
			continue
		}
		if r.err != nil || base == nil {
			budgets = append(budgets, fmt.Sprintf("  FAIL  %s cold start: not measured\n", r.name))
			continue
		}
		x, local := ratio(coldModeled(r), coldModeled(*base)), ratio(r.cold, base.cold)
		line := fmt.Sprintf("  %s  %s cold start modeled on AWS (init + first call's %d rounds) = %.2f × %s (≤ %.1f); under the Runtime API on DynamoDB Local %.2f×",
			verdict(x <= limit), r.name, r.firstModel.rounds, x, of, limit, local)
		if r.console {
			line += ": " + r.event
		}
		budgets = append(budgets, line+"\n")
	}
	if v := measured["vehicles"]; v == nil || rep.inProcP50 == 0 {
		budgets = append(budgets, "  FAIL  warm GET by id: not measured\n")
	} else {
		x := ratio(v.p50, rep.inProcP50)
		budgets = append(budgets, fmt.Sprintf("  %s  warm GET by id through the Runtime API = %.2f × in process at p50 (≤ %.1f)\n",
			verdict(x <= maxWarmRatio), x, maxWarmRatio))
	}
	return budgets
}

// lambdasOnlyVehicles is how many vehicles -lambdas-only seeds: a GET by id reads one.
const lambdasOnlyVehicles = 100

// runLambdasOnly is -lambdas-only: the data the functions' events read, then the functions' part
// as the whole bench prints it.
func (env *benchEnv) runLambdasOnly(ctx context.Context, o options) {
	started := time.Now()
	seedAll(ctx, env.store, historyClients(env.main.teamID, o.clients, 0, started, always(string(patio.ClientActive))))
	vs := historyVehicles(env.main.teamID, lambdasOnlyVehicles, plateIndexSeeded, started, always(string(patio.VehicleActive)))
	seedAll(ctx, env.store, vs)
	env.vehicleIDs = ids(vs, func(v patio.Vehicle) string { return v.ID })
	progress("seeded %d clients and %d vehicles in %s", o.clients, lambdasOnlyVehicles, time.Since(started).Round(time.Millisecond))
	f := env.measureFunctions(ctx)
	w := os.Stdout
	printHeader(w, " -lambdas-only")
	fmt.Fprintf(w, "data: one team with %d clients and %d vehicles, seeded in batches by storeseed.Seed\n", o.clients, lambdasOnlyVehicles)
	printBudgets(w, printFunctions(w, f))
	fmt.Fprintf(w, "\nbench took %s\n", time.Since(started).Round(time.Second))
}
