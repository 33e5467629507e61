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

// printReport prints the API part and those run with it.
func printReport(w io.Writer, r report) {
	printAPI(w, r, "")
	budgets := printModel(w, r)
	budgets = append(budgets, printFunctions(w, r.fn)...)
	printBudgets(w, budgets)
	printLists(w, r.lists)
	fmt.Fprintf(w, "\nbench took %s\n", r.elapsed.Round(time.Second))
}

// printAPI prints the API part's heading, data and sample calls.
func printAPI(w io.Writer, r report, what string) {
	o, env := r.opts, r.env
	printHeader(w, what)
	fmt.Fprintf(w, "data: one team with %d vehicles and %d clients with valid CPFs or CNPJs; another with %d clients and 2 × %d open deals to win,\n",
		len(env.vehicleIDs), o.clients, dealClients, o.pool)
	fmt.Fprintf(w, "      seeded in batches by storeseed.Seed (each record built by the domain's constructors, written as the store writes it)\n")
	if env.rateNote != "" {
		fmt.Fprintf(w, "rate limits: %s\n", env.rateNote)
	}
	fmt.Fprintf(w, "samples: each side of each line recorded %d times, the sides taking turns, at one client; request: HTTP/1.1 keep-alive\n", sampleRuns)
	fmt.Fprintf(w, "      → net/http on 127.0.0.1 → app.API (logs discarded) → DynamoDB Local; raw: the same DynamoDB calls with the bare\n")
	fmt.Fprintf(w, "      AWS SDK client, same configuration and retryer, but for writes, whose raw side is their floor\n")
	fmt.Fprintln(w, "\nDynamoDB calls of the median sample per endpoint (operation, bytes sent → received, units):")
	for _, sm := range r.samples {
		verdict := "same calls"
		if sm.rawIs != "" {
			verdict = sm.rawIs
		} else if !slices.Equal(ops(sm.sides[0].calls), ops(sm.sides[1].calls)) {
			verdict = "CALLS DIFFER: the raw side is not faithful"
		}
		fmt.Fprintf(w, "  %s: %s\n", sm.endpoint, verdict)
		printCalls(w, sm)
	}
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
