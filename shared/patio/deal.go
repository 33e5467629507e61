package patio

import (
	"context"
	"time"

	"github.com/patio-dev/patio/shared/money"
)

// DealStatus is where a deal stands: open (DealOpen), won, lost, or archived (soft-deleted).
type DealStatus string

// Deal statuses.
const (
	DealOpen     DealStatus = "ativo"
	DealWon      DealStatus = "ganho"
	DealLost     DealStatus = "perdido"
	DealArchived DealStatus = "arquivado"
)

// Deal enums and sortable fields.
var (
	DealPhases         = []string{"lead", "contato", "visita", "proposta", "negociacao", "fechamento"}
	DealStatuses       = []string{string(DealOpen), string(DealWon), string(DealLost), string(DealArchived)}
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
	Status            DealStatus   `json:"status"`
	LostReason        *string      `json:"lost_reason"`
	PaymentMethod     *string      `json:"payment_method"`
	ExpectedCloseDate *Date        `json:"expected_close_date"`
	Notes             *string      `json:"notes"`
	ClosedAt          *Timestamp   `json:"closed_at"`
	// PhaseSince is when the deal entered its current phase (nil when the store does not know:
	// then since its creation, as far as anyone can tell); the console's board counts a card's
	// days in its phase from it. It is not part of the API's deal.
	PhaseSince *Timestamp `json:"-"`
	CreatedAt  Timestamp  `json:"created_at"`
	UpdatedAt  Timestamp  `json:"updated_at"`
	// Revision starts at 1 and grows by one with every write that changes the record; the store
	// sets it. Receivers keep the highest per id.
	Revision int `json:"revision"`
}

// DealInput is a deal request body (POST or PUT), member by member.
type DealInput struct {
	Title, ClientID, VehicleID Opt[string]
	Value                      Opt[money.Cents]
	Phase, Status, LostReason  Opt[string]
	PaymentMethod, Notes       Opt[string]
	ExpectedCloseDate          Opt[Date]
}

// check validates each member on its own and puts it in its stored form.
// Validate checks each member of the input on its own, as the use cases do first: the edge calls
// it to list these problems beside its own when a body also has members of the wrong type.
func (in DealInput) Validate(now time.Time) error {
	var p Problems
	in.check(&p)
	return p.Err()
}

func (in *DealInput) check(p *Problems) {
	checkText(p, "title", &in.Title, 1, 200)
	checkID(p, "client_id", &in.ClientID)
	checkID(p, "vehicle_id", &in.VehicleID)
	checkEnum(p, "phase", in.Phase, DealPhases)
	checkEnum(p, "status", in.Status, DealStatuses)
	checkEnum(p, "lost_reason", in.LostReason, DealLostReasons)
	checkEnum(p, "payment_method", in.PaymentMethod, DealPaymentMethods)
	checkMultiline(p, "notes", &in.Notes, 0, 5000)
}

// checkID checks that a member is a UUID and puts it in canonical (lower-case) form.
func checkID(p *Problems, name string, o *Opt[string]) {
	if !o.Set() {
		return
	}
	id, ok := ParseID(o.Value)
	if !ok {
		p.Add(InBody, name, "%s must be a UUID", name)
		return
	}
	o.Value = id
}

func (d *Deal) merge(in DealInput) {
	setIf(&d.Title, in.Title)
	setIf(&d.ClientID, in.ClientID)
	apply(&d.VehicleID, in.VehicleID)
	apply(&d.Value, in.Value)
	setIf(&d.Phase, in.Phase)
	setAs(&d.Status, in.Status)
	apply(&d.LostReason, in.LostReason)
	apply(&d.PaymentMethod, in.PaymentMethod)
	apply(&d.ExpectedCloseDate, in.ExpectedCloseDate)
	apply(&d.Notes, in.Notes)
}

// checkFields applies the rules between fields of one deal (KindInvalid).
func (d Deal) checkFields(in DealInput) error {
	var p Problems
	switch {
	case d.Status == DealLost && d.LostReason == nil:
		p.Add(InBody, "lost_reason", "lost_reason is required when status is perdido")
	case d.Status != DealLost && in.LostReason.Set():
		p.Add(InBody, "lost_reason", "lost_reason is only allowed when status is perdido")
	case d.Status == DealWon && d.VehicleID == nil:
		p.Add(InBody, "vehicle_id", "vehicle_id is required to win a deal")
	}
	return p.Err()
}

// activeClientRequirement is the rule that a deal's client is an active client of the team,
// checked by the store in the deal's write.
func activeClientRequirement(clientID string) Requirement {
	return Requirement{Resource: ResourceClient, ID: clientID, Statuses: []string{string(ClientActive)},
		Err: Conflictf("client_id must name an active client of this team")}
}

