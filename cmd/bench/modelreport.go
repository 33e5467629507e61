package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Budgets on the model (issue 46): a request's modeled p50 on AWS against its floor's, a create's
// write units all in against its floor's, a GET's read units against its floor's.
const (
	maxModelGet    = 1.1 // GET by id × its floor (the same calls, raw)
	maxModelWrite  = 1.3 // a create, an update, a won deal × the write's floor
	maxCreateUnits = 2.0 // a create's write units with the indexer's × the floor's (the record and its plate guard)
	maxGetUnits    = 1.2 // GET by id's read units × its floor's
	// maxEmulatorGap is how far apart DynamoDB Local's ratio and the model's may be unexplained.
	maxEmulatorGap = 2.0
)

// What each delivery of a change to a webhook costs off the request (the dispatcher's and the
// deliverer's work; docs/webhooks.md): deliveryWrites write units on AWS, as the webhook part's
// traced trip records them (its "write units" line: the delivery created pending, its attempt
// recorded, the gate), one SQS message sent, received and deleted, and the deliverer's run: two
// rounds of DynamoDB (the group's load, the record) and the receiver's answer.
const (
	deliveryWrites = 11.0
	receiverTime   = 50 * time.Millisecond
	sqsPerDelivery = 3 // SendMessage, ReceiveMessage, DeleteMessage (at worst one per message)
)

// dispatchBill is the dispatcher's run for one change: one invocation (a dealership's changes come
// one to a batch), the subscribers' read and the deliveries' transaction.
func dispatchBill() bill {
	b := lambdaRun(awsLatency(sdkCall{op: "Query"}) + awsLatency(sdkCall{op: "TransactWriteItems", items: 2}))
	b.reads = 1
	return b
}

// deliveryBill is one delivery of a change to one webhook, off the request.
func deliveryBill() bill {
	b := lambdaRun(receiverTime + awsLatency(sdkCall{op: "Query"}) + awsLatency(sdkCall{op: "TransactWriteItems", items: 2}))
	b.reads, b.writes, b.sqs = 1, deliveryWrites, sqsPerDelivery
	return b
}

// allIn is a request's bill with what follows it off the request: the indexer's batches, and, when
// the request changed a record, the dispatcher and one delivery per webhook.
func allIn(s sampleSide, hooks int) bill {
	b := requestBill(s.m)
	for _, m := range s.off {
		b = b.add(lambdaRun(m.latency()), 1)
		b.reads, b.writes = b.reads+m.reads, b.writes+m.writes
	}
	if s.m.writes > 0 && hooks > 0 && len(s.off) > 0 {
		b = b.add(dispatchBill(), 1).add(deliveryBill(), float64(hooks))
	}
	return b
}

// A dealership of 5,000 vehicles, 20 staff and 3 integrations, for a month: what the README's
// figure assumes. Staff: 22 working days, 300 reads and 20 updates a day each; the stock turns
// over in five months (1,000 creates, 1,000 won deals); each integration reads 3,000 times a day.
const (
	monthCreates      = 1_000
	monthUpdates      = 20 * 22 * 20
	monthWins         = 1_000
	monthReads        = 20*22*300 + 3*30*3_000
	monthIntegrations = 3
)

// printModel prints the production model of the API part's samples: one line per endpoint with
// DynamoDB Local's measured ratio beside the modeled one, then the budgets judged on the model.
func printModel(w io.Writer, r report) (budgets []string) {
	fmt.Fprintln(w, "\nProduction model (cmd/bench/model.go: each sample's calls at the published AWS p50 of their type and items, overlapping")
	fmt.Fprintf(w, "calls as one round at the slowest, plus our own code's time outside the calls; units as AWS bills them; median of %d;\n", sampleRuns)
	fmt.Fprintln(w, "local: DynamoDB Local's measured ratio, the median of the same runs' times)")
	tw := table(w, "endpoint\tlocal ×floor\tAWS ms\tfloor AWS ms\tAWS ×floor\trounds\tfloor rounds\tRRU\tWRU\tfloor RRU\tfloor WRU\t$/M\tfloor $/M\t")
	for _, sm := range r.samples {
		req, raw := sm.sides[0].m, sm.sides[1].m
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%d\t%d\t%g\t%g\t%g\t%g\t%.2f\t%.2f\t\n", sm.endpoint, times(sm.sides[0].local, sm.sides[1].local),
			ms(req.latency()), ms(raw.latency()), ratio(req.latency(), raw.latency()), req.rounds, raw.rounds,
			req.reads, req.writes, raw.reads, raw.writes, requestBill(req).perMillion(), requestBill(raw).perMillion())
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "  RRU/WRU: read/write request units per request; $/M: dollars per million requests (API Gateway, the function at 256 MB")
	fmt.Fprintln(w, "  for its modeled time, DynamoDB units), before what follows off the request (see the cost all in)")
	for _, sm := range r.samples {
		budgets = append(budgets, modelBudget(sm)...)
	}
	return append(budgets, printCostAllIn(w, r)...)
}

// modelBudget judges a sample's modeled ratio, DynamoDB Local's printed beside it and explained
// when the two are more than maxEmulatorGap apart.
func modelBudget(sm sample) []string {
	limit := sm.budget
	req, raw := sm.sides[0], sm.sides[1]
	x := ratio(req.m.latency(), raw.m.latency())
	line := fmt.Sprintf("  %s  %s: modeled on AWS %.2f × its raw side (≤ %.1f; %d rounds, raw %d)", verdict(x <= limit), sm.endpoint, x, limit,
		req.m.rounds, raw.m.rounds)
	if local := ratio(req.local, raw.local); local > 0 {
		line += fmt.Sprintf("; DynamoDB Local %.2f×", local)
		if gap := local / x; gap > maxEmulatorGap || gap < 1/maxEmulatorGap {
			line += ", more than 2× from the model: " + emulatorGap(req.calls, raw.calls)
		}
	}
	return []string{line + "\n"}
}

