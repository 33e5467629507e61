package httpapi_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/patio-dev/patio/dev/apitest"
	"github.com/patio-dev/patio/dev/testenv"
	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/dynamostore"
	"github.com/patio-dev/patio/shared/patio"
)

// client is the client representation, decoded into the domain type whose JSON form it is.
type client = patio.Client

// cpfOf returns the valid CPF whose first nine digits are base9.
func cpfOf(t *testing.T, base9 string) string { return validDocument(t, base9, br.NormalizeCPF) }

// cnpjOf returns the valid CNPJ whose first twelve characters are base12.
func cnpjOf(t *testing.T, base12 string) string { return validDocument(t, base12, br.NormalizeCNPJ) }

// validDocument completes base with the check digits normalize accepts, so that the tests hold no
// copy of the check digit algorithms.
func validDocument(t *testing.T, base string, normalize func(string) (string, error)) string {
	t.Helper()
	for d := range 100 {
		if v, err := normalize(fmt.Sprintf("%s%02d", base, d)); err == nil {
			return v
		}
	}
	t.Fatalf("no valid document starts with %s", base)
	return ""
}

// maskCPF writes a bare CPF as 000.000.000-00.
func maskCPF(cpf string) string { return cpf[:3] + "." + cpf[3:6] + "." + cpf[6:9] + "-" + cpf[9:] }

// maskCNPJ writes a bare CNPJ as 00.000.000/0000-00.
func maskCNPJ(cnpj string) string {
	return cnpj[:2] + "." + cnpj[2:5] + "." + cnpj[5:8] + "/" + cnpj[8:12] + "-" + cnpj[12:]
}

func individual(name, cpf string) map[string]any {
	return map[string]any{"type": "individual", "name": name, "cpf": cpf}
}

func company(name, cnpj string) map[string]any {
	return map[string]any{"type": "company", "name": name, "cnpj": cnpj}
}

