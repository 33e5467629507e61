package main

import (
	"math"
	"slices"
	"strings"
	"time"
)

// The production model: what a request's recorded DynamoDB calls would wait on and cost on AWS.
// DynamoDB Local runs a transaction's items one after another and every caller on the same cores,
// so its times say little of AWS's; the calls themselves (operation, items, units, which overlap)
// are the same on both, and AWS's answer to each is published:
//
//   - DynamoDB from Lambda in the same region, p50 (alexdebrie/dynamodb-performance-testing):
//     PutItem 7.55 ms (p99 16.2); BatchWriteItem of 5 and 25 items 8.1 and 10.2 ms;
//     TransactWriteItems of 5 and 25 items 25.3 and 32.1 ms (p99 92.5, 97.5). No read is
//     published there: a single-item read or a Query's page is taken at PutItem's figure (reads
//     are no slower than writes on DynamoDB), BatchGetItem at BatchWriteItem's.
//   - A transaction's items are processed in parallel, and a TransactGetItems costs under twice a
//     consistent GetItem (Idziorek et al., "Distributed Transactions at Scale in Amazon DynamoDB",
//     USENIX ATC 2023, §5): TransactGetItems is modeled at twice GetItem's figure.
//   - DynamoDB Streams → Lambda p50 213 ms, p99 552 ms; SQS → Lambda p50 16 ms, p99 105 ms
//     (bitesizedserverless.com, "serverless messaging latency compared").
//   - Prices, us-east-1, on demand (aws.amazon.com/dynamodb, /lambda, /api-gateway, /sqs pricing):
//     $0.625 per million write request units, $0.125 per million read request units, a
//     transaction's item billed twice; Lambda $0.20 per million requests and $0.0000133334 per
//     GB-second (arm64); API Gateway REST $3.50 per million; SQS $0.40 per million requests.
//
// Item counts between two published points are interpolated linearly, outside them extrapolated
// from the nearest two (a 1-item TransactWriteItems: 23.9 ms, about 3× PutItem).

// callPoint is a published p50 of a call naming items items.
type callPoint struct {
	items int
	p50   time.Duration
}

// ms2 is a duration of x milliseconds.
func ms2(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }

// Published p50s by operation (see above).
var (
	singleCall = []callPoint{{1, ms2(7.55)}}
	batchCall  = []callPoint{{1, ms2(7.55)}, {5, ms2(8.1)}, {25, ms2(10.2)}}
	callP50    = map[string][]callPoint{
		"GetItem": singleCall, "PutItem": singleCall, "UpdateItem": singleCall, "DeleteItem": singleCall,
		"Query": singleCall, "Scan": singleCall,
		"BatchWriteItem": batchCall, "BatchGetItem": batchCall,
		"TransactWriteItems": {{5, ms2(25.3)}, {25, ms2(32.1)}},
		"TransactGetItems":   {{1, 2 * ms2(7.55)}},
	}
)

// Off-request hops, published (see above).
var (
	streamHopP50 = 213 * time.Millisecond
	queueHopP50  = 16 * time.Millisecond
)

// Prices in dollars per million (see above); lambdaGB is template.yaml's MemorySize, 256 MB.
const (
	priceWrite     = 0.625
	priceRead      = 0.125
	priceLambda    = 0.20
	priceGBSecond  = 0.0000133334 * 1e6
	priceAPI       = 3.50
	priceSQS       = 0.40
	lambdaGB       = 0.25
	writeOps       = "PutItem UpdateItem DeleteItem BatchWriteItem TransactWriteItems"
	transactionOps = "TransactWriteItems TransactGetItems"
)

// awsLatency is the modeled p50 of one call on AWS.
func awsLatency(c sdkCall) time.Duration {
	pts, ok := callP50[c.op]
	if !ok {
		pts = singleCall
	}
	return interpolate(pts, max(c.items, 1))
}

