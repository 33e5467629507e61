package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
)

// TestMain lets the test binary be the run's child process too, as the command is (serveChild).
func TestMain(m *testing.M) {
	if os.Getenv(serveVar) != "" {
		os.Exit(serveChild())
	}
	os.Exit(m.Run())
}

// TestShortChaosRun is `make chaos` in short: a baseline, DynamoDB throttling, SQS handing
// messages over twice and SIGKILLs of the stack's process, a few seconds each, then the ledger.
// Every promise it checks holds: no write lost, no record made twice, every change delivered to
// both webhooks with one event id, no event of an uncommitted change, no 500 during the faults,
// the request counter exact, nothing to mend in the index. An attempt a killed process had
// claimed goes out once its claim (25 s) has run out and the sweep (20 s overdue, every 10 s here)
// queued it again: the drain waits up to 150 s for it, and ends as soon as nothing is missing.
func TestShortChaosRun(t *testing.T) {
	testenv.AWSConfig(t) // the engines are installed (skipped without them, failed under CI=true)
	o := options{clients: 8, rate: 8, faultFor: 8 * time.Second, quietFor: 12 * time.Second, drain: 150 * time.Second,
		dir: t.TempDir(), steadyWithin: 30}
	for _, p := range phases {
		if p.name == "baseline" || p.name == "dynamodb-throttle" || p.name == "sqs-duplicate" || p.name == "sigkill" {
			o.phases = append(o.phases, p)
		}
	}
	l, err := run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var broken []string
	for _, b := range l.broken(o.steadyWithin) {
		// Throughput's return is measured, not asserted: a test has no timing budget.
		if !strings.Contains(b, "steady throughput") {
			broken = append(broken, b)
		}
	}
	if len(broken) > 0 {
		t.Errorf("the ledger of a short chaos run broke its budgets:\n  %s", strings.Join(broken, "\n  "))
	}
	if l.Rows[0].Answers["2xx"] == 0 {
		t.Errorf("the baseline got no 2xx answer; want the clients' requests answered")
	}
}
