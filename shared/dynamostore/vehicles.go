package dynamostore

import (
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// vehicleRow is a vehicle as stored in VehiclesTable.
type vehicleRow = storeformat.VehicleRow

// vehicleKind declares how vehicles are stored: a plate is unique in the team (either spelling).
var vehicleKind = kind[patio.Vehicle, vehicleRow, patio.VehicleQuery]{
	what: "vehicle", layout: storeformat.Vehicles, prefix: storeformat.Vehicles.RowPrefix(),
	table:        func(t Tables) string { return t.Vehicles },
	key:          func(v patio.Vehicle) (string, string) { return v.TeamID, v.ID },
	encode:       storeformat.ToVehicleRow,
	decode:       vehicleRow.Vehicle,
	names:        []string{"pk", "id", "title", "plate", "created_at", "updated_at"},
	revision:     func(v patio.Vehicle) int { return v.Revision },
	withRevision: func(v patio.Vehicle, n int) patio.Vehicle { v.Revision = n; return v },
	guards: func(v patio.Vehicle) []guard {
		if v.PlateKey() == "" {
			return nil
		}
		return []guard{{sk: storeformat.PlateGuardKey(v.PlateKey()),
			taken: patio.Errorf(patio.KindDuplicate, "a vehicle with plate %s already exists", v.PlateKey())}}
	},
	list: &listing[patio.Vehicle, patio.VehicleQuery]{
		statuses: patio.VehicleStatuses,
		query:    func(q patio.VehicleQuery) patio.ListQuery { return q.ListQuery },
		filters: map[string]func(patio.VehicleQuery) []string{
			"phase": func(q patio.VehicleQuery) []string { return q.Phase },
			"fuel":  func(q patio.VehicleQuery) []string { return q.Fuel },
			"brand": func(q patio.VehicleQuery) []string { return one(q.Brand) },
			"model": func(q patio.VehicleQuery) []string { return one(q.Model) },
		},
		ranges: []rangeField[patio.VehicleQuery]{
			{attr: "price_cents", sort: "price", bounds: func(q patio.VehicleQuery) (lo, hi *bound) {
				return centsBound(q.PriceMin), centsBound(q.PriceMax)
			}},
			{attr: "model_year", sort: "model_year", bounds: func(q patio.VehicleQuery) (lo, hi *bound) {
				return intBound(q.YearMin, 4), intBound(q.YearMax, 4)
			}},
		},
		unique: func(q patio.VehicleQuery) *uniqueFilter {
			if q.PlateKey == "" {
				return nil
			}
			return &uniqueFilter{guard: storeformat.PlateGuardKey(q.PlateKey), conds: conds{in("plate_key", []string{q.PlateKey})}}
		},
		words: patio.Vehicle.Words,
		terms: func(q patio.VehicleQuery) []string { return q.Terms },
	},
}

// Vehicles returns the vehicle store.
func (s *Store) Vehicles() patio.VehicleStore {
	return records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s.core, &vehicleKind}
}
