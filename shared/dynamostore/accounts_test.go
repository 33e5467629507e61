package dynamostore_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/webhookdb"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/webhook"
)

// KeyAndTeam reads a key and a team in one call: both, the key without a missing team, or not found.
func TestKeyAndTeam(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team, err := patio.NewTeam("Loja", "loja@example.com", "starter")
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(s.DB()).CreateTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	key, secret, err := patio.NewAPIKey(team.ID, "crm", []string{"vehicles:read"}, patio.TestKeyPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(s.DB()).CreateKey(ctx, key); err != nil {
		t.Fatal(err)
	}

	// The list shows the key's start, which tells it from the others, and never the rest.
	if keys, err := accountdb.NewAccounts(s.DB()).ListKeys(ctx, team.ID); err != nil || len(keys) != 1 || keys[0].Hint == "" ||
		!strings.HasPrefix(secret, keys[0].Hint) || len(keys[0].Hint) > len(patio.TestKeyPrefix)+4 {
		t.Errorf("ListKeys = %+v, %v; want the key with a hint of its first characters", keys, err)
	}
	k, got, err := accountdb.NewAccounts(s.DB()).KeyAndTeam(ctx, patio.HashKey(secret), team.ID)
	if err != nil || k.ID != key.ID || k.TeamID != team.ID || k.Status != patio.KeyActive || got.ID != team.ID || got.Plan != patio.PlanStarter {
		t.Errorf("KeyAndTeam = %+v, %+v, %v; want the key and its team", k, got, err)
	}
	k, got, err = accountdb.NewAccounts(s.DB()).KeyAndTeam(ctx, patio.HashKey(secret), newTeam())
	if err != nil || k.ID != key.ID || got.ID != "" {
		t.Errorf("KeyAndTeam with an unknown team = %+v, %+v, %v; want the key and no team", k, got, err)
	}
	_, _, err = accountdb.NewAccounts(s.DB()).KeyAndTeam(ctx, patio.HashKey("dk_test_unknownunknownunknownunknownunkn"), team.ID)
	if !patio.IsKind(err, patio.KindNotFound) {
		t.Errorf("KeyAndTeam with an unknown key: %v; want KindNotFound", err)
	}
}

// Both windows are counted at once; whichever refuses, the request counts in neither.
func TestCountTakesBackARefusedRequest(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	team := newTeam()
	at := time.Date(2031, 3, 4, 10, 0, 5, 0, time.UTC)
	count := func(now time.Time, perMinute, perDay int) (int, int, patio.Window) {
		t.Helper()
		m, d, refused, err := accountdb.NewCounters(s.DB()).Count(ctx, team, now, perMinute, perDay)
		if err != nil {
			t.Fatal(err)
		}
		return m, d, refused
	}
	count(at, 2, 3)
	count(at, 2, 3)
	if m, d, refused := count(at, 2, 3); refused != patio.WindowMinute {
		t.Fatalf("third request of a 2/minute limit = %d, %d, %v; want refused by the minute", m, d, refused)
	}
	// The refused request took nothing from the day: a new minute has the day's third request.
	next := at.Add(time.Minute)
	if m, d, refused := count(next, 2, 3); refused != patio.WindowNone || m != 1 || d != 3 {
		t.Fatalf("next minute = %d, %d, %v; want minute 1, day 3", m, d, refused)
	}
	if m, d, refused := count(next, 2, 3); refused != patio.WindowDay {
		t.Fatalf("fourth request of a 3/day limit = %d, %d, %v; want refused by the day", m, d, refused)
	}
	// Nor from the minute: it still has one request left.
	if m, d, refused := count(next, 2, 0); refused != patio.WindowNone || m != 2 || d != 4 {
		t.Fatalf("without a day limit = %d, %d, %v; want minute 2, day 4", m, d, refused)
	}
	// Both full: the minute is reported, and neither counts.
	if m, d, refused := count(next, 2, 4); refused != patio.WindowMinute {
		t.Fatalf("both full = %d, %d, %v; want refused by the minute", m, d, refused)
	}
	if m, d, refused := count(next.Add(time.Minute), 2, 5); refused != patio.WindowNone || m != 1 || d != 5 {
		t.Fatalf("after both refused = %d, %d, %v; want minute 1, day 5", m, d, refused)
	}
}

// lostAnswers is an HTTP client whose answers to the first n requests of an operation are lost
// after DynamoDB has carried them out: the request was applied, the caller sees a broken
// connection, which the SDK otherwise treats as worth sending again.
type lostAnswers struct {
	next      aws.HTTPClient
	operation string // the X-Amz-Target's operation, e.g. "UpdateItem"
	mu        sync.Mutex
	n         int
}

func (c *lostAnswers) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(req)
	if err != nil || !strings.HasSuffix(req.Header.Get("X-Amz-Target"), "."+c.operation) {
		return resp, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return resp, err
	}
	c.n--
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
}

