// Command chaos runs the local stack through AWS's everyday failures and checks afterwards that
// nothing its promises cover was lost: Jepsen's way, a history of every request and answer checked
// against the store once the stack has drained.
//
// Usage:
//
//	go run ./cmd/chaos [-fault-for 25s] [-quiet-for 40s] [-phases dynamodb-throttle,sqs-refuse] [-dir .data/chaos]
//
// It starts a whole stack in memory (engines, API, dispatcher, indexer, deliverer, sweeper; the API
// and the workers in a child process that the sigkill phase kills and starts again) with a fault
// injector (package dev/faults) in front of its engines, a team, and two webhooks of every event to
// receivers of its own. Eight clients register vehicles and clients, open deals, edit
// them and win some, retrying as the README tells integrators (a 429, a 5xx or a lost connection
// sent again after Retry-After, a POST with its Idempotency-Key), through a baseline, then each
// fault for -fault-for followed by -quiet-for without faults. Every attempt and its answer goes to
// <dir>/history.jsonl. Then it waits for the deliveries to stop and checks: every 2xx is in the
// store as answered, every Idempotency-Key made at most one record, every committed change reached
// both webhooks with one event id per type, no event names a change that did not commit, the
// team's request counter equals the requests let through, every record has one audit entry per
// change, and `maintenance index --check` finds nothing to mend. It prints a table per phase (also <dir>/ledger.json) and exits 1 when a budget
// is broken. This is `make chaos`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/patio-dev/patio/dev/faults"
	"github.com/patio-dev/patio/dev/samtemplate"
	"github.com/patio-dev/patio/shared/dynamostore"
)

// phase is one fault of the run: its name and the injector's spec while it lasts.
type phase struct{ name, spec string }

// phases are the faults of a run, in order; the baseline has none.
var phases = []phase{
	{"baseline", ""},
	{"dynamodb-throttle", "dynamodb:throttle=25%,throttling=5%"},
	{"dynamodb-500", "dynamodb:error500=10%"},
	{"dynamodb-timeout-after", "dynamodb:timeout-after=3%"},
	{"streams-throttle", "streams:throttle=30%,error500=10%"},
	{"sqs-refuse", "sqs/SendMessage:throttle=100%;sqs/SendMessageBatch:throttle=100%"},
	{"sqs-duplicate", "sqs:lose-delete=50%"},
	{sesPhase, "ses:error500=100%"},
	{"sigkill", killSpec},
}

// sesPhase is the phase whose fault is SES refusing every send: a webhook failing from its start
// on has its warning email refused, and must get it, and its alert, once SES is back.
const sesPhase = "ses-fail"

// killSpec marks the phase whose fault is a SIGKILL of the stack's process and its restart on the
// same data, rather than an injector's spec.
const killSpec = "kill"

// phaseWindow is when a phase ran: its fault from start to faultEnd, quiet until end.
type phaseWindow struct {
	name                 string
	start, faultEnd, end time.Time
}

// options configure a run.
type options struct {
	clients      int
	rate         float64 // requests a second, all clients together
	faultFor     time.Duration
	quietFor     time.Duration
	drain        time.Duration
	phases       []phase
	dir          string
	steadyWithin float64
}

