package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/patio-dev/patio/dev/apitest"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/httpapi"
	"github.com/patio-dev/patio/shared/patio"
)

// vehicle is the representation as a client sees it.
type vehicle struct {
	ID         string          `json:"id"`
	Title      string          `json:"title"`
	Brand      string          `json:"brand"`
	Model      string          `json:"model"`
	Plate      *string         `json:"plate"`
	Price      json.Number     `json:"price"`
	Phase      string          `json:"phase"`
	Status     string          `json:"status"`
	ModelYear  *int            `json:"model_year"`
	MileageKm  *int            `json:"mileage_km"`
	SoldAt     *string         `json:"sold_at"`
	CreatedAt  string          `json:"created_at"`
	UpdatedAt  string          `json:"updated_at"`
	Version    *string         `json:"version"`
	Unexpected json.RawMessage `json:"-"`
	Revision   int             `json:"revision"`
}

func newVehicle(extra map[string]any) map[string]any {
	return with(map[string]any{"brand": "Toyota", "model": "Corolla", "price": 120000}, extra)
}

func TestCreateAndGetVehicle(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	res := c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{
		"version": "XEi 2.0", "model_year": 2024, "manufacture_year": 2023, "plate": "abc-1234",
		"renavam": "00639884962", "vin": "9br53zec4k8123456", "price": 19999.99,
	}))
	if res.Status != http.StatusCreated {
		t.Fatalf("POST = %d %s; want 201", res.Status, res.Body)
	}
	var v vehicle
	res.Decode(t, &v)
	if v.Title != "Toyota Corolla XEi 2.0 2024" {
		t.Errorf("derived title = %q; want %q", v.Title, "Toyota Corolla XEi 2.0 2024")
	}
	if v.Plate == nil || *v.Plate != "ABC1234" {
		t.Errorf("plate = %v; want ABC1234", v.Plate)
	}
	if v.Phase != "preparacao" || v.Status != "ativo" {
		t.Errorf("phase, status = %q, %q; want preparacao, ativo", v.Phase, v.Status)
	}
	if v.Price.String() != "19999.99" {
		t.Errorf("price = %s; want 19999.99", v.Price)
	}
	if len(v.CreatedAt) != len("2006-01-02T15:04:05Z") || !strings.HasSuffix(v.CreatedAt, "Z") {
		t.Errorf("created_at = %q; want YYYY-MM-DDTHH:MM:SSZ", v.CreatedAt)
	}
	var raw map[string]any
	res.Decode(t, &raw)
	for _, f := range []string{"color", "description", "sold_at", "sold_deal_id", "purchase_price", "fuel"} {
		if val, ok := raw[f]; !ok || val != nil {
			t.Errorf("field %s = %v (present %v); want null", f, val, ok)
		}
	}

	got := c.Do("GET", "/api/v1/vehicles/"+v.ID, nil)
	if got.Status != http.StatusOK || string(got.Data) != string(res.Data) {
		t.Errorf("GET = %d %s; want 200 %s", got.Status, got.Data, res.Data)
	}
}

