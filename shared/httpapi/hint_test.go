package httpapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patio-dev/patio/dev/apitest"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/httpapi"
	"github.com/patio-dev/patio/shared/patio"
)

// The headers through which these tests play the edge: the team and plan API Gateway's authorizer
// would put in the request's context.
const (
	hintTeamHeader = "X-Test-Hint-Team"
	hintPlanHeader = "X-Test-Hint-Plan"
)

// hintedStack serves the vehicles API with rate limits on a clock the test sets, behind an edge
// whose hint each request carries in hintTeamHeader and hintPlanHeader.
func hintedStack(t *testing.T, now *atomic.Int64) *stack {
	t.Helper()
	s := newStack(t)
	h := httpapi.New(httpapi.Options{
		Keys: accountdb.NewAccounts(s.store.DB()), Limiter: accountdb.NewCounters(s.store.DB()), Vehicles: patio.NewVehicles(s.store.Vehicles()),
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Now:    func() time.Time { return time.Unix(0, now.Load()) },
		TeamHint: func(r *http.Request) patio.Team {
			return patio.Team{ID: r.Header.Get(hintTeamHeader), Plan: patio.Plan(r.Header.Get(hintPlanHeader))}
		},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// hinted is a GET as it comes through the edge, hinting team and plan.
func hinted(c *apitest.Client, path, team string, plan patio.Plan) *apitest.Response {
	c.T.Helper()
	return c.DoWith("GET", path, nil, http.Header{hintTeamHeader: {team}, hintPlanHeader: {string(plan)}})
}

// counted returns the requests the team's counters of the minute and the day of now hold.
func (s *stack) counted(t *testing.T, teamID string, now time.Time) (minute, day int) {
	t.Helper()
	minute, day, err := accountdb.NewCounters(s.store.DB()).RequestsCounted(context.Background(), teamID, now)
	if err != nil {
		t.Fatal(err)
	}
	return minute, day
}

// starter is a stack on a clock the test sets, with a Starter team, a key of every scope and one
// vehicle of the team (the POST has counted one request).
type starter struct {
	*stack
	clock *atomic.Int64
	now   time.Time
	team  patio.Team
	c     *apitest.Client
	v     vehicle
}

// newStarter builds a starter on the stack mk makes, its clock at 10:20:15 UTC.
func newStarter(t *testing.T, mk func(*testing.T, *atomic.Int64) *stack) starter {
	t.Helper()
	st := starter{clock: new(atomic.Int64), now: time.Date(2030, 1, 2, 10, 20, 15, 0, time.UTC)}
	st.clock.Store(st.now.UnixNano())
	st.stack = mk(t, st.clock)
	st.team, st.c = st.planTeam(t, patio.PlanStarter)
	res := st.c.Do("POST", "/api/v1/vehicles", newVehicle(nil))
	if res.Status != 201 {
		t.Fatalf("POST = %d %s", res.Status, res.Body)
	}
	res.Decode(t, &st.v)
	return st
}

// A read the edge hinted is served, counted once and limited by the team's plan as stored: a plan
// changed since the edge's answer is the one that counts.
func TestHintedReadCountsOnceOnTheCurrentPlan(t *testing.T) {
	st := newStarter(t, hintedStack)
	s, now, team, c, v := st.stack, st.now, st.team, st.c, st.v

	res := hinted(c, "/api/v1/vehicles/"+v.ID, team.ID, patio.PlanStarter)
	if res.Status != 200 || !strings.Contains(string(res.Body), v.ID) {
		t.Fatalf("hinted GET = %d %s; want 200 and the vehicle", res.Status, res.Body)
	}
	if limit, left := header(t, res, "X-RateLimit-Limit"), header(t, res, "X-RateLimit-Remaining"); limit != 60 || left != 58 {
		t.Errorf("hinted GET: limit %d, remaining %d; want 60 and 58 (the POST and this GET)", limit, left)
	}
	if m, d := s.counted(t, team.ID, now); m != 2 || d != 2 {
		t.Errorf("counters after a POST and a hinted GET: minute %d, day %d; want 2 and 2", m, d)
	}

	// The plan changed after the edge cached its answer: the request counts once, on the new plan.
	if _, err := accountdb.NewAccounts(s.store.DB()).SetPlan(context.Background(), team.ID, patio.PlanProfessional); err != nil {
		t.Fatal(err)
	}
	res = hinted(c, "/api/v1/vehicles/"+v.ID, team.ID, patio.PlanStarter)
	if res.Status != 200 || !strings.Contains(string(res.Body), v.ID) {
		t.Fatalf("GET hinting the old plan = %d %s; want 200 and the vehicle", res.Status, res.Body)
	}
	if limit := header(t, res, "X-RateLimit-Limit"); limit != 300 {
		t.Errorf("GET hinting the old plan: X-RateLimit-Limit %d; want 300, the professional plan's", limit)
	}
	if m, d := s.counted(t, team.ID, now); m != 3 || d != 3 {
		t.Errorf("counters after the GET hinting the old plan: minute %d, day %d; want 3 and 3 (counted once)", m, d)
	}
}

// A key revoked or unknown since the edge's answer is refused with 401, shows nothing of what was
// read meanwhile, and counts nothing.
func TestHintedReadOfAnInvalidKeyCountsNothing(t *testing.T) {
	st := newStarter(t, hintedStack)
	s, now, team, c, v := st.stack, st.now, st.team, st.c, st.v
	revoked, key := s.client(t, team.ID)
	if _, err := accountdb.NewAccounts(s.store.DB()).RevokeKey(context.Background(), key.ID); err != nil {
		t.Fatal(err)
	}
	unknown := &apitest.Client{T: t, BaseURL: s.url, Key: patio.TestKeyPrefix + strings.Repeat("a", len(strings.TrimPrefix(c.Key, patio.TestKeyPrefix)))}
	for name, client := range map[string]*apitest.Client{"a revoked key": revoked, "an unknown key": unknown} {
		for _, path := range []string{"/api/v1/vehicles/" + v.ID, "/api/v1/vehicles?limit=5"} {
			res := hinted(client, path, team.ID, patio.PlanStarter)
			if res.Status != 401 || res.ErrorCode() != "UNAUTHORIZED" {
				t.Errorf("%s: GET %s = %d %s; want 401 UNAUTHORIZED", name, path, res.Status, res.Body)
			}
			if strings.Contains(string(res.Body), v.ID) || res.Header.Get("ETag") != "" {
				t.Errorf("%s: GET %s leaked the answer: ETag %q, body %s", name, path, res.Header.Get("ETag"), res.Body)
			}
		}
	}
	if m, d := s.counted(t, team.ID, now); m != 1 || d != 1 {
		t.Errorf("counters after the POST and four refused reads: minute %d, day %d; want 1 and 1 (the POST)", m, d)
	}
}

// An edge hinting another team than the key's (a stale or wrong context) changes nothing: the key's
// team is the one served and counted; the hinted team's records stay out of reach and its counters
// untouched.
func TestHintOfAnotherTeamServesTheKeysTeam(t *testing.T) {
	var clock atomic.Int64
	now := time.Date(2030, 1, 2, 10, 20, 15, 0, time.UTC)
	clock.Store(now.UnixNano())
	s := hintedStack(t, &clock)
	teamA, a := s.planTeam(t, patio.PlanStarter)
	teamB, b := s.planTeam(t, patio.PlanStarter)
	var va, vb vehicle
	if res := a.Do("POST", "/api/v1/vehicles", newVehicle(nil)); res.Status != 201 {
		t.Fatalf("POST as A = %d %s", res.Status, res.Body)
	} else {
		res.Decode(t, &va)
	}
	if res := b.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": "BRA2E19"})); res.Status != 201 {
		t.Fatalf("POST as B = %d %s", res.Status, res.Body)
	} else {
		res.Decode(t, &vb)
	}

	res := hinted(a, "/api/v1/vehicles/"+vb.ID, teamB.ID, patio.PlanStarter)
	if res.Status != 404 || strings.Contains(string(res.Body), "BRA2E19") {
		t.Errorf("A's key hinting B, GET B's vehicle = %d %s; want 404, nothing of B's", res.Status, res.Body)
	}
	res = hinted(a, "/api/v1/vehicles/"+va.ID, teamB.ID, patio.PlanStarter)
	if res.Status != 200 || !strings.Contains(string(res.Body), va.ID) {
		t.Errorf("A's key hinting B, GET A's vehicle = %d %s; want 200 and A's vehicle", res.Status, res.Body)
	}
	res = hinted(a, "/api/v1/vehicles", teamB.ID, patio.PlanStarter)
	if res.Status != 200 || strings.Contains(string(res.Body), vb.ID) || !strings.Contains(string(res.Body), va.ID) {
		t.Errorf("A's key hinting B, list = %d %s; want A's vehicles alone", res.Status, res.Body)
	}
	if m, d := s.counted(t, teamA.ID, now); m != 4 || d != 4 {
		t.Errorf("A's counters: minute %d, day %d; want 4 and 4 (its POST and three reads)", m, d)
	}
	if m, d := s.counted(t, teamB.ID, now); m != 1 || d != 1 {
		t.Errorf("B's counters: minute %d, day %d; want 1 and 1 (its own POST alone)", m, d)
	}
}

// A hinted read keeps the order of the checks: over the limit it answers 429 and shows nothing; a key
// without the scope answers 403.
func TestHintedReadOverTheLimitOrWithoutTheScope(t *testing.T) {
	st := newStarter(t, hintedStack)
	s, now, team, c, v := st.stack, st.now, st.team, st.c, st.v
	writeOnly, _ := s.client(t, team.ID, "deals:write")
	if res := hinted(writeOnly, "/api/v1/vehicles/"+v.ID, team.ID, patio.PlanStarter); res.Status != 403 || strings.Contains(string(res.Body), v.ID) {
		t.Errorf("hinted GET without the scope = %d %s; want 403 and nothing of the vehicle", res.Status, res.Body)
	}
	for i := 3; i <= 60; i++ {
		if res := hinted(c, "/api/v1/vehicles/"+v.ID, team.ID, patio.PlanStarter); res.Status != 200 {
			t.Fatalf("hinted request %d = %d %s; want 200", i, res.Status, res.Body)
		}
	}
	res := hinted(c, "/api/v1/vehicles/"+v.ID, team.ID, patio.PlanStarter)
	if res.Status != 429 || strings.Contains(string(res.Body), v.ID) || res.Header.Get("ETag") != "" {
		t.Errorf("hinted GET over the limit = %d %s (ETag %q); want 429 and nothing of the vehicle", res.Status, res.Body, res.Header.Get("ETag"))
	}
	if m, _ := s.counted(t, team.ID, now); m != 60 {
		t.Errorf("minute counter = %d; want 60 (the refused request counts nothing)", m)
	}
}
