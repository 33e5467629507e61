// Command bench measures what the API costs on top of the database: for each benchmarked
// endpoint, the latency and throughput of real HTTP requests to the API handler, and the latency and
// throughput of the very DynamoDB calls that request makes, issued directly with the AWS SDK. Their
// ratio is the price of everything that is ours: HTTP, routing, authentication logic, JSON, the
// domain rules, the store's encoding and the SDK work that guregu/dynamo adds. It also prints the
// size of every Lambda function binary, built as deployed. It is `make bench`:
//
//	go run ./cmd/local with-engines -- bin/bench [flags]
//
// It needs DynamoDB Local (AWS_ENDPOINT_URL_DYNAMODB, which with-engines sets) and refuses to run
// without it, so it never creates tables on AWS.
//
// What one run does, in one process:
//
//  1. Creates every table of template.yaml under a fresh prefix, sets the functions' environment
//     (VEHICLES_TABLE and the like), creates two Autoshopping teams with a key each, and serves
//     app.API (every resource, logs discarded) with net/http on 127.0.0.1:0.
//  2. Seeds 10,000 vehicles in the first team (valid unique old-format plates, varied prices, model
//     years, mileage) and 1,000 clients with valid CPFs when /api/v1/clients is served, and, in the
//     second team, pools of open deals on fresh vehicles so that every measured win sells a vehicle
//     nobody sold before.
//  3. For each endpoint and each concurrency (1 and 16), runs the HTTP requests for a fixed time
//     after a warm-up (stretched up to three times when that measured fewer than 20 calls), with a
//     keep-alive client (one reused connection per worker), then does the same with the raw
//     DynamoDB calls: same workers, same warm-up, same duration, same counting. Latency
//     percentiles are nearest-rank over every successful call of the measured window; throughput
//     is those calls over the window. Failed calls are counted apart and reported.
//  4. Prints the table, the DynamoDB calls of one sample request per endpoint as the API makes them
//     and as the raw side makes them (they should match call for call), the functions' sizes and
//     the budgets: request/raw ratio at p50 ≤ 1.5 at concurrency 1 per endpoint, and each binary ≤
//     12 MB (12,000,000 bytes).
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
	cpuProfile  string
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
	fs.IntVar(&o.pool, "deals", 0, "open deals pre-created per side for the win runs (0: sized from the measured create rate)")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "measured time of each run")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured time before each run")
	conc := fs.String("concurrency", "1,16", "comma-separated worker counts")
	fs.StringVar(&o.seed, "seed", "store", "how vehicles, deals and the deals' client are seeded: store (the domain use cases on the DynamoDB store, no HTTP) or api")
	fs.BoolVar(&o.trace, "trace", false, "also print the request body of every DynamoDB call of the sample requests")
	fs.BoolVar(&o.skipSizes, "skip-sizes", false, "do not build the functions for their sizes")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured runs to this file")
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
	if o.seed != "store" && o.seed != "api" {
		fmt.Fprintln(fs.Output(), "bench: -seed must be store or api")
		return o, errors.New("bad -seed")
	}
	if o.vehicles < 1 || o.duration <= 0 || o.warmup < 0 {
		fmt.Fprintln(fs.Output(), "bench: -vehicles and -duration must be positive, -warmup not negative")
		return o, errors.New("bad flags")
	}
	return o, nil
}

func run(ctx context.Context, o options) error {
	started := time.Now()
	env, err := setup(ctx)
	if err != nil {
		return err
	}
	defer env.close()

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
	if o.cpuProfile != "" {
		pprof.StopCPUProfile()
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

	printReport(os.Stdout, report{
		opts: o, env: env, rows: rows, samples: samples, sizes: sizes, sizeErr: sizeErr,
		elapsed: time.Since(started),
	})
	return nil
}

// progress reports what the bench is doing, on stderr so that stdout is the report alone.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
