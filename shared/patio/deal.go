package patio

import (
	"context"
	"net/url"
	"reflect"
	"time"

	"github.com/patio-dev/patio/shared/money"
)

// Deal statuses (CONTRACT.md section 7).
const (
	DealOpen     = "ativo"
	DealWon      = "ganho"
	DealLost     = "perdido"
	DealArchived = "arquivado"
)

// Deal enums and sortable fields (CONTRACT.md section 7).
var (
	DealPhases         = []string{"lead", "contato", "visita", "proposta", "negociacao", "fechamento"}
	DealStatuses       = []string{DealOpen, DealWon, DealLost, DealArchived}
	DealLostReasons    = []string{"preco", "financiamento_reprovado", "comprou_concorrente", "desistiu", "sem_contato", "veiculo_vendido", "outro"}
	DealPaymentMethods = []string{"pix", "boleto", "cartao", "transferencia", "financiamento", "dinheiro", "cheque"}
	DealSorts          = []string{"created_at", "updated_at", "value", "title", "expected_close_date"}
)

// DefaultDealPhase is the pipeline phase of a new deal.
const DefaultDealPhase = "lead"

// Deal is an entry of the sales pipeline. Its JSON form is the API representation and the webhook
// data.object.
type Deal struct {
	ID                string       `json:"id"`
	TeamID            string       `json:"-"`
	Title             string       `json:"title"`
	ClientID          string       `json:"client_id"`
	VehicleID         *string      `json:"vehicle_id"`
	Value             *money.Cents `json:"value"`
	Phase             string       `json:"phase"`
	Status            string       `json:"status"`
	LostReason        *string      `json:"lost_reason"`
	PaymentMethod     *string      `json:"payment_method"`
	ExpectedCloseDate *Date        `json:"expected_close_date"`
	Notes             *string      `json:"notes"`
	ClosedAt          *Timestamp   `json:"closed_at"`
	CreatedAt         Timestamp    `json:"created_at"`
	UpdatedAt         Timestamp    `json:"updated_at"`
	// Rev counts the writes of the record, for optimistic concurrency. Not part of the API.
	Rev int `json:"-"`
}

// DealInput is a deal request body (POST or PUT), member by member.
type DealInput struct {
	Title, ClientID, VehicleID Opt[string]
	Value                      Opt[money.Cents]
	Phase, Status, LostReason  Opt[string]
	PaymentMethod, Notes       Opt[string]
	ExpectedCloseDate          Opt[Date]
}

// ParseDealInput validates each member of a deal body on its own. Errors are KindInvalid.
func ParseDealInput(body Body) (DealInput, error) {
	var in DealInput
	err := decodeBody(body, []field{
		textField("title", 1, 200, &in.Title),
		idField("client_id", &in.ClientID),
		idField("vehicle_id", &in.VehicleID),
		moneyField("value", &in.Value),
		enumField("phase", DealPhases, &in.Phase),
		enumField("status", DealStatuses, &in.Status),
		enumField("lost_reason", DealLostReasons, &in.LostReason),
		enumField("payment_method", DealPaymentMethods, &in.PaymentMethod),
		dateField("expected_close_date", &in.ExpectedCloseDate),
		textField("notes", 0, 5000, &in.Notes),
	})
	return in, err
}

// DealWrite is a deal to store together with what must hold, atomically, for the write to stand.
type DealWrite struct {
	Deal Deal
	// ActiveClient, when set, names a client that must exist in the team and be active.
	ActiveClient string
	// UsableVehicle, when set, names a vehicle that must exist in the team and be ativo or reservado.
	UsableVehicle string
	// Sell, when set, is the won vehicle after SellTo: written in the same transaction, conditioned
	// on the revision it was read at, so that of deals racing for one vehicle exactly one wins.
	Sell *Vehicle
}

func (d *Deal) merge(in DealInput) {
	setIf(&d.Title, in.Title)
	setIf(&d.ClientID, in.ClientID)
	apply(&d.VehicleID, in.VehicleID)
	apply(&d.Value, in.Value)
	setIf(&d.Phase, in.Phase)
	setIf(&d.Status, in.Status)
	apply(&d.LostReason, in.LostReason)
	apply(&d.PaymentMethod, in.PaymentMethod)
	apply(&d.ExpectedCloseDate, in.ExpectedCloseDate)
	apply(&d.Notes, in.Notes)
}

// checkFields applies the rules between fields of one deal (KindInvalid).
func (d Deal) checkFields(in DealInput) error {
	switch {
	case d.Status == DealLost && d.LostReason == nil:
		return Invalidf("lost_reason is required when status is perdido")
	case d.Status != DealLost && in.LostReason.Set():
		return Invalidf("lost_reason is only allowed when status is perdido")
	case d.Status == DealWon && d.VehicleID == nil:
		return Invalidf("vehicle_id is required to win a deal")
	}
	return nil
}

