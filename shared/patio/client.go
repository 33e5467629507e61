package patio

import (
	"context"
	"encoding/json"
	"net/url"
	"time"

	"github.com/patio-dev/patio/shared/br"
)

// Client types (CONTRACT.md section 6).
const (
	ClientIndividual = "individual" // Pessoa Física, identified by CPF
	ClientCompany    = "company"    // Pessoa Jurídica, identified by CNPJ
)

// Client statuses (CONTRACT.md section 6). Deals may only be opened for an active client.
const (
	ClientActive   = "active"
	ClientInactive = "inactive"
)

// Client enums and sortable fields (CONTRACT.md section 6).
var (
	ClientTypes    = []string{ClientIndividual, ClientCompany}
	ClientStatuses = []string{ClientActive, ClientInactive}
	ClientSorts    = []string{"created_at", "updated_at", "name"}
)

// Client is a buyer of the team: an individual (CPF) or a company (CNPJ). Its JSON form is the API
// representation, also sent as the webhook data.object: every field present, unset optional fields
// null.
type Client struct {
	ID                string    `json:"id"`
	TeamID            string    `json:"-"`
	Type              string    `json:"type"`
	Name              string    `json:"name"`
	TradeName         *string   `json:"trade_name"`
	CPF               *string   `json:"cpf"`
	CNPJ              *string   `json:"cnpj"`
	Email             *string   `json:"email"`
	Phone             *string   `json:"phone"`
	BirthDate         *Date     `json:"birth_date"`
	StateRegistration *string   `json:"state_registration"`
	Address           *Address  `json:"address"`
	Notes             *string   `json:"notes"`
	Status            string    `json:"status"`
	CreatedAt         Timestamp `json:"created_at"`
	UpdatedAt         Timestamp `json:"updated_at"`
	// Rev counts the writes of the record, for optimistic concurrency. Not part of the API.
	Rev int `json:"-"`
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

// ParseClientInput validates each member of a client body on its own (types, formats, lengths,
// check digits; birth_date not after now's UTC date). Errors are KindInvalid and name the member,
// address members as address.<name>.
func ParseClientInput(body Body, now time.Time) (ClientInput, error) {
	var in ClientInput
	err := decodeBody(body, []field{
		enumField("type", ClientTypes, &in.Type),
		textField("name", 1, 200, &in.Name),
		textField("trade_name", 0, 200, &in.TradeName),
		normalizedField("cpf", &in.CPF, br.NormalizeCPF),
		normalizedField("cnpj", &in.CNPJ, br.NormalizeCNPJ),
		normalizedField("email", &in.Email, normalizeEmail),
		normalizedField("phone", &in.Phone, br.NormalizePhone),
		dateField("birth_date", &in.BirthDate),
		normalizedField("state_registration", &in.StateRegistration, br.NormalizeStateRegistration),
		optField("address", &in.Address, parseAddress),
		textField("notes", 0, 5000, &in.Notes),
		enumField("status", ClientStatuses, &in.Status),
	})
	if err != nil {
		return in, err
	}
	if in.BirthDate.Set() && in.BirthDate.Value.Start().After(DateOf(now).Start()) {
		return in, Invalidf("birth_date must not be in the future")
	}
	return in, nil
}

// parseAddress reads the address object; its unknown members are KindInvalid like the body's.
func parseAddress(raw json.RawMessage) (AddressInput, error) {
	var a AddressInput
	var obj Body
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return a, Invalidf("address must be an object")
	}
	err := decodeObject("address.", obj, []field{
		textField("address.street", 0, 200, &a.Street),
		textField("address.number", 0, 20, &a.Number),
		textField("address.complement", 0, 100, &a.Complement),
		textField("address.district", 0, 100, &a.District),
		textField("address.city", 0, 100, &a.City),
		normalizedField("address.state", &a.State, br.NormalizeUF),
		normalizedField("address.zip_code", &a.ZipCode, br.NormalizeCEP),
	})
	return a, err
}

// NewClient builds a client from a POST body. type and name are required, and the document of the
// type (cpf or cnpj); status may only be active.
func NewClient(id string, now time.Time, in ClientInput) (Client, error) {
	if !in.Type.Set() {
		return Client{}, Invalidf("type is required")
	}
	if !in.Name.Set() {
		return Client{}, Invalidf("name is required")
	}
	if err := notNull("status", in.Status); err != nil {
		return Client{}, err
	}
	if in.Status.Set() && in.Status.Value != ClientActive {
		return Client{}, Invalidf("status must be active when creating a client")
	}
	ts := NewTimestamp(now)
	c := Client{ID: id, Type: in.Type.Value, Status: ClientActive, CreatedAt: ts, UpdatedAt: ts}
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
	setIf(&c.Status, in.Status)
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
	for _, m := range forbidden {
		if m.set {
			return Invalidf("%s is not allowed for a client of type %s", m.name, c.Type)
		}
	}
	if !required.set {
		return Invalidf("%s is required for a client of type %s", required.name, c.Type)
	}
	return nil
}

