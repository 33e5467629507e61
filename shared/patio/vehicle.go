package patio

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/money"
)

// Vehicle statuses (CONTRACT.md section 5).
const (
	VehicleActive   = "ativo"
	VehicleReserved = "reservado"
	VehicleSold     = "vendido"
	VehicleArchived = "arquivado"
)

// Vehicle enums and sortable fields (CONTRACT.md section 5).
var (
	VehicleFuels         = []string{"flex", "gasolina", "etanol", "diesel", "gnv", "hibrido", "eletrico"}
	VehicleTransmissions = []string{"manual", "automatico", "automatizado", "cvt"}
	VehiclePhases        = []string{"avaliacao", "preparacao", "documentacao", "disponivel", "negociacao", "entregue"}
	VehicleStatuses      = []string{VehicleActive, VehicleReserved, VehicleSold, VehicleArchived}
	VehicleSorts         = []string{"created_at", "updated_at", "price", "title", "model_year", "mileage_km"}
)

// DefaultVehiclePhase is the kanban phase of a new vehicle.
const DefaultVehiclePhase = "preparacao"

// Vehicle is a vehicle of a team's inventory. Its JSON form is the API representation, also sent as
// the webhook data.object: every field present, unset optional fields null.
type Vehicle struct {
	ID              string       `json:"id"`
	TeamID          string       `json:"-"`
	Title           string       `json:"title"`
	Brand           string       `json:"brand"`
	Model           string       `json:"model"`
	Version         *string      `json:"version"`
	Plate           *string      `json:"plate"`
	Renavam         *string      `json:"renavam"`
	VIN             *string      `json:"vin"`
	ManufactureYear *int         `json:"manufacture_year"`
	ModelYear       *int         `json:"model_year"`
	MileageKm       *int         `json:"mileage_km"`
	Color           *string      `json:"color"`
	Fuel            *string      `json:"fuel"`
	Transmission    *string      `json:"transmission"`
	Price           money.Cents  `json:"price"`
	PurchasePrice   *money.Cents `json:"purchase_price"`
	Phase           string       `json:"phase"`
	Status          string       `json:"status"`
	Description     *string      `json:"description"`
	SoldAt          *Timestamp   `json:"sold_at"`
	SoldDealID      *string      `json:"sold_deal_id"`
	CreatedAt       Timestamp    `json:"created_at"`
	UpdatedAt       Timestamp    `json:"updated_at"`
	// Rev counts the writes of the record, for optimistic concurrency. Not part of the API.
	Rev int `json:"-"`
}

// PlateKey returns the uniqueness key of the vehicle's plate (its Mercosul spelling), or "".
func (v Vehicle) PlateKey() string {
	if v.Plate == nil {
		return ""
	}
	return br.PlateKey(*v.Plate)
}

// VehicleInput is a vehicle request body (POST or PUT), member by member.
type VehicleInput struct {
	Title, Brand, Model, Version, Plate, Renavam, VIN Opt[string]
	ManufactureYear, ModelYear, MileageKm             Opt[int]
	Color, Fuel, Transmission, Phase, Status          Opt[string]
	Price, PurchasePrice                              Opt[money.Cents]
	Description                                       Opt[string]
}

// maxMileage bounds mileage_km so that it fits the sort key's 19 digits with room to spare.
const maxMileage = 1_000_000_000

// ParseVehicleInput validates each member of a vehicle body on its own (types, formats, ranges,
// check digits). Errors are KindInvalid and name the member.
func ParseVehicleInput(body Body, now time.Time) (VehicleInput, error) {
	var in VehicleInput
	maxYear := now.UTC().Year() + 1
	err := decodeBody(body, []field{
		textField("title", 1, 200, &in.Title),
		textField("brand", 1, 80, &in.Brand),
		textField("model", 1, 80, &in.Model),
		textField("version", 0, 120, &in.Version),
		normalizedField("plate", &in.Plate, br.NormalizePlate),
		normalizedField("renavam", &in.Renavam, br.ValidateRENAVAM),
		normalizedField("vin", &in.VIN, br.ValidateVIN),
		intField("manufacture_year", 1900, maxYear, &in.ManufactureYear),
		intField("model_year", 1900, maxYear, &in.ModelYear),
		intField("mileage_km", 0, maxMileage, &in.MileageKm),
		textField("color", 0, 40, &in.Color),
		enumField("fuel", VehicleFuels, &in.Fuel),
		enumField("transmission", VehicleTransmissions, &in.Transmission),
		moneyField("price", &in.Price),
		moneyField("purchase_price", &in.PurchasePrice),
		enumField("phase", VehiclePhases, &in.Phase),
		enumField("status", VehicleStatuses, &in.Status),
		textField("description", 0, 5000, &in.Description),
	})
	return in, err
}

