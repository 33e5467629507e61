package httpapi_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/patio-dev/patio/dev/apitest"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
)

type deal struct {
	ID         string  `json:"id"`
	ClientID   string  `json:"client_id"`
	VehicleID  *string `json:"vehicle_id"`
	Value      *string `json:"-"`
	Phase      string  `json:"phase"`
	Status     string  `json:"status"`
	LostReason *string `json:"lost_reason"`
	ClosedAt   *string `json:"closed_at"`
}

type soldVehicle struct {
	Status     string  `json:"status"`
	SoldAt     *string `json:"sold_at"`
	SoldDealID *string `json:"sold_deal_id"`
}

// mustCreate posts body and returns the created record's id.
func mustCreate(t *testing.T, c *apitest.Client, path string, body any) string {
	t.Helper()
	res := c.Do("POST", path, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("POST %s = %d %s; want 201", path, res.Status, res.Body)
	}
	var v struct {
		ID string `json:"id"`
	}
	res.Decode(t, &v)
	return v.ID
}

func newClient(t *testing.T, c *apitest.Client, cpf string) string {
	return mustCreate(t, c, "/api/v1/clients", map[string]any{"type": "individual", "name": "Maria da Silva", "cpf": cpf})
}

func TestDealCreate(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	_, other := s.team(t)
	clientID := newClient(t, c, "529.982.247-25")
	vehicleID := mustCreate(t, c, "/api/v1/vehicles", newVehicle(map[string]any{"price": 87500.5}))

	res := c.Do("POST", "/api/v1/deals", map[string]any{"title": "Corolla for Maria", "client_id": clientID, "vehicle_id": vehicleID})
	if res.Status != 201 {
		t.Fatalf("POST deal = %d %s", res.Status, res.Body)
	}
	var d map[string]any
	res.Decode(t, &d)
	if fmt.Sprint(d["value"]) != "87500.5" || d["phase"] != "lead" || d["status"] != "ativo" || d["closed_at"] != nil {
		t.Errorf("new deal = %s; want value 87500.5 (the vehicle's price), phase lead, status ativo", res.Data)
	}

	otherClient := newClient(t, other, "111.444.777-35")
	otherVehicle := mustCreate(t, other, "/api/v1/vehicles", newVehicle(nil))
	tests := []struct {
		name string
		body map[string]any
		code int
	}{
		{name: "another team's client", body: map[string]any{"title": "x", "client_id": otherClient}, code: 422},
		{name: "unknown client", body: map[string]any{"title": "x", "client_id": "0193a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"}, code: 422},
		{name: "another team's vehicle", body: map[string]any{"title": "x", "client_id": clientID, "vehicle_id": otherVehicle}, code: 422},
		{name: "missing title", body: map[string]any{"client_id": clientID}, code: 400},
		{name: "missing client", body: map[string]any{"title": "x"}, code: 400},
		{name: "client id not a uuid", body: map[string]any{"title": "x", "client_id": "abc"}, code: 400},
		{name: "created won", body: map[string]any{"title": "x", "client_id": clientID, "status": "ganho"}, code: 400},
		{name: "lost reason on open deal", body: map[string]any{"title": "x", "client_id": clientID, "lost_reason": "preco"}, code: 400},
		{name: "bad phase", body: map[string]any{"title": "x", "client_id": clientID, "phase": "won"}, code: 400},
		{name: "bad date", body: map[string]any{"title": "x", "client_id": clientID, "expected_close_date": "2026-02-30"}, code: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := c.With(t)
			if res := c.Do("POST", "/api/v1/deals", tt.body); res.Status != tt.code || res.ErrorCode() != "VALIDATION_ERROR" {
				t.Errorf("POST %v = %d %s; want %d VALIDATION_ERROR", tt.body, res.Status, res.Body, tt.code)
			}
		})
	}

	if res := c.Do("DELETE", "/api/v1/clients/"+clientID, nil); res.Status != 200 {
		t.Fatalf("deactivate client = %d %s", res.Status, res.Body)
	}
	if res := c.Do("POST", "/api/v1/deals", map[string]any{"title": "x", "client_id": clientID}); res.Status != 422 {
		t.Errorf("deal for an inactive client = %d %s; want 422", res.Status, res.Body)
	}
}