func TestVehicleValidation(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	tests := []struct {
		name string
		body any
		want string // substring of the message
	}{
		{name: "missing brand", body: map[string]any{"model": "X", "price": 1}, want: "brand is required"},
		{name: "missing price", body: map[string]any{"brand": "X", "model": "Y"}, want: "price is required"},
		{name: "unknown field", body: newVehicle(map[string]any{"colour": "red"}), want: "unknown field colour"},
		{name: "server field", body: newVehicle(map[string]any{"id": "x"}), want: "id is managed by the server"},
		{name: "three decimals", body: newVehicle(map[string]any{"price": 1.005}), want: "price"},
		{name: "price as string", body: newVehicle(map[string]any{"price": "10"}), want: "price"},
		{name: "bad plate", body: newVehicle(map[string]any{"plate": "AB12345"}), want: "plate"},
		{name: "bad renavam", body: newVehicle(map[string]any{"renavam": "00639884961"}), want: "renavam"},
		{name: "vin with I", body: newVehicle(map[string]any{"vin": "9BR53ZEC4K812345I"}), want: "vin"},
		{name: "model year too far", body: newVehicle(map[string]any{"manufacture_year": 2020, "model_year": 2022}), want: "model_year"},
		{name: "year too old", body: newVehicle(map[string]any{"model_year": 1899}), want: "model_year"},
		{name: "sold on create", body: newVehicle(map[string]any{"status": "vendido"}), want: "status"},
		{name: "bad fuel", body: newVehicle(map[string]any{"fuel": "vapor"}), want: "fuel must be one of"},
		{name: "null phase", body: newVehicle(map[string]any{"phase": nil}), want: "phase must not be null"},
		{name: "array body", body: "[]", want: "JSON object"},
		{name: "two objects", body: `{"brand":"a"}{"brand":"b"}`, want: "JSON object"},
		{name: "not json", body: "brand=x", want: "JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := c.With(t)
			res := c.Do("POST", "/api/v1/vehicles", tt.body)
			if res.Status != http.StatusBadRequest || res.ErrorCode() != "VALIDATION_ERROR" {
				t.Fatalf("POST %v = %d %s; want 400 VALIDATION_ERROR", tt.body, res.Status, res.Body)
			}
			if !strings.Contains(res.Error.Message, tt.want) {
				t.Errorf("message = %q; want it to contain %q", res.Error.Message, tt.want)
			}
		})
	}
}

func TestWrongContentType(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	req, _ := http.NewRequest("POST", s.url+"/api/v1/vehicles", strings.NewReader(`{"brand":"a","model":"b","price":1}`))
	req.Header.Set("Authorization", "Bearer "+c.Key)
	req.Header.Set("Content-Type", "text/plain")
	if res := c.Send(req); res.Status != 400 || res.ErrorCode() != "VALIDATION_ERROR" {
		t.Errorf("text/plain POST = %d %s; want 400 VALIDATION_ERROR", res.Status, res.Body)
	}
	req, _ = http.NewRequest("POST", s.url+"/api/v1/vehicles", strings.NewReader(`{"brand":"a","model":"b","price":1}`))
	req.Header.Set("Authorization", "Bearer "+c.Key)
	if res := c.Send(req); res.Status != 201 {
		t.Errorf("POST without Content-Type = %d %s; want 201", res.Status, res.Body)
	}
}

func TestConcurrentDuplicatePlates(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	const n = 50
	count := concurrently(n, func(i int) *apitest.Response {
		plate := "ABC1234"
		if i%2 == 1 {
			plate = "abc1c34"
		}
		return c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": plate}))
	})
	if count["201 "] != 1 || count["422 DUPLICATE_ENTRY"] != n-1 {
		t.Errorf("50 concurrent POSTs of one plate gave %v; want 1 × 201 and 49 × 422 DUPLICATE_ENTRY", count)
	}
}

func TestPlateChangeMovesGuard(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var a, b vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": "AAA1111"})).Decode(t, &a)
	c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": "BBB2222"})).Decode(t, &b)
	if res := c.Do("PUT", "/api/v1/vehicles/"+b.ID, map[string]any{"plate": "AAA1B11"}); res.Status != 422 || res.ErrorCode() != "DUPLICATE_ENTRY" {
		t.Errorf("PUT to a taken plate (other spelling) = %d %s; want 422 DUPLICATE_ENTRY", res.Status, res.Body)
	}
	if res := c.Do("PUT", "/api/v1/vehicles/"+a.ID, map[string]any{"plate": "CCC3333"}); res.Status != 200 {
		t.Fatalf("PUT new plate = %d %s", res.Status, res.Body)
	}
	if res := c.Do("PUT", "/api/v1/vehicles/"+b.ID, map[string]any{"plate": "AAA1111"}); res.Status != 200 {
		t.Errorf("PUT freed plate = %d %s; want 200", res.Status, res.Body)
	}
	if res := c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": "CCC3333"})); res.Status != 422 {
		t.Errorf("POST moved plate = %d; want 422", res.Status)
	}
	if res := c.Do("PUT", "/api/v1/vehicles/"+a.ID, map[string]any{"plate": nil}); res.Status != 200 {
		t.Fatalf("PUT null plate = %d %s", res.Status, res.Body)
	}
	if res := c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"plate": "CCC3333"})); res.Status != 201 {
		t.Errorf("POST cleared plate = %d %s; want 201", res.Status, res.Body)
	}
}

