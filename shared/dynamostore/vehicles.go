package dynamostore

import (
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

const (
	vehiclePrefix = "v#"
	platePrefix   = "plate#"
)

// vehicleRow is a vehicle as stored in VehiclesTable.
type vehicleRow struct {
	PK              string  `dynamo:"pk,hash"`
	SK              string  `dynamo:"sk,range"`
	ID              string  `dynamo:"id"`
	Title           string  `dynamo:"title"`
	Brand           string  `dynamo:"brand"`
	Model           string  `dynamo:"model"`
	Version         *string `dynamo:"version,allowempty"`
	Plate           *string `dynamo:"plate"`
	PlateKey        string  `dynamo:"plate_key"`
	Renavam         *string `dynamo:"renavam"`
	VIN             *string `dynamo:"vin"`
	ManufactureYear *int    `dynamo:"manufacture_year"`
	ModelYear       *int    `dynamo:"model_year"`
	MileageKm       *int    `dynamo:"mileage_km"`
	Color           *string `dynamo:"color,allowempty"`
	Fuel            *string `dynamo:"fuel"`
	Transmission    *string `dynamo:"transmission"`
	PriceCents      int64   `dynamo:"price_cents"`
	PurchaseCents   *int64  `dynamo:"purchase_price_cents"`
	Phase           string  `dynamo:"phase"`
	Status          string  `dynamo:"status"`
	Description     *string `dynamo:"description,allowempty"`
	SoldAt          *string `dynamo:"sold_at"`
	SoldDealID      *string `dynamo:"sold_deal_id"`
	CreatedAt       string  `dynamo:"created_at"`
	UpdatedAt       string  `dynamo:"updated_at"`
	Rev             int     `dynamo:"rev"`

	// Derived attributes for filters and sorted indexes.
	FBrand     string `dynamo:"f_brand"`
	FModel     string `dynamo:"f_model"`
	LSIUpdated string `dynamo:"lsi_updated"`
	LSIPrice   string `dynamo:"lsi_price"`
	LSITitle   string `dynamo:"lsi_title"`
	LSIYear    string `dynamo:"lsi_year"`
	LSIMileage string `dynamo:"lsi_mileage"`
}

func vehicleSK(id string) string { return vehiclePrefix + id }

func centsPtr(c *money.Cents) *int64 {
	if c == nil {
		return nil
	}
	v := int64(*c)
	return &v
}

func tsPtr(t *patio.Timestamp) *string {
	if t == nil {
		return nil
	}
	s := t.String()
	return &s
}

func intKey(width int, n *int) *string {
	if n == nil {
		return nil
	}
	return padded(width, int64(*n))
}

func toVehicleRow(v patio.Vehicle) vehicleRow {
	return vehicleRow{
		PK: v.TeamID, SK: vehicleSK(v.ID), ID: v.ID,
		Title: v.Title, Brand: v.Brand, Model: v.Model, Version: v.Version,
		Plate: v.Plate, PlateKey: v.PlateKey(), Renavam: v.Renavam, VIN: v.VIN,
		ManufactureYear: v.ManufactureYear, ModelYear: v.ModelYear, MileageKm: v.MileageKm,
		Color: v.Color, Fuel: v.Fuel, Transmission: v.Transmission,
		PriceCents: int64(v.Price), PurchaseCents: centsPtr(v.PurchasePrice),
		Phase: v.Phase, Status: v.Status, Description: v.Description,
		SoldAt: tsPtr(v.SoldAt), SoldDealID: v.SoldDealID,
		CreatedAt: v.CreatedAt.String(), UpdatedAt: v.UpdatedAt.String(), Rev: revAttr(v.Revision),

		FBrand:     patio.Fold(v.Brand),
		FModel:     patio.Fold(v.Model),
		LSIUpdated: sortKey(v.Status, ptrTo(v.UpdatedAt.String()), v.ID),
		LSIPrice:   sortKey(v.Status, padded(12, int64(v.Price)), v.ID),
		LSITitle:   sortKey(v.Status, foldedText(v.Title), v.ID),
		LSIYear:    sortKey(v.Status, intKey(4, v.ModelYear), v.ID),
		LSIMileage: sortKey(v.Status, intKey(19, v.MileageKm), v.ID),
	}
}

func (r vehicleRow) vehicle() (patio.Vehicle, error) {
	v := patio.Vehicle{
		ID: r.ID, TeamID: r.PK, Title: r.Title, Brand: r.Brand, Model: r.Model, Version: r.Version,
		Plate: r.Plate, Renavam: r.Renavam, VIN: r.VIN,
		ManufactureYear: r.ManufactureYear, ModelYear: r.ModelYear, MileageKm: r.MileageKm,
		Color: r.Color, Fuel: r.Fuel, Transmission: r.Transmission,
		Price: money.Cents(r.PriceCents), Phase: r.Phase, Status: r.Status, Description: r.Description,
		SoldDealID: r.SoldDealID, Revision: revisionOf(r.Rev),
	}
	if r.PurchaseCents != nil {
		c := money.Cents(*r.PurchaseCents)
		v.PurchasePrice = &c
	}
	var err error
	if v.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return v, err
	}
	if v.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt); err != nil {
		return v, err
	}
	if r.SoldAt != nil {
		t, err := patio.ParseTimestamp(*r.SoldAt)
		if err != nil {
			return v, err
		}
		v.SoldAt = &t
	}
	return v, nil
}

