package patio_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/patio-dev/patio/shared/httpapi"
	"github.com/patio-dev/patio/shared/patio"
)

var clientNow = time.Date(2026, 3, 14, 12, 30, 0, 0, time.UTC)

const clientID = "01963b6e-4f1a-7c2d-9e8f-0a1b2c3d4e5f"

// input decodes a JSON body into the typed input the way the API's edge does (the cases read
// better as JSON than as Opt literals; the rules under test are the domain's).
func input(t *testing.T, js string) (patio.ClientInput, error) {
	t.Helper()
	return httpapi.DecodeClient([]byte(js))
}

// newClient runs a POST body through the edge's decoding and NewClient.
func newClient(t *testing.T, js string) (patio.Client, error) {
	t.Helper()
	in, err := input(t, js)
	if err != nil {
		return patio.Client{}, err
	}
	return patio.NewClient("team", clientID, clientNow, in)
}

func str(s string) *string { return &s }

func TestNewClient(t *testing.T) {
	tests := []struct {
		name string
		body string
		want func(c patio.Client) bool // checked when wantErr is empty
		// wantErr is a substring of the KindInvalid message expected, "" for success.
		wantErr string
	}{
		{name: "individual, masked CPF", body: `{"type":"individual","name":"Ana Souza","cpf":"529.982.247-25"}`,
			want: func(c patio.Client) bool {
				return *c.CPF == "52998224725" && c.CNPJ == nil && c.Status == patio.ClientActive
			}},
		{name: "individual, bare CPF", body: `{"type":"individual","name":"Ana","cpf":"52998224725"}`,
			want: func(c patio.Client) bool { return *c.CPF == "52998224725" }},
		{name: "CPF check digit", body: `{"type":"individual","name":"Ana","cpf":"529.982.247-24"}`, wantErr: "cpf has an invalid check digit"},
		{name: "CPF repeated digits", body: `{"type":"individual","name":"Ana","cpf":"111.111.111-11"}`, wantErr: "cpf must not have all digits equal"},
		{name: "CPF too short", body: `{"type":"individual","name":"Ana","cpf":"5299822472"}`, wantErr: "cpf must have 11 digits"},
		{name: "CPF as number", body: `{"type":"individual","name":"Ana","cpf":52998224725}`, wantErr: "cpf must be a string"},
		{name: "company, numeric CNPJ masked", body: `{"type":"company","name":"Horizonte Ltda","cnpj":"11.222.333/0001-81"}`,
			want: func(c patio.Client) bool { return *c.CNPJ == "11222333000181" && c.CPF == nil }},
		{name: "company, alphanumeric CNPJ masked", body: `{"type":"company","name":"Horizonte Ltda","cnpj":"12.ABC.345/01DE-35"}`,
			want: func(c patio.Client) bool { return *c.CNPJ == "12ABC34501DE35" }},
		{name: "company, alphanumeric CNPJ lowercase", body: `{"type":"company","name":"Horizonte Ltda","cnpj":"12abc34501de35"}`,
			want: func(c patio.Client) bool { return *c.CNPJ == "12ABC34501DE35" }},
		{name: "alphanumeric CNPJ check digit", body: `{"type":"company","name":"H","cnpj":"12ABC34501DE36"}`, wantErr: "cnpj has an invalid check digit"},
		{name: "CNPJ all zeros", body: `{"type":"company","name":"H","cnpj":"00.000.000/0000-00"}`, wantErr: "cnpj must not be all zeros"},
		{name: "individual with cnpj", body: `{"type":"individual","name":"Ana","cpf":"52998224725","cnpj":"11222333000181"}`,
			wantErr: "cnpj is not allowed for a client of type individual"},
		{name: "individual with only a cnpj", body: `{"type":"individual","name":"Ana","cnpj":"11222333000181"}`,
			wantErr: "cnpj is not allowed"},
		{name: "company with cpf", body: `{"type":"company","name":"H","cnpj":"11222333000181","cpf":"52998224725"}`,
			wantErr: "cpf is not allowed for a client of type company"},
		{name: "individual without cpf", body: `{"type":"individual","name":"Ana"}`, wantErr: "cpf is required for a client of type individual"},
		{name: "company without cnpj", body: `{"type":"company","name":"H"}`, wantErr: "cnpj is required for a client of type company"},
		{name: "null document of the other type", body: `{"type":"company","name":"H","cnpj":"11222333000181","cpf":null}`,
			want: func(c patio.Client) bool { return c.CPF == nil }},
		{name: "missing type", body: `{"name":"Ana","cpf":"52998224725"}`, wantErr: "type is required"},
		{name: "unknown type", body: `{"type":"person","name":"Ana","cpf":"52998224725"}`, wantErr: "type must be one of individual, company"},
		{name: "missing name", body: `{"type":"individual","cpf":"52998224725"}`, wantErr: "name is required"},
		{name: "blank name", body: `{"type":"individual","name":"  ","cpf":"52998224725"}`, wantErr: "name must not be empty"},
		{name: "name too long", body: `{"type":"individual","name":"` + strings.Repeat("a", 201) + `","cpf":"52998224725"}`,
			wantErr: "name must be at most 200 characters"},
		{name: "trade_name on an individual", body: `{"type":"individual","name":"Ana","cpf":"52998224725","trade_name":"Ana Car"}`,
			wantErr: "trade_name is not allowed"},
		{name: "state_registration on an individual", body: `{"type":"individual","name":"Ana","cpf":"52998224725","state_registration":"ISENTO"}`,
			wantErr: "state_registration is not allowed"},
		{name: "birth_date on a company", body: `{"type":"company","name":"H","cnpj":"11222333000181","birth_date":"1990-01-01"}`,
			wantErr: "birth_date is not allowed"},
		{name: "company fields", body: `{"type":"company","name":"H","cnpj":"11222333000181","trade_name":"Horizonte","state_registration":"110.042.490.114"}`,
			want: func(c patio.Client) bool {
				return *c.TradeName == "Horizonte" && *c.StateRegistration == "110042490114"
			}},
		{name: "state_registration isento", body: `{"type":"company","name":"H","cnpj":"11222333000181","state_registration":"isento"}`,
			want: func(c patio.Client) bool { return *c.StateRegistration == "ISENTO" }},
		{name: "bad state_registration", body: `{"type":"company","name":"H","cnpj":"11222333000181","state_registration":"12AB"}`,
			wantErr: "state_registration must contain only digits or be ISENTO"},
		{name: "birth_date today", body: `{"type":"individual","name":"Ana","cpf":"52998224725","birth_date":"2026-03-14"}`,
			want: func(c patio.Client) bool { return c.BirthDate.String() == "2026-03-14" }},
		{name: "birth_date in the future", body: `{"type":"individual","name":"Ana","cpf":"52998224725","birth_date":"2026-03-15"}`,
			wantErr: "birth_date must not be in the future"},
		{name: "birth_date impossible", body: `{"type":"individual","name":"Ana","cpf":"52998224725","birth_date":"1990-02-30"}`,
			wantErr: "birth_date must be a date in the form YYYY-MM-DD"},
		{name: "email", body: `{"type":"individual","name":"Ana","cpf":"52998224725","email":" ana@example.com "}`,
			want: func(c patio.Client) bool { return *c.Email == "ana@example.com" }},
		{name: "email with display name", body: `{"type":"individual","name":"Ana","cpf":"52998224725","email":"Ana <ana@example.com>"}`,
			wantErr: "email must be a valid address"},
		{name: "email without at", body: `{"type":"individual","name":"Ana","cpf":"52998224725","email":"ana.example.com"}`,
			wantErr: "email must be a valid address"},
		{name: "phone to E.164", body: `{"type":"individual","name":"Ana","cpf":"52998224725","phone":"(11) 98765-4321"}`,
			want: func(c patio.Client) bool { return *c.Phone == "+5511987654321" }},
		{name: "bad phone", body: `{"type":"individual","name":"Ana","cpf":"52998224725","phone":"12345"}`, wantErr: "phone must have 10 or 11 digits"},
		{name: "address normalised", body: `{"type":"individual","name":"Ana","cpf":"52998224725",
			"address":{"street":"Av. Paulista","number":"1000","city":"São Paulo","state":"sp","zip_code":"01310-100"}}`,
			want: func(c patio.Client) bool {
				return reflect.DeepEqual(*c.Address, patio.Address{Street: str("Av. Paulista"), Number: str("1000"),
					City: str("São Paulo"), State: str("SP"), ZipCode: str("01310100")})
			}},
		{name: "empty address is null", body: `{"type":"individual","name":"Ana","cpf":"52998224725","address":{}}`,
			want: func(c patio.Client) bool { return c.Address == nil }},
		{name: "null address", body: `{"type":"individual","name":"Ana","cpf":"52998224725","address":null}`,
			want: func(c patio.Client) bool { return c.Address == nil }},
		{name: "unknown address field", body: `{"type":"individual","name":"Ana","cpf":"52998224725","address":{"foo":"x"}}`,
			wantErr: "unknown field address.foo"},
		{name: "server field name inside address", body: `{"type":"individual","name":"Ana","cpf":"52998224725","address":{"id":"x"}}`,
			wantErr: "unknown field address.id"},
		{name: "bad UF", body: `{"type":"individual","name":"Ana","cpf":"52998224725","address":{"state":"XX"}}`,
			wantErr: "address.state must be a valid state code"},
		{name: "bad CEP", body: `{"type":"individual","name":"Ana","cpf":"52998224725","address":{"zip_code":"0131-0100"}}`,
			wantErr: "address.zip_code must have 8 digits"},
		{name: "address as string", body: `{"type":"individual","name":"Ana","cpf":"52998224725","address":"Av. Paulista"}`,
			wantErr: "address must be an object"},
		{name: "address city as number", body: `{"type":"individual","name":"Ana","cpf":"52998224725","address":{"city":1}}`,
			wantErr: "address.city must be a string"},
		{name: "notes too long", body: `{"type":"individual","name":"Ana","cpf":"52998224725","notes":"` + strings.Repeat("n", 5001) + `"}`,
			wantErr: "notes must be at most 5000 characters"},
		{name: "status active", body: `{"type":"individual","name":"Ana","cpf":"52998224725","status":"active"}`,
			want: func(c patio.Client) bool { return c.Status == patio.ClientActive }},
		{name: "status inactive on create", body: `{"type":"individual","name":"Ana","cpf":"52998224725","status":"inactive"}`,
			wantErr: "status must be active when creating a client"},
		{name: "null status", body: `{"type":"individual","name":"Ana","cpf":"52998224725","status":null}`, wantErr: "status must not be null"},
		{name: "unknown field", body: `{"type":"individual","name":"Ana","cpf":"52998224725","rg":"123"}`, wantErr: "unknown field rg"},
		{name: "server field", body: `{"type":"individual","name":"Ana","cpf":"52998224725","created_at":"2026-01-01T00:00:00Z"}`,
			wantErr: "created_at is managed by the server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newClient(t, tt.body)
			if tt.wantErr != "" {
				if !patio.IsKind(err, patio.KindInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewClient(%s) = %v; want KindInvalid containing %q", tt.body, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewClient(%s) = %v; want no error", tt.body, err)
			}
			if !tt.want(c) {
				t.Errorf("NewClient(%s) = %+v; not what the case wants", tt.body, c)
			}
			if c.ID != clientID || c.CreatedAt != patio.NewTimestamp(clientNow) || c.UpdatedAt != c.CreatedAt {
				t.Errorf("NewClient(%s) id, created_at, updated_at = %s, %s, %s; want %s and %s twice",
					tt.body, c.ID, c.CreatedAt, c.UpdatedAt, clientID, patio.NewTimestamp(clientNow))
			}
		})
	}
}