func TestCreateAndGetClient(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	res := c.Do("POST", "/api/v1/clients", map[string]any{
		"type": "company", "name": "  Locadora Horizonte Ltda ", "trade_name": "Horizonte Veículos",
		"cnpj": "12.abc.345/01de-35", "email": "compras@horizonte.example.com", "phone": "(11) 3456-7890",
		"state_registration": "isento", "notes": "",
		"address": map[string]any{"street": "Avenida Paulista", "number": "1000", "complement": "",
			"city": "São Paulo", "state": "sp", "zip_code": "01310-100"},
	})
	if res.Status != http.StatusCreated {
		t.Fatalf("POST = %d %s; want 201", res.Status, res.Body)
	}
	var got client
	res.Decode(t, &got)
	checks := []struct{ field, got, want string }{
		{"type", got.Type, "company"},
		{"name", got.Name, "Locadora Horizonte Ltda"},
		{"cnpj", deref(got.CNPJ), "12ABC34501DE35"},
		{"phone", deref(got.Phone), "+551134567890"},
		{"state_registration", deref(got.StateRegistration), "ISENTO"},
		{"notes", deref(got.Notes), ""},
		{"status", string(got.Status), "active"},
	}
	if got.Address == nil {
		t.Fatalf("address = null; want an object")
	}
	checks = append(checks,
		struct{ field, got, want string }{"address.state", deref(got.Address.State), "SP"},
		struct{ field, got, want string }{"address.zip_code", deref(got.Address.ZipCode), "01310100"},
		struct{ field, got, want string }{"address.complement", deref(got.Address.Complement), ""},
	)
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %q; want %q", ch.field, ch.got, ch.want)
		}
	}
	var raw map[string]any
	res.Decode(t, &raw)
	for _, f := range []string{"cpf", "birth_date"} {
		if v, ok := raw[f]; !ok || v != nil {
			t.Errorf("%s = %v (present %v); want null", f, v, ok)
		}
	}
	if a, _ := raw["address"].(map[string]any); a == nil || a["district"] != nil {
		t.Errorf("address = %v; want district present and null", raw["address"])
	} else if _, ok := a["district"]; !ok {
		t.Errorf("address = %v; want district present", a)
	}

	again := c.Do("GET", "/api/v1/clients/"+got.ID, nil)
	if again.Status != http.StatusOK || string(again.Data) != string(res.Data) {
		t.Errorf("GET = %d %s; want 200 %s", again.Status, again.Data, res.Data)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

func TestClientDocuments(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	tests := []struct {
		name   string
		body   map[string]any
		status int
		field  string // with 201: "cpf" or "cnpj"
		want   string // with 201: the stored value; otherwise a substring of the message
	}{
		{name: "masked CPF", body: individual("Ana", "529.982.247-25"), status: 201, field: "cpf", want: "52998224725"},
		{name: "bare CPF", body: individual("Bia", "11144477735"), status: 201, field: "cpf", want: "11144477735"},
		{name: "CPF check digit", body: individual("Ana", "529.982.247-24"), status: 400, want: "cpf has an invalid check digit"},
		{name: "repeated-digit CPF", body: individual("Ana", "000.000.000-00"), status: 400, want: "cpf must not have all digits equal"},
		{name: "CPF with letters", body: individual("Ana", "529982247AB"), status: 400, want: "cpf must contain only digits"},
		{name: "masked numeric CNPJ", body: company("Horizonte", "11.222.333/0001-81"), status: 201, field: "cnpj", want: "11222333000181"},
		{name: "masked alphanumeric CNPJ", body: company("Receita", "12.ABC.345/01DE-35"), status: 201, field: "cnpj", want: "12ABC34501DE35"},
		{name: "lowercase alphanumeric CNPJ", body: company("Minúscula", maskCNPJ(strings.ToLower(cnpjOf(t, "AB1CD2EF3GH4")))),
			status: 201, field: "cnpj", want: cnpjOf(t, "AB1CD2EF3GH4")},
		{name: "CNPJ with a letter counted as 0", body: company("X", "12ABC34501DE00"), status: 400, want: "cnpj has an invalid check digit"},
		{name: "CNPJ with letter check digits", body: company("X", "12ABC34501DEAB"), status: 400, want: "cnpj must end with 2 numeric check digits"},
		{name: "individual with cnpj", body: with(individual("Ana", cpfOf(t, "123456789")), map[string]any{"cnpj": "11222333000181"}),
			status: 400, want: "cnpj is not allowed"},
		{name: "individual with only a cnpj", body: map[string]any{"type": "individual", "name": "Ana", "cnpj": "11222333000181"},
			status: 400, want: "cnpj"},
		{name: "company with cpf", body: with(company("X", cnpjOf(t, "987654320001")), map[string]any{"cpf": "52998224725"}),
			status: 400, want: "cpf is not allowed"},
		{name: "company with only a cpf", body: map[string]any{"type": "company", "name": "X", "cpf": "52998224725"},
			status: 400, want: "cpf"},
		{name: "individual without cpf", body: map[string]any{"type": "individual", "name": "Ana"}, status: 400, want: "cpf is required"},
		{name: "missing type", body: map[string]any{"name": "Ana", "cpf": "52998224725"}, status: 400, want: "type is required"},
		{name: "unknown address field", body: with(individual("Ana", cpfOf(t, "123456780")), map[string]any{"address": map[string]any{"foo": 1}}),
			status: 400, want: "unknown field address.foo"},
		{name: "bad UF", body: with(individual("Ana", cpfOf(t, "123456781")), map[string]any{"address": map[string]any{"state": "XY"}}),
			status: 400, want: "address.state"},
		{name: "bad email", body: with(individual("Ana", cpfOf(t, "123456782")), map[string]any{"email": "Ana <a@b.com>"}),
			status: 400, want: "email must be a valid address"},
		{name: "future birth_date", body: with(individual("Ana", cpfOf(t, "123456783")), map[string]any{"birth_date": "2999-01-01"}),
			status: 400, want: "birth_date must not be in the future"},
		{name: "inactive on create", body: with(individual("Ana", cpfOf(t, "123456784")), map[string]any{"status": "inactive"}),
			status: 400, want: "status must be active"},
		{name: "server field", body: with(individual("Ana", cpfOf(t, "123456785")), map[string]any{"updated_at": "x"}),
			status: 400, want: "updated_at is managed by the server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := c.With(t)
			res := c.Do("POST", "/api/v1/clients", tt.body)
			if res.Status != tt.status {
				t.Fatalf("POST %v = %d %s; want %d", tt.body, res.Status, res.Body, tt.status)
			}
			if tt.status != 201 {
				if res.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(res.Error.Message, tt.want) {
					t.Errorf("POST %v = %s %q; want VALIDATION_ERROR containing %q", tt.body, res.ErrorCode(), res.Error.Message, tt.want)
				}
				return
			}
			var raw map[string]any
			res.Decode(t, &raw)
			if raw[tt.field] != tt.want {
				t.Errorf("POST %v: %s = %v; want %s", tt.body, tt.field, raw[tt.field], tt.want)
			}
		})
	}
}

