package storeformat

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// Stored revisions: the rev attribute counts the writes after the first (0 for a new record), so
// that records written before revisions were public keep theirs: revision = rev + 1.

// RevAttr is the rev attribute of a record at revision.
func RevAttr(revision int) int { return revision - 1 }

// RevisionOf is the revision of a record whose row holds rev.
func RevisionOf(rev int) int { return rev + 1 }

// Item is a listed record's row as stored: row (a row struct, VehicleRow, ...) marshalled, with
// its words (for q, WordsAttr, when it has any) and the marks of a complete family (IndexedAttr),
// for kinds that keep sums, of its amount in them (SummedAttr), and for kinds with Tallies, of its
// words and range values in the indexer's counts (CountedAttr).
func (l *Layout) Item(row any, words []string) (dynamo.Item, error) {
	item, err := dynamo.MarshalItem(row)
	if err != nil {
		return nil, err
	}
	if w := JoinWords(words); w != "" {
		item[WordsAttr] = str(w)
	}
	item[IndexedAttr] = &types.AttributeValueMemberN{Value: "1"}
	if l.KeepsSums() {
		item[SummedAttr] = &types.AttributeValueMemberN{Value: "1"}
	}
	if l.Tallies {
		item[CountedAttr] = &types.AttributeValueMemberN{Value: "1"}
	}
	return item, nil
}

// JoinWords is the stored form of a record's words (WordsAttr), "" for none.
func JoinWords(words []string) string {
	if len(words) == 0 {
		return ""
	}
	return " " + strings.Join(words, " ") + " "
}

// VehicleItem is a vehicle's row as the store writes it.
func VehicleItem(v patio.Vehicle) (dynamo.Item, error) {
	return Vehicles.Item(ToVehicleRow(v), v.Words())
}

// ClientItem is a client's row as the store writes it.
func ClientItem(c patio.Client) (dynamo.Item, error) { return Clients.Item(ToClientRow(c), c.Words()) }

// DealItem is a deal's row as the store writes it.
func DealItem(d patio.Deal) (dynamo.Item, error) { return Deals.Item(ToDealRow(d), d.Words()) }

// VehicleRow is a vehicle as stored in VehiclesTable.
type VehicleRow struct {
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

	// Photos, in the vehicle's order (photos.go).
	Photos []PhotoRow `dynamo:"photos,omitempty"`

	// Derived attributes for filters and sorted indexes.
	FBrand     string `dynamo:"f_brand"`
	FModel     string `dynamo:"f_model"`
	LSIUpdated string `dynamo:"lsi_updated"`
	LSIPrice   string `dynamo:"lsi_price"`
	LSITitle   string `dynamo:"lsi_title"`
	LSIYear    string `dynamo:"lsi_year"`
	LSIMileage string `dynamo:"lsi_mileage"`
}

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
	return Padded(width, int64(*n))
}

// ToVehicleRow is a vehicle's row: its attributes, its facets' folded values and its index sort
// keys.
func ToVehicleRow(v patio.Vehicle) VehicleRow {
	return VehicleRow{
		PK: v.TeamID, SK: Vehicles.RowKey(v.ID), ID: v.ID,
		Title: v.Title, Brand: v.Brand, Model: v.Model, Version: v.Version,
		Plate: v.Plate, PlateKey: v.PlateKey(), Renavam: v.Renavam, VIN: v.VIN,
		ManufactureYear: v.ManufactureYear, ModelYear: v.ModelYear, MileageKm: v.MileageKm,
		Color: v.Color, Fuel: v.Fuel, Transmission: v.Transmission,
		PriceCents: int64(v.Price), PurchaseCents: centsPtr(v.PurchasePrice),
		Phase: v.Phase, Status: string(v.Status), Description: v.Description,
		SoldAt: tsPtr(v.SoldAt), SoldDealID: v.SoldDealID, Photos: toPhotoRows(v.Photos),
		CreatedAt: v.CreatedAt.String(), UpdatedAt: v.UpdatedAt.String(), Rev: RevAttr(v.Revision),

		FBrand:     patio.Fold(v.Brand),
		FModel:     patio.Fold(v.Model),
		LSIUpdated: SortKey(string(v.Status), ptrTo(v.UpdatedAt.String()), v.ID),
		LSIPrice:   SortKey(string(v.Status), Padded(12, int64(v.Price)), v.ID),
		LSITitle:   SortKey(string(v.Status), folded(v.Title), v.ID),
		LSIYear:    SortKey(string(v.Status), intKey(4, v.ModelYear), v.ID),
		LSIMileage: SortKey(string(v.Status), intKey(19, v.MileageKm), v.ID),
	}
}