// NewVehicle builds a vehicle from a POST body. brand, model and price are required; a missing title
// is derived once from brand, model, version and model_year; status may only be ativo or reservado.
func NewVehicle(id string, now time.Time, in VehicleInput) (Vehicle, error) {
	for _, req := range []struct {
		name string
		o    Opt[string]
	}{{"brand", in.Brand}, {"model", in.Model}} {
		if !req.o.Set() {
			return Vehicle{}, Invalidf("%s is required", req.name)
		}
	}
	if !in.Price.Set() {
		return Vehicle{}, Invalidf("price is required")
	}
	if err := firstErr(notNull("phase", in.Phase), notNull("status", in.Status)); err != nil {
		return Vehicle{}, err
	}
	if in.Status.Set() && in.Status.Value != VehicleActive && in.Status.Value != VehicleReserved {
		return Vehicle{}, Invalidf("status must be ativo or reservado when creating a vehicle")
	}
	ts := NewTimestamp(now)
	v := Vehicle{ID: id, Phase: DefaultVehiclePhase, Status: VehicleActive, CreatedAt: ts, UpdatedAt: ts}
	v.merge(in)
	if !in.Title.Set() {
		v.Title = v.derivedTitle()
	}
	if err := v.checkYears(); err != nil {
		return Vehicle{}, err
	}
	return v, nil
}

// derivedTitle is "brand model version model_year" without the missing parts.
func (v Vehicle) derivedTitle() string {
	parts := []string{v.Brand, v.Model}
	if v.Version != nil && *v.Version != "" {
		parts = append(parts, *v.Version)
	}
	if v.ModelYear != nil {
		parts = append(parts, strconv.Itoa(*v.ModelYear))
	}
	t := []rune(strings.Join(parts, " "))
	if len(t) > 200 {
		t = t[:200]
	}
	return string(t)
}

// merge copies every member present in the input onto v.
func (v *Vehicle) merge(in VehicleInput) {
	setIf(&v.Title, in.Title)
	setIf(&v.Brand, in.Brand)
	setIf(&v.Model, in.Model)
	apply(&v.Version, in.Version)
	apply(&v.Plate, in.Plate)
	apply(&v.Renavam, in.Renavam)
	apply(&v.VIN, in.VIN)
	apply(&v.ManufactureYear, in.ManufactureYear)
	apply(&v.ModelYear, in.ModelYear)
	apply(&v.MileageKm, in.MileageKm)
	apply(&v.Color, in.Color)
	apply(&v.Fuel, in.Fuel)
	apply(&v.Transmission, in.Transmission)
	setIf(&v.Price, in.Price)
	apply(&v.PurchasePrice, in.PurchasePrice)
	setIf(&v.Phase, in.Phase)
	setIf(&v.Status, in.Status)
	apply(&v.Description, in.Description)
}

func (v Vehicle) checkYears() error {
	if v.ManufactureYear != nil && v.ModelYear != nil {
		if d := *v.ModelYear - *v.ManufactureYear; d != 0 && d != 1 {
			return Invalidf("model_year must be manufacture_year or the year after it")
		}
	}
	return nil
}

// Apply returns the vehicle after a PUT body and whether anything changed. Required and defaulted
// members may not be null (KindInvalid). Status rules: vendido sets sold_at; ativo and reservado clear
// sold_at and sold_deal_id, and are refused (KindConflict) for a vehicle a deal has sold.
func (v Vehicle) Apply(in VehicleInput, now time.Time) (Vehicle, bool, error) {
	if err := firstErr(notNull("title", in.Title), notNull("brand", in.Brand), notNull("model", in.Model),
		notNull("price", in.Price), notNull("phase", in.Phase), notNull("status", in.Status)); err != nil {
		return v, false, err
	}
	next := v
	next.merge(in)
	if err := next.checkYears(); err != nil {
		return v, false, err
	}
	if next.Status != v.Status {
		var err error
		if next, err = next.enterStatus(now); err != nil {
			return v, false, err
		}
	}
	next, changed := changedTo(v, next, now)
	return next, changed, nil
}