// NewDeal builds a deal from a POST body: title and client_id required, status ativo only.
func NewDeal(id string, now time.Time, in DealInput) (Deal, error) {
	if !in.Title.Set() {
		return Deal{}, Invalidf("title is required")
	}
	if !in.ClientID.Set() {
		return Deal{}, Invalidf("client_id is required")
	}
	if err := firstErr(notNull("phase", in.Phase), notNull("status", in.Status)); err != nil {
		return Deal{}, err
	}
	if in.Status.Set() && in.Status.Value != DealOpen {
		return Deal{}, Invalidf("status must be ativo when creating a deal; close it with PUT")
	}
	ts := NewTimestamp(now)
	d := Deal{ID: id, Phase: DefaultDealPhase, Status: DealOpen, CreatedAt: ts, UpdatedAt: ts}
	d.merge(in)
	return d, d.checkFields(in)
}

// VehicleLookup returns a team's vehicle by id, or a KindNotFound error.
type VehicleLookup func(id string) (Vehicle, error)

// Apply returns the write a PUT body makes on the deal, following the transition table of
// CONTRACT.md section 7: rules between fields are KindInvalid, conflicts with stored state (a won
// deal reopened, a vehicle already sold) KindConflict. A write whose Deal equals d changes nothing.
func (d Deal) Apply(in DealInput, now time.Time, vehicle VehicleLookup) (DealWrite, error) {
	if err := firstErr(notNull("title", in.Title), notNull("client_id", in.ClientID),
		notNull("phase", in.Phase), notNull("status", in.Status)); err != nil {
		return DealWrite{}, err
	}
	next := d
	next.merge(in)
	if err := next.checkFields(in); err != nil {
		return DealWrite{}, err
	}
	w := DealWrite{Deal: next}
	won, err := d.wonItsVehicle(vehicle)
	if err != nil {
		return DealWrite{}, err
	}
	if won && !sameID(d.VehicleID, next.VehicleID) {
		return DealWrite{}, Conflictf("this deal won its vehicle; vehicle_id cannot change")
	}
	if next.Status != d.Status {
		if err := w.transition(d, won, now, vehicle); err != nil {
			return DealWrite{}, err
		}
	}
	if next.ClientID != d.ClientID {
		w.ActiveClient = next.ClientID
	}
	if w.Sell == nil && w.Deal.VehicleID != nil && !sameID(d.VehicleID, w.Deal.VehicleID) {
		w.UsableVehicle = *w.Deal.VehicleID
	}
	if !reflect.DeepEqual(d, w.Deal) {
		w.Deal.UpdatedAt = NewTimestamp(now)
	}
	return w, nil
}