func TestDuplicateDocuments(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	_, other := s.team(t)
	cpf := cpfOf(t, "390533447")
	var first client
	if res := c.Do("POST", "/api/v1/clients", individual("Ana", maskCPF(cpf))); res.Status != 201 {
		t.Fatalf("POST = %d %s", res.Status, res.Body)
	} else {
		res.Decode(t, &first)
	}
	cnpj := cnpjOf(t, "A1B2C3D40001")
	if res := c.Do("POST", "/api/v1/clients", company("Alfa", cnpj)); res.Status != 201 {
		t.Fatalf("POST company = %d %s", res.Status, res.Body)
	}
	dup := func(t *testing.T, body map[string]any, why string) {
		t.Helper()
		if res := c.Do("POST", "/api/v1/clients", body); res.Status != 422 || res.ErrorCode() != "DUPLICATE_ENTRY" {
			t.Errorf("POST %s = %d %s; want 422 DUPLICATE_ENTRY", why, res.Status, res.Body)
		}
	}
	dup(t, individual("Bia", cpf), "the same CPF bare")
	dup(t, company("Beta", maskCNPJ(strings.ToLower(cnpj))), "the same CNPJ masked and lower case")
	if res := c.Do("DELETE", "/api/v1/clients/"+first.ID, nil); res.Status != 200 {
		t.Fatalf("DELETE = %d %s", res.Status, res.Body)
	}
	dup(t, individual("Bia", maskCPF(cpf)), "the CPF of an inactive client")
	if res := other.Do("POST", "/api/v1/clients", individual("Ana", cpf)); res.Status != 201 {
		t.Errorf("POST the CPF in another team = %d %s; want 201 (unique per team)", res.Status, res.Body)
	}
}

func TestConcurrentDuplicateCNPJ(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	const n = 20
	cnpj := cnpjOf(t, "ZZ9YY8XX7000")
	spellings := []string{cnpj, strings.ToLower(cnpj), maskCNPJ(cnpj), maskCNPJ(strings.ToLower(cnpj))}
	count := concurrently(n, func(i int) *apitest.Response {
		return c.Do("POST", "/api/v1/clients", company(fmt.Sprintf("Empresa %d", i), spellings[i%len(spellings)]))
	})
	if count["201 "] != 1 || count["422 DUPLICATE_ENTRY"] != n-1 {
		t.Errorf("%d concurrent POSTs of one CNPJ gave %v; want 1 × 201 and %d × 422 DUPLICATE_ENTRY", n, count, n-1)
	}
	if res := c.Do("GET", "/api/v1/clients?cnpj="+cnpj, nil); res.Pagination == nil || res.Pagination.Total != 1 {
		t.Errorf("clients with the CNPJ = %+v; want 1", res.Pagination)
	}
}

func TestDocumentChangeMovesGuard(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	cpf1, cpf2, cpf3 := cpfOf(t, "100000001"), cpfOf(t, "200000002"), cpfOf(t, "300000003")
	var a, b client
	c.Do("POST", "/api/v1/clients", individual("A", cpf1)).Decode(t, &a)
	c.Do("POST", "/api/v1/clients", individual("B", cpf2)).Decode(t, &b)
	steps := []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"taking a held CPF", "PUT", "/api/v1/clients/" + b.ID, map[string]any{"cpf": maskCPF(cpf1)}, 422, "DUPLICATE_ENTRY"},
		{"moving A to a new CPF", "PUT", "/api/v1/clients/" + a.ID, map[string]any{"cpf": cpf3}, 200, ""},
		{"taking the CPF A left", "PUT", "/api/v1/clients/" + b.ID, map[string]any{"cpf": cpf1}, 200, ""},
		{"creating with A's new CPF", "POST", "/api/v1/clients", individual("C", cpf3), 422, "DUPLICATE_ENTRY"},
		{"creating with the CPF B left", "POST", "/api/v1/clients", individual("D", cpf2), 201, ""},
		{"sending a CPF to the same value", "PUT", "/api/v1/clients/" + a.ID, map[string]any{"cpf": maskCPF(cpf3)}, 200, ""},
	}
	for _, st := range steps {
		if res := c.Do(st.method, st.path, st.body); res.Status != st.status || res.ErrorCode() != st.code {
			t.Errorf("%s: %s %s = %d %s; want %d %s", st.name, st.method, st.path, res.Status, res.Body, st.status, st.code)
		}
	}
	var got client
	c.Do("GET", "/api/v1/clients/"+b.ID, nil).Decode(t, &got)
	if deref(got.CPF) != cpf1 {
		t.Errorf("B's cpf = %s; want %s", deref(got.CPF), cpf1)
	}
}