// enterStatus applies the side effects of moving into v.Status.
func (v Vehicle) enterStatus(now time.Time) (Vehicle, error) {
	switch v.Status {
	case VehicleSold:
		if v.SoldAt == nil {
			v.SoldAt = ptr(NewTimestamp(now))
		}
	case VehicleActive, VehicleReserved:
		if v.SoldDealID != nil {
			return v, Conflictf("vehicle was sold by deal %s; it can only be vendido or arquivado", *v.SoldDealID)
		}
		v.SoldAt = nil
	}
	return v, nil
}

// Archive returns the vehicle archived (soft delete) and whether that changed anything.
func (v Vehicle) Archive(now time.Time) (Vehicle, bool) {
	next := v
	next.Status = VehicleArchived
	return changedTo(v, next, now)
}

// SellTo marks the vehicle sold by a winning deal. A vehicle that is not ativo or reservado cannot be
// won (KindConflict).
func (v Vehicle) SellTo(dealID string, now time.Time) (Vehicle, error) {
	switch v.Status {
	case VehicleActive, VehicleReserved:
	case VehicleSold:
		return v, Conflictf("the vehicle is already sold; this deal cannot win it")
	default:
		return v, Conflictf("vehicle_id names a vehicle that is %s; only ativo or reservado vehicles can be sold", v.Status)
	}
	next := v
	next.Status = VehicleSold
	next.SoldAt = ptr(NewTimestamp(now))
	next.SoldDealID = ptr(dealID)
	next, _ = changedTo(v, next, now)
	return next, nil
}

func (v *Vehicle) setTeam(teamID string) { v.TeamID = teamID }

func (v *Vehicle) touch(now time.Time) { v.UpdatedAt = NewTimestamp(now) }

// VehicleQuery is a parsed vehicle list request.
type VehicleQuery struct {
	ListQuery
	Phase, Fuel        []string
	Brand, Model       string // folded; exact match ignoring case and accents
	PriceMin, PriceMax *money.Cents
	YearMin, YearMax   *int   // model_year bounds
	PlateKey           string // either spelling of the plate
	Q                  string // folded substring of title, brand, model, plate
}

// ParseVehicleQuery reads a vehicle list's query string (CONTRACT.md sections 4 and 5).
func ParseVehicleQuery(values url.Values) (VehicleQuery, error) {
	var q VehicleQuery
	var err error
	q.ListQuery, err = parseList(values, listSpec{
		sorts: VehicleSorts, statuses: VehicleStatuses, softDeleted: VehicleArchived,
		extra: map[string]func(string) error{
			"phase":     func(v string) (err error) { q.Phase, err = enumParam("phase", v, VehiclePhases); return },
			"fuel":      func(v string) (err error) { q.Fuel, err = enumParam("fuel", v, VehicleFuels); return },
			"brand":     func(v string) (err error) { q.Brand, err = textParam("brand", v); return },
			"model":     func(v string) (err error) { q.Model, err = textParam("model", v); return },
			"q":         func(v string) (err error) { q.Q, err = textParam("q", v); return },
			"price_min": func(v string) (err error) { q.PriceMin, err = moneyParam("price_min", v); return },
			"price_max": func(v string) (err error) { q.PriceMax, err = moneyParam("price_max", v); return },
			"year_min":  func(v string) (err error) { q.YearMin, err = yearParam("year_min", v); return },
			"year_max":  func(v string) (err error) { q.YearMax, err = yearParam("year_max", v); return },
			"plate": func(v string) error {
				p, err := normalizedParam("plate", v, br.NormalizePlate)
				q.PlateKey = br.PlateKey(p)
				return err
			},
		},
	})
	return q, err
}

func yearParam(name, v string) (*int, error) {
	n, err := intParam(name, v, 1900, 9999)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// setIf sets *dst when the member is present with a value.
func setIf[T any](dst *T, o Opt[T]) {
	if o.Set() {
		*dst = o.Value
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