func TestPagingSortedList(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	const n = 250
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			extra := map[string]any{"price": (i % 37) * 1000, "title": fmt.Sprintf("Carro %03d", i%50)}
			if i%3 != 0 {
				extra["model_year"] = 2000 + i%20
			}
			if res := c.Do("POST", "/api/v1/vehicles", newVehicle(extra)); res.Status != 201 {
				t.Errorf("POST = %d %s", res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	for _, sortBy := range []string{"-created_at", "price", "-price", "title", "-model_year", "model_year", "updated_at"} {
		t.Run(sortBy, func(t *testing.T) {
			all := listAll(t, c.With(t), "/api/v1/vehicles", sortBy, 7, n, func(v vehicle) string { return v.ID })
			checkOrder(t, sortBy, all)
		})
	}
}

// checkOrder asserts the list is ordered by the sort field, records without a value last.
func checkOrder(t *testing.T, sortBy string, all []vehicle) {
	t.Helper()
	desc := strings.HasPrefix(sortBy, "-")
	field := strings.TrimPrefix(sortBy, "-")
	key := func(v vehicle) (float64, bool) {
		switch field {
		case "price":
			f, _ := v.Price.Float64()
			return f, true
		case "model_year":
			if v.ModelYear == nil {
				return 0, false
			}
			return float64(*v.ModelYear), true
		}
		return 0, true
	}
	ok := sort.SliceIsSorted(all, func(i, j int) bool {
		switch field {
		case "created_at":
			if desc {
				return all[i].CreatedAt > all[j].CreatedAt || (all[i].CreatedAt == all[j].CreatedAt && all[i].ID > all[j].ID)
			}
			return all[i].CreatedAt < all[j].CreatedAt
		case "updated_at":
			return all[i].UpdatedAt < all[j].UpdatedAt || (all[i].UpdatedAt == all[j].UpdatedAt && all[i].ID < all[j].ID)
		case "title":
			return all[i].Title < all[j].Title || (all[i].Title == all[j].Title && all[i].ID < all[j].ID)
		}
		a, aok := key(all[i])
		b, bok := key(all[j])
		if aok != bok {
			return aok // with a value first, in either direction
		}
		if a != b {
			return (a < b) != desc
		}
		return (all[i].ID < all[j].ID) != desc
	})
	if !ok {
		t.Errorf("list by %s is not in order", sortBy)
	}
}

func TestPricesRoundTripAndSort(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	prices := []string{"999999999.99", "0.1", "19999.99", "0", "19999.9", "0.01"}
	for _, p := range prices {
		res := c.Do("POST", "/api/v1/vehicles", fmt.Sprintf(`{"brand":"Fiat","model":"Uno","price":%s}`, p))
		if res.Status != 201 {
			t.Fatalf("POST price %s = %d %s", p, res.Status, res.Body)
		}
		var v vehicle
		res.Decode(t, &v)
		if v.Price.String() != p {
			t.Errorf("price %s came back as %s", p, v.Price)
		}
	}
	res := c.Do("GET", "/api/v1/vehicles?sort=price", nil)
	var items []vehicle
	res.Decode(t, &items)
	var got []string
	for _, v := range items {
		got = append(got, v.Price.String())
	}
	want := "0,0.01,0.1,19999.9,19999.99,999999999.99"
	if strings.Join(got, ",") != want {
		t.Errorf("sort=price gave %v; want %s", got, want)
	}
	res = c.Do("GET", "/api/v1/vehicles?price_min=0.1&price_max=19999.99", nil)
	if res.Pagination.Total != 3 {
		t.Errorf("price_min=0.1&price_max=19999.99 total = %d; want 3", res.Pagination.Total)
	}
}

func TestArchiveAndReactivate(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var v vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)
	checkSoftDelete(t, c, "/api/v1/vehicles", v.ID, "arquivado", map[string]any{"status": "reservado"}, "reservado")
}

func TestPutPartialAndNoop(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var v vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(map[string]any{"version": "GLi", "color": "prata"})).Decode(t, &v)
	res := c.Do("PUT", "/api/v1/vehicles/"+v.ID, map[string]any{"version": nil, "price": 99000.5})
	var u vehicle
	res.Decode(t, &u)
	if res.Status != 200 || u.Version != nil || u.Price.String() != "99000.5" || u.Brand != "Toyota" {
		t.Errorf("partial PUT = %d %s", res.Status, res.Body)
	}
	same := c.Do("PUT", "/api/v1/vehicles/"+v.ID, map[string]any{"price": 99000.50})
	if same.Status != 200 || string(same.Data) != string(res.Data) {
		t.Errorf("no-op PUT = %d %s; want 200 and the unchanged vehicle", same.Status, same.Body)
	}
	if bad := c.Do("PUT", "/api/v1/vehicles/"+v.ID, map[string]any{"brand": nil}); bad.Status != 400 {
		t.Errorf("PUT brand null = %d; want 400", bad.Status)
	}
	if sold := c.Do("PUT", "/api/v1/vehicles/"+v.ID, map[string]any{"status": "vendido"}); sold.Status != 200 {
		t.Errorf("PUT vendido = %d %s", sold.Status, sold.Body)
	} else {
		var sv vehicle
		sold.Decode(t, &sv)
		if sv.SoldAt == nil {
			t.Errorf("sold vehicle has no sold_at")
		}
	}
}