func TestDeactivateAndReactivateClient(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var cl client
	c.Do("POST", "/api/v1/clients", individual("Ana", cpfOf(t, "555444333"))).Decode(t, &cl)
	checkSoftDelete(t, c, "/api/v1/clients", cl.ID, "inactive", map[string]any{"status": "active"}, "active")
}

func TestPutClient(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	var cl client
	c.Do("POST", "/api/v1/clients", with(individual("Ana", cpfOf(t, "777888999")), map[string]any{
		"email": "ana@example.com", "address": map[string]any{"street": "Rua A", "city": "Recife", "state": "PE"},
	})).Decode(t, &cl)
	path := "/api/v1/clients/" + cl.ID
	res := c.Do("PUT", path, map[string]any{"email": nil, "phone": "81 99876-5432", "address": map[string]any{"number": "12", "state": nil}})
	var u client
	res.Decode(t, &u)
	if res.Status != 200 || u.Email != nil || deref(u.Phone) != "+5581998765432" || u.Name != "Ana" {
		t.Errorf("partial PUT = %d %s", res.Status, res.Body)
	}
	if u.Address == nil || deref(u.Address.Street) != "Rua A" || deref(u.Address.Number) != "12" || u.Address.State != nil {
		t.Errorf("address after a partial PUT = %+v; want street kept, number set, state cleared", u.Address)
	}
	same := c.Do("PUT", path, map[string]any{"phone": "+55 81 99876-5432", "type": "individual"})
	if same.Status != 200 || string(same.Data) != string(res.Data) {
		t.Errorf("no-op PUT = %d %s; want 200 and the unchanged client", same.Status, same.Body)
	}
	for _, bad := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"type": "company"}, "type cannot be changed"},
		{map[string]any{"name": nil}, "name must not be null"},
		{map[string]any{"cpf": nil}, "cpf is required"},
		{map[string]any{"status": nil}, "status must not be null"},
		{map[string]any{"trade_name": "Ana Car"}, "trade_name is not allowed"},
		{map[string]any{"address": map[string]any{"zip": "01310100"}}, "unknown field address.zip"},
	} {
		if res := c.Do("PUT", path, bad.body); res.Status != 400 || !strings.Contains(res.Error.Message, bad.want) {
			t.Errorf("PUT %v = %d %s; want 400 containing %q", bad.body, res.Status, res.Body, bad.want)
		}
	}
}

func TestClientListFilters(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	ana := cpfOf(t, "111222333")
	cnpj := cnpjOf(t, "Q1W2E3R40001")
	bodies := []map[string]any{
		individual("Ágata Ana Lima", ana),
		with(individual("Bruno Costa", cpfOf(t, "222333444")), map[string]any{"email": "bruno@oficina.example.com"}),
		with(company("Zeta Comércio de Veículos Ltda", cnpj), map[string]any{"trade_name": "Zeta Motors"}),
		company("Ômega Transportes S.A.", cnpjOf(t, "113335550001")),
	}
	var ids []string
	for _, b := range bodies {
		res := c.Do("POST", "/api/v1/clients", b)
		if res.Status != 201 {
			t.Fatalf("POST %v = %d %s", b, res.Status, res.Body)
		}
		var cl client
		res.Decode(t, &cl)
		ids = append(ids, cl.ID)
	}
	if res := c.Do("DELETE", "/api/v1/clients/"+ids[3], nil); res.Status != 200 {
		t.Fatalf("DELETE = %d", res.Status)
	}
	testenv.Index(t, dynamostore.IndexerOf(s.store)) // q searches what the indexer has followed
	good := []filterCase{
		{"", 3},
		{"type=individual", 2},
		{"type=company", 1},
		{"type=company&status=inactive", 1},
		{"type=individual,company&status=active,inactive", 4},
		{"status=inactive", 1},
		{"cpf=" + ana, 1},
		{"cpf=" + maskCPF(ana), 1},
		{"cnpj=" + cnpj, 1},
		{"cnpj=" + strings.ReplaceAll(maskCNPJ(strings.ToLower(cnpj)), "/", "%2F"), 1},
		{"cpf=" + cpfOf(t, "999999990"), 0},
		{"q=agata", 1},
		{"q=%C3%81GATA", 1},
		{"q=motors", 1},
		{"q=comercio", 1},
		{"q=oficina.example", 1},
		{"q=a", 1},          // word prefixes: Ágata, Ana (not the a inside Bruno Costa)
		{"q=ana+lim", 1},    // every term starts a word
		{"q=ana+costa", 0},  // of one client
		{"q=mercio", 0},     // not the start of a word
		{"q=" + ana[:5], 1}, // a CPF is one word
		{"q=" + strings.ToLower(cnpj[:6]), 1},
		{"q=omega", 0},
		{"q=omega&status=inactive", 1},
		{"created_from=2000-01-01&created_to=2999-12-31", 3},
		{"created_to=2000-01-01", 0},
	}
	wrongDigit := ana[:10] + string('0'+(ana[10]-'0'+1)%10)
	bad := []string{"cpf=123", "cpf=" + wrongDigit, "cnpj=12ABC34501DE00", "type=person", "status=arquivado",
		"sort=email", "sort=-cpf", "limit=101", "page=0", "email=x", "q=", "q=-.-", "created_from=2026-02-30"}
	checkFilters(t, c, "/api/v1/clients", good, bad)
}