// Vehicle converts the stored row to the domain's vehicle.
func (r VehicleRow) Vehicle() (patio.Vehicle, error) {
	v := patio.Vehicle{
		ID: r.ID, TeamID: r.PK, Title: r.Title, Brand: r.Brand, Model: r.Model, Version: r.Version,
		Plate: r.Plate, Renavam: r.Renavam, VIN: r.VIN,
		ManufactureYear: r.ManufactureYear, ModelYear: r.ModelYear, MileageKm: r.MileageKm,
		Color: r.Color, Fuel: r.Fuel, Transmission: r.Transmission,
		Price: money.Cents(r.PriceCents), Phase: r.Phase, Status: patio.VehicleStatus(r.Status), Description: r.Description,
		SoldDealID: r.SoldDealID, Photos: photosOf(r.Photos), Revision: RevisionOf(r.Rev),
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

// ClientRow is a client as stored in ClientsTable. Optional text keeps an empty string as such
// (allowempty), so that "" and null round-trip distinctly.
type ClientRow struct {
	PK                string      `dynamo:"pk,hash"`
	SK                string      `dynamo:"sk,range"`
	ID                string      `dynamo:"id"`
	Type              string      `dynamo:"type"`
	Name              string      `dynamo:"name"`
	TradeName         *string     `dynamo:"trade_name,allowempty"`
	CPF               *string     `dynamo:"cpf"`
	CNPJ              *string     `dynamo:"cnpj"`
	Email             *string     `dynamo:"email"`
	Phone             *string     `dynamo:"phone"`
	BirthDate         *string     `dynamo:"birth_date"`
	StateRegistration *string     `dynamo:"state_registration"`
	Address           *AddressRow `dynamo:"address"`
	Notes             *string     `dynamo:"notes,allowempty"`
	Status            string      `dynamo:"status"`
	CreatedAt         string      `dynamo:"created_at"`
	UpdatedAt         string      `dynamo:"updated_at"`
	Rev               int         `dynamo:"rev"`

	// Derived attributes for sorted indexes.
	LSIUpdated string `dynamo:"lsi_updated"`
	LSIName    string `dynamo:"lsi_name"`
}

// AddressRow is a client's address, stored as a map attribute.
type AddressRow struct {
	Street     *string `dynamo:"street,allowempty"`
	Number     *string `dynamo:"number,allowempty"`
	Complement *string `dynamo:"complement,allowempty"`
	District   *string `dynamo:"district,allowempty"`
	City       *string `dynamo:"city,allowempty"`
	State      *string `dynamo:"state"`
	ZipCode    *string `dynamo:"zip_code"`
}

// ToClientRow is a client's row: its attributes and its index sort keys.
func ToClientRow(c patio.Client) ClientRow {
	var birth *string
	if c.BirthDate != nil {
		birth = ptrTo(c.BirthDate.String())
	}
	var addr *AddressRow
	if a := c.Address; a != nil {
		addr = &AddressRow{Street: a.Street, Number: a.Number, Complement: a.Complement,
			District: a.District, City: a.City, State: a.State, ZipCode: a.ZipCode}
	}
	return ClientRow{
		PK: c.TeamID, SK: Clients.RowKey(c.ID), ID: c.ID, Type: c.Type, Name: c.Name, TradeName: c.TradeName,
		CPF: c.CPF, CNPJ: c.CNPJ, Email: c.Email, Phone: c.Phone, BirthDate: birth,
		StateRegistration: c.StateRegistration, Address: addr, Notes: c.Notes, Status: string(c.Status),
		CreatedAt: c.CreatedAt.String(), UpdatedAt: c.UpdatedAt.String(), Rev: RevAttr(c.Revision),

		LSIUpdated: SortKey(string(c.Status), ptrTo(c.UpdatedAt.String()), c.ID),
		LSIName:    SortKey(string(c.Status), folded(c.Name), c.ID),
	}
}

// Client converts the stored row to the domain's client.
func (r ClientRow) Client() (patio.Client, error) {
	c := patio.Client{
		ID: r.ID, TeamID: r.PK, Type: r.Type, Name: r.Name, TradeName: r.TradeName,
		CPF: r.CPF, CNPJ: r.CNPJ, Email: r.Email, Phone: r.Phone,
		StateRegistration: r.StateRegistration, Notes: r.Notes, Status: patio.ClientStatus(r.Status), Revision: RevisionOf(r.Rev),
	}
	if a := r.Address; a != nil {
		c.Address = &patio.Address{Street: a.Street, Number: a.Number, Complement: a.Complement,
			District: a.District, City: a.City, State: a.State, ZipCode: a.ZipCode}
	}
	var err error
	if r.BirthDate != nil {
		d, err := patio.ParseDate(*r.BirthDate)
		if err != nil {
			return c, err
		}
		c.BirthDate = &d
	}
	if c.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return c, err
	}
	c.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt)
	return c, err
}

