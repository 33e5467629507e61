package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

// at is a call of op naming items items, reported units, from ms a to ms b of a request.
func at(op string, items int, units float64, a, b float64) sdkCall {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	return sdkCall{op: op, items: items, units: units, scanned: -1, start: t0.Add(ms2(a)), end: t0.Add(ms2(b))}
}

// traced is a trace of calls lasting total ms.
func traced(total float64, calls ...sdkCall) trace {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	return trace{calls: calls, start: t0, end: t0.Add(ms2(total))}
}

// A won deal as the API makes it (the key, the team, both rate counters at once, the deal, its
// vehicle, one transaction of 10 items), and its floor (the same, with a transaction of the deal
// and the vehicle alone).
var (
	winCalls = traced(40,
		at("GetItem", 0, 1, 1, 3), at("GetItem", 0, 1, 4, 6),
		at("UpdateItem", 0, 1, 7, 9), at("UpdateItem", 0, 1, 7.5, 10),
		at("GetItem", 0, 1, 11, 12), at("GetItem", 0, 1, 13, 14),
		at("TransactWriteItems", 10, 33, 15, 38))
	winFloor = traced(30,
		at("GetItem", 0, 1, 1, 3), at("GetItem", 0, 1, 4, 6),
		at("UpdateItem", 0, 1, 7, 9), at("UpdateItem", 0, 1, 7.5, 10),
		at("GetItem", 0, 1, 11, 12), at("GetItem", 0, 1, 13, 14),
		at("TransactWriteItems", 2, 18, 15, 28))
	// The pipeline board: the session and its member, then one Query per column (six) and the
	// two rate counters, all at once, one of the queries starting as another ends.
	boardCalls = traced(30,
		at("GetItem", 0, 0.5, 1, 2), at("GetItem", 0, 0.5, 3, 4),
		at("Query", 0, 2, 5, 9), at("Query", 0, 2, 5, 10), at("Query", 0, 1, 6, 12), at("Query", 0, 1, 6, 11),
		at("Query", 0, 1, 7, 13), at("Query", 0, 1, 12.5, 20), at("UpdateItem", 0, 1, 5, 8), at("UpdateItem", 0, 1, 5, 7))
)

func TestModelRounds(t *testing.T) {
	put := ms2(7.55)
	tests := []struct {
		name          string
		tr            trace
		rounds        int
		dynamo, own   time.Duration
		reads, writes float64
	}{
		// Rounds: key, team, counters, deal, vehicle, transaction. A 10-item transaction:
		// 25.3 + 5 × (32.1 − 25.3) / 20 = 27.0 ms; calls busy 2+2+3+1+1+23 = 32 of 40 ms.
		{"won deal", winCalls, 6, 5*put + ms2(27.0), ms2(8), 4, 2 + 66},
		// 2 items: 25.3 − 3 × 0.34 = 24.28 ms; busy 2+2+3+1+1+13 = 22 of 30 ms.
		{"won deal's floor", winFloor, 6, 5*put + ms2(24.28), ms2(8), 4, 2 + 36},
		// Rounds: session, member, everything else (5 to 20 ms, chained by overlaps); busy
		// 1+1+15 = 17 of 30 ms.
		{"pipeline board", boardCalls, 3, 3 * put, ms2(13), 9, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := model(tt.tr)
			if m.rounds != tt.rounds {
				t.Errorf("model(%s).rounds = %d; want %d", tt.name, m.rounds, tt.rounds)
			}
			if d := m.dynamo - tt.dynamo; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("model(%s).dynamo = %v; want %v", tt.name, m.dynamo, tt.dynamo)
			}
			if m.own != tt.own {
				t.Errorf("model(%s).own = %v; want %v", tt.name, m.own, tt.own)
			}
			if m.reads != tt.reads || m.writes != tt.writes {
				t.Errorf("model(%s) units = %g read, %g write; want %g, %g", tt.name, m.reads, m.writes, tt.reads, tt.writes)
			}
		})
	}
}

func TestInterpolate(t *testing.T) {
	tests := []struct {
		op    string
		items int
		want  float64 // ms
	}{
		{"PutItem", 0, 7.55},
		{"TransactWriteItems", 5, 25.3},
		{"TransactWriteItems", 25, 32.1},
		{"TransactWriteItems", 15, 28.7},
		{"TransactWriteItems", 1, 23.94},
		{"BatchWriteItem", 3, 7.825},
		{"BatchWriteItem", 45, 12.3},
		{"TransactGetItems", 2, 15.1},
	}
	for _, tt := range tests {
		got := awsLatency(sdkCall{op: tt.op, items: tt.items})
		if math.Abs(float64(got-ms2(tt.want))) > float64(time.Microsecond) {
			t.Errorf("awsLatency(%s of %d) = %v; want %v", tt.op, tt.items, got, ms2(tt.want))
		}
	}
}

func TestRequestBill(t *testing.T) {
	// The won deal on AWS: 5 × 7.55 + 27.0 + 8 = 72.75 ms, billed 73 ms at 0.25 GB.
	b := requestBill(model(winCalls))
	want := 3.50 + 0.20 + 0.073*0.25*13.3334 + 4*0.125 + 68*0.625
	if got := b.perMillion(); math.Abs(got-want) > 1e-6 {
		t.Errorf("requestBill(won deal).perMillion() = %.6f; want %.6f", got, want)
	}
}

func TestAllIn(t *testing.T) {
	// A create (the won deal's calls stand in) whose change the indexer followed in one batch of
	// 40 ms writing 58 units, delivered to 3 webhooks: the dispatcher runs 7.55 + 24.28 ms (billed
	// 32), each delivery 50 + 7.55 + 24.28 ms (billed 82).
	req := model(winCalls)
	side := sampleSide{m: req, off: []modeled{{dynamo: ms2(30), own: ms2(10), writes: 58}}}
	got := allIn(side, 3).perMillion()
	indexer := 0.20 + 0.040*0.25*13.3334 + 58*0.625
	delivery := 0.20 + 0.082*0.25*13.3334 + 0.125 + deliveryWrites*0.625 + 3*0.40
	dispatch := 0.20 + 0.032*0.25*13.3334 + 0.125
	want := requestBill(req).perMillion() + indexer + dispatch + 3*delivery
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("allIn(create, 3 webhooks) = %.4f $/M; want %.4f", got, want)
	}
	if got, want := allIn(sampleSide{m: model(boardCalls)}, 3).perMillion(), requestBill(model(boardCalls)).perMillion(); got != want {
		t.Errorf("allIn(a read, 3 webhooks) = %.4f $/M; want the request's alone, %.4f", got, want)
	}
}

func TestEmulatorGap(t *testing.T) {
	tests := []struct {
		name     string
		req, raw []sdkCall
		want     string
	}{
		{"bigger transaction", winCalls.calls, winFloor.calls, "a transaction's items one after another (10 items, raw 2)"},
		{"more items read", []sdkCall{{op: "Query", scanned: 60}}, []sdkCall{{op: "Query", scanned: 20}}, "per-item read cost (60 items examined, raw 20)"},
		{"same calls", winCalls.calls, winCalls.calls, "the emulator's noise"},
	}
	for _, tt := range tests {
		if got := emulatorGap(tt.req, tt.raw); !strings.Contains(got, tt.want) {
			t.Errorf("emulatorGap(%s) = %q; want it to say %q", tt.name, got, tt.want)
		}
	}
}