// emulatorGap explains why DynamoDB Local's ratio strays from the model's for these calls.
func emulatorGap(req, raw []sdkCall) string {
	items := func(calls []sdkCall) (tx, examined int) {
		for _, c := range calls {
			if strings.HasPrefix(c.op, "Transact") {
				tx += c.items
			}
			examined += max(c.scanned, 0)
		}
		return tx, examined
	}
	reqTx, reqEx := items(req)
	rawTx, rawEx := items(raw)
	switch {
	case reqTx != rawTx:
		return fmt.Sprintf("the emulator applies a transaction's items one after another (%d items, raw %d), AWS in parallel", reqTx, rawTx)
	case reqEx != rawEx:
		return fmt.Sprintf("the emulator's per-item read cost (%d items examined, raw %d), which AWS does not have within a page", reqEx, rawEx)
	}
	return "the same calls: the emulator's noise on this loaded machine"
}

// printCostAllIn prints what a create, an update, a won deal and a GET cost with what follows them
// off the request, the README's month, and the budgets on units.
func printCostAllIn(w io.Writer, r report) (budgets []string) {
	kinds := []struct {
		name, endpoint string
		month          float64
	}{
		{"create", "POST /vehicles", monthCreates},
		{"update", "PUT /vehicles/{id} brand and price", monthUpdates},
		{"won deal", "PUT /deals/{id} → ganho", monthWins},
		{"GET by id", "GET /vehicles/{id}", monthReads},
	}
	fmt.Fprintln(w, "\nCost all in, per million requests (us-east-1 on demand): the request, the indexer's batches that follow it, the")
	fmt.Fprintf(w, "dispatcher, and per webhook a delivery (%d units written, %d SQS requests, the deliverer's run with a %s receiver)\n",
		int(deliveryWrites), sqsPerDelivery, receiverTime)
	tw := table(w, "request\tRRU\tWRU\tindexer WRU\trequest $/M\t+ indexer\t+ 1 webhook\t+ 3 webhooks\t")
	var month float64
	for _, k := range kinds {
		s, ok := sampleNamed(r.samples, k.endpoint)
		if !ok {
			continue
		}
		side := s.sides[0]
		idx := 0.0
		for _, m := range side.off {
			idx += m.writes
		}
		one, three := allIn(side, 1), allIn(side, monthIntegrations)
		fmt.Fprintf(tw, "%s\t%g\t%g\t%g\t%.2f\t%.2f\t%.2f\t%.2f\t\n", k.name, side.m.reads, side.m.writes, idx,
			requestBill(side.m).perMillion(), allIn(side, 0).perMillion(), one.perMillion(), three.perMillion())
		month += k.month * three.perMillion() / 1e6
		switch k.name {
		case "create":
			floor, all := s.sides[1].m.writes, side.m.writes+idx
			x := all / max(floor, 1e-9)
			budgets = append(budgets, fmt.Sprintf("  %s  a create's write units all in = %.2f × its floor's (≤ %.1f): %g with the indexer's, floor %g (record and plate guard)\n",
				verdict(x <= maxCreateUnits), x, maxCreateUnits, all, floor), teamWriteRate(r, s, idx))
		case "GET by id":
			x := side.m.reads / max(s.sides[1].m.reads, 1e-9)
			budgets = append(budgets, fmt.Sprintf("  %s  a GET by id's read units = %.2f × its floor's (≤ %.1f)\n", verdict(x <= maxGetUnits), x, maxGetUnits))
		}
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "A month of a dealership of 5,000 vehicles, 20 staff, %d integrations (%d creates, %d updates, %d won deals, %d reads,\n",
		monthIntegrations, monthCreates, monthUpdates, monthWins, monthReads)
	fmt.Fprintf(w, "every change delivered to each integration): $%.2f a month on AWS, storage and free tiers aside\n", month)
	return append(budgets, fmt.Sprintf("  info  the README's monthly figure: $%.2f for the dealership above\n", month))
}

// partitionWrites is the most write units a second DynamoDB serves on one partition key: a team's
// records all share theirs (the team's id), so it bounds one team's write rate.
const (
	partitionWrites  = 1000.0
	minTeamWriteRate = 0.6 // one team's creates/s × the floor's
)

// teamWriteRate is the budget of one team's creates a second on AWS, modeled: the partition's
// write units over those a create writes to its table (the request's, but for the rate counters of
// the accounts table, and the indexer's), beside the floor's.
func teamWriteRate(r report, create sample, indexer float64) string {
	units := func(calls []sdkCall) (n float64) {
		for _, c := range calls {
			if !strings.Contains(c.body, `"TableName":"`+r.env.tables.Accounts+`"`) {
				_, w := awsUnits(c)
				n += w
			}
		}
		return n
	}
	now, floor := partitionWrites/max(units(create.sides[0].calls)+indexer, 1), partitionWrites/max(units(create.sides[1].calls), 1)
	return fmt.Sprintf("  %s  one team's creates a second on AWS (its partition's %.0f write units/s), modeled = %.2f × the floor's (≥ %.1f): %.0f/s, floor %.0f/s\n",
		verdict(now >= minTeamWriteRate*floor), partitionWrites, now/floor, minTeamWriteRate, now, floor)
}

// sampleNamed returns the sample of endpoint.
func sampleNamed(samples []sample, endpoint string) (sample, bool) {
	for _, s := range samples {
		if s.endpoint == endpoint {
			return s, true
		}
	}
	return sample{}, false
}