func TestListFilters(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	c.Do("POST", "/api/v1/vehicles", map[string]any{"brand": "Volkswagen", "model": "Gol", "price": 50000, "plate": "GOL1234", "fuel": "flex", "model_year": 2015, "manufacture_year": 2015})
	c.Do("POST", "/api/v1/vehicles", map[string]any{"brand": "Citroën", "model": "C3", "price": 70000, "fuel": "gasolina", "model_year": 2020, "manufacture_year": 2019})
	c.Do("POST", "/api/v1/vehicles", map[string]any{"brand": "Fiat", "model": "Uno", "price": 30000, "status": "reservado"})
	testenv.Index(t, dynamostore.IndexerOf(s.store)) // q searches what the indexer has followed
	good := []filterCase{
		{"brand=volkswagen", 1},
		{"brand=CITROEN", 1},
		{"q=gol", 1},
		{"q=citro", 1},
		{"q=c3", 1},       // word prefixes: the C3 (a plate is one word in each spelling, GOL1234 and GOL1C34)
		{"q=gol1", 1},     // the plate starts with it
		{"q=gol1c34", 1},  // its Mercosul spelling
		{"q=GOL1C", 1},    // which starts with this
		{"q=gol-1234", 1}, // typed with its dash
		{"q=Gol-1C34", 1},
		{"q=gol-12", 0},   // a dash that is not a whole plate's cuts words apart: no word starts with 12
		{"q=1c34", 0},     // not the start of a word
		{"q=itroen", 0},   // nor is this
		{"q=fiat+uno", 1}, // every term starts a word
		{"plate=GOL1C34", 1},
		{"plate=gol-1234", 1},
		{"fuel=flex,gasolina", 2},
		{"status=reservado", 1},
		{"status=ativo,reservado", 3},
		{"year_min=2016", 1},
		{"year_max=2016", 1},
		{"price_max=50000", 2},
		{"created_from=2000-01-01&created_to=2999-12-31", 3},
		{"created_to=2000-01-01", 0},
	}
	bad := []string{"limit=0", "limit=101", "limit=abc", "page=0", "page=1.5", "sort=color", "colour=red",
		"fuel=vapor", "created_from=2026-13-01", "price_min=-1", "page=1&page=2"}
	checkFilters(t, c, "/api/v1/vehicles", good, bad)
	if res := c.Do("GET", "/api/v1/vehicles?page=99", nil); res.Status != 200 || string(res.Data) != "[]" {
		t.Errorf("page past the end = %d %s; want 200 []", res.Status, res.Data)
	}
}