func TestDealsRacingForOneVehicle(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	clientID := newClient(t, c, "529.982.247-25")
	vehicleID := mustCreate(t, c, "/api/v1/vehicles", newVehicle(nil))
	const n = 10
	ids := make([]string, n)
	for i := range ids {
		ids[i] = mustCreate(t, c, "/api/v1/deals", map[string]any{"title": fmt.Sprintf("deal %d", i), "client_id": clientID, "vehicle_id": vehicleID})
	}
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = c.Do("PUT", "/api/v1/deals/"+ids[i], map[string]any{"status": "ganho", "payment_method": "pix"}).Status
		}()
	}
	wg.Wait()
	winner := ""
	for i, code := range codes {
		switch code {
		case 200:
			if winner != "" {
				t.Fatalf("two deals won the vehicle: %s and %s", winner, ids[i])
			}
			winner = ids[i]
		case 422:
		default:
			t.Errorf("deal %d: PUT ganho = %d; want 200 or 422", i, code)
		}
	}
	if winner == "" {
		t.Fatalf("no deal won; codes %v", codes)
	}
	var v soldVehicle
	c.Do("GET", "/api/v1/vehicles/"+vehicleID, nil).Decode(t, &v)
	if v.Status != "vendido" || v.SoldAt == nil || v.SoldDealID == nil || *v.SoldDealID != winner {
		t.Errorf("vehicle after the race = %+v; want vendido with sold_deal_id %s", v, winner)
	}
	if res := c.Do("GET", "/api/v1/deals?status=ganho", nil); res.Pagination.Total != 1 {
		t.Errorf("won deals = %d; want 1", res.Pagination.Total)
	}
	testenv.Index(t, dynamostore.IndexerOf(s.store)) // a list by vehicle_id follows the indexer
	if res := c.Do("GET", "/api/v1/deals?status=ativo&vehicle_id="+vehicleID, nil); res.Pagination.Total != n-1 {
		t.Errorf("open deals on the sold vehicle = %d; want %d (they stay open)", res.Pagination.Total, n-1)
	}
}

func TestDealTransitions(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	clientID := newClient(t, c, "529.982.247-25")
	vehicleID := mustCreate(t, c, "/api/v1/vehicles", newVehicle(nil))
	id := mustCreate(t, c, "/api/v1/deals", map[string]any{"title": "pipeline", "client_id": clientID})
	put := func(body map[string]any) (int, deal, string) {
		t.Helper()
		res := c.Do("PUT", "/api/v1/deals/"+id, body)
		var d deal
		if res.Status == 200 {
			res.Decode(t, &d)
		}
		return res.Status, d, string(res.Body)
	}

	if code, d, body := put(map[string]any{"phase": "proposta"}); code != 200 || d.Phase != "proposta" {
		t.Errorf("move phase = %d %s", code, body)
	}
	if code, _, body := put(map[string]any{"status": "perdido"}); code != 400 {
		t.Errorf("perdido without lost_reason = %d %s; want 400", code, body)
	}
	if code, d, body := put(map[string]any{"status": "perdido", "lost_reason": "preco"}); code != 200 || d.ClosedAt == nil {
		t.Errorf("perdido = %d %s; want 200 with closed_at", code, body)
	}
	if code, d, body := put(map[string]any{"status": "ativo"}); code != 200 || d.ClosedAt != nil || d.LostReason != nil {
		t.Errorf("reopen = %d %s; want 200 with closed_at and lost_reason cleared", code, body)
	}
	if code, _, body := put(map[string]any{"status": "ganho"}); code != 400 {
		t.Errorf("ganho without vehicle = %d %s; want 400", code, body)
	}
	if code, d, body := put(map[string]any{"status": "ganho", "vehicle_id": vehicleID}); code != 200 || d.Status != "ganho" || d.ClosedAt == nil {
		t.Fatalf("ganho = %d %s", code, body)
	}
	for _, to := range []map[string]any{{"status": "ativo"}, {"status": "perdido", "lost_reason": "outro"}} {
		if code, _, body := put(to); code != 422 {
			t.Errorf("won deal to %v = %d %s; want 422", to, code, body)
		}
	}
	// The sold vehicle may only be vendido or arquivado.
	if res := c.Do("PUT", "/api/v1/vehicles/"+vehicleID, map[string]any{"status": "ativo"}); res.Status != 422 {
		t.Errorf("sold vehicle back to ativo = %d %s; want 422", res.Status, res.Body)
	}
	c.Do("DELETE", "/api/v1/vehicles/"+vehicleID, nil)
	var v soldVehicle
	res := c.Do("PUT", "/api/v1/vehicles/"+vehicleID, map[string]any{"status": "vendido"})
	res.Decode(t, &v)
	if res.Status != 200 || v.SoldDealID == nil || *v.SoldDealID != id {
		t.Errorf("archived sold vehicle reactivated = %d %s; want vendido keeping sold_deal_id", res.Status, res.Body)
	}
	// A deal archived after winning comes back only as ganho.
	if res := c.Do("DELETE", "/api/v1/deals/"+id, nil); res.Status != 200 {
		t.Fatalf("archive deal = %d %s", res.Status, res.Body)
	}
	if code, _, body := put(map[string]any{"status": "ativo"}); code != 422 {
		t.Errorf("archived won deal back to ativo = %d %s; want 422", code, body)
	}
	if code, d, body := put(map[string]any{"status": "ganho"}); code != 200 || d.Status != "ganho" {
		t.Errorf("archived won deal back to ganho = %d %s; want 200", code, body)
	}
	// A second deal cannot win the sold vehicle.
	other := mustCreate(t, c, "/api/v1/deals", map[string]any{"title": "late", "client_id": clientID})
	if res := c.Do("PUT", "/api/v1/deals/"+other, map[string]any{"status": "ganho", "vehicle_id": vehicleID}); res.Status != 422 {
		t.Errorf("winning a sold vehicle = %d %s; want 422", res.Status, res.Body)
	}
}

