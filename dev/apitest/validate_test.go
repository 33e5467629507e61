package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// recorder is a testing.TB that records Errorf calls instead of failing the test. Only Helper and
// Errorf may be called on it; validate calls nothing else.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

const vehicleID = "01963b6e-4f1a-7c2d-9e8f-0a1b2c3d4e5f"

// sampleVehicle is a vehicle as the domain marshals it, every optional field set.
func sampleVehicle(t testing.TB) map[string]any {
	t.Helper()
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	ts := patio.NewTimestamp(time.Date(2026, 3, 14, 12, 30, 0, 0, time.UTC))
	pp := money.Cents(9_500_050)
	v := patio.Vehicle{
		ID: vehicleID, Title: "Toyota Corolla XEi 2.0 2024", Brand: "Toyota", Model: "Corolla",
		Version: str("XEi 2.0"), Plate: str("ABC1D23"), Renavam: str("00639884962"), VIN: str("9BR53ZEC4K8123456"),
		ManufactureYear: num(2023), ModelYear: num(2024), MileageKm: num(18500), Color: str("prata"),
		Fuel: str("flex"), Transmission: str("cvt"), Price: 11_999_999, PurchasePrice: &pp,
		Phase: "disponivel", Status: "vendido", Description: str("Único dono."),
		SoldAt: &ts, SoldDealID: str("01963b6e-5000-7c2d-9e8f-0a1b2c3d4e5f"), CreatedAt: ts, UpdatedAt: ts, Revision: 3,
	}
	return roundTrip(t, v)
}

// sparseVehicle is a vehicle with only the required fields set: the optional ones marshal as null.
func sparseVehicle(t testing.TB) map[string]any {
	t.Helper()
	ts := patio.NewTimestamp(time.Date(2026, 3, 14, 12, 30, 0, 0, time.UTC))
	return roundTrip(t, patio.Vehicle{ID: vehicleID, Title: "Fiat Uno", Brand: "Fiat", Model: "Uno",
		Price: 3_000_000, Phase: "preparacao", Status: "ativo", CreatedAt: ts, UpdatedAt: ts, Revision: 1})
}

const dealID = "01963b6e-5000-7c2d-9e8f-0a1b2c3d4e5f"

// sampleDeal is a won deal as the domain marshals it, every optional field set.
func sampleDeal(t testing.TB) map[string]any {
	t.Helper()
	str := func(s string) *string { return &s }
	ts := patio.NewTimestamp(time.Date(2026, 3, 14, 12, 30, 0, 0, time.UTC))
	day, err := patio.ParseDate("2026-04-30")
	if err != nil {
		t.Fatal(err)
	}
	value := money.Cents(11_999_999)
	return roundTrip(t, patio.Deal{
		ID: dealID, Title: "Corolla for Ana", ClientID: "01963b6e-4000-7c2d-9e8f-0a1b2c3d4e5f", VehicleID: str(vehicleID),
		Value: &value, Phase: "fechamento", Status: patio.DealWon, PaymentMethod: str("pix"), ExpectedCloseDate: &day,
		Notes: str("Entrega sábado."), ClosedAt: &ts, CreatedAt: ts, UpdatedAt: ts, Revision: 3,
	})
}

// sparseDeal is an open deal with only the required fields set: the optional ones marshal as null.
func sparseDeal(t testing.TB) map[string]any {
	t.Helper()
	ts := patio.NewTimestamp(time.Date(2026, 3, 14, 12, 30, 0, 0, time.UTC))
	return roundTrip(t, patio.Deal{ID: dealID, Title: "Lead", ClientID: "01963b6e-4000-7c2d-9e8f-0a1b2c3d4e5f",
		Phase: patio.DefaultDealPhase, Status: patio.DealOpen, CreatedAt: ts, UpdatedAt: ts, Revision: 1})
}

