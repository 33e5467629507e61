// Command bench measures what Patio costs on top of its engines, and prints each figure beside
// its budget (PASS or FAIL; the command exits 0 either way: it is a measurement, not a test, and
// exits non-zero only when it could not measure). It is `make bench`, each part on engines of its
// own:
//
//	bin/local with-engines -- bin/bench [flags]
//
// It needs DynamoDB Local and moto (AWS_ENDPOINT_URL_DYNAMODB and _SQS, which with-engines sets)
// and refuses to run without them, so it never creates tables on AWS. Its data is built by the
// domain's constructors and seeded in batches with dynamostore.Seed. The parts:
//
//   - The API (endpoints.go, report.go): for each endpoint and concurrency, real HTTP requests to
//     app.API beside their raw side with the bare SDK — the same DynamoDB calls for a read, the
//     floor for a list (one Query of limit items) and a write (the records any design must write)
//     — in rounds taking turns (load.go); the sample calls of each; budget request/raw ≤ 1.5 at p50, c=1.
//   - The functions (sizes.go, lambdaruntime.go; -lambdas-only): each binary's size as deployed,
//     and each function under the Lambda Runtime API beside a minimal one and a floor function:
//     init, cold start, warm p50/p99, peak memory.
//   - Lists at any size (lists.go; -lists-only): teams of 1,000 to 50,000 vehicles of a
//     dealership's history, of clients and of deals; every list's items examined per page and
//     for its count, its p50 against GET by id and its floor, and the write cost of a vehicle.
//   - The write rate of one team with 16 writers (writes.go): now, as before, at the floor.
//   - The webhook pipeline (webhooks.go, ceiling.go; -webhooks-only), the timer (timer.go;
//     -timer-only), the console's pages (console.go; -console-only) and a sustained load on the
//     stack as `make run` wires it (sustained.go; -sustained-only).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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
	skipSizes   bool
	skipLambdas bool
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
	fs.IntVar(&o.clients, "clients", 1000, "clients seeded in the measured team")
	fs.IntVar(&o.pool, "deals", 1000, "open deals prepared per side for the win runs")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "measured time of each run")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured time before each run")
	conc := fs.String("concurrency", "1,16", "comma-separated worker counts")
	fs.BoolVar(&o.skipSizes, "skip-sizes", false, "do not build the functions for their sizes")
	fs.BoolVar(&o.skipLambdas, "skip-lambdas", false, "do not run the functions under the Lambda Runtime API")
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
		fmt.Fprint(fs.Output(), "usage: bin/local with-engines -- bin/bench [flags]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.concurrency, err = positives(fs, "concurrency", *conc, false); err != nil {
		return o, err
	}
	if o.listSizes, err = positives(fs, "list-sizes", *sizes, true); err != nil {
		return o, err
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

// positives parses the comma-separated positive integers of flag name (none when empty allows).
func positives(fs *flag.FlagSet, name, list string, empty bool) ([]int, error) {
	var out []int
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" && empty {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			fmt.Fprintf(fs.Output(), "bench: -%s: %q is not a positive integer\n", name, s)
			return nil, errors.New("bad -" + name)
		}
		out = append(out, n)
	}
	return out, nil
}

// printed returns what prints a part's report with print when it was measured (err nil).
func printed[R any](rep R, err error) func(print func(io.Writer, R)) error {
	return func(print func(io.Writer, R)) error {
		if err == nil {
			print(os.Stdout, rep)
		}
		return err
	}
}

func run(ctx context.Context, o options) error {
	switch {
	case o.sustainedOnly:
		rep, err := runSustained(ctx, o.sustained)
		if rep != nil {
			printSustained(os.Stdout, rep)
		}
		return err
	case o.timerOnly:
		return printed(runTimerBench(ctx, o.tm))(printTimerReport)
	case o.webhooksOnly:
		return printed(runWebhookBench(ctx, o.wh))(printWebhookReport)
	}
	started := time.Now()
	env, err := setup(ctx)
	if err != nil {
		return err
	}
	defer env.close()
	switch {
	case o.consoleOnly:
		return printed(env.measureConsole(ctx, o))(printConsole)
	case o.lambdasOnly:
		return env.runLambdasOnly(ctx, o)
	case o.listsOnly:
		lists, err := env.measureLists(ctx, o)
		return printed(lists, err)(func(w io.Writer, lr *listReport) { printLists(w, lr, o) })
	}
	if err := env.seed(ctx, o); err != nil {
		return err
	}
	eps := env.endpoints()
	r := report{opts: o, env: env}
	if r.samples, err = env.sample(ctx, eps); err != nil {
		return err
	}
	r.rows = env.measureAll(ctx, o, eps)
	if r.lists, err = env.measureLists(ctx, o); err != nil {
		return err
	}
	if r.writes, err = env.measureWrites(ctx, o); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !o.skipSizes {
		progress("building the functions (linux/arm64, as deployed) for their sizes")
		r.sizes, r.sizeErr = buildSizes(ctx, env.root)
	}
	if !o.skipLambdas {
		l := env.measureLambdas(ctx)
		r.lambdas = &l
	}
	r.elapsed = time.Since(started)
	printReport(os.Stdout, r)
	if o.webhooks {
		if err := printed(runWebhookBench(ctx, o.wh))(printWebhookReport); err != nil {
			return err
		}
	}
	if o.timer {
		return printed(runTimerBench(ctx, o.tm))(printTimerReport)
	}
	return nil
}

// progress reports what the bench is doing, on stderr so that stdout is the report alone.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