// DealRow is a deal as stored in DealsTable.
type DealRow struct {
	PK                string  `dynamo:"pk,hash"`
	SK                string  `dynamo:"sk,range"`
	ID                string  `dynamo:"id"`
	Title             string  `dynamo:"title"`
	ClientID          string  `dynamo:"client_id"`
	VehicleID         *string `dynamo:"vehicle_id"`
	ValueCents        *int64  `dynamo:"value_cents"`
	Phase             string  `dynamo:"phase"`
	Status            string  `dynamo:"status"`
	LostReason        *string `dynamo:"lost_reason"`
	PaymentMethod     *string `dynamo:"payment_method"`
	ExpectedCloseDate *string `dynamo:"expected_close_date"`
	Notes             *string `dynamo:"notes,allowempty"`
	ClosedAt          *string `dynamo:"closed_at"`
	PhaseSince        *string `dynamo:"phase_since"`
	CreatedAt         string  `dynamo:"created_at"`
	UpdatedAt         string  `dynamo:"updated_at"`
	Rev               int     `dynamo:"rev"`

	LSIUpdated string `dynamo:"lsi_updated"`
	LSIValue   string `dynamo:"lsi_value"`
	LSITitle   string `dynamo:"lsi_title"`
	LSIClose   string `dynamo:"lsi_close"`
}

func dateStr(d *patio.Date) *string {
	if d == nil {
		return nil
	}
	return ptrTo(d.String())
}

// ToDealRow is a deal's row: its attributes and its index sort keys.
func ToDealRow(d patio.Deal) DealRow {
	var value *string
	if d.Value != nil {
		value = Padded(12, int64(*d.Value))
	}
	return DealRow{
		PK: d.TeamID, SK: Deals.RowKey(d.ID), ID: d.ID, Title: d.Title, ClientID: d.ClientID,
		VehicleID: d.VehicleID, ValueCents: centsPtr(d.Value), Phase: d.Phase, Status: string(d.Status),
		LostReason: d.LostReason, PaymentMethod: d.PaymentMethod, ExpectedCloseDate: dateStr(d.ExpectedCloseDate),
		Notes: d.Notes, ClosedAt: tsPtr(d.ClosedAt), PhaseSince: tsPtr(d.PhaseSince), CreatedAt: d.CreatedAt.String(),
		UpdatedAt: d.UpdatedAt.String(), Rev: RevAttr(d.Revision),

		LSIUpdated: SortKey(string(d.Status), ptrTo(d.UpdatedAt.String()), d.ID),
		LSIValue:   SortKey(string(d.Status), value, d.ID),
		LSITitle:   SortKey(string(d.Status), folded(d.Title), d.ID),
		LSIClose:   SortKey(string(d.Status), dateStr(d.ExpectedCloseDate), d.ID),
	}
}

// Deal converts the stored row to the domain's deal.
func (r DealRow) Deal() (patio.Deal, error) {
	d := patio.Deal{
		ID: r.ID, TeamID: r.PK, Title: r.Title, ClientID: r.ClientID, VehicleID: r.VehicleID,
		Phase: r.Phase, Status: patio.DealStatus(r.Status), LostReason: r.LostReason, PaymentMethod: r.PaymentMethod,
		Notes: r.Notes, Revision: RevisionOf(r.Rev),
	}
	if r.ValueCents != nil {
		d.Value = ptrTo(money.Cents(*r.ValueCents))
	}
	var err error
	if r.ExpectedCloseDate != nil {
		date, err := patio.ParseDate(*r.ExpectedCloseDate)
		if err != nil {
			return d, err
		}
		d.ExpectedCloseDate = &date
	}
	if r.ClosedAt != nil {
		t, err := patio.ParseTimestamp(*r.ClosedAt)
		if err != nil {
			return d, err
		}
		d.ClosedAt = &t
	}
	if r.PhaseSince != nil {
		t, err := patio.ParseTimestamp(*r.PhaseSince)
		if err != nil {
			return d, err
		}
		d.PhaseSince = &t
	}
	if d.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return d, err
	}
	d.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt)
	return d, err
}

func ptrTo[T any](v T) *T { return &v }