// Apply returns the client after a PUT body and whether anything changed. type cannot change;
// name and status may not be null, nor the document the type requires (KindInvalid). Status may be
// set to active (reactivation) or inactive.
func (c Client) Apply(in ClientInput, now time.Time) (Client, bool, error) {
	if err := firstErr(notNull("type", in.Type), notNull("name", in.Name), notNull("status", in.Status)); err != nil {
		return c, false, err
	}
	if in.Type.Set() && in.Type.Value != c.Type {
		return c, false, Invalidf("type cannot be changed")
	}
	next := c
	next.merge(in)
	if err := next.checkType(); err != nil {
		return c, false, err
	}
	next, changed := changedTo(c, next, now)
	return next, changed, nil
}

// Deactivate returns the client inactive (soft delete) and whether that changed anything.
func (c Client) Deactivate(now time.Time) (Client, bool) {
	next := c
	next.Status = ClientInactive
	return changedTo(c, next, now)
}

func (c *Client) setTeam(teamID string) { c.TeamID = teamID }

func (c *Client) touch(now time.Time) { c.UpdatedAt = NewTimestamp(now) }

// ClientQuery is a parsed client list request.
type ClientQuery struct {
	ListQuery
	Type []string
	CPF  string // bare digits, whatever spelling was sent
	CNPJ string // bare, upper case, whatever spelling was sent
	Q    string // folded substring of name, trade_name, email
}

// ParseClientQuery reads a client list's query string (CONTRACT.md sections 4 and 6).
func ParseClientQuery(values url.Values) (ClientQuery, error) {
	var q ClientQuery
	var err error
	q.ListQuery, err = parseList(values, listSpec{
		sorts: ClientSorts, statuses: ClientStatuses, softDeleted: ClientInactive,
		extra: map[string]func(string) error{
			"type": func(v string) (err error) { q.Type, err = enumParam("type", v, ClientTypes); return },
			"q":    func(v string) (err error) { q.Q, err = textParam("q", v); return },
			"cpf":  func(v string) (err error) { q.CPF, err = normalizedParam("cpf", v, br.NormalizeCPF); return },
			"cnpj": func(v string) (err error) { q.CNPJ, err = normalizedParam("cnpj", v, br.NormalizeCNPJ); return },
		},
	})
	return q, err
}

// ClientStore persists clients. Implementations enforce CPF and CNPJ uniqueness in the team
// atomically, inactive clients included.
type ClientStore interface {
	// CreateClient stores a new client; a CPF or CNPJ already used in the team is KindDuplicate.
	CreateClient(ctx context.Context, c Client) error
	// GetClient returns a team's client, or KindNotFound.
	GetClient(ctx context.Context, teamID, id string) (Client, error)
	// UpdateClient reads the client, applies change and writes the result when change reports a
	// difference, atomically with respect to concurrent writers (re-applying change on a lost race).
	// A CPF or CNPJ used by another client of the team is KindDuplicate.
	UpdateClient(ctx context.Context, teamID, id string, change func(Client) (Client, bool, error)) (Client, error)
	// ListClients returns one page of a team's clients and the number of all that match.
	ListClients(ctx context.Context, teamID string, q ClientQuery) ([]Client, int, error)
}

// Clients is the client use cases: it parses requests, applies the rules and calls the store. It
// satisfies the HTTP adapter's Service[Client].
type Clients struct {
	Store ClientStore
	Now   func() time.Time // the clock; time.Now when nil
}

func (s Clients) crud() crud[Client, *Client, ClientInput, ClientQuery] {
	return crud[Client, *Client, ClientInput, ClientQuery]{
		now: s.Now, parse: ParseClientInput, build: NewClient, apply: Client.Apply, remove: Client.Deactivate,
		query:  ParseClientQuery,
		insert: s.Store.CreateClient, get: s.Store.GetClient, update: s.Store.UpdateClient, list: s.Store.ListClients,
	}
}

// Create registers a client from a POST body.
func (s Clients) Create(ctx context.Context, teamID string, body Body) (Client, error) {
	return s.crud().Create(ctx, teamID, body)
}

// Get returns one client, active or not; an id that is not a UUID is KindNotFound.
func (s Clients) Get(ctx context.Context, teamID, id string) (Client, error) {
	return s.crud().Get(ctx, teamID, id)
}

// Update applies a PUT body; status active reactivates an inactive client.
func (s Clients) Update(ctx context.Context, teamID, id string, body Body) (Client, error) {
	return s.crud().Update(ctx, teamID, id, body)
}

// Archive deactivates a client (status inactive, the soft delete); its CPF or CNPJ stays reserved.
// Deactivating an inactive client changes nothing.
func (s Clients) Archive(ctx context.Context, teamID, id string) (Client, error) {
	return s.crud().Archive(ctx, teamID, id)
}

// List returns a page of clients, the total that match, and the parsed query.
func (s Clients) List(ctx context.Context, teamID string, values url.Values) ([]Client, int, ListQuery, error) {
	return s.crud().List(ctx, teamID, values)
}
