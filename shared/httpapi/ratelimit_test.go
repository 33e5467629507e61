package httpapi_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/apitest"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/httpapi"
	"github.com/patio-dev/patio/shared/patio"
)

// limitedStack serves the vehicles API with rate limits on a clock the test sets.
func limitedStack(t *testing.T, now *atomic.Int64) *stack {
	t.Helper()
	s := newStack(t)
	h := httpapi.New(httpapi.Options{
		Keys: accountdb.NewAccounts(s.store.DB()), Limiter: accountdb.NewCounters(s.store.DB()), Vehicles: patio.NewVehicles(s.store.Vehicles()),
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Now:    func() time.Time { return time.Unix(0, now.Load()) },
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// planTeam creates a team on a plan, with one key.
func (s *stack) planTeam(t *testing.T, plan patio.Plan) (patio.Team, *apitest.Client) {
	t.Helper()
	team, c := s.team(t)
	if _, err := accountdb.NewAccounts(s.store.DB()).SetPlan(context.Background(), team.ID, plan); err != nil {
		t.Fatal(err)
	}
	return team, c
}

func header(t *testing.T, r *apitest.Response, name string) int {
	t.Helper()
	n, err := strconv.Atoi(r.Header.Get(name))
	if err != nil {
		t.Fatalf("%s = %q: %v", name, r.Header.Get(name), err)
	}
	return n
}

func TestStarterMinuteLimit(t *testing.T) {
	var clock atomic.Int64
	start := time.Date(2030, 1, 2, 10, 20, 15, 0, time.UTC)
	clock.Store(start.UnixNano())
	s := limitedStack(t, &clock)
	team, c := s.planTeam(t, patio.PlanStarter)
	second, _ := s.client(t, team.ID)
	_, other := s.planTeam(t, patio.PlanStarter)

	for i := 1; i <= 60; i++ {
		k := c
		if i%2 == 0 {
			k = second // two keys of one team share one budget
		}
		res := k.Do("GET", "/api/v1/vehicles", nil)
		if res.Status != 200 {
			t.Fatalf("request %d = %d %s; want 200", i, res.Status, res.Body)
		}
		if got := header(t, res, "X-RateLimit-Remaining"); got != 60-i {
			t.Fatalf("request %d: X-RateLimit-Remaining = %d; want %d", i, got, 60-i)
		}
		if got := header(t, res, "X-RateLimit-Limit"); got != 60 {
			t.Fatalf("X-RateLimit-Limit = %d; want 60", got)
		}
		if got := header(t, res, "X-RateLimit-Reset"); got != int(start.Truncate(time.Minute).Add(time.Minute).Unix()) {
			t.Fatalf("X-RateLimit-Reset = %d; want the next minute", got)
		}
	}
	for range 3 {
		res := c.Do("GET", "/api/v1/vehicles", nil)
		if res.Status != 429 || res.ErrorCode() != "RATE_LIMIT_EXCEEDED" {
			t.Fatalf("61st request = %d %s; want 429 RATE_LIMIT_EXCEEDED", res.Status, res.Body)
		}
		if got := header(t, res, "Retry-After"); got != 45 {
			t.Errorf("Retry-After = %d; want 45 (seconds to the next minute)", got)
		}
	}
	if res := other.Do("GET", "/api/v1/vehicles", nil); res.Status != 200 || header(t, res, "X-RateLimit-Remaining") != 59 {
		t.Errorf("another team = %d remaining %s; want 200 and 59", res.Status, res.Header.Get("X-RateLimit-Remaining"))
	}
	// A plan change applies to the next request, and the 429s above consumed nothing.
	if _, err := accountdb.NewAccounts(s.store.DB()).SetPlan(context.Background(), team.ID, patio.PlanProfessional); err != nil {
		t.Fatal(err)
	}
	if res := c.Do("GET", "/api/v1/vehicles", nil); res.Status != 200 || header(t, res, "X-RateLimit-Remaining") != 300-61 {
		t.Errorf("after upgrade = %d remaining %s; want 200 and 239", res.Status, res.Header.Get("X-RateLimit-Remaining"))
	}
	// The next minute starts over.
	clock.Store(start.Add(time.Minute).UnixNano())
	if _, err := accountdb.NewAccounts(s.store.DB()).SetPlan(context.Background(), team.ID, patio.PlanStarter); err != nil {
		t.Fatal(err)
	}
	if res := c.Do("GET", "/api/v1/vehicles", nil); res.Status != 200 || header(t, res, "X-RateLimit-Remaining") != 59 {
		t.Errorf("next minute = %d remaining %s; want 200 and 59", res.Status, res.Header.Get("X-RateLimit-Remaining"))
	}
}

func TestConcurrentRequestsNeverPassTheLimit(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2030, 1, 2, 10, 20, 0, 0, time.UTC).UnixNano())
	s := limitedStack(t, &clock)
	_, c := s.planTeam(t, patio.PlanStarter)
	var ok, limited, other atomic.Int32
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := c.Do("GET", "/api/v1/vehicles?limit=1", nil)
			if res.Status != 200 && res.Status != 429 {
				t.Logf("unexpected answer: %d %s", res.Status, res.Body)
			}
			switch res.Status {
			case 200:
				ok.Add(1)
			case 429:
				limited.Add(1)
			default:
				other.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 60 || limited.Load() != 140 || other.Load() != 0 {
		t.Errorf("200 concurrent requests: %d × 200, %d × 429, %d other; want exactly 60 × 200 and 140 × 429", ok.Load(), limited.Load(), other.Load())
	}
}

func TestStarterDayLimit(t *testing.T) {
	var clock atomic.Int64
	start := time.Date(2030, 1, 2, 23, 58, 30, 0, time.UTC)
	clock.Store(start.UnixNano())
	s := limitedStack(t, &clock)
	// Spend 1000 requests of the day on Autoshopping (1000 a minute), then downgrade to Starter.
	team, c := s.planTeam(t, patio.PlanAutoshopping)
	// Four at a time: enough to spend the day quickly without overloading DynamoDB Local on a
	// small machine running other tests.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	var mu sync.Mutex
	failed := map[int]int{}
	for range 1000 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if st := c.Do("GET", "/api/v1/vehicles?limit=1", nil).Status; st != 200 {
				mu.Lock()
				failed[st]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(failed) != 0 {
		t.Fatalf("of 1000 requests on Autoshopping, these failed (status: how many): %v", failed)
	}
	if _, err := accountdb.NewAccounts(s.store.DB()).SetPlan(context.Background(), team.ID, patio.PlanStarter); err != nil {
		t.Fatal(err)
	}
	clock.Store(start.Add(time.Minute).UnixNano()) // a fresh minute: only the day binds
	res := c.Do("GET", "/api/v1/vehicles", nil)
	if res.Status != 429 || res.ErrorCode() != "RATE_LIMIT_EXCEEDED" {
		t.Fatalf("1001st request of a Starter day = %d %s; want 429", res.Status, res.Body)
	}
	if got := header(t, res, "X-RateLimit-Limit"); got != 1000 {
		t.Errorf("X-RateLimit-Limit = %d; want the day's 1000", got)
	}
	if got := header(t, res, "Retry-After"); got != 30 {
		t.Errorf("Retry-After = %d; want 30 (seconds to UTC midnight)", got)
	}
	// The minute counter took nothing from the refused request: the next day starts afresh.
	clock.Store(start.Add(2 * time.Minute).UnixNano())
	if res := c.Do("GET", "/api/v1/vehicles", nil); res.Status != 200 || header(t, res, "X-RateLimit-Remaining") != 59 {
		t.Errorf("first request of the next day = %d remaining %s; want 200 and 59", res.Status, res.Header.Get("X-RateLimit-Remaining"))
	}
}

// A read is served while it is counted; over the limit its answer is never sent: a record, a
// missing record and a read the key may not make all answer 429, and count nothing.
func TestRefusedReadShowsNothing(t *testing.T) {
	st := newStarter(t, limitedStack)
	s, clock, start, team, c, v := st.stack, st.clock, st.now, st.team, st.c, st.v
	writeOnly, _ := s.client(t, team.ID, "deals:write")
	for i := 2; i <= 60; i++ {
		if res := c.Do("GET", "/api/v1/vehicles/"+v.ID, nil); res.Status != 200 {
			t.Fatalf("request %d = %d %s; want 200", i, res.Status, res.Body)
		}
	}
	for _, tt := range []struct {
		name   string
		client *apitest.Client
		path   string
	}{
		{"a record", c, "/api/v1/vehicles/" + v.ID},
		{"a missing record", c, "/api/v1/vehicles/0193a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"},
		{"a list", c, "/api/v1/vehicles?limit=5"},
		{"a read without the scope", writeOnly, "/api/v1/vehicles/" + v.ID},
	} {
		res := tt.client.Do("GET", tt.path, nil)
		if res.Status != 429 || res.ErrorCode() != "RATE_LIMIT_EXCEEDED" {
			t.Errorf("%s over the limit = %d %s; want 429 RATE_LIMIT_EXCEEDED", tt.name, res.Status, res.Body)
		}
		if strings.Contains(string(res.Body), v.ID) || res.Header.Get("ETag") != "" {
			t.Errorf("%s over the limit leaked the answer: ETag %q, body %s", tt.name, res.Header.Get("ETag"), res.Body)
		}
	}
	clock.Store(start.Add(time.Minute).UnixNano())
	if res := c.Do("GET", "/api/v1/vehicles/"+v.ID, nil); res.Status != 200 || header(t, res, "X-RateLimit-Remaining") != 59 {
		t.Errorf("next minute = %d remaining %s; want 200 and 59", res.Status, res.Header.Get("X-RateLimit-Remaining"))
	}
}
