package dynamostore

import (
	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// vehicleRow is a vehicle as stored in VehiclesTable.
type vehicleRow = storeformat.VehicleRow

// vehicleKind declares how vehicles are stored: a plate is unique in the team (either spelling).
var vehicleKind = kind[patio.Vehicle, vehicleRow, patio.VehicleQuery]{
	Kind: lists.Kind[patio.Vehicle, vehicleRow, patio.VehicleQuery]{
		What: "vehicle", Layout: storeformat.Vehicles,
		Key:    func(v patio.Vehicle) (string, string) { return v.TeamID, v.ID },
		Encode: storeformat.ToVehicleRow,
		Decode: vehicleRow.Vehicle,
		List: lists.Listing[patio.Vehicle, patio.VehicleQuery]{
			Statuses: patio.VehicleStatuses,
			Query:    func(q patio.VehicleQuery) patio.ListQuery { return q.ListQuery },
			Filters: map[string]func(patio.VehicleQuery) []string{
				"phase": func(q patio.VehicleQuery) []string { return q.Phase },
				"fuel":  func(q patio.VehicleQuery) []string { return q.Fuel },
				"brand": func(q patio.VehicleQuery) []string { return lists.One(q.Brand) },
				"model": func(q patio.VehicleQuery) []string { return lists.One(q.Model) },
			},
			Ranges: []lists.Range[patio.VehicleQuery]{
				{Attr: "price_cents", Sort: "price", Bounds: func(q patio.VehicleQuery) (lo, hi *lists.Bound) {
					return lists.CentsBound(q.PriceMin), lists.CentsBound(q.PriceMax)
				}},
				{Attr: "model_year", Sort: "model_year", Bounds: func(q patio.VehicleQuery) (lo, hi *lists.Bound) {
					return lists.IntBound(q.YearMin, 4), lists.IntBound(q.YearMax, 4)
				}},
			},
			Unique: func(q patio.VehicleQuery) *lists.Unique {
				if q.PlateKey == "" {
					return nil
				}
				return &lists.Unique{Guard: storeformat.PlateGuardKey(q.PlateKey), Conds: []lists.Cond{lists.In("plate_key", []string{q.PlateKey})}}
			},
			Words: patio.Vehicle.Words,
			Terms: func(q patio.VehicleQuery) []string { return q.Terms },
		},
	},
	prefix:       storeformat.Vehicles.RowPrefix(),
	table:        func(t Tables) string { return t.Vehicles },
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
}

// Vehicles returns the vehicle store.
func (s *Store) Vehicles() patio.VehicleStore {
	return records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s.core, &vehicleKind}
}
