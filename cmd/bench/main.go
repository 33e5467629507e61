// Command bench measures what the API costs on top of its database: for each benchmarked endpoint,
// the latency and throughput of real HTTP requests to the API handler, and those of the very
// DynamoDB calls that request makes (authentication reads and rate counters included), issued
// directly with the AWS SDK. Their ratio is the price of everything that is ours: HTTP, routing,
// JSON, the domain rules, the store's encoding and what guregu/dynamo adds to the SDK. It also prints
// the size of every Lambda function binary, built as deployed. It is `make bench`:
//
//	go run ./cmd/local with-engines -- go run ./cmd/bench [flags]
//
// It needs DynamoDB Local (AWS_ENDPOINT_URL_DYNAMODB, which with-engines sets) and refuses to run
// without it, so it never creates tables on AWS.
//
// What one run does, in one process:
//
//  1. Creates every table (and queue) of template.yaml under a fresh prefix, sets the functions'
//     environment (VEHICLES_TABLE and the like), creates two Autoshopping teams with a key each,
//     lifts their per-minute rate limit (see rawClient.liftRateLimits: the limiter still runs on
//     every request), and serves app.API (every resource, logs discarded) with net/http on
//     127.0.0.1:0.
//
//  2. Seeds, through the domain use cases on the store (-seed api: through the API), in the second
//     team 32 clients and three pools of open deals, each on a vehicle of its own, so that every
//     measured win sells a vehicle nobody sold before; in the first team 1,000 clients with valid
//     CPFs (when /api/v1/clients is served) and 10,000 vehicles with valid unique old-format plates
//     and varied prices, model years and mileage.
//
//  3. For each endpoint and each concurrency (1 and 16), runs the HTTP requests with a keep-alive
//     client (one reused connection per worker), then the raw DynamoDB calls the same way (and for
//     a write, whose raw side is its floor, its own calls too): same workers, same warm-up, same
//     duration, same counting, the sides taking turns in three rounds (load.go: rounds) whose
//     figures are merged. Calls that complete within the warm-up are not counted; workers start calls until the duration has passed (longer, up to three
//     times, while fewer than 20 were counted), and every call started is waited for. Latency
//     percentiles are nearest-rank over every counted successful call; throughput is those calls
//     over the window from the first one's start to the last one's end. Failed calls are counted
//     apart and reported.
//
//  4. Runs every function's bootstrap, built as deployed for this machine, and a minimal aws-lambda-go
//     function under the Lambda Runtime API (dev/runtimeapi), X-Ray tracing on: init time, cold
//     start (process start to first answer), warm p50/p99 and peak memory of each (the console
//     twice: its sign-in page, and its webhooks page with an owner's session), and the vehicles
//     GET by id in process for comparison (-lambdas-only: this and the sizes alone).
//
//  5. Lists at any size (lists.go; -lists-only runs them alone): for each -list-sizes (1,000,
//     10,000 and 50,000 by default), a team bulk-loaded in the store's item format
//     (shared/dynamostore/storeformat) with that many vehicles of a dealership's history (45 %
//     vendido, 45 % arquivado, 10 % ativo or reservado), a team of -list-clients clients and one of
//     -list-deals deals; on each, the default list, a page reached by walking next_cursor as deep
//     as the data allows (up to page 100), status=ativo, two sorts, every equality filter alone and
//     with status=ativo, a price range of about 5 % of the vehicles, q, a combination and the sync
//     recipe with about 100 changes, clients by type, deals by client_id and each resource's GET by
//     id, measured as in 3 (every endpoint at every size taking turns in the rounds), with the
//     items each request examines for its page and for its count (from a sample request), the share
//     s of the indexed filter's matches that pass the others, and the write cost (items, write
//     units) of a vehicle's create and of an update of its brand and price. A list's raw side is
//     its floor (listFloor: one Query of limit items), not the request's own calls.
//
//  6. The write rate of one team with 16 concurrent writers (writes.go): creates and status changes
//     now (the use cases on the store: each a transaction with an order item and count shards), as
//     before (the previous design's writes, with the bare SDK) and at the floor (the row alone).
//
//  7. Prints the table, the DynamoDB calls of one sample request per endpoint as the API makes them
//     and as the raw side makes them (they must match call for call, lists' floors aside), the
//     functions' sizes, the Runtime API table and the budgets: request/raw ratio at p50 ≤ 1.5 at
//     concurrency 1 per endpoint, each binary ≤ 12 MB (12,000,000 bytes; the console's ≤ 16 MB),
//     each API function's cold start ≤ 1.3 × the floor function's (a GET by id's key and team,
//     two rate counters and record, read and counted at once), the console's (its sign-in
//     page, and a signed-in page) ≤ 1.3 × the vehicles function's, the warm GET by id through the
//     Runtime API ≤ 1.3 × in process; then the lists' table and budgets (items examined per page ≤
//     k × limit + 10 for k ranges merged, ÷ s for a filter the indexed one does not serve; counts
//     from maintained counts for an equality filter, else at most the most selective filter's
//     matches; at the largest size, p50 ≤ 2× GET by id (≤ 5× for ranges, q and combinations), and
//     each list's ratio to its floor ≤ 1.2× that ratio at the smallest; the deep cursor page
//     within ±20 % of page 1), and the write rates.
//
//  8. The webhook pipeline (webhooks.go; -webhooks-only alone) and the timer of activities and
//     financial records (timer.go; -timer-only alone): with the production tick period (one
//     minute), -timer-due due soons falling due over three minutes, each written 20 s before its
//     instant, and the p50/p99 delay from scheduled instant to the delivery recorded (budget p99 ≤
//     60 s); then, with 10,000 activities of one team due over the next 30 days, single ticks at
//     chosen instants of the timer's clock (patio.Timer.Now): the index entries they read beside
//     the alarms in their window, their DynamoDB calls (budget: at most 2 when nothing is due).
//
//  9. The console (console.go; -console-only alone): its pages served beside the API on a team with
//     a webhook of 100,000 logged deliveries and 10,000 activities and financial records each,
//     every page's p50 at concurrency 1 against GET /api/v1/vehicles/{id} in the same rounds
//     (budgets: the webhooks and deliveries pages, the activity lists, the overdue views and a
//     financial list with a filter ≤ 3×, a month's summary ≤ 5×) and the items each page's reads
//     examined, apart from its total's count (budget: ≤ k × 25 + 10 for k statuses shown).
//
// Budgets are printed as PASS or FAIL, and the command exits 0 even when one fails: it is a
// measurement, not a test. It exits non-zero only when it could not measure (no engine, a failed
// setup step, flags it cannot parse).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options are the command's flags.
type options struct {
	vehicles    int
	clients     int
	pool        int
	duration    time.Duration
	warmup      time.Duration
	concurrency []int
	seed        string
	trace       bool
	skipSizes   bool
	skipLambdas bool
	cpuProfile  string
	// Lists at any size and the write rate (issue 10; lists.go, writes.go).
	listSizes    []int
	listDuration time.Duration
	// listClients and listDeals size the clients' and deals' teams of the lists (0: none);
	// listsOnly runs the lists alone.
	listClients, listDeals int
	listsOnly              bool
	writes                 bool
	// webhooks runs the webhook bench (webhooks.go) after the API's; webhooksOnly runs it alone.
	webhooks, webhooksOnly bool
	wh                     webhookOptions
	// timer runs the timer bench (timer.go) after the others; timerOnly runs it alone.
	timer, timerOnly bool
	tm               timerOptions
	// consoleOnly runs the console's pages (console.go) alone.
	consoleOnly bool
	console     consoleOptions
	// lambdasOnly runs the sizes and the functions under the Runtime API (lambdaruntime.go) alone.
	lambdasOnly bool
	// sustainedOnly runs the sustained load on the stack as `make run` wires it (sustained.go).
	sustainedOnly bool
	sustained     sustainedOptions
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var o options
	fs.IntVar(&o.vehicles, "vehicles", 10000, "vehicles seeded in the measured team")
	fs.IntVar(&o.clients, "clients", 1000, "clients seeded in the measured team (when /api/v1/clients is served)")
	fs.IntVar(&o.pool, "deals", 1000, "open deals prepared per side for the win runs")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "measured time of each run")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured time before each run")
	conc := fs.String("concurrency", "1,16", "comma-separated worker counts")
	fs.StringVar(&o.seed, "seed", "store", "how vehicles, clients and deals are seeded: store (the domain use cases on the DynamoDB store, no HTTP) or api")
	fs.BoolVar(&o.trace, "trace", false, "also print the request body of every DynamoDB call of the sample requests")
	fs.BoolVar(&o.skipSizes, "skip-sizes", false, "do not build the functions for their sizes")
	fs.BoolVar(&o.skipLambdas, "skip-lambdas", false, "do not run the functions under the Lambda Runtime API")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured runs to this file")
	sizes := fs.String("list-sizes", "1000,10000,50000", "comma-separated vehicle counts of the teams the lists are measured on (\"\" for none)")
	fs.DurationVar(&o.listDuration, "list-duration", 2*time.Second, "measured time of each run of the lists at any size")
	fs.IntVar(&o.listClients, "list-clients", 50000, "clients of the team the clients' filters are measured on (0 for none)")
	fs.IntVar(&o.listDeals, "list-deals", 10000, "deals of the team the deals' filters are measured on (0 for none)")
	fs.BoolVar(&o.listsOnly, "lists-only", false, "measure the lists at any size only (and the write cost of a vehicle's create and update)")
	fs.BoolVar(&o.writes, "writes", true, "measure the write rate of one team with 16 concurrent writers")
	fs.BoolVar(&o.webhooks, "webhooks", true, "also measure the webhook pipeline (drain, lag, a timing-out receiver)")
	fs.BoolVar(&o.webhooksOnly, "webhooks-only", false, "measure the webhook pipeline only")
	fs.IntVar(&o.wh.backlog, "webhook-backlog", 3000, "changes in the webhook drain's backlog")
	fs.IntVar(&o.wh.rate, "webhook-rate", 20, "writes per second of the webhook lag runs")
	fs.DurationVar(&o.wh.duration, "webhook-duration", 30*time.Second, "length of each webhook lag run")
	fs.DurationVar(&o.wh.slowSleep, "webhook-slow-sleep", 30*time.Second, "how long the always-timing-out receiver sleeps (past the 5 s timeout)")
	fs.BoolVar(&o.timer, "timer", true, "also measure the timer of activities and financial records (tick reads, delay to the event recorded)")
	fs.BoolVar(&o.timerOnly, "timer-only", false, "measure the timer only")
	fs.IntVar(&o.tm.activities, "timer-activities", 10000, "activities of one team, due over the next 30 days, for the tick reads")
	fs.IntVar(&o.tm.due, "timer-due", 200, "records falling due for the delay run")
	fs.DurationVar(&o.tm.spread, "timer-spread", 3*time.Minute, "how long the delay run's records fall due over")
	fs.DurationVar(&o.tm.lead, "timer-lead", 20*time.Second, "how long before its instant each of the delay run's records is written")
	fs.BoolVar(&o.consoleOnly, "console-only", false, "measure the console's pages only")
	fs.BoolVar(&o.lambdasOnly, "lambdas-only", false, "measure the functions' sizes and the functions under the Lambda Runtime API only")
	fs.BoolVar(&o.sustainedOnly, "sustained-only", false, "run the sustained load alone, on a stack of its own started as `make run` starts it (needs no engines from with-engines)")
	fs.IntVar(&o.sustained.clients, "sustained-clients", 8, "closed-loop clients of the sustained load")
	fs.DurationVar(&o.sustained.duration, "sustained-duration", 10*time.Minute, "length of the sustained load's steady part")
	fs.DurationVar(&o.sustained.burst, "sustained-burst", time.Minute, "length of the burst at twice the steady rate, and of the load measured after it")
	fs.IntVar(&o.sustained.description, "sustained-description", 3000, "characters of each created vehicle's description")
	fs.IntVar(&o.sustained.drain, "sustained-drain", 2000, "changes of the backlog drained to a receiver answering in 50 ms")
	fs.IntVar(&o.console.deliveries, "console-deliveries", 100000, "logged deliveries of the console team's webhook")
	fs.IntVar(&o.console.activities, "console-activities", 10000, "activities of the console's team")
	fs.IntVar(&o.console.financial, "console-financial", 10000, "financial records of the console's team")
	fs.IntVar(&o.console.vehicles, "console-vehicles", 50000, "vehicles of the console's workplace team")
	fs.IntVar(&o.console.clients, "console-clients", 10000, "clients of the console's workplace team")
	fs.IntVar(&o.console.deals, "console-deals", 10000, "deals of the console's workplace team")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: go run ./cmd/local with-engines -- go run ./cmd/bench [flags]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, s := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(fs.Output(), "bench: -concurrency: %q is not a positive integer\n", s)
			return o, errors.New("bad -concurrency")
		}
		o.concurrency = append(o.concurrency, n)
	}
	for _, s := range strings.Split(*sizes, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(fs.Output(), "bench: -list-sizes: %q is not a positive integer\n", s)
			return o, errors.New("bad -list-sizes")
		}
		o.listSizes = append(o.listSizes, n)
	}
	if o.seed != "store" && o.seed != "api" {
		fmt.Fprintln(fs.Output(), "bench: -seed must be store or api")
		return o, errors.New("bad -seed")
	}
	if o.tm.activities < 1 || o.tm.due < 1 || o.tm.spread <= 0 || o.tm.lead <= 0 {
		fmt.Fprintln(fs.Output(), "bench: -timer-activities, -timer-due, -timer-spread and -timer-lead must be positive")
		return o, errors.New("bad timer flags")
	}
	if o.vehicles < 1 || o.pool < 1 || o.duration <= 0 || o.listDuration <= 0 || o.warmup < 0 {
		fmt.Fprintln(fs.Output(), "bench: -vehicles, -deals, -duration and -list-duration must be positive, -warmup not negative")
		return o, errors.New("bad flags")
	}
	return o, nil
}