// errVehicleNotInTeam answers a deal naming a vehicle the team does not have.
var errVehicleNotInTeam = Conflictf("vehicle_id does not name a vehicle of this team")

// VehicleLookup returns a team's vehicle by id, or a KindNotFound error.
type VehicleLookup func(ctx context.Context, id string) (Vehicle, error)

// vehicle returns the deal's vehicle through lookup; a vehicle the team does not have is
// KindConflict (the deal references it: a conflict with stored state, not a missing route).
func (lookup VehicleLookup) vehicle(ctx context.Context, id string) (Vehicle, error) {
	v, err := lookup(ctx, id)
	if IsKind(err, KindNotFound) {
		return v, errVehicleNotInTeam
	}
	return v, err
}

// ValidateNew checks a create input's own rules as NewDeal does first, all at once (each member,
// the required ones), without the stored records it also checks: an edge that could not read some
// members calls it to list the others' problems beside its own. Errors are KindInvalid.
func (in DealInput) ValidateNew() error {
	var p Problems
	in.checkNew(&p)
	return p.Err()
}

func (in *DealInput) checkNew(p *Problems) {
	in.check(p)
	required(p, "title", in.Title)
	required(p, "client_id", in.ClientID)
	notNull(p, "phase", in.Phase)
	notNull(p, "status", in.Status)
	if in.Status.Set() && DealStatus(in.Status.Value) != DealOpen {
		p.Add(InBody, "status", "status must be ativo when creating a deal; close it with PUT")
	}
}

// NewDeal returns the write that opens a deal from a create input: title and client_id required,
// status ativo only; the client must be active and the vehicle, if any, dealable (KindConflict
// otherwise); value defaults to the vehicle's price.
func NewDeal(ctx context.Context, teamID, id string, now time.Time, in DealInput, vehicles VehicleLookup) (Write[Deal], error) {
	var p Problems
	in.checkNew(&p)
	if err := p.Err(); err != nil {
		return Write[Deal]{}, err
	}
	ts := NewTimestamp(now)
	d := Deal{ID: id, TeamID: teamID, Phase: DefaultDealPhase, Status: DealOpen, PhaseSince: &ts, CreatedAt: ts, UpdatedAt: ts}
	d.merge(in)
	if err := d.checkFields(in); err != nil {
		return Write[Deal]{}, err
	}
	w := Write[Deal]{Record: d, Requires: []Requirement{activeClientRequirement(d.ClientID)}}
	if d.VehicleID != nil {
		v, err := vehicles.vehicle(ctx, *d.VehicleID)
		if err != nil {
			return Write[Deal]{}, err
		}
		if err := v.dealable(); err != nil {
			return Write[Deal]{}, err
		}
		if w.Record.Value == nil {
			w.Record.Value = ptr(v.Price)
		}
		w.Requires = append(w.Requires, dealableRequirement(v.ID))
	}
	return w, nil
}

// Apply returns the write an update input makes on the deal, following the transition table of
// openapi.yaml's updateDeal: rules between fields are KindInvalid, conflicts with stored state (a
// won deal reopened, a vehicle already sold) KindConflict. Winning sells the vehicle in the same
// write.
func (d Deal) Apply(ctx context.Context, in DealInput, now time.Time, vehicles VehicleLookup) (Write[Deal], error) {
	var p Problems
	in.check(&p)
	notNull(&p, "title", in.Title)
	notNull(&p, "client_id", in.ClientID)
	notNull(&p, "phase", in.Phase)
	notNull(&p, "status", in.Status)
	if err := p.Err(); err != nil {
		return Write[Deal]{}, err
	}
	next := d
	next.merge(in)
	if err := next.checkFields(in); err != nil {
		return Write[Deal]{}, err
	}
	if next.Phase != d.Phase {
		next.PhaseSince = ptr(NewTimestamp(now))
	}
	w := Write[Deal]{Record: next}
	won, err := d.wonItsVehicle(ctx, vehicles)
	if err != nil {
		return Write[Deal]{}, err
	}
	if won && !sameID(d.VehicleID, next.VehicleID) {
		return Write[Deal]{}, Conflictf("this deal won its vehicle; vehicle_id cannot change")
	}
	if next.Status != d.Status {
		if err := transition(ctx, &w, d, won, now, vehicles); err != nil {
			return Write[Deal]{}, err
		}
	}
	if next.ClientID != d.ClientID {
		w.Requires = append(w.Requires, activeClientRequirement(next.ClientID))
	}
	if len(w.Also) == 0 && w.Record.VehicleID != nil && !sameID(d.VehicleID, w.Record.VehicleID) {
		w.Requires = append(w.Requires, dealableRequirement(*w.Record.VehicleID))
	}
	return w, nil
}

