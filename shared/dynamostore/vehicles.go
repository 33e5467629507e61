package dynamostore

import (
	"context"
	"errors"
	"strings"

	"github.com/guregu/dynamo/v2"

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
	Search     string `dynamo:"search"`
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
	plate := ""
	if v.Plate != nil {
		plate = *v.Plate
	}
	return vehicleRow{
		PK: v.TeamID, SK: vehicleSK(v.ID), ID: v.ID,
		Title: v.Title, Brand: v.Brand, Model: v.Model, Version: v.Version,
		Plate: v.Plate, PlateKey: v.PlateKey(), Renavam: v.Renavam, VIN: v.VIN,
		ManufactureYear: v.ManufactureYear, ModelYear: v.ModelYear, MileageKm: v.MileageKm,
		Color: v.Color, Fuel: v.Fuel, Transmission: v.Transmission,
		PriceCents: int64(v.Price), PurchaseCents: centsPtr(v.PurchasePrice),
		Phase: v.Phase, Status: v.Status, Description: v.Description,
		SoldAt: tsPtr(v.SoldAt), SoldDealID: v.SoldDealID,
		CreatedAt: v.CreatedAt.String(), UpdatedAt: v.UpdatedAt.String(), Rev: v.Rev,

		Search: strings.Join([]string{patio.Fold(v.Title), patio.Fold(v.Brand), patio.Fold(v.Model),
			strings.ToLower(plate), strings.ToLower(v.PlateKey())}, "\x1f"),
		FBrand:     patio.Fold(v.Brand),
		FModel:     patio.Fold(v.Model),
		LSIUpdated: sortKey(ptrTo(v.UpdatedAt.String()), v.ID),
		LSIPrice:   sortKey(padded(12, int64(v.Price)), v.ID),
		LSITitle:   sortKey(foldedText(v.Title), v.ID),
		LSIYear:    sortKey(intKey(4, v.ModelYear), v.ID),
		LSIMileage: sortKey(intKey(19, v.MileageKm), v.ID),
	}
}

func (r vehicleRow) vehicle() (patio.Vehicle, error) {
	v := patio.Vehicle{
		ID: r.ID, TeamID: r.PK, Title: r.Title, Brand: r.Brand, Model: r.Model, Version: r.Version,
		Plate: r.Plate, Renavam: r.Renavam, VIN: r.VIN,
		ManufactureYear: r.ManufactureYear, ModelYear: r.ModelYear, MileageKm: r.MileageKm,
		Color: r.Color, Fuel: r.Fuel, Transmission: r.Transmission,
		Price: money.Cents(r.PriceCents), Phase: r.Phase, Status: r.Status, Description: r.Description,
		SoldDealID: r.SoldDealID, Rev: r.Rev,
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

func (s *Store) vehicles() dynamo.Table { return s.db.Table(s.tables.Vehicles) }

// plateGuard returns the sort key of the guard reserving the vehicle's plate, or "" without one.
func plateGuard(v patio.Vehicle) string { return guardSK(platePrefix, v.PlateKey()) }

func duplicatePlate(key string) error {
	return patio.Errorf(patio.KindDuplicate, "a vehicle with plate %s already exists", key)
}

// CreateVehicle stores a new vehicle and, when it has a plate, reserves the plate in the same
// transaction. A plate already reserved in the team (either spelling) is KindDuplicate.
func (s *Store) CreateVehicle(ctx context.Context, v patio.Vehicle) error {
	t := s.vehicles()
	put := func() *dynamo.Put { return t.Put(toVehicleRow(v)).If("attribute_not_exists(pk)") }
	err := s.putGuarded(ctx, t, put, v.TeamID, v.ID, "", plateGuard(v))
	if errors.Is(err, errTaken) {
		return duplicatePlate(v.PlateKey())
	}
	return wrap(err, "create vehicle", v.ID)
}

// GetVehicle returns a team's vehicle (strongly consistent), or KindNotFound.
func (s *Store) GetVehicle(ctx context.Context, teamID, id string) (patio.Vehicle, error) {
	return getRecord(ctx, s.vehicles(), teamID, vehicleSK(id), "vehicle", vehicleRow.vehicle)
}

// UpdateVehicle applies change to the stored vehicle and writes it conditioned on the revision it
// read; a lost race re-reads and re-applies. A plate change moves the plate's guard in the same
// transaction (KindDuplicate when the new plate is taken).
func (s *Store) UpdateVehicle(ctx context.Context, teamID, id string,
	change func(patio.Vehicle) (patio.Vehicle, bool, error)) (patio.Vehicle, error) {
	get := func() (patio.Vehicle, error) { return s.GetVehicle(ctx, teamID, id) }
	return updateRecord(get, change, func(cur, next patio.Vehicle) (patio.Vehicle, error) {
		next.Rev = cur.Rev + 1
		return next, s.replaceVehicle(ctx, cur, next)
	})
}

// replaceVehicle writes next over cur, conditioned on cur's revision (errRevConflict when it moved),
// moving the plate guard when the plate changes.
func (s *Store) replaceVehicle(ctx context.Context, cur, next patio.Vehicle) error {
	t := s.vehicles()
	put := func() *dynamo.Put { return t.Put(toVehicleRow(next)).If("'rev' = ?", cur.Rev) }
	err := s.putGuarded(ctx, t, put, next.TeamID, next.ID, plateGuard(cur), plateGuard(next))
	switch {
	case errors.Is(err, errRevConflict):
		return err
	case errors.Is(err, errTaken):
		return duplicatePlate(next.PlateKey())
	}
	return wrap(err, "update vehicle", next.ID)
}

// vehicleSorts maps each sortable field to its index.
var vehicleSorts = map[string]sortIndex{
	"created_at": {},
	"updated_at": {index: "by_updated", attr: "lsi_updated"},
	"price":      {index: "by_price", attr: "lsi_price"},
	"title":      {index: "by_title", attr: "lsi_title"},
	"model_year": {index: "by_year", attr: "lsi_year", optional: true},
	"mileage_km": {index: "by_mileage", attr: "lsi_mileage", optional: true},
}

// ListVehicles returns one page of a team's vehicles in the requested order and the total matching.
func (s *Store) ListVehicles(ctx context.Context, teamID string, q patio.VehicleQuery) ([]patio.Vehicle, int, error) {
	var f filter
	f.common(q.ListQuery)
	f.in("phase", q.Phase)
	f.in("fuel", q.Fuel)
	if q.Brand != "" {
		f.add("'f_brand' = ?", q.Brand)
	}
	if q.Model != "" {
		f.add("'f_model' = ?", q.Model)
	}
	if q.PriceMin != nil {
		f.add("'price_cents' >= ?", int64(*q.PriceMin))
	}
	if q.PriceMax != nil {
		f.add("'price_cents' <= ?", int64(*q.PriceMax))
	}
	if q.YearMin != nil {
		f.add("'model_year' >= ?", *q.YearMin)
	}
	if q.YearMax != nil {
		f.add("'model_year' <= ?", *q.YearMax)
	}
	if q.PlateKey != "" {
		f.add("'plate_key' = ?", q.PlateKey)
	}
	if q.Q != "" {
		f.add("contains('search', ?)", strings.ToLower(q.Q))
	}
	return listRecords(ctx, s.vehicles(), teamID, vehiclePrefix, "vehicles", vehicleSorts[q.Sort], q.ListQuery, f,
		vehicleRow.vehicle)
}
