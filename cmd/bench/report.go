package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// report is what the API part and those run with it measured.
type report struct {
	opts    options
	env     *benchEnv
	rows    []row
	samples []sample
	fn      functionsReport
	lists   *listReport
	elapsed time.Duration
}

// ms formats a latency; "-" when nothing was measured.
func ms(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// secs formats a delay of seconds to the tenth.
func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// times formats the ratio of two latencies; "-" when either is missing.
func times(a, b time.Duration) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", ratio(a, b))
}

// perSecond formats a rate.
func perSecond(x float64) string {
	if x < 10 {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.0f", x)
}

// ratio is a/b, 0 when b is not positive.
func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// kb formats a size in bytes.
func kb(n int) string {
	if n < 10_000 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.0f kB", float64(n)/1000)
}

// verdict is a budget's PASS or FAIL.
func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// table returns a right-aligned tabwriter on w with header as its first line.
func table(w io.Writer, header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header)
	return tw
}

// indent indents each line of s by two spaces.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "  " + strings.Join(lines, "\n  ") + "\n"
}

// printReport prints the API part and those run with it.
func printReport(w io.Writer, r report) {
	o, env := r.opts, r.env
	printHeader(w, "")
	fmt.Fprintf(w, "data: one team with %d vehicles and %d clients with valid CPFs or CNPJs; another with %d clients and 3 × %d open deals to win\n",
		len(env.vehicleIDs), o.clients, dealClients, o.pool)
	fmt.Fprintf(w, "      seeded in batches by storeseed.Seed (each record built by the domain's constructors, written as the store writes it, without a transaction per record)\n")
	if env.rateNote != "" {
		fmt.Fprintf(w, "rate limits: %s\n", env.rateNote)
	}
	fmt.Fprintf(w, "runs: each side of each line: %s measured in %d rounds taking turns with the line's other sides, the first after %s of warm-up,\n",
		o.duration, rounds, o.warmup)
	fmt.Fprintf(w, "      the others after %s; p50/p99 nearest-rank over every successful call of the rounds\n", roundWarmup(o.warmup, 1))
	fmt.Fprintf(w, "      request: HTTP/1.1 keep-alive client → net/http on 127.0.0.1 → app.API (logs discarded) → DynamoDB Local\n")
	fmt.Fprintf(w, "      raw:     the same DynamoDB calls with the bare AWS SDK client, same configuration and retryer, but for\n")
	fmt.Fprintf(w, "               lists and writes, whose raw side is their floor (see the sample calls below)\n\n")

	tw := table(w, "endpoint\tc\tn\treq p50\treq p99\traw n\traw p50\traw p99\t×p50\tnew TCP\t")
	var notes []string
	for _, rw := range r.rows {
		req, raw := rw.sides[0], rw.sides[1]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%d/%d/%d\t\n", rw.endpoint, rw.conc, req.n, ms(req.p50), ms(req.p99),
			raw.n, ms(raw.p50), ms(raw.p99), times(req.p50, raw.p50), rw.httpDials[0], rw.sdkDials[0], rw.sdkDials[1])
		for i, side := range rw.sides {
			notes = append(notes, side.notes(fmt.Sprintf("%s c=%d %s", rw.endpoint, rw.conc, sideNames[i]))...)
		}
		if rw.httpDials[0] > int64(rw.conc) {
			notes = append(notes, fmt.Sprintf("%s c=%d: the load client opened %d connections for %d workers: keep-alive was not reused",
				rw.endpoint, rw.conc, rw.httpDials[0], rw.conc))
		}
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nmeasured on DynamoDB Local; the budgets are judged on the production model below")
	fmt.Fprintln(w, "new TCP: connections opened by the load client / by the SDK during the request run / by the SDK during the raw run")
	for _, n := range notes {
		fmt.Fprintln(w, "note:", n)
	}

	fmt.Fprintln(w, "\nDynamoDB calls of one sample request per endpoint (operation, bytes sent → received):")
	for _, sm := range r.samples {
		verdict := "same calls"
		if sm.floor {
			verdict = "raw is the page's floor (listFloor: one Query of limit items), not the request's calls"
		} else if sm.rawIs != "" {
			verdict = sm.rawIs
		} else if !slices.Equal(ops(sm.sides[0].calls), ops(sm.sides[1].calls)) {
			verdict = "CALLS DIFFER: the raw side is not faithful"
		}
		fmt.Fprintf(w, "  %s: %s\n", sm.endpoint, verdict)
		printCalls(w, sm)
	}
	budgets := printModel(w, r)
	budgets = append(budgets, printFunctions(w, r.fn)...)
	printBudgets(w, nil)
	for _, rw := range r.rows {
		if req, raw := rw.sides[0], rw.sides[1]; rw.conc == 1 && (req.n == 0 || raw.n == 0) {
			fmt.Fprintf(w, "  FAIL  %s: nothing measured at concurrency 1 (see the notes)\n", rw.endpoint)
		}
	}
	if !slices.Contains(o.concurrency, 1) {
		fmt.Fprintln(w, "  SKIP  DynamoDB Local's ratios: concurrency 1 was not run")
	}
	fmt.Fprint(w, strings.Join(budgets, ""))
	printLists(w, r.lists, o)
	fmt.Fprintf(w, "\nbench took %s\n", r.elapsed.Round(time.Second))
}

// printHeader prints the report's first line: the bench (with what) and the machine.
func printHeader(w io.Writer, what string) {
	fmt.Fprintf(w, "\nPatio bench%s: %s, %s %s/%s, %d CPUs (GOMAXPROCS %d), DynamoDB Local in memory\n", what,
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))
}

// printBudgets prints the budgets' heading and lines.
func printBudgets(w io.Writer, lines []string) {
	fmt.Fprintln(w, "\nbudgets (printed, not enforced: the bench exits 0 either way):")
	fmt.Fprint(w, strings.Join(lines, ""))
}

// printCalls prints each side of a sample: its calls' operations, items, bytes and items examined.
func printCalls(w io.Writer, sm sample) {
	for _, side := range sm.sides {
		fmt.Fprintf(w, "    %-8s", side.name)
		for _, c := range side.calls {
			fmt.Fprintf(w, " %s", c.op)
			if c.items > 0 {
				fmt.Fprintf(w, " (%d items)", c.items)
			}
			fmt.Fprintf(w, " %s→%s, %g units", kb(c.sent), kb(c.received), c.units)
			if c.scanned >= 0 {
				fmt.Fprintf(w, " (%d examined)", c.scanned)
			}
			fmt.Fprint(w, ";")
		}
		if side.err != nil {
			fmt.Fprintf(w, " error: %v", side.err)
		}
		fmt.Fprintln(w)
	}
}

// ops are the operations of calls, sorted: calls made at the same time (a read and its count, the
// two rate windows) finish in any order.
func ops(calls []sdkCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.op
		if c.items > 0 {
			out[i] += fmt.Sprintf(" of %d items", c.items)
		}
	}
	slices.Sort(out)
	return out
}