func TestClientJSONHasEveryField(t *testing.T) {
	c, err := newClient(t, `{"type":"individual","name":"Ana","cpf":"52998224725","address":{"city":"Recife"}}`)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(c)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "type", "name", "trade_name", "cpf", "cnpj", "email", "phone", "birth_date",
		"state_registration", "address", "notes", "status", "created_at", "updated_at", "revision"}
	if len(m) != len(want) {
		t.Errorf("json.Marshal(client) has %d members %v; want %d", len(m), m, len(want))
	}
	for _, f := range want {
		if _, ok := m[f]; !ok {
			t.Errorf("json.Marshal(client) lacks %s", f)
		}
	}
	addr, _ := m["address"].(map[string]any)
	for _, f := range []string{"street", "number", "complement", "district", "city", "state", "zip_code"} {
		if v, ok := addr[f]; !ok || (f != "city" && v != nil) {
			t.Errorf("address.%s = %v (present %v); want null unless city", f, v, ok)
		}
	}
}

func TestClientApply(t *testing.T) {
	later := clientNow.Add(time.Hour)
	individual, err := newClient(t, `{"type":"individual","name":"Ana","cpf":"52998224725","email":"ana@example.com",
		"address":{"street":"Rua A","number":"1","city":"Recife","state":"PE"}}`)
	if err != nil {
		t.Fatal(err)
	}
	company, err := newClient(t, `{"type":"company","name":"H","cnpj":"11222333000181","trade_name":"Horizonte"}`)
	if err != nil {
		t.Fatal(err)
	}
	inactive := individual.Deactivate()
	tests := []struct {
		name    string
		cur     patio.Client
		body    string
		changed bool
		want    func(c patio.Client) bool
		wantErr string
	}{
		{name: "empty body", cur: individual, body: `{}`},
		{name: "same values", cur: individual, body: `{"type":"individual","name":"Ana","cpf":"529.982.247-25"}`},
		{name: "rename", cur: individual, body: `{"name":"Ana Souza"}`, changed: true,
			want: func(c patio.Client) bool { return c.Name == "Ana Souza" && *c.Email == "ana@example.com" }},
		{name: "clear email", cur: individual, body: `{"email":null}`, changed: true,
			want: func(c patio.Client) bool { return c.Email == nil }},
		{name: "new CPF", cur: individual, body: `{"cpf":"111.444.777-35"}`, changed: true,
			want: func(c patio.Client) bool { return *c.CPF == "11144477735" }},
		{name: "address merges", cur: individual, body: `{"address":{"number":"2","complement":"apto 3","state":null}}`, changed: true,
			want: func(c patio.Client) bool {
				return reflect.DeepEqual(*c.Address, patio.Address{Street: str("Rua A"), Number: str("2"),
					Complement: str("apto 3"), City: str("Recife")})
			}},
		{name: "address cleared", cur: individual, body: `{"address":null}`, changed: true,
			want: func(c patio.Client) bool { return c.Address == nil }},
		{name: "address emptied member by member", cur: individual,
			body: `{"address":{"street":null,"number":null,"city":null,"state":null}}`, changed: true,
			want: func(c patio.Client) bool { return c.Address == nil }},
		{name: "address on a client without one", cur: company, body: `{"address":{"city":"Natal"}}`, changed: true,
			want: func(c patio.Client) bool { return *c.Address.City == "Natal" && c.Address.Street == nil }},
		{name: "clear trade_name", cur: company, body: `{"trade_name":null}`, changed: true,
			want: func(c patio.Client) bool { return c.TradeName == nil }},
		{name: "deactivate", cur: individual, body: `{"status":"inactive"}`, changed: true,
			want: func(c patio.Client) bool { return c.Status == patio.ClientInactive }},
		{name: "reactivate", cur: inactive, body: `{"status":"active"}`, changed: true,
			want: func(c patio.Client) bool { return c.Status == patio.ClientActive }},
		{name: "type change", cur: individual, body: `{"type":"company"}`, wantErr: "type cannot be changed"},
		{name: "null type", cur: individual, body: `{"type":null}`, wantErr: "type must not be null"},
		{name: "null name", cur: individual, body: `{"name":null}`, wantErr: "name must not be null"},
		{name: "null status", cur: individual, body: `{"status":null}`, wantErr: "status must not be null"},
		{name: "null cpf of an individual", cur: individual, body: `{"cpf":null}`, wantErr: "cpf is required"},
		{name: "null cnpj of a company", cur: company, body: `{"cnpj":null}`, wantErr: "cnpj is required"},
		{name: "cnpj on an individual", cur: individual, body: `{"cnpj":"11222333000181"}`, wantErr: "cnpj is not allowed"},
		{name: "cpf on a company", cur: company, body: `{"cpf":"52998224725"}`, wantErr: "cpf is not allowed"},
		{name: "birth_date on a company", cur: company, body: `{"birth_date":"1990-01-01"}`, wantErr: "birth_date is not allowed"},
		{name: "bad cpf", cur: individual, body: `{"cpf":"123"}`, wantErr: "cpf must have 11 digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := input(t, tt.body)
			var got patio.Client
			if err == nil {
				got, err = tt.cur.Apply(in, later)
			}
			changed := patio.Changed(tt.cur, got)
			if tt.wantErr != "" {
				if !patio.IsKind(err, patio.KindInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Apply(%s) = %v; want KindInvalid containing %q", tt.body, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%s) = %v; want no error", tt.body, err)
			}
			if changed != tt.changed {
				t.Errorf("Apply(%s) changed = %v; want %v", tt.body, changed, tt.changed)
			}
			if tt.want != nil && !tt.want(got) {
				t.Errorf("Apply(%s) = %+v; not what the case wants", tt.body, got)
			}
		})
	}
}

func TestClientDeactivate(t *testing.T) {
	c, err := newClient(t, `{"type":"individual","name":"Ana","cpf":"52998224725"}`)
	if err != nil {
		t.Fatal(err)
	}
	off := c.Deactivate()
	if off.Status != patio.ClientInactive || !patio.Changed(c, off) {
		t.Errorf("Deactivate() = %s; want inactive", off.Status)
	}
	if again := off.Deactivate(); patio.Changed(off, again) {
		t.Errorf("Deactivate() of an inactive client = %+v; want the same client", again)
	}
}

func TestClientDocument(t *testing.T) {
	tests := []struct {
		name        string
		c           patio.Client
		kind, value string
	}{
		{name: "individual", c: patio.Client{CPF: str("52998224725")}, kind: "cpf", value: "52998224725"},
		{name: "company", c: patio.Client{CNPJ: str("12ABC34501DE35")}, kind: "cnpj", value: "12ABC34501DE35"},
		{name: "none", c: patio.Client{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if kind, value := tt.c.Document(); kind != tt.kind || value != tt.value {
				t.Errorf("Document() = %q, %q; want %q, %q", kind, value, tt.kind, tt.value)
			}
		})
	}
}
