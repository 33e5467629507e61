package patio

import (
	"context"
	"time"

	"github.com/patio-dev/patio/shared/br"
)

// Client types.
const (
	ClientIndividual = "individual" // Pessoa Física, identified by CPF
	ClientCompany    = "company"    // Pessoa Jurídica, identified by CNPJ
)

// ClientStatus says whether a client is current (ClientActive) or kept for the record only
// (ClientInactive, the soft-deleted status). Deals may only be opened for an active client.
type ClientStatus string

// Client statuses.
const (
	ClientActive   ClientStatus = "active"
	ClientInactive ClientStatus = "inactive"
)

// Client enums and sortable fields.
var (
	ClientTypes    = []string{ClientIndividual, ClientCompany}
	ClientStatuses = []string{string(ClientActive), string(ClientInactive)}
	ClientSorts    = []string{"created_at", "updated_at", "name"}
)

// Client is a buyer of the team: an individual (CPF) or a company (CNPJ). Its JSON form is the API
// representation, also sent as the webhook data.object: every field present, unset optional fields
// null.
type Client struct {
	ID                string       `json:"id"`
	TeamID            string       `json:"-"`
	Type              string       `json:"type"`
	Name              string       `json:"name"`
	TradeName         *string      `json:"trade_name"`
	CPF               *string      `json:"cpf"`
	CNPJ              *string      `json:"cnpj"`
	Email             *string      `json:"email"`
	Phone             *string      `json:"phone"`
	BirthDate         *Date        `json:"birth_date"`
	StateRegistration *string      `json:"state_registration"`
	Address           *Address     `json:"address"`
	Notes             *string      `json:"notes"`
	Status            ClientStatus `json:"status"`
	CreatedAt         Timestamp    `json:"created_at"`
	UpdatedAt         Timestamp    `json:"updated_at"`
	// Revision starts at 1 and grows by one with every write that changes the record; the store
	// sets it. Receivers keep the highest per id.
	Revision int `json:"revision"`
}

// Address is a client's postal address. Every member is present in its JSON form, null when unset;
// a client whose address has no member set has a null address.
type Address struct {
	Street     *string `json:"street"`
	Number     *string `json:"number"`
	Complement *string `json:"complement"`
	District   *string `json:"district"`
	City       *string `json:"city"`
	State      *string `json:"state"`    // UF, upper case
	ZipCode    *string `json:"zip_code"` // CEP, 8 bare digits
}

// empty reports whether no member of the address is set.
func (a Address) empty() bool { return a == Address{} }

// Document returns the client's unique document: "cpf" or "cnpj" and its bare value, or two empty
// strings when the client has none (never the case for a valid client).
func (c Client) Document() (kind, value string) {
	switch {
	case c.CPF != nil:
		return "cpf", *c.CPF
	case c.CNPJ != nil:
		return "cnpj", *c.CNPJ
	}
	return "", ""
}

// ClientInput is a client request body (POST or PUT), member by member.
type ClientInput struct {
	Type, Name, TradeName, CPF, CNPJ, Email, Phone Opt[string]
	BirthDate                                      Opt[Date]
	StateRegistration                              Opt[string]
	Address                                        Opt[AddressInput]
	Notes, Status                                  Opt[string]
}

// AddressInput is the address member of a client body, member by member: on PUT it merges into the
// stored address like the body into the client (absent keeps, null clears, a value sets).
type AddressInput struct {
	Street, Number, Complement, District, City, State, ZipCode Opt[string]
}

// check validates each member on its own (formats, lengths, check digits; birth_date between
// 1900-01-01 and now's UTC date) and puts it in its stored form. Address members are named
// address.<name>.
// Validate checks each member of the input on its own, as the use cases do first: the edge calls
// it to list these problems beside its own when a body also has members of the wrong type.
func (in ClientInput) Validate(now time.Time) error {
	var p Problems
	in.check(&p, now)
	return p.Err()
}

