package dynamostore

import (
	"context"
	"errors"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/patio-dev/patio/shared/patio"
)

const clientPrefix = "c#"

// clientRow is a client as stored in ClientsTable. Optional text keeps an empty string as such
// (allowempty), so that "" and null round-trip distinctly.
type clientRow struct {
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
	Address           *addressRow `dynamo:"address"`
	Notes             *string     `dynamo:"notes,allowempty"`
	Status            string      `dynamo:"status"`
	CreatedAt         string      `dynamo:"created_at"`
	UpdatedAt         string      `dynamo:"updated_at"`
	Rev               int         `dynamo:"rev"`

	// Derived attributes for filters and sorted indexes.
	Search     string `dynamo:"search"`
	LSIUpdated string `dynamo:"lsi_updated"`
	LSIName    string `dynamo:"lsi_name"`
}

// addressRow is a client's address, stored as a map attribute.
type addressRow struct {
	Street     *string `dynamo:"street,allowempty"`
	Number     *string `dynamo:"number,allowempty"`
	Complement *string `dynamo:"complement,allowempty"`
	District   *string `dynamo:"district,allowempty"`
	City       *string `dynamo:"city,allowempty"`
	State      *string `dynamo:"state"`
	ZipCode    *string `dynamo:"zip_code"`
}

func clientSK(id string) string { return clientPrefix + id }

func toClientRow(c patio.Client) clientRow {
	var birth *string
	if c.BirthDate != nil {
		birth = ptrTo(c.BirthDate.String())
	}
	var addr *addressRow
	if a := c.Address; a != nil {
		addr = &addressRow{Street: a.Street, Number: a.Number, Complement: a.Complement,
			District: a.District, City: a.City, State: a.State, ZipCode: a.ZipCode}
	}
	search := []string{patio.Fold(c.Name)}
	for _, s := range []*string{c.TradeName, c.Email} {
		if s != nil {
			search = append(search, patio.Fold(*s))
		}
	}
	return clientRow{
		PK: c.TeamID, SK: clientSK(c.ID), ID: c.ID, Type: c.Type, Name: c.Name, TradeName: c.TradeName,
		CPF: c.CPF, CNPJ: c.CNPJ, Email: c.Email, Phone: c.Phone, BirthDate: birth,
		StateRegistration: c.StateRegistration, Address: addr, Notes: c.Notes, Status: c.Status,
		CreatedAt: c.CreatedAt.String(), UpdatedAt: c.UpdatedAt.String(), Rev: c.Rev,

		Search:     strings.Join(search, "\x1f"),
		LSIUpdated: sortKey(ptrTo(c.UpdatedAt.String()), c.ID),
		LSIName:    sortKey(foldedText(c.Name), c.ID),
	}
}

// client converts the stored row to the domain's client. Other parts of the store that read
// clients (deals) decode them with it.
func (r clientRow) client() (patio.Client, error) {
	c := patio.Client{
		ID: r.ID, TeamID: r.PK, Type: r.Type, Name: r.Name, TradeName: r.TradeName,
		CPF: r.CPF, CNPJ: r.CNPJ, Email: r.Email, Phone: r.Phone,
		StateRegistration: r.StateRegistration, Notes: r.Notes, Status: r.Status, Rev: r.Rev,
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

func (s *Store) clients() dynamo.Table { return s.db.Table(s.tables.Clients) }

// documentGuard returns the sort key of the guard reserving the client's CPF or CNPJ
// ("cpf#<CPF>", "cnpj#<CNPJ>").
func documentGuard(c patio.Client) string {
	kind, value := c.Document()
	if kind == "" {
		return ""
	}
	return guardSK(kind+"#", value)
}

func duplicateDocument(c patio.Client) error {
	kind, value := c.Document()
	return patio.Errorf(patio.KindDuplicate, "a client with %s %s already exists", kind, value)
}

// CreateClient stores a new client and reserves its CPF or CNPJ in the same transaction. A document
// already reserved in the team, by an active or an inactive client, is KindDuplicate.
func (s *Store) CreateClient(ctx context.Context, c patio.Client) error {
	t := s.clients()
	put := func() *dynamo.Put { return t.Put(toClientRow(c)).If("attribute_not_exists(pk)") }
	err := s.putGuarded(ctx, t, put, c.TeamID, c.ID, "", documentGuard(c))
	if errors.Is(err, errTaken) {
		return duplicateDocument(c)
	}
	return wrap(err, "create client", c.ID)
}

// GetClient returns a team's client, active or inactive (strongly consistent), or KindNotFound.
func (s *Store) GetClient(ctx context.Context, teamID, id string) (patio.Client, error) {
	return getRecord(ctx, s.clients(), teamID, clientSK(id), "client", clientRow.client)
}

// UpdateClient applies change to the stored client and writes it conditioned on the revision it
// read; a lost race re-reads and re-applies. A CPF or CNPJ change moves the guard in the same
// transaction (KindDuplicate when the new document is taken). Deactivation keeps the guard.
func (s *Store) UpdateClient(ctx context.Context, teamID, id string,
	change func(patio.Client) (patio.Client, bool, error)) (patio.Client, error) {
	get := func() (patio.Client, error) { return s.GetClient(ctx, teamID, id) }
	return updateRecord(get, change, func(cur, next patio.Client) (patio.Client, error) {
		next.Rev = cur.Rev + 1
		t := s.clients()
		put := func() *dynamo.Put { return t.Put(toClientRow(next)).If("'rev' = ?", cur.Rev) }
		err := s.putGuarded(ctx, t, put, next.TeamID, next.ID, documentGuard(cur), documentGuard(next))
		switch {
		case errors.Is(err, errRevConflict):
			return next, err
		case errors.Is(err, errTaken):
			return next, duplicateDocument(next)
		}
		return next, wrap(err, "update client", next.ID)
	})
}

// clientSorts maps each sortable field to its index.
var clientSorts = map[string]sortIndex{
	"created_at": {},
	"updated_at": {index: "by_updated", attr: "lsi_updated"},
	"name":       {index: "by_name", attr: "lsi_name"},
}

// ListClients returns one page of a team's clients in the requested order and the total matching.
func (s *Store) ListClients(ctx context.Context, teamID string, q patio.ClientQuery) ([]patio.Client, int, error) {
	var f filter
	f.common(q.ListQuery)
	f.in("type", q.Type)
	if q.CPF != "" {
		f.add("'cpf' = ?", q.CPF)
	}
	if q.CNPJ != "" {
		f.add("'cnpj' = ?", q.CNPJ)
	}
	if q.Q != "" {
		f.add("contains('search', ?)", q.Q)
	}
	return listRecords(ctx, s.clients(), teamID, clientPrefix, "clients", clientSorts[q.Sort], q.ListQuery, f,
		clientRow.client)
}