func roundTrip(t testing.TB, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// with returns a copy of m with the given members set; a value of deleteKey removes the member.
func with(m map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == deleteKey {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

type deleted struct{}

var deleteKey = deleted{}

func envelope(data any) map[string]any { return map[string]any{"success": true, "data": data} }

func errorEnvelope(code, msg string) map[string]any {
	return map[string]any{"success": false, "error": map[string]any{"code": code, "message": msg}}
}

func listEnvelope(items []any, total int) map[string]any {
	return map[string]any{"success": true, "data": items,
		"pagination": map[string]any{"page": 1, "limit": 20, "total": total, "pages": (total + 19) / 20, "next_cursor": nil}}
}

// exchange is a hand-made request and response.
type exchange struct {
	name    string
	method  string
	path    string
	status  int
	header  map[string]string // replaces the default headers' values; "" removes one
	body    any               // marshalled to JSON unless a string
	wantErr string            // substring of the reported failure; "" when the response is valid
}

func (e exchange) run(t testing.TB) []string {
	t.Helper()
	u, err := url.Parse("http://127.0.0.1:3000" + e.path)
	if err != nil {
		t.Fatal(err)
	}
	req := &http.Request{Method: e.method, URL: u, Header: http.Header{"Authorization": {"Bearer dk_test_x"}}}
	res := &http.Response{StatusCode: e.status, Header: http.Header{}, Request: req}
	res.Header.Set("Content-Type", "application/json")
	res.Header.Set("X-Request-Id", "5d0c4a52-5c4e-4d7e-9b1a-4a6f2f6c0b71")
	res.Header.Set("ETag", `"r3"`) // single-record answers need it; others ignore it
	for k, v := range e.header {
		if v == "" {
			res.Header.Del(k)
		} else {
			res.Header.Set(k, v)
		}
	}
	var body []byte
	switch b := e.body.(type) {
	case string:
		body = []byte(b)
	default:
		if body, err = json.Marshal(b); err != nil {
			t.Fatal(err)
		}
		body = append(body, '\n')
	}
	rec := &recorder{}
	validate(rec, req, res, body)
	return rec.failures()
}

func TestValidate(t *testing.T) {
	full, sparse := sampleVehicle(t), sparseVehicle(t)
	one := "/api/v1/vehicles/" + vehicleID
	won, open := sampleDeal(t), sparseDeal(t)
	lost := with(open, "status", "perdido", "lost_reason", "preco", "closed_at", "2026-03-15T09:00:00Z")
	deal := "/api/v1/deals/" + dealID
	tests := []exchange{
		// Valid responses.
		{name: "get full vehicle", method: "GET", path: one, status: 200, body: envelope(full)},
		{name: "get sparse vehicle", method: "GET", path: one, status: 200, body: envelope(sparse)},
		{name: "create", method: "POST", path: "/api/v1/vehicles", status: 201, body: envelope(full)},
		{name: "update", method: "PUT", path: one, status: 200, body: envelope(sparse)},
		{name: "archive", method: "DELETE", path: one, status: 200, body: envelope(with(sparse, "status", "arquivado"))},
		{name: "list", method: "GET", path: "/api/v1/vehicles?status=ativo,vendido&limit=20", status: 200,
			body: listEnvelope([]any{full, sparse}, 2)},
		{name: "empty list", method: "GET", path: "/api/v1/vehicles?page=9", status: 200, body: listEnvelope([]any{}, 0)},
		{name: "rate-limit headers", method: "GET", path: one, status: 200, body: envelope(full),
			header: map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59", "X-RateLimit-Reset": "1773491460"}},
		{name: "charset", method: "GET", path: one, status: 200, body: envelope(full),
			header: map[string]string{"Content-Type": "application/json; charset=utf-8"}},
		{name: "stage prefix", method: "GET", path: "/prod" + one, status: 200, body: envelope(full)},
		{name: "400", method: "POST", path: "/api/v1/vehicles", status: 400, body: errorEnvelope("VALIDATION_ERROR", "brand is required")},
		{name: "401", method: "GET", path: "/api/v1/vehicles", status: 401, body: errorEnvelope("UNAUTHORIZED", "missing API key")},
		{name: "403", method: "DELETE", path: one, status: 403, body: errorEnvelope("FORBIDDEN", "needs vehicles:write")},
		{name: "404", method: "GET", path: one, status: 404, body: errorEnvelope("NOT_FOUND", "vehicle not found")},
		{name: "422 duplicate", method: "PUT", path: one, status: 422, body: errorEnvelope("DUPLICATE_ENTRY", "plate taken")},
		{name: "422 conflict", method: "PUT", path: one, status: 422, body: errorEnvelope("VALIDATION_ERROR", "sold by a deal")},
		{name: "429", method: "GET", path: "/api/v1/vehicles", status: 429, body: errorEnvelope("RATE_LIMIT_EXCEEDED", "slow down"),
			header: map[string]string{"Retry-After": "12"}},
		{name: "500", method: "POST", path: "/api/v1/vehicles", status: 500, body: errorEnvelope("INTERNAL_ERROR", "retry later")},
		{name: "planned module", method: "GET", path: "/api/v1/activities", status: 404, body: errorEnvelope("NOT_FOUND", "no route")},
		{name: "planned module item", method: "PUT", path: "/api/v1/webhooks/" + vehicleID, status: 404, body: errorEnvelope("NOT_FOUND", "no route")},
		{name: "unknown version", method: "GET", path: "/api/v2/vehicles", status: 404, body: errorEnvelope("NOT_FOUND", "no route")},
		{name: "root", method: "GET", path: "/", status: 404, body: errorEnvelope("NOT_FOUND", "no route")},
		{name: "wrong method", method: "DELETE", path: "/api/v1/vehicles", status: 404, body: errorEnvelope("NOT_FOUND", "no route")},
		{name: "unknown route with rate-limit headers", method: "GET", path: "/api/v1/webhooks", status: 404,
			body: errorEnvelope("NOT_FOUND", "no route"), header: map[string]string{"X-RateLimit-Reset": "1773491460"}},
		{name: "sub-path", method: "GET", path: one + "/x", status: 404, body: errorEnvelope("NOT_FOUND", "no route")},
		{name: "trailing slash", method: "GET", path: "/api/v1/vehicles/", status: 404, body: errorEnvelope("NOT_FOUND", "no route")},
		{name: "not a uuid", method: "GET", path: "/api/v1/vehicles/42", status: 404, body: errorEnvelope("NOT_FOUND", "not found")},
		{name: "get won deal", method: "GET", path: deal, status: 200, body: envelope(won)},
		{name: "create deal", method: "POST", path: "/api/v1/deals", status: 201, body: envelope(open)},
		{name: "lose deal", method: "PUT", path: deal, status: 200, body: envelope(lost)},
		{name: "archive lost deal", method: "DELETE", path: deal, status: 200, body: envelope(with(lost, "status", "arquivado"))},
		{name: "list deals", method: "GET", path: "/api/v1/deals?status=ativo,ganho&client_id=" + dealID, status: 200,
			body: listEnvelope([]any{won, open, lost}, 3)},
		{name: "deal 422", method: "PUT", path: deal, status: 422, body: errorEnvelope("VALIDATION_ERROR", "a won deal is final")},

		// Invalid responses.
		{name: "missing plate", method: "GET", path: one, status: 200, body: envelope(with(full, "plate", deleteKey)), wantErr: "plate"},
		{name: "missing null field", method: "GET", path: one, status: 200, body: envelope(with(sparse, "sold_deal_id", deleteKey)), wantErr: "sold_deal_id"},
		{name: "price as string", method: "GET", path: one, status: 200, body: envelope(with(full, "price", "10")), wantErr: "price"},
		{name: "negative price", method: "GET", path: one, status: 200, body: envelope(with(full, "price", -1)), wantErr: "price"},
		{name: "title null", method: "GET", path: one, status: 200, body: envelope(with(full, "title", nil)), wantErr: "title"},
		{name: "unknown fuel", method: "GET", path: one, status: 200, body: envelope(with(full, "fuel", "vapor")), wantErr: "fuel"},
		{name: "lower-case plate", method: "GET", path: one, status: 200, body: envelope(with(full, "plate", "abc1d23")), wantErr: "plate"},
		{name: "leaked team_id", method: "GET", path: one, status: 200, body: envelope(with(full, "team_id", vehicleID)), wantErr: "team_id"},
		{name: "fractional timestamp", method: "GET", path: one, status: 200,
			body: envelope(with(full, "created_at", "2026-03-14T12:30:00.123Z")), wantErr: "created_at"},
		{name: "impossible date", method: "GET", path: one, status: 200,
			body: envelope(with(full, "updated_at", "2026-02-30T12:30:00Z")), wantErr: "updated_at"},
		{name: "id not a uuid", method: "GET", path: one, status: 200, body: envelope(with(full, "id", "42")), wantErr: "id"},
		{name: "success false with data", method: "GET", path: one, status: 200,
			body: map[string]any{"success": false, "data": full}, wantErr: "success"},
		{name: "list without pagination", method: "GET", path: "/api/v1/vehicles", status: 200, body: envelope([]any{full}), wantErr: "pagination"},
		{name: "list item missing field", method: "GET", path: "/api/v1/vehicles", status: 200,
			body: listEnvelope([]any{full, with(sparse, "status", deleteKey)}, 2), wantErr: "status"},
		{name: "create answering 200", method: "POST", path: "/api/v1/vehicles", status: 200, body: envelope(full), wantErr: "200"},
		{name: "deal missing null field", method: "GET", path: deal, status: 200, body: envelope(with(open, "vehicle_id", deleteKey)), wantErr: "vehicle_id"},
		{name: "deal value as string", method: "GET", path: deal, status: 200, body: envelope(with(won, "value", "10")), wantErr: "value"},
		{name: "unknown lost reason", method: "GET", path: deal, status: 200, body: envelope(with(lost, "lost_reason", "caro")), wantErr: "lost_reason"},
		{name: "open deal closed", method: "GET", path: deal, status: 200,
			body: envelope(with(open, "closed_at", "2026-03-15T09:00:00Z")), wantErr: "closed_at"},
		{name: "lost deal without reason", method: "GET", path: deal, status: 200, body: envelope(with(lost, "lost_reason", nil)), wantErr: "lost_reason"},
		{name: "won deal without vehicle", method: "GET", path: deal, status: 200, body: envelope(with(won, "vehicle_id", nil)), wantErr: "vehicle_id"},
		{name: "leaked deal rev", method: "GET", path: deal, status: 200, body: envelope(with(won, "rev", 3)), wantErr: "rev"},
		{name: "undocumented status", method: "GET", path: one, status: 418, body: errorEnvelope("NOT_FOUND", "x"), wantErr: "418"},
		{name: "422 on GET", method: "GET", path: one, status: 422, body: errorEnvelope("VALIDATION_ERROR", "x"), wantErr: "422"},
		{name: "wrong code for status", method: "GET", path: one, status: 404, body: errorEnvelope("FORBIDDEN", "x"), wantErr: "code"},
		{name: "unknown error code", method: "GET", path: one, status: 400, body: errorEnvelope("BAD", "x"), wantErr: "code"},
		{name: "error without message", method: "GET", path: one, status: 400,
			body: map[string]any{"success": false, "error": map[string]any{"code": "VALIDATION_ERROR"}}, wantErr: "message"},
		{name: "no request id", method: "GET", path: one, status: 200, body: envelope(full),
			header: map[string]string{"X-Request-Id": ""}, wantErr: "X-Request-Id"},
		{name: "text body", method: "GET", path: one, status: 200, body: "ok",
			header: map[string]string{"Content-Type": "text/plain"}, wantErr: "text/plain"},
		{name: "empty body", method: "DELETE", path: one, status: 200, body: "", wantErr: "empty"},
		{name: "trailing slash served", method: "GET", path: "/api/v1/vehicles/", status: 200,
			body: listEnvelope([]any{}, 0), wantErr: "must answer 404"},
		{name: "bad rate-limit header", method: "GET", path: one, status: 200, body: envelope(full),
			header: map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "many"}, wantErr: "x-ratelimit-remaining"},
		{name: "bad Retry-After", method: "GET", path: "/api/v1/vehicles", status: 429,
			body: errorEnvelope("RATE_LIMIT_EXCEEDED", "slow down"), header: map[string]string{"Retry-After": "soon"}, wantErr: "retry-after"},
		{name: "planned module served", method: "GET", path: "/api/v1/activities", status: 200,
			body: listEnvelope([]any{}, 0), wantErr: "404"},
		{name: "planned module bare body", method: "GET", path: "/api/v1/financial/summary", status: 404,
			body: map[string]any{"message": "Not Found"}, wantErr: "success"},
		{name: "unknown route wrong code", method: "GET", path: "/api/v1/webhooks", status: 404,
			body: errorEnvelope("UNAUTHORIZED", "x"), wantErr: "code"},
		{name: "unknown route no request id", method: "GET", path: "/api/v1/webhooks", status: 404,
			body: errorEnvelope("NOT_FOUND", "x"), header: map[string]string{"X-Request-Id": ""}, wantErr: "X-Request-Id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.run(t)
			switch {
			case tt.wantErr == "" && len(got) > 0:
				t.Errorf("validate(%s %s %d) reported:\n%s\nwant no failure", tt.method, tt.path, tt.status, strings.Join(got, "\n"))
			case tt.wantErr != "" && len(got) == 0:
				t.Errorf("validate(%s %s %d) reported nothing; want a failure naming %q", tt.method, tt.path, tt.status, tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(strings.Join(got, "\n"), tt.wantErr):
				t.Errorf("validate(%s %s %d) reported:\n%s\nwant it to name %q", tt.method, tt.path, tt.status, strings.Join(got, "\n"), tt.wantErr)
			case len(got) > 1:
				t.Errorf("validate reported %d failures; want one Errorf per response", len(got))
			}
			for _, msg := range got {
				if !strings.Contains(msg, tt.method) || !strings.Contains(msg, tt.path[:strings.IndexAny(tt.path+"?", "?")]) ||
					!strings.Contains(msg, fmt.Sprint(tt.status)) {
					t.Errorf("failure %q does not name the method, path and status", msg)
				}
			}
		})
	}
}

// TestValidateConcurrent runs the validator from many goroutines at once, as the integration tests
// do; under -race it proves the shared compiled document is safe for concurrent use.
func TestValidateConcurrent(t *testing.T) {
	full := sampleVehicle(t)
	good := exchange{method: "GET", path: "/api/v1/vehicles/" + vehicleID, status: 200, body: envelope(full)}
	bad := exchange{method: "GET", path: "/api/v1/vehicles/" + vehicleID, status: 200, body: envelope(with(full, "plate", deleteKey))}
	planned := exchange{method: "GET", path: "/api/v1/activities", status: 404, body: errorEnvelope("NOT_FOUND", "no route")}
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				switch (i + j) % 3 {
				case 0:
					if got := good.run(t); len(got) > 0 {
						t.Errorf("valid response reported: %v", got)
					}
				case 1:
					if got := bad.run(t); len(got) == 0 {
						t.Errorf("response without plate not reported")
					}
				default:
					if got := planned.run(t); len(got) > 0 {
						t.Errorf("planned-module 404 reported: %v", got)
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestSpecLoads(t *testing.T) {
	s, err := loadSpec()
	if err != nil {
		t.Fatalf("loadSpec() error: %v", err)
	}
	if s.model.Version != "3.1.0" {
		t.Errorf("openapi = %q; want 3.1.0", s.model.Version)
	}
}

// TestEnumsMatchDomain keeps the document's enums equal to the domain's lists, request schemas
// included (responses alone would not notice a value the API accepts but the document omits).
func TestEnumsMatchDomain(t *testing.T) {
	s, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	schemas := s.model.Components.Schemas
	// enumOf returns a schema's enum, or, for a nullable one (anyOf: a component and null), the
	// enum of the component it references.
	var enumOf func(sp *base.SchemaProxy) []string
	enumOf = func(sp *base.SchemaProxy) []string {
		var out []string
		for _, n := range sp.Schema().Enum {
			if n.Value != "null" {
				out = append(out, n.Value)
			}
		}
		for _, alt := range sp.Schema().AnyOf {
			if alt.IsReference() {
				out = append(out, enumOf(alt)...)
			}
		}
		return out
	}
	prop := func(schema, name string) []string {
		sp, ok := schemas.Get(schema)
		if !ok {
			t.Fatalf("no components.schemas.%s", schema)
		}
		p, ok := sp.Schema().Properties.Get(name)
		if !ok {
			t.Fatalf("components.schemas.%s has no property %s", schema, name)
		}
		return enumOf(p)
	}
	component := func(name string) []string {
		sp, ok := schemas.Get(name)
		if !ok {
			t.Fatalf("no components.schemas.%s", name)
		}
		return enumOf(sp)
	}
	// sortParam returns the enum of components.parameters.<name>, and the one fields make: each
	// field, then the field prefixed with -.
	sortParam := func(name string, fields []string) (got, want []string) {
		p, ok := s.model.Components.Parameters.Get(name)
		if !ok {
			t.Fatalf("no components.parameters.%s", name)
		}
		for _, f := range fields {
			want = append(want, f, "-"+f)
		}
		return enumOf(p.Schema), want
	}
	vehicleSortsGot, vehicleSorts := sortParam("VehicleSort", patio.VehicleSorts)
	dealSortsGot, dealSorts := sortParam("DealSort", patio.DealSorts)
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"VehicleFuel", component("VehicleFuel"), patio.VehicleFuels},
		{"VehicleTransmission", component("VehicleTransmission"), patio.VehicleTransmissions},
		{"VehiclePhase", component("VehiclePhase"), patio.VehiclePhases},
		{"VehicleStatus", component("VehicleStatus"), patio.VehicleStatuses},
		{"Vehicle.fuel", prop("Vehicle", "fuel"), patio.VehicleFuels},
		{"Vehicle.transmission", prop("Vehicle", "transmission"), patio.VehicleTransmissions},
		{"VehicleCreate.fuel", prop("VehicleCreate", "fuel"), patio.VehicleFuels},
		{"VehicleCreate.transmission", prop("VehicleCreate", "transmission"), patio.VehicleTransmissions},
		{"VehicleCreate.status", prop("VehicleCreate", "status"), []string{string(patio.VehicleActive), string(patio.VehicleReserved)}},
		{"VehicleUpdate.fuel", prop("VehicleUpdate", "fuel"), patio.VehicleFuels},
		{"VehicleUpdate.transmission", prop("VehicleUpdate", "transmission"), patio.VehicleTransmissions},
		{"VehicleSort", vehicleSortsGot, vehicleSorts},
		{"DealPhase", component("DealPhase"), patio.DealPhases},
		{"DealStatus", component("DealStatus"), patio.DealStatuses},
		{"DealLostReason", component("DealLostReason"), patio.DealLostReasons},
		{"DealPaymentMethod", component("DealPaymentMethod"), patio.DealPaymentMethods},
		{"Deal.lost_reason", prop("Deal", "lost_reason"), patio.DealLostReasons},
		{"Deal.payment_method", prop("Deal", "payment_method"), patio.DealPaymentMethods},
		{"DealCreate.status", prop("DealCreate", "status"), []string{string(patio.DealOpen)}},
		{"DealCreate.payment_method", prop("DealCreate", "payment_method"), patio.DealPaymentMethods},
		{"DealUpdate.lost_reason", prop("DealUpdate", "lost_reason"), patio.DealLostReasons},
		{"DealUpdate.payment_method", prop("DealUpdate", "payment_method"), patio.DealPaymentMethods},
		{"DealSort", dealSortsGot, dealSorts},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s enum = %v; want %v", tt.name, tt.got, tt.want)
		}
	}
}

// BenchmarkValidate measures one check of a valid vehicle response against the compiled document.
func BenchmarkValidate(b *testing.B) {
	full := sampleVehicle(b)
	e := exchange{method: "GET", path: "/api/v1/vehicles/" + vehicleID, status: 200, body: envelope(full)}
	if _, err := loadSpec(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if got := e.run(b); len(got) > 0 {
			b.Fatal(got)
		}
	}
}