func (in *ClientInput) check(p *Problems, now time.Time) {
	checkEnum(p, "type", in.Type, ClientTypes)
	checkText(p, "name", &in.Name, 1, 200)
	checkText(p, "trade_name", &in.TradeName, 0, 200)
	checkNormalized(p, "cpf", &in.CPF, br.NormalizeCPF)
	checkNormalized(p, "cnpj", &in.CNPJ, br.NormalizeCNPJ)
	checkNormalized(p, "email", &in.Email, normalizeEmail)
	checkNormalized(p, "phone", &in.Phone, br.NormalizePhone)
	switch {
	case !in.BirthDate.Set():
	case in.BirthDate.Value.Start().After(DateOf(now).Start()):
		p.Add(InBody, "birth_date", "birth_date must not be in the future")
	case in.BirthDate.Value.Year < 1900:
		p.Add(InBody, "birth_date", "birth_date must be on or after 1900-01-01")
	}
	checkNormalized(p, "state_registration", &in.StateRegistration, br.NormalizeStateRegistration)
	if in.Address.Set() {
		a := &in.Address.Value
		checkText(p, "address.street", &a.Street, 0, 200)
		checkText(p, "address.number", &a.Number, 0, 20)
		checkText(p, "address.complement", &a.Complement, 0, 100)
		checkText(p, "address.district", &a.District, 0, 100)
		checkText(p, "address.city", &a.City, 0, 100)
		checkNormalized(p, "address.state", &a.State, br.NormalizeUF)
		checkNormalized(p, "address.zip_code", &a.ZipCode, br.NormalizeCEP)
	}
	checkMultiline(p, "notes", &in.Notes, 0, 5000)
	checkEnum(p, "status", in.Status, ClientStatuses)
}

// NewClient builds a client from a POST body. type and name are required, and the document of the
// type (cpf or cnpj); status may only be active.
func NewClient(teamID, id string, now time.Time, in ClientInput) (Client, error) {
	var p Problems
	in.check(&p, now)
	required(&p, "type", in.Type)
	required(&p, "name", in.Name)
	notNull(&p, "status", in.Status)
	if in.Status.Set() && ClientStatus(in.Status.Value) != ClientActive {
		p.Add(InBody, "status", "status must be active when creating a client")
	}
	if err := p.Err(); err != nil {
		return Client{}, err
	}
	ts := NewTimestamp(now)
	c := Client{ID: id, TeamID: teamID, Type: in.Type.Value, Status: ClientActive, CreatedAt: ts, UpdatedAt: ts}
	c.merge(in)
	if err := c.checkType(); err != nil {
		return Client{}, err
	}
	return c, nil
}

// merge copies every member present in the input onto c.
func (c *Client) merge(in ClientInput) {
	setIf(&c.Name, in.Name)
	apply(&c.TradeName, in.TradeName)
	apply(&c.CPF, in.CPF)
	apply(&c.CNPJ, in.CNPJ)
	apply(&c.Email, in.Email)
	apply(&c.Phone, in.Phone)
	apply(&c.BirthDate, in.BirthDate)
	apply(&c.StateRegistration, in.StateRegistration)
	apply(&c.Notes, in.Notes)
	setAs(&c.Status, in.Status)
	switch a := in.Address; {
	case !a.Present:
	case a.Null:
		c.Address = nil
	default:
		var addr Address
		if c.Address != nil {
			addr = *c.Address
		}
		addr.merge(a.Value)
		c.Address = nil
		if !addr.empty() {
			c.Address = &addr
		}
	}
}

func (a *Address) merge(in AddressInput) {
	apply(&a.Street, in.Street)
	apply(&a.Number, in.Number)
	apply(&a.Complement, in.Complement)
	apply(&a.District, in.District)
	apply(&a.City, in.City)
	apply(&a.State, in.State)
	apply(&a.ZipCode, in.ZipCode)
}