func TestClientSortAndPaging(t *testing.T) {
	s := newStack(t)
	_, c := s.team(t)
	names := []string{"Ágata", "agata", "Álvaro", "alvaro", "Bruno", "bruno", "Érica", "erica", "Eduardo",
		"Zé", "ze", "Çelik", "Carla", "Íris", "iris", "Otávio", "Óscar", "oscar", "Úrsula", "Ubirajara", "Ana Maria", "ana  maria"}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if res := c.Do("POST", "/api/v1/clients", individual(name, cpfOf(t, fmt.Sprintf("4%08d", i)))); res.Status != 201 {
				t.Errorf("POST %s = %d %s", name, res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	n := len(names)
	for _, sortBy := range []string{"name", "-name", "-created_at", "created_at", "updated_at", "-updated_at"} {
		t.Run(sortBy, func(t *testing.T) {
			all := listAll(t, c.With(t), "/api/v1/clients", sortBy, 5, n, func(cl client) string { return cl.ID })
			desc := strings.HasPrefix(sortBy, "-")
			key := func(cl client) string {
				switch strings.TrimPrefix(sortBy, "-") {
				case "name":
					return patio.Fold(cl.Name)
				case "updated_at":
					return cl.UpdatedAt.String()
				}
				return cl.CreatedAt.String()
			}
			ordered := sort.SliceIsSorted(all, func(i, j int) bool {
				a, b := key(all[i]), key(all[j])
				if a != b {
					return (a < b) != desc
				}
				return (all[i].ID < all[j].ID) != desc
			})
			if !ordered {
				var got []string
				for _, cl := range all {
					got = append(got, cl.Name)
				}
				t.Errorf("sort=%s gave %q; not in order", sortBy, got)
			}
		})
	}
}

func TestClientsOfAnotherTeam(t *testing.T) {
	s := newStack(t)
	team, c := s.team(t)
	_, other := s.team(t)
	var cl client
	c.Do("POST", "/api/v1/clients", individual("Ana", cpfOf(t, "864297531"))).Decode(t, &cl)
	for _, mr := range []struct {
		method string
		body   any
	}{{"GET", nil}, {"PUT", map[string]any{"name": "Intrusa"}}, {"DELETE", nil}} {
		if res := other.Do(mr.method, "/api/v1/clients/"+cl.ID, mr.body); res.Status != 404 || res.ErrorCode() != "NOT_FOUND" {
			t.Errorf("other team's %s = %d %s; want 404 NOT_FOUND", mr.method, res.Status, res.Body)
		}
	}
	if res := other.Do("GET", "/api/v1/clients", nil); res.Pagination.Total != 0 {
		t.Errorf("other team's list total = %d; want 0", res.Pagination.Total)
	}
	if res := c.Do("GET", "/api/v1/clients/not-a-uuid", nil); res.Status != 404 {
		t.Errorf("GET non-UUID id = %d; want 404", res.Status)
	}
	reader, _ := s.client(t, team.ID, "clients:read")
	if res := reader.Do("POST", "/api/v1/clients", individual("Bia", cpfOf(t, "864297532"))); res.Status != 403 || res.ErrorCode() != "FORBIDDEN" {
		t.Errorf("POST with clients:read only = %d %s; want 403 FORBIDDEN", res.Status, res.Body)
	}
	vehiclesOnly, _ := s.client(t, team.ID, "vehicles:read", "vehicles:write")
	if res := vehiclesOnly.Do("GET", "/api/v1/clients", nil); res.Status != 403 {
		t.Errorf("GET clients with vehicle scopes = %d; want 403", res.Status)
	}
	var got client
	c.Do("GET", "/api/v1/clients/"+cl.ID, nil).Decode(t, &got)
	if got.Name != "Ana" || got.Status != "active" {
		t.Errorf("after the other team's attempts the client is %+v; want it untouched", got)
	}
}
