package patio

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/money"
)

// VehicleStatus is where a vehicle stands in the stock: for sale (VehicleActive), held for a
// buyer (VehicleReserved), sold, or archived (soft-deleted).
type VehicleStatus string

// Vehicle statuses.
const (
	VehicleActive   VehicleStatus = "ativo"
	VehicleReserved VehicleStatus = "reservado"
	VehicleSold     VehicleStatus = "vendido"
	VehicleArchived VehicleStatus = "arquivado"
)

// Vehicle enums and sortable fields.
var (
	VehicleFuels         = []string{"flex", "gasolina", "etanol", "diesel", "gnv", "hibrido", "eletrico"}
	VehicleTransmissions = []string{"manual", "automatico", "automatizado", "cvt"}
	VehiclePhases        = []string{"avaliacao", "preparacao", "documentacao", "disponivel", "negociacao", "entregue"}
	VehicleStatuses      = []string{string(VehicleActive), string(VehicleReserved), string(VehicleSold), string(VehicleArchived)}
	VehicleSorts         = []string{"created_at", "updated_at", "price", "title", "model_year", "mileage_km"}
)

// DefaultVehiclePhase is the kanban phase of a new vehicle.
const DefaultVehiclePhase = "preparacao"

// Vehicle is a vehicle of a team's inventory. Its JSON form is the API representation, also sent as
// the webhook data.object: every field present, unset optional fields null.
type Vehicle struct {
	ID              string        `json:"id"`
	TeamID          string        `json:"-"`
	Title           string        `json:"title"`
	Brand           string        `json:"brand"`
	Model           string        `json:"model"`
	Version         *string       `json:"version"`
	Plate           *string       `json:"plate"`
	Renavam         *string       `json:"renavam"`
	VIN             *string       `json:"vin"`
	ManufactureYear *int          `json:"manufacture_year"`
	ModelYear       *int          `json:"model_year"`
	MileageKm       *int          `json:"mileage_km"`
	Color           *string       `json:"color"`
	Fuel            *string       `json:"fuel"`
	Transmission    *string       `json:"transmission"`
	Price           money.Cents   `json:"price"`
	PurchasePrice   *money.Cents  `json:"purchase_price"`
	Phase           string        `json:"phase"`
	Status          VehicleStatus `json:"status"`
	Description     *string       `json:"description"`
	SoldAt          *Timestamp    `json:"sold_at"`
	SoldDealID      *string       `json:"sold_deal_id"`
	// Photos are the vehicle's photos in their order (the first is the cover); nil for none,
	// which the JSON form shows as [].
	Photos    PhotoList `json:"photos"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// Revision starts at 1 and grows by one with every write that changes the record; the store
	// sets it. Receivers keep the highest per id.
	Revision int `json:"revision"`
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

// check validates each member on its own (lengths, formats, ranges, check digits) and puts it in
// its stored form (trimmed, plate upper case without hyphen).
// Validate checks each member of the input on its own, as the use cases do first: the edge calls
// it to list these problems beside its own when a body also has members of the wrong type.
func (in VehicleInput) Validate(now time.Time) error {
	var p Problems
	in.check(&p, now)
	return p.Err()
}

func (in *VehicleInput) check(p *Problems, now time.Time) {
	maxYear := now.UTC().Year() + 1
	checkText(p, "title", &in.Title, 1, 200)
	checkText(p, "brand", &in.Brand, 1, 80)
	checkText(p, "model", &in.Model, 1, 80)
	checkText(p, "version", &in.Version, 0, 120)
	checkNormalized(p, "plate", &in.Plate, br.NormalizePlate)
	checkNormalized(p, "renavam", &in.Renavam, br.ValidateRENAVAM)
	checkNormalized(p, "vin", &in.VIN, br.ValidateVIN)
	checkRange(p, "manufacture_year", in.ManufactureYear, 1900, maxYear)
	checkRange(p, "model_year", in.ModelYear, 1900, maxYear)
	checkRange(p, "mileage_km", in.MileageKm, 0, maxMileage)
	checkText(p, "color", &in.Color, 0, 40)
	checkEnum(p, "fuel", in.Fuel, VehicleFuels)
	checkEnum(p, "transmission", in.Transmission, VehicleTransmissions)
	checkEnum(p, "phase", in.Phase, VehiclePhases)
	checkEnum(p, "status", in.Status, VehicleStatuses)
	checkMultiline(p, "description", &in.Description, 0, 5000)
}

// NewVehicle builds a vehicle of the team from a create input. brand, model and price are
// required; a missing title is derived once from brand, model, version and model_year; status may
// only be ativo or reservado. Errors are KindInvalid, listing every problem.
func NewVehicle(teamID, id string, now time.Time, in VehicleInput) (Vehicle, error) {
	var p Problems
	in.checkNew(&p, now)
	if err := p.Err(); err != nil {
		return Vehicle{}, err
	}
	ts := NewTimestamp(now)
	v := Vehicle{ID: id, TeamID: teamID, Phase: DefaultVehiclePhase, Status: VehicleActive, CreatedAt: ts, UpdatedAt: ts}
	v.merge(in)
	if !in.Title.Set() {
		v.Title = v.derivedTitle()
	}
	return v, nil
}

// ValidateNew checks a create input as NewVehicle does, every rule at once (each member, the
// required ones, the years between them), without building the vehicle: an edge that could not
// read some members calls it to list the others' problems beside its own. Errors are KindInvalid.
func (in VehicleInput) ValidateNew(now time.Time) error {
	var p Problems
	in.checkNew(&p, now)
	return p.Err()
}

func (in *VehicleInput) checkNew(p *Problems, now time.Time) {
	in.check(p, now)
	required(p, "brand", in.Brand)
	required(p, "model", in.Model)
	required(p, "price", in.Price)
	notNull(p, "phase", in.Phase)
	notNull(p, "status", in.Status)
	if in.Status.Set() && !p.Has("status") && VehicleStatus(in.Status.Value) != VehicleActive && VehicleStatus(in.Status.Value) != VehicleReserved {
		p.Add(InBody, "status", "status must be ativo or reservado when creating a vehicle")
	}
	checkYears(p, optPtr(in.ManufactureYear), optPtr(in.ModelYear))
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
	setAs(&v.Status, in.Status)
	apply(&v.Description, in.Description)
}

// checkYears records the rule between a vehicle's years, unless either year has a problem of its
// own already (one problem per field).
func checkYears(p *Problems, manufacture, model *int) {
	if manufacture == nil || model == nil || p.Has("manufacture_year") || p.Has("model_year") {
		return
	}
	if d := *model - *manufacture; d != 0 && d != 1 {
		p.Add(InBody, "model_year", "model_year must be manufacture_year or the year after it")
	}
}

// optPtr is a present member's value, nil when it is absent or null.
func optPtr[T any](o Opt[T]) *T {
	if !o.Set() {
		return nil
	}
	return &o.Value
}

// Apply returns the vehicle after an update input. Required and defaulted members may not be null
// (KindInvalid). Status rules: vendido sets sold_at; ativo and reservado clear sold_at and
// sold_deal_id, and are refused (KindConflict) for a vehicle a deal has sold.
func (v Vehicle) Apply(in VehicleInput, now time.Time) (Vehicle, error) {
	var p Problems
	in.check(&p, now)
	for name, o := range map[string]Opt[string]{"title": in.Title, "brand": in.Brand, "model": in.Model,
		"phase": in.Phase, "status": in.Status} {
		notNull(&p, name, o)
	}
	notNull(&p, "price", in.Price)
	next := v
	next.merge(in)
	checkYears(&p, next.ManufactureYear, next.ModelYear)
	if err := p.Err(); err != nil {
		return v, err
	}
	if next.Status != v.Status {
		var err error
		if next, err = next.enterStatus(now); err != nil {
			return v, err
		}
	}
	return next, nil
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

// Archive returns the vehicle archived (the soft delete).
func (v Vehicle) Archive() Vehicle {
	v.Status = VehicleArchived
	return v
}

// dealableStatuses are the statuses of a vehicle a deal may name or win.
var dealableStatuses = []string{string(VehicleActive), string(VehicleReserved)}

// errVehicleNotDealable is the one answer to a deal naming a vehicle it may not use.
var errVehicleNotDealable = Conflictf("vehicle_id must name an ativo or reservado vehicle of this team")

// dealable reports whether a deal may name or win the vehicle: KindConflict unless it is ativo or
// reservado.
func (v Vehicle) dealable() error {
	switch {
	case contains(dealableStatuses, string(v.Status)):
		return nil
	case v.Status == VehicleSold:
		return Conflictf("the vehicle is already sold; this deal cannot win it")
	}
	return errVehicleNotDealable
}

// dealableRequirement is the rule of dealable, checked by the store in the deal's write.
func dealableRequirement(vehicleID string) Requirement {
	return Requirement{Resource: ResourceVehicle, ID: vehicleID, Statuses: dealableStatuses, Err: errVehicleNotDealable}
}

// SellTo returns the vehicle sold by a winning deal. A vehicle that is not dealable cannot be won
// (KindConflict).
func (v Vehicle) SellTo(dealID string, now time.Time) (Vehicle, error) {
	if err := v.dealable(); err != nil {
		return v, err
	}
	ts := NewTimestamp(now)
	v.Status = VehicleSold
	v.SoldAt = &ts
	v.SoldDealID = ptr(dealID)
	v.UpdatedAt = ts
	return v, nil
}

func (v Vehicle) revision() int { return v.Revision }

func (v Vehicle) touched(now time.Time) Vehicle {
	v.UpdatedAt = NewTimestamp(now)
	return v
}

// VehicleStore persists vehicles. Implementations enforce plate uniqueness atomically.
type VehicleStore = Store[Vehicle, VehicleQuery]

// Vehicles is the vehicle use cases.
type Vehicles = Service[Vehicle, VehicleInput, VehicleQuery]

// NewVehicles returns the vehicle use cases on a store.
func NewVehicles(store VehicleStore) Vehicles {
	return Vehicles{store: store, rules: Rules[Vehicle, VehicleInput, VehicleQuery]{
		New: func(_ context.Context, teamID, id string, now time.Time, in VehicleInput) (Write[Vehicle], error) {
			v, err := NewVehicle(teamID, id, now, in)
			return Write[Vehicle]{Record: v}, err
		},
		Apply: func(_ context.Context, cur Vehicle, in VehicleInput, now time.Time) (Write[Vehicle], error) {
			v, err := cur.Apply(in, now)
			return Write[Vehicle]{Record: v}, err
		},
		Remove: Vehicle.Archive,
		Query:  VehicleQuery.Check,
	}}
}

// VehicleQuery is a parsed vehicle list request.
type VehicleQuery struct {
	ListQuery
	Phase, Fuel        []string
	Brand, Model       *string // exact match ignoring case and accents; folded by the checks
	PriceMin, PriceMax *money.Cents
	YearMin, YearMax   *int    // model_year bounds
	Plate              *string // either spelling of the plate, as sent
	PlateKey           string  // the plate's uniqueness key, set by the checks
	Q                  *string // word prefixes of title, brand, model, plate; folded by the checks
	// Terms are q's terms, set by the checks (checkSearchParam): every one must start a word of
	// the vehicle's (Vehicle.Words).
	Terms []string
}

// Check validates the query's values and returns it with the defaults filled in; the use cases
// call it before listing. Errors are KindInvalid, listing every problem.
func (q VehicleQuery) Check() (VehicleQuery, error) {
	var p Problems
	q.ListQuery = q.ListQuery.check(&p, listSpec{sorts: VehicleSorts, statuses: VehicleStatuses, softDeleted: string(VehicleArchived)})
	checkEnumParam(&p, "phase", q.Phase, VehiclePhases)
	checkEnumParam(&p, "fuel", q.Fuel, VehicleFuels)
	checkTextParam(&p, "brand", &q.Brand)
	checkTextParam(&p, "model", &q.Model)
	q.Terms = checkSearchParam(&p, &q.Q, true)
	checkYearParam(&p, "year_min", q.YearMin)
	checkYearParam(&p, "year_max", q.YearMax)
	checkRangeParams(&p, "year_min", "year_max", q.YearMin, q.YearMax)
	checkRangeParams(&p, "price_min", "price_max", q.PriceMin, q.PriceMax)
	if q.Plate != nil {
		if plate, err := br.NormalizePlate(*q.Plate); err != nil {
			addReason(&p, InQuery, "plate", err)
		} else {
			q.PlateKey = br.PlateKey(plate)
		}
	}
	return q, p.Err()
}

func checkYearParam(p *Problems, name string, year *int) {
	if year != nil && (*year < 1900 || *year > 9999) {
		p.Add(InQuery, name, "%s must be between 1900 and 9999", name)
	}
}
