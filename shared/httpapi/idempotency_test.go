package httpapi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestIdempotencyKey(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	key := http.Header{"Idempotency-Key": {"order-42"}}
	first := c.DoWith("POST", "/api/v1/vehicles", `{"brand":"Fiat","model":"Uno","price":30000}`, key)
	if first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first POST = %d, replayed %q; want 201 and not replayed", first.Status, first.Header.Get("Idempotent-Replayed"))
	}
	// The same request, members reordered and spaced differently: the same request as parsed JSON.
	again := c.DoWith("POST", "/api/v1/vehicles", `{ "price": 30000, "model":"Uno", "brand":"Fiat" }`, key)
	if again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("repeat = %d, replayed %q; want 201 replayed", again.Status, again.Header.Get("Idempotent-Replayed"))
	}
	if string(again.Data) != string(first.Data) || again.Header.Get("ETag") != first.Header.Get("ETag") {
		t.Errorf("repeat = %s %s; want the first answer %s %s", again.Header.Get("ETag"), again.Data,
			first.Header.Get("ETag"), first.Data)
	}
	if list := c.Do("GET", "/api/v1/vehicles", nil); list.Pagination.Total != 1 {
		t.Errorf("vehicles after a repeat = %d; want 1", list.Pagination.Total)
	}

	mismatches := []struct {
		name, path, body string
	}{
		{"another body", "/api/v1/vehicles", `{"brand":"Fiat","model":"Uno","price":30001}`},
		{"another path", "/api/v1/clients", `{"type":"individual","name":"Ana","cpf":"52998224725"}`},
	}
	for _, m := range mismatches {
		res := c.DoWith("POST", m.path, m.body, key)
		if res.Status != 422 || !strings.Contains(res.Error.Message, "Idempotency-Key") {
			t.Errorf("%s with a used key = %d %s; want 422 naming Idempotency-Key", m.name, res.Status, res.Body)
		}
	}

	// A request that created nothing is not remembered: its key can be used again.
	other := http.Header{"Idempotency-Key": {"order-43"}}
	if res := c.DoWith("POST", "/api/v1/vehicles", `{"brand":"Fiat"}`, other); res.Status != 400 {
		t.Fatalf("invalid POST = %d; want 400", res.Status)
	}
	if res := c.DoWith("POST", "/api/v1/vehicles", `{"brand":"Fiat","model":"Palio","price":1}`, other); res.Status != 201 ||
		res.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("valid POST after an invalid one with the key = %d, replayed %q; want 201 created", res.Status,
			res.Header.Get("Idempotent-Replayed"))
	}

	for _, bad := range []string{"", strings.Repeat("k", 256), "chave-é"} {
		res := c.DoWith("POST", "/api/v1/vehicles", `{"brand":"Fiat","model":"Uno","price":1}`, http.Header{"Idempotency-Key": {bad}})
		if res.Status != 400 || len(res.Error.Details) != 1 || res.Error.Details[0].Field != "Idempotency-Key" {
			t.Errorf("POST with Idempotency-Key %q = %d %s; want 400 naming the header", bad, res.Status, res.Body)
		}
	}
}

// Twenty requests racing with one key create exactly one record, and every one of them is told so.
func TestIdempotencyKeyRace(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	const n = 20
	statuses := make([]int, n)
	replayed := make([]bool, n)
	ids := make([]string, n)
	var wg sync.WaitGroup
	client := c.Do("POST", "/api/v1/clients", map[string]any{"type": "individual", "name": "Ana", "cpf": "52998224725"})
	var cl struct {
		ID string `json:"id"`
	}
	client.Decode(t, &cl)
	body := map[string]any{"title": "Retry me", "client_id": cl.ID}
	for i := range n {
		wg.Go(func() {
			res := c.DoWith("POST", "/api/v1/deals", body, http.Header{"Idempotency-Key": {"deal-retry"}})
			statuses[i], replayed[i] = res.Status, res.Header.Get("Idempotent-Replayed") == "true"
			var d struct {
				ID string `json:"id"`
			}
			if res.Status == 201 {
				res.Decode(t, &d)
			}
			ids[i] = d.ID
		})
	}
	wg.Wait()
	created := 0
	for i := range n {
		if statuses[i] != 201 || ids[i] != ids[0] {
			t.Errorf("racing POST %d = %d id %s; want 201 with the one id %s", i, statuses[i], ids[i], ids[0])
		}
		if !replayed[i] {
			created++
		}
	}
	if created != 1 {
		t.Errorf("%d racing POSTs: %d answered as the creation; want 1 (the others replayed)", n, created)
	}
	if list := c.Do("GET", "/api/v1/deals", nil); list.Pagination.Total != 1 {
		t.Errorf("deals after %d racing POSTs with one key = %d; want 1", n, list.Pagination.Total)
	}
}

// A repeat is answered from its claim even when what the first creation checked has changed since
// (here the deal's vehicle was archived, so the same creation would now be refused), and a used key
// is named before whatever else is wrong with another request.
func TestIdempotencyKeyReplayAfterChange(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var cl, v struct {
		ID string `json:"id"`
	}
	c.Do("POST", "/api/v1/clients", map[string]any{"type": "individual", "name": "Ana", "cpf": "52998224725"}).Decode(t, &cl)
	c.Do("POST", "/api/v1/vehicles", map[string]any{"brand": "Fiat", "model": "Uno", "price": 30000}).Decode(t, &v)
	key := http.Header{"Idempotency-Key": {"deal-after-change"}}
	body := map[string]any{"title": "Venda", "client_id": cl.ID, "vehicle_id": v.ID}
	first := c.DoWith("POST", "/api/v1/deals", body, key)
	if first.Status != 201 {
		t.Fatalf("first POST = %d %s; want 201", first.Status, first.Body)
	}
	if res := c.Do("DELETE", "/api/v1/vehicles/"+v.ID, nil); res.Status != 200 {
		t.Fatalf("DELETE the deal's vehicle = %d %s; want 200", res.Status, res.Body)
	}
	if res := c.DoWith("POST", "/api/v1/deals", body, http.Header{"Idempotency-Key": {"another-key"}}); res.Status < 400 || res.Status >= 500 {
		t.Fatalf("the same creation with a fresh key after the change = %d %s; want it refused", res.Status, res.Body)
	}
	again := c.DoWith("POST", "/api/v1/deals", body, key)
	if again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Data) != string(first.Data) {
		t.Errorf("repeat after the change = %d, replayed %q, %s; want the first answer replayed, %s",
			again.Status, again.Header.Get("Idempotent-Replayed"), again.Data, first.Data)
	}
	res := c.DoWith("POST", "/api/v1/deals", map[string]any{"title": ""}, key)
	if res.Status != 422 || !strings.Contains(res.Error.Message, "Idempotency-Key") {
		t.Errorf("an invalid request with the used key = %d %s; want 422 naming Idempotency-Key", res.Status, res.Body)
	}
	if list := c.Do("GET", "/api/v1/deals", nil); list.Pagination.Total != 1 {
		t.Errorf("deals = %d; want 1", list.Pagination.Total)
	}
}