func run(ctx context.Context, o options) error {
	if o.sustainedOnly {
		rep, err := runSustained(ctx, o.sustained)
		if rep != nil {
			printSustained(os.Stdout, rep)
		}
		return err
	}
	if o.timerOnly {
		return runTimer(ctx, o.tm)
	}
	if o.webhooksOnly {
		rep, err := runWebhookBench(ctx, o.wh)
		if err != nil {
			return err
		}
		printWebhookReport(os.Stdout, rep)
		return nil
	}
	started := time.Now()
	env, err := setup(ctx)
	if err != nil {
		return err
	}
	defer env.close()
	if o.consoleOnly {
		rep, err := env.measureConsole(ctx, o)
		if err != nil {
			return err
		}
		printConsole(os.Stdout, rep)
		return nil
	}
	if o.lambdasOnly {
		return env.runLambdasOnly(ctx, o)
	}
	if o.listsOnly {
		lists, err := env.measureLists(ctx, o)
		if err != nil {
			return err
		}
		printLists(os.Stdout, lists, o)
		return nil
	}

	if err := env.seed(ctx, o); err != nil {
		return err
	}
	eps := env.endpoints()
	samples, err := env.sample(ctx, eps)
	if err != nil {
		return err
	}

	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	rows := env.measureAll(ctx, o, eps)
	var lists *listReport
	var writes *writeReport
	if ctx.Err() == nil {
		lists, err = env.measureLists(ctx, o)
	}
	if err == nil && ctx.Err() == nil {
		writes, err = env.measureWrites(ctx, o)
	}
	if o.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}

	var sizes []binarySize
	var sizeErr error
	if !o.skipSizes {
		progress("building the functions (linux/arm64, as deployed) for their sizes")
		sizes, sizeErr = buildSizes(ctx, env.root)
	}

	var lambdas *lambdaReport
	if !o.skipLambdas {
		l := env.measureLambdas(ctx)
		lambdas = &l
	}

	printReport(os.Stdout, report{
		opts: o, env: env, rows: rows, samples: samples, sizes: sizes, sizeErr: sizeErr, lambdas: lambdas,
		lists: lists, writes: writes,
		elapsed: time.Since(started),
	})
	if o.webhooks {
		rep, err := runWebhookBench(ctx, o.wh)
		if err != nil {
			return err
		}
		printWebhookReport(os.Stdout, rep)
	}
	if o.timer {
		return runTimer(ctx, o.tm)
	}
	return nil
}

// runTimer runs the timer bench and prints its report.
func runTimer(ctx context.Context, o timerOptions) error {
	rep, err := runTimerBench(ctx, o)
	if err != nil {
		return err
	}
	printTimerReport(os.Stdout, rep)
	return nil
}

// progress reports what the bench is doing, on stderr so that stdout is the report alone.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