func ptrTo[T any](v T) *T { return &v }

// vehicleKind declares how vehicles are stored: a plate is unique in the team (either spelling).
var vehicleKind = kind[patio.Vehicle, vehicleRow, patio.VehicleQuery]{
	what: "vehicle", prefix: vehiclePrefix,
	table:        func(t Tables) string { return t.Vehicles },
	key:          func(v patio.Vehicle) (string, string) { return v.TeamID, v.ID },
	encode:       toVehicleRow,
	decode:       vehicleRow.vehicle,
	revision:     func(v patio.Vehicle) int { return v.Revision },
	withRevision: func(v patio.Vehicle, n int) patio.Vehicle { v.Revision = n; return v },
	guards: func(v patio.Vehicle) []guard {
		if v.PlateKey() == "" {
			return nil
		}
		return []guard{{sk: platePrefix + v.PlateKey(),
			taken: patio.Errorf(patio.KindDuplicate, "a vehicle with plate %s already exists", v.PlateKey())}}
	},
	sorts: map[string]sortIndex{
		"created_at": {},
		"updated_at": {index: "by_updated", attr: "lsi_updated"},
		"price":      {index: "by_price", attr: "lsi_price"},
		"title":      {index: "by_title", attr: "lsi_title"},
		"model_year": {index: "by_year", attr: "lsi_year", optional: true},
		"mileage_km": {index: "by_mileage", attr: "lsi_mileage", optional: true},
	},
	list: &listing[patio.Vehicle, patio.VehicleQuery]{
		letter: "v", statuses: patio.VehicleStatuses,
		query: func(q patio.VehicleQuery) patio.ListQuery { return q.ListQuery },
		facets: []facet[patio.VehicleQuery]{
			{name: "phase", attr: "phase", closed: true, filter: func(q patio.VehicleQuery) []string { return q.Phase }},
			{name: "fuel", attr: "fuel", closed: true, filter: func(q patio.VehicleQuery) []string { return q.Fuel }},
			{name: "brand", attr: "f_brand", filter: func(q patio.VehicleQuery) []string { return one(q.Brand) }},
			{name: "model", attr: "f_model", filter: func(q patio.VehicleQuery) []string { return one(q.Model) }},
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
			return &uniqueFilter{guard: platePrefix + q.PlateKey, conds: conds{in("plate_key", []string{q.PlateKey})}}
		},
		words: patio.Vehicle.Words,
		terms: func(q patio.VehicleQuery) []string { return q.Terms },
	},
}

// Vehicles returns the vehicle store.
func (s *Store) Vehicles() patio.VehicleStore {
	return records[patio.Vehicle, vehicleRow, patio.VehicleQuery]{s, &vehicleKind}
}
