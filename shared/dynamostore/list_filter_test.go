package dynamostore

import (
	"reflect"
	"testing"

	"github.com/patio-dev/patio/shared/patio"
)

// A list's reads of status ranges carry no status condition (each range holds one status), a list
// filtered by status alone is counted from the maintained counts, and the legacy path, which reads
// every record, filters by status.
func TestFilterKeepsTheStatusApart(t *testing.T) {
	brand := "fiat"
	tests := []struct {
		name        string
		q           patio.VehicleQuery
		parts       []string
		statusOnly  bool
		legacyParts []string
	}{
		{name: "default", q: patio.VehicleQuery{ListQuery: patio.ListQuery{Status: []string{"ativo", "reservado"}}},
			statusOnly: true, legacyParts: []string{"'status' IN (?, ?)"}},
		{name: "brand", q: patio.VehicleQuery{ListQuery: patio.ListQuery{Status: []string{"ativo"}}, Brand: &brand},
			parts: []string{"'f_brand' = ?"}, legacyParts: []string{"'status' IN (?)", "'f_brand' = ?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := vehicleKind.filter(tt.q)
			if !reflect.DeepEqual(f.parts, tt.parts) || f.statusOnly() != tt.statusOnly {
				t.Errorf("filter(%s) = %q, status only %v; want %q, %v", tt.name, f.parts, f.statusOnly(), tt.parts, tt.statusOnly)
			}
			if got := f.withStatus().parts; !reflect.DeepEqual(got, tt.legacyParts) {
				t.Errorf("filter(%s).withStatus() = %q; want %q", tt.name, got, tt.legacyParts)
			}
		})
	}
}