func main() {
	if os.Getenv(serveVar) != "" {
		os.Exit(serveChild())
	}
	o := options{}
	fs := flag.NewFlagSet("chaos", flag.ExitOnError)
	fs.IntVar(&o.clients, "clients", 8, "clients sending requests at once")
	fs.Float64Var(&o.rate, "rate", 12, "requests a second of all clients together (under the plan's 1,000 a minute)")
	fs.DurationVar(&o.faultFor, "fault-for", 25*time.Second, "how long each fault lasts (the baseline lasts as long)")
	fs.DurationVar(&o.quietFor, "quiet-for", 40*time.Second, "the quiet time after each fault")
	fs.DurationVar(&o.drain, "drain", 3*time.Minute, "at most this long waiting for the deliveries after the last phase")
	only := fs.String("phases", "", "comma-separated phases to run after the baseline (default all: "+phaseNames()+")")
	fs.StringVar(&o.dir, "dir", ".data/chaos", "where the history, the ledger and the logs go")
	fs.Float64Var(&o.steadyWithin, "steady-within", 30, "budget: seconds after a fault ends to steady throughput")
	_ = fs.Parse(os.Args[1:])
	o.phases = phases
	if *only != "" {
		o.phases = phases[:1]
		for _, name := range strings.Split(*only, ",") {
			i := slices.IndexFunc(phases, func(p phase) bool { return p.name == name })
			if i < 0 {
				fmt.Fprintf(os.Stderr, "chaos: unknown phase %q (one of %s)\n", name, phaseNames())
				os.Exit(2)
			}
			o.phases = append(o.phases, phases[i])
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
	if b := l.broken(o.steadyWithin); len(b) > 0 {
		fmt.Fprintf(os.Stderr, "chaos: budgets broken:\n  %s\n", strings.Join(b, "\n  "))
		os.Exit(1)
	}
}

func phaseNames() string {
	var names []string
	for _, p := range phases[1:] {
		names = append(names, p.name)
	}
	return strings.Join(names, ",")
}

// run starts the stack, runs the phases, drains and checks; it prints the ledger and returns it.
func run(ctx context.Context, o options) (_ *ledger, err error) {
	began := time.Now()
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	tpl, err := samtemplate.Find(wd)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return nil, err
	}
	st, err := startStack(ctx, filepath.Dir(tpl), o.dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if stopErr := st.stop(); err == nil && stopErr != nil {
			fmt.Fprintln(os.Stderr, "chaos: stopping the stack:", stopErr)
		}
	}()
	f, err := os.Create(filepath.Join(o.dir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hist := newHistory(f)
	a := &api{base: st.apiURL, key: st.key, hist: hist, http: &http.Client{Timeout: 30 * time.Second}}
	total := time.Duration(len(o.phases)) * (o.faultFor + o.quietFor)
	a.giveUp = time.Now().Add(total + 2*time.Minute)
	fmt.Fprintf(os.Stderr, "chaos: %d phases of %s fault + %s quiet, %d clients at %.0f requests/s; history in %s\n",
		len(o.phases), o.faultFor, o.quietFor, o.clients, o.rate, f.Name())
	windows := runPhases(ctx, o, st, a)
	fmt.Fprintln(os.Stderr, "chaos: phases done; waiting for every change to reach both webhooks")
	drainFrom := time.Now()
	if err := drain(ctx, st, a, drainFrom.Add(o.drain)); err != nil {
		return nil, err
	}
	drained := time.Since(drainFrom)
	// The failing webhook's 6th failure, which disables it and sends its alert, comes about
	// 2 minutes after its first event.
	emails, err := st.emailsAboutFailing(ctx, time.Now().Add(3*time.Minute))
	if err != nil {
		return nil, err
	}
	st.waitQuiet(ctx, 10*time.Second, time.Now().Add(30*time.Second)) // repeated deliveries still on their way
	l, err := ledgerOf(ctx, st, a, windows)
	if err != nil {
		return nil, err
	}
	l.Drained = drained.Seconds()
	if st.failingHook != "" {
		l.Emails = &emailCheck{Refused: st.sesRefused, Sent: emails}
	}
	l.Duration = time.Since(began).Round(time.Second).String()
	l.print(os.Stdout)
	data, _ := json.MarshalIndent(l, "", "  ")
	return l, os.WriteFile(filepath.Join(o.dir, "ledger.json"), data, 0o644)
}

// runPhases runs the clients through every phase and returns when each phase ran.
func runPhases(ctx context.Context, o options, st *stack, a *api) []phaseWindow {
	clientsCtx, stopClients := context.WithCancel(ctx)
	var wg sync.WaitGroup
	run := tag()
	for n := range o.clients {
		w := &worker{n: n, api: a, run: run, rnd: rand.New(rand.NewPCG(uint64(n), uint64(time.Now().UnixNano())))}
		wg.Go(func() { w.loop(clientsCtx, time.Duration(float64(o.clients)/o.rate*float64(time.Second))) })
	}
	var windows []phaseWindow
	for _, p := range o.phases {
		w := phaseWindow{name: p.name, start: time.Now()}
		a.hist.setPhase(p.name, p.spec != "")
		if p.spec == killSpec {
			kill(ctx, o, st)
		} else {
			if p.name == sesPhase {
				if err := st.addFailingWebhook(ctx); err != nil {
					fmt.Fprintln(os.Stderr, "chaos:", err)
				}
			}
			spec, _ := faults.Parse(p.spec)
			st.inj.Set(spec)
			fmt.Fprintf(os.Stderr, "chaos: %s %s: faults %s\n", time.Now().Format(time.TimeOnly), p.name, spec)
			before := st.inj.Injected()
			sleep(ctx, o.faultFor)
			st.inj.Set(nil)
			after := st.inj.Injected()
			printInjected(before, after)
			for _, k := range faults.Keys(after) {
				if strings.HasPrefix(k, "ses/") {
					st.sesRefused += after[k] - before[k]
				}
			}
		}
		a.hist.setPhase(p.name, false)
		w.faultEnd = time.Now()
		if p.name != "baseline" {
			sleep(ctx, o.quietFor)
		}
		w.end = time.Now()
		windows = append(windows, w)
		if ctx.Err() != nil {
			break
		}
	}
	a.hist.setPhase("drain", false)
	stopClients()
	wg.Wait()
	return windows
}

// drain waits until every committed change reached both webhooks and the indexer has caught up
// with every record (`maintenance index --check` finds nothing), or until deadline. A check that
// fails (the engine too slow for a scan on a loaded machine) is tried again.
func drain(ctx context.Context, st *stack, a *api, deadline time.Time) error {
	for {
		missing, mend, err := behind(ctx, st, a)
		if err == nil && missing == 0 && mend == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "chaos: %s draining: a check failed, trying again: %v\n", time.Now().Format(time.TimeOnly), err)
		} else {
			fmt.Fprintf(os.Stderr, "chaos: %s draining: %d changes not yet at a webhook, %d index items behind\n", time.Now().Format(time.TimeOnly), missing, mend)
		}
		sleep(ctx, 5*time.Second)
	}
}

// behind returns the changes not yet delivered to a webhook and the index items not yet mended.
func behind(ctx context.Context, st *stack, a *api) (missing, mend int, err error) {
	recs, err := a.readRecords(ctx)
	if err != nil {
		return 0, 0, err
	}
	var got [][]delivery
	for _, r := range st.receivers {
		got = append(got, r.deliveries())
	}
	for _, r := range check(nil, recs, got, nil).Rows {
		missing += r.MissingEvents
	}
	mend, err = indexToMend(ctx, st.store)
	return missing, mend, err
}

// ledgerOf checks the history against the drained stack.
func ledgerOf(ctx context.Context, st *stack, a *api, windows []phaseWindow) (*ledger, error) {
	recs, err := a.readRecords(ctx)
	if err != nil {
		return nil, err
	}
	var got [][]delivery
	for _, r := range st.receivers {
		got = append(got, r.deliveries())
	}
	hist := a.hist.all()
	l := check(hist, recs, got, windows)
	recovery(l, hist, windows)
	if err := l.auditDrift(ctx, st.store, st.teamID, recs); err != nil {
		return nil, err
	}
	if err := l.countDrift(ctx, st.store, st.teamID, hist); err != nil {
		return nil, err
	}
	for try := 1; ; try++ { // a scan may time out on a loaded machine
		if l.IndexMend, err = indexToMend(ctx, st.store); err == nil || try == 3 {
			break
		}
	}
	return l, err
}

// kill SIGKILLs the stack's process a few times during the fault's time, each time starting it
// again at once on the same data.
func kill(ctx context.Context, o options, st *stack) {
	end := time.Now().Add(o.faultFor)
	for time.Now().Before(end) && ctx.Err() == nil {
		sleep(ctx, min(10*time.Second, o.faultFor/3))
		began := time.Now()
		if err := st.kill(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
			return
		}
		fmt.Fprintf(os.Stderr, "chaos: %s sigkill: the stack killed and serving again after %.1f s\n", time.Now().Format(time.TimeOnly), time.Since(began).Seconds())
	}
}

// printInjected prints the faults injected between two counts of the injector.
func printInjected(before, after map[string]int) {
	for _, k := range faults.Keys(after) {
		if n := after[k] - before[k]; n > 0 {
			fmt.Fprintf(os.Stderr, "chaos:   injected %-45s %d\n", k, n)
		}
	}
}

// indexToMend is what `maintenance index --check` finds to mend: items missing and stale, counts
// that differ, rows with old words.
func indexToMend(ctx context.Context, store *dynamostore.Store) (int, error) {
	reports, err := dynamostore.IndexerOf(store).RebuildIndex(ctx, true)
	n := 0
	for _, r := range reports {
		n += r.Missing + r.Stale + r.Counts + r.Words
	}
	return n, err
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
