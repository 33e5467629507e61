// Command bench measures what Patio costs on top of its engines, and prints each figure beside
// its budget (PASS or FAIL; it exits non-zero only when it could not measure). It is `make bench`,
// each part on engines of its own (bin/local with-engines -- bin/bench [flags]); it refuses to run
// without DynamoDB Local and moto, so it never creates tables on AWS. Time budgets are judged on a
// production model (model.go, docs/costs.md: each request's recorded calls at AWS's published
// latencies, its units at AWS's prices), DynamoDB Local's ratio over the same recorded runs printed
// beside. The parts: the API beside its raw side with the bare SDK, its model and its cost all in
// (endpoints.go, raw.go, modelreport.go; -model-only alone, without the lists and functions); the
// functions' sizes and
// runs under the Lambda Runtime API (lambdas.go; -lambdas-only); lists at any size (lists.go;
// -lists-only); the webhook pipeline and its modeled trip (webhooks.go, whmodel.go;
// -webhooks-only); the timer (timer.go; -timer-only); the console's pages (console.go;
// -console-only); a sustained load on the stack as `make run` wires it (sustained.go;
// -sustained-only).
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
	vehicles, clients, pool int
	listSizes               []int
	listClients, listDeals  int
	listsOnly               bool
	webhooks, webhooksOnly  bool
	wh                      webhookOptions
	timer, timerOnly        bool
	tm                      timerOptions
	consoleOnly             bool
	console                 consoleOptions
	lambdasOnly, modelOnly  bool
	sustainedOnly           bool
	sustained               sustainedOptions
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) > 1 && os.Args[1] == "photos" { // photos.go: bin/local with-engines -- bin/bench photos
		os.Exit(photosBench(ctx))
	}
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

// parseFlags parses the command's flags.
func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var o options
	fs.IntVar(&o.vehicles, "vehicles", 10000, "vehicles seeded in the measured team")
	fs.IntVar(&o.clients, "clients", 1000, "clients seeded in the measured team")
	fs.IntVar(&o.pool, "deals", 2*(sampleRuns+1), "open deals prepared per side for the won deals' samples")
	sizes := fs.String("list-sizes", "1000,10000,50000", "comma-separated vehicle counts of the teams the lists are measured on (\"\" for none)")
	fs.IntVar(&o.listClients, "list-clients", 50000, "clients of the team the clients' filters are measured on (0 for none)")
	fs.IntVar(&o.listDeals, "list-deals", 10000, "deals of the team the deals' filters are measured on (0 for none)")
	fs.BoolVar(&o.listsOnly, "lists-only", false, "measure the lists at any size only")
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
	fs.BoolVar(&o.modelOnly, "model-only", false, "seed, sample each endpoint and print the production model and the cost all in only (quick: -vehicles=200 -clients=20 -deals=20)")
	fs.BoolVar(&o.lambdasOnly, "lambdas-only", false, "measure the functions' sizes and the functions under the Lambda Runtime API only")
	fs.BoolVar(&o.sustainedOnly, "sustained-only", false, "run the sustained load alone, on a stack of its own started as `make run` starts it (needs no engines from with-engines)")
	fs.IntVar(&o.sustained.clients, "sustained-clients", 8, "closed-loop clients of the sustained load")
	fs.DurationVar(&o.sustained.duration, "sustained-duration", 10*time.Minute, "length of the sustained load's steady part")
	fs.DurationVar(&o.sustained.burst, "sustained-burst", time.Minute, "length of the burst at twice the steady rate, and of the load measured after it")
	fs.IntVar(&o.sustained.description, "sustained-description", 3000, "characters of each created vehicle's description")
	fs.IntVar(&o.sustained.drain, "sustained-drain", 2000, "changes of the backlog drained to a receiver answering in 50 ms")
	fs.StringVar(&o.sustained.faults, "faults", "", "inject AWS's failures between the sustained load's stack and its engines, as `make run`'s -faults does (a `spec` such as 'dynamodb:throttle=10%'; see package dev/faults)")
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
	if o.listSizes, err = positives(fs, "list-sizes", *sizes); err != nil {
		return o, err
	}
	if o.tm.activities < 1 || o.tm.due < 1 || o.tm.spread <= 0 || o.tm.lead <= 0 {
		fmt.Fprintln(fs.Output(), "bench: -timer-activities, -timer-due, -timer-spread and -timer-lead must be positive")
		return o, errors.New("bad timer flags")
	}
	if o.vehicles < 1 || o.pool <= sampleRuns {
		fmt.Fprintf(fs.Output(), "bench: -vehicles must be positive, -deals above %d\n", sampleRuns)
		return o, errors.New("bad flags")
	}
	return o, nil
}

// positives parses the comma-separated positive integers of flag name ("" for none).
func positives(fs *flag.FlagSet, name, list string) ([]int, error) {
	var out []int
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
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

// failure carries a part's error out of check's panic to catch.
type failure struct{ err error }

// check ends the part being measured with err unless it is nil (see catch).
func check(err error) {
	if err != nil {
		panic(failure{err})
	}
}

// must returns v, or ends the part being measured with err (see check).
func must[T any](v T, err error) T {
	check(err)
	return v
}

// catch, deferred, turns the failure a check raised into *err.
func catch(err *error) {
	if r := recover(); r != nil {
		f, ok := r.(failure)
		if !ok {
			panic(r)
		}
		*err = f.err
	}
}

// part runs measure, which checks its errors, and prints its report with print.
func part[R any](measure func() R, print func(io.Writer, R)) (err error) {
	defer catch(&err)
	print(os.Stdout, measure())
	return nil
}

// run runs the parts the flags ask for.
func run(ctx context.Context, o options) (err error) {
	defer catch(&err)
	switch {
	case o.sustainedOnly:
		rep, err := runSustained(ctx, o.sustained)
		if rep != nil && len(rep.minutes) > 0 {
			printSustained(os.Stdout, rep)
		}
		return err
	case o.timerOnly:
		return part(func() *timerReport { return runTimerBench(ctx, o.tm) }, printTimerReport)
	case o.webhooksOnly:
		return part(func() *whReport { return runWebhookBench(ctx, o.wh) }, printWebhookReport)
	}
	started := time.Now()
	env := setup(ctx)
	defer env.close()
	switch {
	case o.consoleOnly:
		return part(func() *consoleReport { return env.measureConsole(ctx, o) }, printConsole)
	case o.modelOnly:
		env.seed(ctx, o)
		r := report{opts: o, env: env, samples: env.sample(ctx, env.endpoints())}
		printAPI(os.Stdout, r, " -model-only")
		printBudgets(os.Stdout, printModel(os.Stdout, r))
		return nil
	case o.lambdasOnly:
		env.runLambdasOnly(ctx, o)
		return nil
	case o.listsOnly:
		return part(func() *listReport { return env.measureLists(ctx, o) }, printLists)
	}
	env.seed(ctx, o)
	r := report{opts: o, env: env, samples: env.sample(ctx, env.endpoints())}
	r.lists = env.measureLists(ctx, o)
	check(ctx.Err())
	r.fn = env.measureFunctions(ctx)
	r.elapsed = time.Since(started)
	printReport(os.Stdout, r)
	if o.webhooks {
		check(part(func() *whReport { return runWebhookBench(ctx, o.wh) }, printWebhookReport))
	}
	if o.timer {
		return part(func() *timerReport { return runTimerBench(ctx, o.tm) }, printTimerReport)
	}
	return nil
}

// progress reports what the bench is doing, on stderr so that stdout is the report alone.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
