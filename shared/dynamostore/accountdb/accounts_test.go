package accountdb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/dynamostore/storecore"
	"github.com/patio-dev/patio/shared/patio"
)

// KeyAndTeam reads a key and a team in one call: both, the key without a missing team, or not found.
func TestKeyAndTeam(t *testing.T) {
	db := newDB(t)
	ctx := context.Background()
	team, err := patio.NewTeam("Loja", "loja@example.com", "starter")
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(db).CreateTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	key, secret, err := patio.NewAPIKey(team.ID, "crm", []string{"vehicles:read"}, patio.TestKeyPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := accountdb.NewAccounts(db).CreateKey(ctx, key); err != nil {
		t.Fatal(err)
	}

	// The list shows the key's start, which tells it from the others, and never the rest.
	if keys, err := accountdb.NewAccounts(db).ListKeys(ctx, team.ID); err != nil || len(keys) != 1 || keys[0].Hint == "" ||
		!strings.HasPrefix(secret, keys[0].Hint) || len(keys[0].Hint) > len(patio.TestKeyPrefix)+4 {
		t.Errorf("ListKeys = %+v, %v; want the key with a hint of its first characters", keys, err)
	}
	k, got, err := accountdb.NewAccounts(db).KeyAndTeam(ctx, patio.HashKey(secret), team.ID)
	if err != nil || k.ID != key.ID || k.TeamID != team.ID || k.Status != patio.KeyActive || got.ID != team.ID || got.Plan != patio.PlanStarter {
		t.Errorf("KeyAndTeam = %+v, %+v, %v; want the key and its team", k, got, err)
	}
	k, got, err = accountdb.NewAccounts(db).KeyAndTeam(ctx, patio.HashKey(secret), newTeam())
	if err != nil || k.ID != key.ID || got.ID != "" {
		t.Errorf("KeyAndTeam with an unknown team = %+v, %+v, %v; want the key and no team", k, got, err)
	}
	_, _, err = accountdb.NewAccounts(db).KeyAndTeam(ctx, patio.HashKey("dk_test_unknownunknownunknownunknownunkn"), team.ID)
	if !patio.IsKind(err, patio.KindNotFound) {
		t.Errorf("KeyAndTeam with an unknown key: %v; want KindNotFound", err)
	}
}

// Both windows are counted at once; whichever refuses, the request counts in neither.
func TestCountTakesBackARefusedRequest(t *testing.T) {
	db := newDB(t)
	ctx := context.Background()
	team := newTeam()
	at := time.Date(2031, 3, 4, 10, 0, 5, 0, time.UTC)
	count := func(now time.Time, perMinute, perDay int) (int, int, patio.Window) {
		t.Helper()
		m, d, refused, err := accountdb.NewCounters(db).Count(ctx, team, now, perMinute, perDay)
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

// A rate counter's increment whose answer was lost is not sent again: the request it counted
// fails rather than counting twice.
func TestCountNeverCountsTwiceOnARetry(t *testing.T) {
	cfg := testenv.AWSConfig(t)
	names := testenv.Tables(t)
	lossy := &testenv.LostAnswers{Next: cfg.HTTPClient, Operation: "UpdateItem", N: 2}
	cfg.HTTPClient = lossy
	db := storecore.New(cfg, storecore.Tables{Accounts: names["AccountsTable"]})
	ctx := context.Background()
	team := newTeam()
	at := time.Now()
	if _, _, _, err := accountdb.NewCounters(db).Count(ctx, team, at, 100, 1000); err == nil {
		t.Fatalf("Count with both answers lost = nil error; want the request failed")
	}
	minute, day, err := accountdb.NewCounters(db).RequestsCounted(ctx, team, at)
	if err != nil {
		t.Fatal(err)
	}
	if minute != 1 || day != 1 {
		t.Errorf("after one request whose increments' answers were lost, counted %d this minute, %d today; want 1 and 1", minute, day)
	}
}

// newDB returns the store's clients on this package's table set in DynamoDB Local, created once per
// test binary by testenv. Tests keep out of each other's way by working in teams of their own.
func newDB(t *testing.T) *storecore.DB {
	t.Helper()
	return storecore.New(testenv.AWSConfig(t), storecore.Tables{Accounts: testenv.Tables(t)["AccountsTable"]})
}

// newTeam returns the id of a team no other test uses.
func newTeam() string {
	id, _ := patio.NewID()
	return id
}