// interpolate returns the p50 at n items of pts (sorted by items): linear between two points,
// extrapolated from the nearest two outside them, never below the smallest point's half.
func interpolate(pts []callPoint, n int) time.Duration {
	if len(pts) == 1 {
		return pts[0].p50
	}
	i := 1
	for i < len(pts)-1 && n > pts[i].items {
		i++
	}
	a, b := pts[i-1], pts[i]
	slope := float64(b.p50-a.p50) / float64(b.items-a.items)
	return max(a.p50+time.Duration(slope*float64(n-a.items)), pts[0].p50/2)
}

// awsUnits are a call's read and write units as AWS bills them: what DynamoDB Local reported,
// doubled for a transaction (Local counts a transaction's item once, AWS bills it twice).
func awsUnits(c sdkCall) (reads, writes float64) {
	u := c.units
	if contains(transactionOps, c.op) {
		u *= 2
	}
	if contains(writeOps, c.op) {
		return 0, u
	}
	return u, 0
}

// contains reports whether the space-separated list holds word.
func contains(list, word string) bool { return slices.Contains(strings.Fields(list), word) }

// modeled is one request's production model.
type modeled struct {
	calls, rounds int
	dynamo        time.Duration // on AWS: each round at its slowest call's modeled p50
	own           time.Duration // measured outside the calls: our code (and, for HTTP, the load client)
	measured      time.Duration // the request's whole time on DynamoDB Local
	reads, writes float64       // units as AWS bills them
}

// latency is the request's modeled time on AWS: its rounds plus our own code's time.
func (m modeled) latency() time.Duration { return m.dynamo + m.own }

// model returns t's production model. A round is a set of calls that overlapped in time (directly
// or through another call of the set): they count once, at the slowest.
func model(t trace) modeled {
	m := modeled{calls: len(t.calls), measured: t.end.Sub(t.start)}
	calls := slices.Clone(t.calls)
	slices.SortFunc(calls, func(a, b sdkCall) int { return a.start.Compare(b.start) })
	var busy time.Duration // the union of the calls' intervals
	for i := 0; i < len(calls); {
		from, until, slowest := calls[i].start, calls[i].end, awsLatency(calls[i])
		j := i + 1
		for ; j < len(calls) && calls[j].start.Before(until); j++ {
			until = later(until, calls[j].end)
			slowest = max(slowest, awsLatency(calls[j]))
		}
		m.rounds++
		m.dynamo += slowest
		busy += until.Sub(from)
		i = j
	}
	for _, c := range calls {
		r, w := awsUnits(c)
		m.reads += r
		m.writes += w
	}
	m.own = max(m.measured-busy, 0)
	return m
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// bill is what some work costs on AWS, in requests and units of each priced service.
type bill struct {
	reads, writes float64 // DynamoDB request units
	lambda        float64 // Lambda invocations
	gbSeconds     float64 // Lambda compute
	api, sqs      float64 // API Gateway and SQS requests
}

// add returns b plus o times k.
func (b bill) add(o bill, k float64) bill {
	return bill{b.reads + k*o.reads, b.writes + k*o.writes, b.lambda + k*o.lambda, b.gbSeconds + k*o.gbSeconds,
		b.api + k*o.api, b.sqs + k*o.sqs}
}

// perMillion is the bill's dollars per million of the work billed.
func (b bill) perMillion() float64 {
	return b.reads*priceRead + b.writes*priceWrite + b.lambda*priceLambda + b.gbSeconds*priceGBSecond +
		b.api*priceAPI + b.sqs*priceSQS
}

// lambdaRun is the bill of a Lambda running for d (billed by the millisecond, rounded up).
func lambdaRun(d time.Duration) bill {
	billed := math.Ceil(float64(d) / float64(time.Millisecond))
	return bill{lambda: 1, gbSeconds: billed / 1000 * lambdaGB}
}

// requestBill is an API request's bill: API Gateway, its function for its modeled latency, and
// its DynamoDB units.
func requestBill(m modeled) bill {
	b := lambdaRun(m.latency())
	b.api, b.reads, b.writes = 1, m.reads, m.writes
	return b
}