// checkType applies the rules between a client's type and its fields (KindInvalid): an individual
// has a cpf and no company fields, a company has a cnpj and no birth_date.
func (c Client) checkType() error {
	type member struct {
		name string
		set  bool
	}
	var required member
	var forbidden []member
	switch c.Type {
	case ClientIndividual:
		required = member{"cpf", c.CPF != nil}
		forbidden = []member{{"cnpj", c.CNPJ != nil}, {"trade_name", c.TradeName != nil},
			{"state_registration", c.StateRegistration != nil}}
	default:
		required = member{"cnpj", c.CNPJ != nil}
		forbidden = []member{{"cpf", c.CPF != nil}, {"birth_date", c.BirthDate != nil}}
	}
	var p Problems
	for _, m := range forbidden {
		if m.set {
			p.Add(InBody, m.name, "%s is not allowed for a client of type %s", m.name, c.Type)
		}
	}
	if !required.set {
		p.Add(InBody, required.name, "%s is required for a client of type %s", required.name, c.Type)
	}
	return p.Err()
}

// Apply returns the client after an update input. type cannot change; name and status may not be
// null, nor the document the type requires (KindInvalid). Status may be set to active
// (reactivation) or inactive.
func (c Client) Apply(in ClientInput, now time.Time) (Client, error) {
	var p Problems
	in.check(&p, now)
	notNull(&p, "type", in.Type)
	notNull(&p, "name", in.Name)
	notNull(&p, "status", in.Status)
	if in.Type.Set() && in.Type.Value != c.Type {
		p.Add(InBody, "type", "type cannot be changed")
	}
	if err := p.Err(); err != nil {
		return c, err
	}
	next := c
	next.merge(in)
	if err := next.checkType(); err != nil {
		return c, err
	}
	return next, nil
}

// Deactivate returns the client inactive (the soft delete).
func (c Client) Deactivate() Client {
	c.Status = ClientInactive
	return c
}

func (c Client) revision() int { return c.Revision }

func (c Client) touched(now time.Time) Client {
	c.UpdatedAt = NewTimestamp(now)
	return c
}

// ClientQuery is a parsed client list request.
type ClientQuery struct {
	ListQuery
	Type []string
	CPF  *string // any spelling; bare digits after the checks
	CNPJ *string // any spelling; bare and upper case after the checks
	Q    *string // word prefixes of name, trade_name, email, cpf, cnpj; folded by the checks
	// Terms are q's terms, set by the checks: every one must start a word of the client's
	// (Client.Words).
	Terms []string
}

// Check validates the query's values and returns it with the defaults filled in; the use cases
// call it before listing. Errors are KindInvalid, listing every problem.
func (q ClientQuery) Check() (ClientQuery, error) {
	var p Problems
	q.ListQuery = q.ListQuery.check(&p, listSpec{sorts: ClientSorts, statuses: ClientStatuses, softDeleted: string(ClientInactive)})
	checkEnumParam(&p, "type", q.Type, ClientTypes)
	q.Terms = checkSearchParam(&p, &q.Q, false)
	for _, f := range []struct {
		name      string
		v         **string
		normalize func(string) (string, error)
	}{{"cpf", &q.CPF, br.NormalizeCPF}, {"cnpj", &q.CNPJ, br.NormalizeCNPJ}} {
		if *f.v == nil {
			continue
		}
		doc, err := f.normalize(**f.v)
		if err != nil {
			addReason(&p, InQuery, f.name, err)
		}
		*f.v = &doc
	}
	return q, p.Err()
}

// ClientStore persists clients. Implementations enforce CPF and CNPJ uniqueness in the team
// atomically, inactive clients included (KindDuplicate).
type ClientStore = Store[Client, ClientQuery]

// Clients is the client use cases.
type Clients = Service[Client, ClientInput, ClientQuery]

// NewClients returns the client use cases on a store.
func NewClients(store ClientStore) Clients {
	return Clients{store: store, rules: Rules[Client, ClientInput, ClientQuery]{
		New: func(_ context.Context, teamID, id string, now time.Time, in ClientInput) (Write[Client], error) {
			c, err := NewClient(teamID, id, now, in)
			return Write[Client]{Record: c}, err
		},
		Apply: func(_ context.Context, cur Client, in ClientInput, now time.Time) (Write[Client], error) {
			c, err := cur.Apply(in, now)
			return Write[Client]{Record: c}, err
		},
		Remove: Client.Deactivate,
		Query:  ClientQuery.Check,
	}}
}