// TestListSaysHowCurrentItsIndexIs: a list read from what the indexer keeps (a brand) says, in
// its headers, up to which write its derived items hold every change and how long the last one
// took to reach them; a list read from the records alone (the default list) says nothing of it.
func TestListSaysHowCurrentItsIndexIs(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	before := time.Now().Add(-time.Second) // the API's clock may differ by its stamp's rounding
	c.Do("POST", "/api/v1/vehicles", map[string]any{"brand": "Jeep", "model": "Renegade", "price": 90000})
	testenv.Index(t, dynamostore.IndexerOf(s.store))
	res := c.Do("GET", "/api/v1/vehicles?brand=jeep", nil)
	through, err := time.Parse(time.RFC3339Nano, res.Header.Get("Patio-Index-Through"))
	lag, lerr := strconv.ParseFloat(res.Header.Get("Patio-Index-Lag"), 64)
	if res.Status != 200 || err != nil || lerr != nil || through.Before(before) || through.After(time.Now()) || lag < 0 {
		t.Errorf("GET ?brand=jeep = %d, Patio-Index-Through %q (%v), Patio-Index-Lag %q (%v); want the create's write time and a lag",
			res.Status, res.Header.Get("Patio-Index-Through"), err, res.Header.Get("Patio-Index-Lag"), lerr)
	}
	if res := c.Do("GET", "/api/v1/vehicles", nil); res.Header.Get("Patio-Index-Lag") != "" || res.Header.Get("Patio-Index-Through") != "" {
		t.Errorf("the default list says Patio-Index-Lag %q, Through %q; want neither (it reads the records alone)",
			res.Header.Get("Patio-Index-Lag"), res.Header.Get("Patio-Index-Through"))
	}
}

func TestAuthAndRouting(t *testing.T) {
	s := newStack(t)
	team, c := s.team(t)
	_, other := s.team(t)
	var v vehicle
	c.Do("POST", "/api/v1/vehicles", newVehicle(nil)).Decode(t, &v)

	if res := other.Do("GET", "/api/v1/vehicles/"+v.ID, nil); res.Status != 404 || res.ErrorCode() != "NOT_FOUND" {
		t.Errorf("other team's GET = %d %s; want 404 NOT_FOUND", res.Status, res.Body)
	}
	if res := other.Do("PUT", "/api/v1/vehicles/"+v.ID, map[string]any{"price": 1}); res.Status != 404 {
		t.Errorf("other team's PUT = %d; want 404", res.Status)
	}
	reader, _ := s.client(t, team.ID, "vehicles:read")
	if res := reader.Do("POST", "/api/v1/vehicles", newVehicle(nil)); res.Status != 403 || res.ErrorCode() != "FORBIDDEN" {
		t.Errorf("read-only POST = %d %s; want 403 FORBIDDEN", res.Status, res.Body)
	}
	if res := reader.Do("GET", "/api/v1/vehicles", nil); res.Status != 200 {
		t.Errorf("read-only GET = %d; want 200", res.Status)
	}
	revoked, key := s.client(t, team.ID)
	if _, err := accountdb.NewAccounts(s.store.DB()).RevokeKey(t.Context(), key.ID); err != nil {
		t.Fatal(err)
	}
	if res := revoked.Do("GET", "/api/v1/vehicles", nil); res.Status != 401 || res.ErrorCode() != "UNAUTHORIZED" {
		t.Errorf("revoked key = %d %s; want 401 UNAUTHORIZED", res.Status, res.Body)
	}
	anon := c.With(t)
	anon.Key = ""
	if res := anon.Do("GET", "/api/v1/vehicles", nil); res.Status != 401 {
		t.Errorf("no key = %d; want 401", res.Status)
	}
	anon.Key = "dk_test_short"
	if res := anon.Do("GET", "/api/v1/vehicles", nil); res.Status != 401 {
		t.Errorf("malformed key = %d; want 401", res.Status)
	}
	req, _ := http.NewRequest("GET", s.url+"/api/v1/vehicles", nil)
	req.Header.Set("Authorization", "bEaReR "+c.Key)
	if res := c.Send(req); res.Status != 200 {
		t.Errorf("lower-case scheme = %d; want 200", res.Status)
	}
	for _, path := range []string{"/api/v1/activities", "/api/v1/financial/summary", "/api/v1/webhooks", "/api/v1/webhooks/" + v.ID, "/api/v2/vehicles", "/", "/api/v1/vehicles/" + v.ID + "/x"} {
		for _, key := range []string{"", c.Key} {
			anon.Key = key
			if res := anon.Do("GET", path, nil); res.Status != 404 || res.ErrorCode() != "NOT_FOUND" {
				t.Errorf("GET %s (key %v) = %d %s; want 404 NOT_FOUND", path, key != "", res.Status, res.Body)
			}
		}
	}
	for _, mr := range [][2]string{{"PATCH", "/api/v1/vehicles/" + v.ID}, {"DELETE", "/api/v1/vehicles"}, {"PUT", "/api/v1/vehicles"}} {
		if res := c.Do(mr[0], mr[1], nil); res.Status != 404 {
			t.Errorf("%s %s = %d; want 404", mr[0], mr[1], res.Status)
		}
	}
	if res := c.Do("GET", "/api/v1/vehicles/not-a-uuid", nil); res.Status != 404 {
		t.Errorf("GET non-UUID id = %d; want 404", res.Status)
	}
	if res := c.Do("GET", "/api/v1/vehicles/"+v.ID+"?x=1", nil); res.Status != 400 {
		t.Errorf("GET with unknown query parameter = %d; want 400", res.Status)
	}
	_ = patio.Scopes
}