// wonItsVehicle reports whether the deal is won, or was archived after winning (its vehicle's
// sold_deal_id names it).
func (d Deal) wonItsVehicle(vehicle VehicleLookup) (bool, error) {
	if d.Status == DealWon {
		return true, nil
	}
	if d.Status != DealArchived || d.VehicleID == nil || d.ClosedAt == nil {
		return false, nil
	}
	v, err := vehicle(*d.VehicleID)
	if IsKind(err, KindNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return v.SoldDealID != nil && *v.SoldDealID == d.ID, nil
}

// transition applies a status change from cur.Status to w.Deal.Status.
func (w *DealWrite) transition(cur Deal, won bool, now time.Time, vehicle VehicleLookup) error {
	to := w.Deal.Status
	switch {
	case to == DealArchived:
		return nil
	case won && cur.Status == DealArchived && to != DealWon:
		return Conflictf("this deal won its vehicle; it can only be reactivated as ganho")
	case won && cur.Status == DealArchived:
		return nil // back as ganho; the vehicle is already sold by this deal
	case cur.Status == DealWon:
		return Conflictf("a won deal is final; it cannot become %s", to)
	}
	switch to {
	case DealOpen:
		w.Deal.ClosedAt, w.Deal.LostReason = nil, nil
	case DealLost:
		w.Deal.ClosedAt = ptr(NewTimestamp(now))
	case DealWon:
		v, err := vehicle(*w.Deal.VehicleID)
		if IsKind(err, KindNotFound) {
			return Conflictf("vehicle_id does not name a vehicle of this team")
		}
		if err != nil {
			return err
		}
		sold, err := v.SellTo(w.Deal.ID, now)
		if err != nil {
			return err
		}
		sold.Rev = v.Rev + 1
		w.Sell = &sold
		w.Deal.ClosedAt = ptr(NewTimestamp(now))
		w.Deal.LostReason = nil
	}
	return nil
}

func sameID(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// DealQuery is a parsed deal list request.
type DealQuery struct {
	ListQuery
	Phase              []string
	ClientID           string
	VehicleID          string
	ValueMin, ValueMax *money.Cents
}

// ParseDealQuery reads a deal list's query string (CONTRACT.md sections 4 and 7).
func ParseDealQuery(values url.Values) (DealQuery, error) {
	var q DealQuery
	var err error
	id := func(name string, dst *string) func(string) error {
		return func(v string) error {
			var ok bool
			if *dst, ok = ParseID(v); !ok {
				return Invalidf("%s must be a UUID", name)
			}
			return nil
		}
	}
	q.ListQuery, err = parseList(values, listSpec{
		sorts: DealSorts, statuses: DealStatuses, softDeleted: DealArchived,
		extra: map[string]func(string) error{
			"phase":      func(v string) (err error) { q.Phase, err = enumParam("phase", v, DealPhases); return },
			"value_min":  func(v string) (err error) { q.ValueMin, err = moneyParam("value_min", v); return },
			"value_max":  func(v string) (err error) { q.ValueMax, err = moneyParam("value_max", v); return },
			"client_id":  id("client_id", &q.ClientID),
			"vehicle_id": id("vehicle_id", &q.VehicleID),
		},
	})
	return q, err
}

// DealStore persists deals.
type DealStore interface {
	// CreateDeal stores a new deal if its requirements hold (KindConflict otherwise).
	CreateDeal(ctx context.Context, w DealWrite) error
	// GetDeal returns a team's deal, or KindNotFound.
	GetDeal(ctx context.Context, teamID, id string) (Deal, error)
	// UpdateDeal reads the deal, asks change for the write and performs it atomically with its
	// requirements, re-reading and re-applying change after a lost race. It returns the stored deal.
	UpdateDeal(ctx context.Context, teamID, id string, change func(Deal) (DealWrite, error)) (Deal, error)
	// ListDeals returns one page of a team's deals and the number of all that match.
	ListDeals(ctx context.Context, teamID string, q DealQuery) ([]Deal, int, error)
}

// Deals is the deal use cases.
type Deals struct {
	Store    DealStore
	Vehicles VehicleStore
	Now      func() time.Time // the clock; time.Now when nil
}

func (s Deals) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Create opens a deal from a POST body. The client must be active and the vehicle, if any, ativo or
// reservado (KindConflict otherwise); value defaults to the vehicle's price.
func (s Deals) Create(ctx context.Context, teamID string, body Body) (Deal, error) {
	in, err := ParseDealInput(body)
	if err != nil {
		return Deal{}, err
	}
	id, now := NewID()
	d, err := NewDeal(id, now, in)
	if err != nil {
		return Deal{}, err
	}
	d.TeamID = teamID
	w := DealWrite{Deal: d, ActiveClient: d.ClientID}
	if d.VehicleID != nil {
		v, err := s.Vehicles.GetVehicle(ctx, teamID, *d.VehicleID)
		if IsKind(err, KindNotFound) {
			return Deal{}, Conflictf("vehicle_id does not name a vehicle of this team")
		}
		if err != nil {
			return Deal{}, err
		}
		if v.Status != VehicleActive && v.Status != VehicleReserved {
			return Deal{}, Conflictf("vehicle_id names a vehicle that is %s; deals need an ativo or reservado vehicle", v.Status)
		}
		if w.Deal.Value == nil {
			w.Deal.Value = ptr(v.Price)
		}
		w.UsableVehicle = v.ID
	}
	if err := s.Store.CreateDeal(ctx, w); err != nil {
		return Deal{}, err
	}
	return w.Deal, nil
}

// Get returns one deal; an id that is not a UUID is KindNotFound.
func (s Deals) Get(ctx context.Context, teamID, id string) (Deal, error) {
	id, ok := ParseID(id)
	if !ok {
		return Deal{}, ErrNotFound
	}
	return s.Store.GetDeal(ctx, teamID, id)
}

// Update applies a PUT body: data, phase moves and status transitions, winning included.
func (s Deals) Update(ctx context.Context, teamID, id string, body Body) (Deal, error) {
	id, ok := ParseID(id)
	if !ok {
		return Deal{}, ErrNotFound
	}
	in, err := ParseDealInput(body)
	if err != nil {
		return Deal{}, err
	}
	lookup := func(vid string) (Vehicle, error) { return s.Vehicles.GetVehicle(ctx, teamID, vid) }
	return s.Store.UpdateDeal(ctx, teamID, id, func(d Deal) (DealWrite, error) {
		return d.Apply(in, s.now(), lookup)
	})
}

// Archive soft-deletes a deal (status arquivado); the vehicle is not touched.
func (s Deals) Archive(ctx context.Context, teamID, id string) (Deal, error) {
	id, ok := ParseID(id)
	if !ok {
		return Deal{}, ErrNotFound
	}
	return s.Store.UpdateDeal(ctx, teamID, id, func(d Deal) (DealWrite, error) {
		next := d
		next.Status = DealArchived
		if next != d {
			next.UpdatedAt = NewTimestamp(s.now())
		}
		return DealWrite{Deal: next}, nil
	})
}

// List returns a page of deals, the total that match, and the parsed query.
func (s Deals) List(ctx context.Context, teamID string, values url.Values) ([]Deal, int, ListQuery, error) {
	q, err := ParseDealQuery(values)
	if err != nil {
		return nil, 0, ListQuery{}, err
	}
	items, total, err := s.Store.ListDeals(ctx, teamID, q)
	return items, total, q.ListQuery, err
}