// Archive returns the deal archived (the soft delete); its vehicle is not touched.
func (d Deal) Archive() Deal {
	d.Status = DealArchived
	return d
}

func (d Deal) revision() int { return d.Revision }

func (d Deal) touched(now time.Time) Deal {
	d.UpdatedAt = NewTimestamp(now)
	return d
}

// wonItsVehicle reports whether the deal is won, or was archived after winning (its vehicle's
// sold_deal_id names it).
func (d Deal) wonItsVehicle(ctx context.Context, vehicles VehicleLookup) (bool, error) {
	if d.Status == DealWon {
		return true, nil
	}
	if d.Status != DealArchived || d.VehicleID == nil || d.ClosedAt == nil {
		return false, nil
	}
	v, err := vehicles(ctx, *d.VehicleID)
	if IsKind(err, KindNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return v.SoldDealID != nil && *v.SoldDealID == d.ID, nil
}

// transition applies a status change of the write from cur.Status to w.Record.Status.
func transition(ctx context.Context, w *Write[Deal], cur Deal, won bool, now time.Time, vehicles VehicleLookup) error {
	to := w.Record.Status
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
		w.Record.ClosedAt, w.Record.LostReason = nil, nil
	case DealLost:
		w.Record.ClosedAt = ptr(NewTimestamp(now))
	case DealWon:
		v, err := vehicles.vehicle(ctx, *w.Record.VehicleID)
		if err != nil {
			return err
		}
		sold, err := v.SellTo(w.Record.ID, now)
		if err != nil {
			return err
		}
		w.Also = append(w.Also, Revised{Cur: v, Next: sold})
		w.Record.ClosedAt = ptr(NewTimestamp(now))
		w.Record.LostReason = nil
	}
	return nil
}

// InPhaseSince is when the deal entered its current phase: PhaseSince, or its creation when that
// is not known.
func (d Deal) InPhaseSince() Timestamp {
	if d.PhaseSince != nil {
		return *d.PhaseSince
	}
	return d.CreatedAt
}

func sameID(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// DealQuery is a parsed deal list request.
type DealQuery struct {
	ListQuery
	Phase              []string
	ClientID           *string // a UUID, lower case after the checks
	VehicleID          *string // a UUID, lower case after the checks
	ValueMin, ValueMax *money.Cents
	Q                  *string // word prefixes of the title; folded by the checks
	// Terms are q's terms, set by the checks: every one must start a word of the deal's title
	// (Deal.Words).
	Terms []string
}

// Check validates the query's values and returns it with the defaults filled in; the use cases
// call it before listing. Errors are KindInvalid, listing every problem.
func (q DealQuery) Check() (DealQuery, error) {
	var p Problems
	q.ListQuery = q.ListQuery.check(&p, listSpec{sorts: DealSorts, statuses: DealStatuses, softDeleted: string(DealArchived)})
	checkEnumParam(&p, "phase", q.Phase, DealPhases)
	checkRangeParams(&p, "value_min", "value_max", q.ValueMin, q.ValueMax)
	q.Terms = checkSearchParam(&p, &q.Q, false)
	for name, v := range map[string]**string{"client_id": &q.ClientID, "vehicle_id": &q.VehicleID} {
		checkIDParam(&p, name, v)
	}
	return q, p.Err()
}

// DealStore persists deals.
type DealStore = Store[Deal, DealQuery]

// Deals is the deal use cases.
type Deals = Service[Deal, DealInput, DealQuery]

// NewDeals returns the deal use cases on a store of deals and one of the team's vehicles (read to
// default a deal's value, to know whether an archived deal had won, and to sell a won vehicle).
func NewDeals(store DealStore, vehicles VehicleStore) Deals {
	lookup := func(teamID string) VehicleLookup {
		return func(ctx context.Context, id string) (Vehicle, error) { return vehicles.Get(ctx, teamID, id) }
	}
	return Deals{store: store, rules: Rules[Deal, DealInput, DealQuery]{
		New: func(ctx context.Context, teamID, id string, now time.Time, in DealInput) (Write[Deal], error) {
			return NewDeal(ctx, teamID, id, now, in, lookup(teamID))
		},
		Apply: func(ctx context.Context, cur Deal, in DealInput, now time.Time) (Write[Deal], error) {
			return cur.Apply(ctx, in, now, lookup(cur.TeamID))
		},
		Remove: Deal.Archive,
		Query:  DealQuery.Check,
	}}
}