// A database out of reach is a 503 with Retry-After, in the envelope, leaking nothing of why.
func TestDatabaseDownIsUnavailable(t *testing.T) {
	testenv.Tables(t)
	cfg := testenv.AWSConfig(t).Copy()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there any more: every DynamoDB call is refused
	cfg.BaseEndpoint = aws.String(dead)
	cfg.ConfigSources = nil // else AWS_ENDPOINT_URL_DYNAMODB, which names the live engine, wins
	store := dynamostore.New(cfg, envConfig(t).Tables)
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Keys: accountdb.NewAccounts(store.DB()), Limiter: accountdb.NewCounters(store.DB()),
		Vehicles: patio.NewVehicles(store.Vehicles()), Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	c := &apitest.Client{T: t, BaseURL: srv.URL, Key: "dk_test_" + strings.Repeat("a", 40)}
	for _, req := range [][2]string{{"GET", "/api/v1/vehicles"}, {"POST", "/api/v1/vehicles"}} {
		res := c.Do(req[0], req[1], newVehicle(nil))
		if res.Status != 503 || res.ErrorCode() != "SERVICE_UNAVAILABLE" || res.Header.Get("Retry-After") == "" {
			t.Fatalf("%s with the database down = %d %s (Retry-After %q); want 503 SERVICE_UNAVAILABLE with Retry-After",
				req[0], res.Status, res.Body, res.Header.Get("Retry-After"))
		}
		for _, leak := range []string{"127.0.0.1", "dial", "dynamo", "connect", strings.TrimPrefix(dead, "http://")} {
			if strings.Contains(strings.ToLower(string(res.Body)), leak) {
				t.Errorf("503 body %s leaks %q", res.Body, leak)
			}
		}
	}
}

// A database that accepts connections and never answers (hung, not down) still gets every request
// a prompt 503 in the envelope: the request's deadline ends the wait.
func TestDatabaseHungIsUnavailable(t *testing.T) {
	testenv.Tables(t)
	cfg := testenv.AWSConfig(t).Copy()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, conn) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	cfg.BaseEndpoint = aws.String("http://" + ln.Addr().String())
	cfg.ConfigSources = nil
	store := dynamostore.New(cfg, envConfig(t).Tables)
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Keys: accountdb.NewAccounts(store.DB()), Limiter: accountdb.NewCounters(store.DB()), Deadline: time.Second,
		Vehicles: patio.NewVehicles(store.Vehicles()), Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	c := &apitest.Client{T: t, BaseURL: srv.URL, Key: "dk_test_" + strings.Repeat("a", 40),
		HTTP: &http.Client{Timeout: 30 * time.Second}} // a hung answer fails the test instead of hanging it
	res := c.Do("GET", "/api/v1/vehicles", nil)
	if res.Status != 503 || res.ErrorCode() != "SERVICE_UNAVAILABLE" {
		t.Fatalf("GET with the database hung = %d %s; want 503 SERVICE_UNAVAILABLE", res.Status, res.Body)
	}
}