// A rate counter's increment whose answer was lost is not sent again: the request it counted
// fails rather than counting twice.
func TestCountNeverCountsTwiceOnARetry(t *testing.T) {
	cfg := testenv.AWSConfig(t)
	names := testenv.Tables(t)
	lossy := &lostAnswers{next: cfg.HTTPClient, operation: "UpdateItem", n: 2}
	cfg.HTTPClient = lossy
	s := dynamostore.New(cfg, dynamostore.Tables{Accounts: names["AccountsTable"]})
	ctx := context.Background()
	team := newTeam()
	at := time.Now()
	if _, _, _, err := accountdb.NewCounters(s.DB()).Count(ctx, team, at, 100, 1000); err == nil {
		t.Fatalf("Count with both answers lost = nil error; want the request failed")
	}
	minute, day, err := accountdb.NewCounters(s.DB()).RequestsCounted(ctx, team, at)
	if err != nil {
		t.Fatal(err)
	}
	if minute != 1 || day != 1 {
		t.Errorf("after one request whose increments' answers were lost, counted %d this minute, %d today; want 1 and 1", minute, day)
	}
}

// A write whose answer was lost after DynamoDB applied it is sent again by the SDK; the retry must
// answer the success the first attempt was, not fail its own "key is free" condition against the
// item it just wrote: a new team (a put), a vehicle and a webhook (transactions, the webhook's of
// one item), a form's one-time claim, while a genuine duplicate still fails.
func TestALostAnswerIsNotAFailure(t *testing.T) {
	cfg := testenv.AWSConfig(t)
	names := testenv.Tables(t)
	lossy := &lostAnswers{next: cfg.HTTPClient, operation: "PutItem", n: 1}
	cfg.HTTPClient = lossy
	s := dynamostore.New(cfg, dynamostore.Tables{Accounts: names["AccountsTable"], Vehicles: names["VehiclesTable"],
		Webhooks: names["WebhooksTable"]})
	ctx := context.Background()

	team, err := patio.NewTeam("Loja", "dono@loja.example", "starter")
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(s.DB()).CreateTeam(ctx, team); err != nil {
		t.Fatalf("CreateTeam with its answer lost once = %v; want the team created", err)
	}
	if lossy.n != 0 {
		t.Fatalf("the answer to CreateTeam's put was not lost; the test proves nothing")
	}
	if got, err := accountdb.NewAccounts(s.DB()).Team(ctx, team.ID); err != nil || got.Name != "Loja" {
		t.Errorf("Team = %+v, %v; want the team", got, err)
	}
	other := team
	other.Name = "Outra"
	if err := accountdb.NewAccounts(s.DB()).CreateTeam(ctx, other); err == nil {
		t.Errorf("CreateTeam of another team with a taken id = nil; want it refused")
	}

	lossy.mu.Lock()
	lossy.operation, lossy.n = "TransactWriteItems", 1
	lossy.mu.Unlock()
	v, err := patio.NewVehicles(s.Vehicles()).Create(ctx, team.ID, patio.VehicleInput{Brand: patio.Some("Fiat"), Model: patio.Some("Uno"),
		Plate: patio.Some("LST1A23"), Price: patio.Some(money.Cents(4500000))})
	if err != nil {
		t.Fatalf("Create a vehicle with its transaction's answer lost once = %v; want it created", err)
	}
	if lossy.n != 0 {
		t.Fatalf("the answer to the vehicle's transaction was not lost; the test proves nothing")
	}
	listed, err := s.Vehicles().List(ctx, team.ID, mustCheck(t, patio.VehicleQuery{}))
	if err != nil || listed.Total != 1 || len(listed.Items) != 1 || listed.Items[0].ID != v.ID {
		t.Errorf("List = %d %v, %v; want the one vehicle, counted once", listed.Total, len(listed.Items), err)
	}

	lossy.mu.Lock()
	lossy.n = 1
	lossy.mu.Unlock()
	w, err := webhook.New(team.ID, "https://hooks.example.com/lost", []string{"*"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := webhookdb.New(s.DB()).CreateWebhook(ctx, w); err != nil {
		t.Fatalf("CreateWebhook with its answer lost once = %v; want it created", err)
	}
	if lossy.n != 0 {
		t.Fatalf("the answer to the webhook's write was not lost; the test proves nothing")
	}

	lossy.mu.Lock()
	lossy.operation, lossy.n = "PutItem", 1
	lossy.mu.Unlock()
	form, now := "form-"+team.ID, time.Now()
	if first, _, err := accountdb.NewSessions(s.DB()).ClaimForm(ctx, form, now, now.Add(time.Hour)); err != nil || !first {
		t.Errorf("ClaimForm with its answer lost once = %v, %v; want the first post's claim", first, err)
	}
	if lossy.n != 0 {
		t.Fatalf("the answer to the form's claim was not lost; the test proves nothing")
	}
	if first, _, err := accountdb.NewSessions(s.DB()).ClaimForm(ctx, form, now, now.Add(time.Hour)); err != nil || first {
		t.Errorf("ClaimForm of the same form again = %v, %v; want a repeat", first, err)
	}
}

// mustCheck returns a checked vehicle query.
func mustCheck(t *testing.T, q patio.VehicleQuery) patio.VehicleQuery {
	t.Helper()
	q, err := q.Check()
	if err != nil {
		t.Fatal(err)
	}
	return q
}
