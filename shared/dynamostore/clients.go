package dynamostore

import (
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

	// Derived attributes for sorted indexes.
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
	return clientRow{
		PK: c.TeamID, SK: clientSK(c.ID), ID: c.ID, Type: c.Type, Name: c.Name, TradeName: c.TradeName,
		CPF: c.CPF, CNPJ: c.CNPJ, Email: c.Email, Phone: c.Phone, BirthDate: birth,
		StateRegistration: c.StateRegistration, Address: addr, Notes: c.Notes, Status: c.Status,
		CreatedAt: c.CreatedAt.String(), UpdatedAt: c.UpdatedAt.String(), Rev: revAttr(c.Revision),

		LSIUpdated: sortKey(c.Status, ptrTo(c.UpdatedAt.String()), c.ID),
		LSIName:    sortKey(c.Status, foldedText(c.Name), c.ID),
	}
}

// client converts the stored row to the domain's client. Other parts of the store that read
// clients (deals) decode them with it.
func (r clientRow) client() (patio.Client, error) {
	c := patio.Client{
		ID: r.ID, TeamID: r.PK, Type: r.Type, Name: r.Name, TradeName: r.TradeName,
		CPF: r.CPF, CNPJ: r.CNPJ, Email: r.Email, Phone: r.Phone,
		StateRegistration: r.StateRegistration, Notes: r.Notes, Status: r.Status, Revision: revisionOf(r.Rev),
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

// clientKind declares how clients are stored: a CPF or CNPJ is unique in the team, inactive
// clients included (deactivation keeps the guard).
var clientKind = kind[patio.Client, clientRow, patio.ClientQuery]{
	what: "client", prefix: clientPrefix,
	table:        func(t Tables) string { return t.Clients },
	key:          func(c patio.Client) (string, string) { return c.TeamID, c.ID },
	encode:       toClientRow,
	decode:       clientRow.client,
	revision:     func(c patio.Client) int { return c.Revision },
	withRevision: func(c patio.Client, n int) patio.Client { c.Revision = n; return c },
	guards: func(c patio.Client) []guard {
		kind, value := c.Document()
		if kind == "" {
			return nil
		}
		return []guard{{sk: kind + "#" + value,
			taken: patio.Errorf(patio.KindDuplicate, "a client with %s %s already exists", kind, value)}}
	},
	sorts: map[string]sortIndex{
		"created_at": {},
		"updated_at": {index: "by_updated", attr: "lsi_updated"},
		"name":       {index: "by_name", attr: "lsi_name"},
	},
	list: &listing[patio.Client, patio.ClientQuery]{
		letter: "c", statuses: patio.ClientStatuses,
		query: func(q patio.ClientQuery) patio.ListQuery { return q.ListQuery },
		facets: []facet[patio.ClientQuery]{
			{name: "type", attr: "type", closed: true, filter: func(q patio.ClientQuery) []string { return q.Type }},
		},
		unique: func(q patio.ClientQuery) *uniqueFilter {
			var u *uniqueFilter
			for _, doc := range []struct {
				kind  string
				value *string
			}{{"cpf", q.CPF}, {"cnpj", q.CNPJ}} {
				if doc.value == nil {
					continue
				}
				if u == nil {
					u = &uniqueFilter{guard: doc.kind + "#" + *doc.value}
				}
				u.conds = append(u.conds, in(doc.kind, []string{*doc.value}))
			}
			return u
		},
		words: patio.Client.Words,
		terms: func(q patio.ClientQuery) []string { return q.Terms },
	},
}

// Clients returns the client store.
func (s *Store) Clients() patio.ClientStore {
	return records[patio.Client, clientRow, patio.ClientQuery]{s, &clientKind}
}