func TestDealLists(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	a := newClient(t, c, "529.982.247-25")
	b := newClient(t, c, "111.444.777-35")
	v := mustCreate(t, c, "/api/v1/vehicles", newVehicle(nil))
	for i := range 30 {
		body := map[string]any{"title": fmt.Sprintf("Deal %02d", i), "client_id": a, "value": i * 100}
		if i%3 == 0 {
			body["client_id"] = b
			body["phase"] = "visita"
		}
		if i%5 == 0 {
			body["vehicle_id"] = v
			delete(body, "value")
		}
		if i%4 == 0 {
			body["expected_close_date"] = fmt.Sprintf("2027-01-%02d", i+1)
		}
		mustCreate(t, c, "/api/v1/deals", body)
	}
	testenv.Index(t, dynamostore.IndexerOf(s.store)) // q searches what the indexer has followed
	tests := []struct {
		query string
		want  int
	}{
		{"", 30},
		{"client_id=" + b, 10},
		{"vehicle_id=" + v, 6},
		{"phase=visita", 10},
		{"phase=lead,visita", 30},
		{"status=ganho", 0},
		{"value_min=1000&value_max=1500", 4}, // deals 11 to 14; 10 and 15 took the vehicle's price
		{"q=deal", 30},
		{"q=deal+1", 10},          // the title's second word starts with 1: Deal 10 to Deal 19
		{"q=DEAL+07", 1},          // case and accents aside
		{"q=eal", 0},              // not the start of a word
		{"q=1&client_id=" + b, 3}, // deals 12, 15, 18
		{"q=deal&phase=visita&status=ativo", 10},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			c := c.With(t)
			if res := c.Do("GET", "/api/v1/deals?"+tt.query, nil); res.Status != 200 || res.Pagination.Total != tt.want {
				t.Errorf("GET ?%s = %d %s; want total %d", tt.query, res.Status, res.Body, tt.want)
			}
		})
	}
	for _, sortBy := range []string{"title", "-value", "expected_close_date", "-expected_close_date"} {
		seen := map[string]bool{}
		for page := 1; page <= 5; page++ {
			var items []deal
			c.Do("GET", fmt.Sprintf("/api/v1/deals?sort=%s&limit=7&page=%d", sortBy, page), nil).Decode(t, &items)
			for _, d := range items {
				if seen[d.ID] {
					t.Errorf("sort=%s: deal %s listed twice", sortBy, d.ID)
				}
				seen[d.ID] = true
			}
		}
		if len(seen) != 30 {
			t.Errorf("sort=%s: paged through %d deals; want 30", sortBy, len(seen))
		}
	}
	if res := c.Do("GET", "/api/v1/deals?client_id=abc", nil); res.Status != 400 {
		t.Errorf("client_id=abc = %d; want 400", res.Status)
	}
}
