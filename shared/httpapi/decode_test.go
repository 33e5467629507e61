package httpapi

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/patio-dev/patio/shared/patio"
)

// The edge decodes a query string and the domain checks its values: together, what a client
// sees of a list query's rules.
func TestClientQuery(t *testing.T) {
	tests := []struct {
		query   string
		want    func(q patio.ClientQuery) bool
		wantErr string
	}{
		{query: "", want: func(q patio.ClientQuery) bool {
			return reflect.DeepEqual(q.Status, []string{"active"}) && q.Sort == "created_at" && q.Desc
		}},
		{query: "status=inactive", want: func(q patio.ClientQuery) bool { return reflect.DeepEqual(q.Status, []string{"inactive"}) }},
		{query: "status=active,inactive", want: func(q patio.ClientQuery) bool { return len(q.Status) == 2 }},
		{query: "type=company", want: func(q patio.ClientQuery) bool { return reflect.DeepEqual(q.Type, []string{"company"}) }},
		{query: "cpf=529.982.247-25", want: func(q patio.ClientQuery) bool { return *q.CPF == "52998224725" }},
		{query: "cpf=52998224725", want: func(q patio.ClientQuery) bool { return *q.CPF == "52998224725" }},
		{query: "cnpj=12.abc.345%2F01de-35", want: func(q patio.ClientQuery) bool { return *q.CNPJ == "12ABC34501DE35" }},
		{query: "q=%C3%81gata", want: func(q patio.ClientQuery) bool { return *q.Q == "agata" }},
		{query: "sort=-name", want: func(q patio.ClientQuery) bool { return q.Sort == "name" && q.Desc }},
		{query: "sort=updated_at", want: func(q patio.ClientQuery) bool { return q.Sort == "updated_at" && !q.Desc }},
		{query: "cpf=52998224724", wantErr: "cpf has an invalid check digit"},
		{query: "cnpj=123", wantErr: "cnpj must have 14 characters"},
		{query: "type=person", wantErr: "type must be a comma-separated list of individual, company"},
		{query: "status=arquivado", wantErr: "status must be a comma-separated list of active, inactive"},
		{query: "sort=email", wantErr: "sort must be one of created_at, updated_at, name"},
		{query: "q=", wantErr: "q must not be empty"},
		{query: "email=a@b.c", wantErr: "unknown query parameter email"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			values, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			q, err := decodeClientQuery(values)
			if err == nil {
				q, err = q.Check()
			}
			if tt.wantErr != "" {
				if !patio.IsKind(err, patio.KindInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("client query %q = %v; want KindInvalid containing %q", tt.query, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("client query %q = %v; want no error", tt.query, err)
			}
			if !tt.want(q) {
				t.Errorf("client query %q = %+v; not what the case wants", tt.query, q)
			}
		})
	}
}

// A JSON number is an integer when its value is whole, however it is written (JSON Schema's
// `integer`, which openapi.yaml uses): a client that serialises 2000 as 2000.0 is not refused.
func TestIntegerMember(t *testing.T) {
	tests := []struct {
		raw     string
		want    int
		wantErr string
	}{
		{raw: "2000", want: 2000},
		{raw: "2000.0", want: 2000},
		{raw: "2e3", want: 2000},
		{raw: "2.0E+3", want: 2000},
		{raw: "20000e-1", want: 2000},
		{raw: "-0", want: 0},
		{raw: "0.000e5", want: 0},
		{raw: "-2147483648", want: -2147483648},
		{raw: "2000.5", wantErr: "mileage_km must be an integer"},
		{raw: "1e-400", wantErr: "mileage_km must be an integer"},
		{raw: "1e-99999999999999", wantErr: "mileage_km must be an integer"},
		{raw: `"2000"`, wantErr: "mileage_km must be an integer"},
		{raw: "true", wantErr: "mileage_km must be an integer"},
		{raw: "2147483648", wantErr: "mileage_km is out of range"},
		{raw: "5705219071453244162048", wantErr: "mileage_km is out of range"},
		{raw: "1e400", wantErr: "mileage_km is out of range"},
		{raw: "1e99999999999999", wantErr: "mileage_km is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			in, err := DecodeVehicle([]byte(`{"mileage_km":` + tt.raw + `}`))
			if tt.wantErr != "" {
				if !patio.IsKind(err, patio.KindInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("DecodeVehicle(mileage_km %s) = %v; want KindInvalid containing %q", tt.raw, err, tt.wantErr)
				}
				return
			}
			if err != nil || !in.MileageKm.Set() || in.MileageKm.Value != tt.want {
				t.Errorf("DecodeVehicle(mileage_km %s) = %+v, %v; want %d", tt.raw, in.MileageKm, err, tt.want)
			}
		})
	}
}
