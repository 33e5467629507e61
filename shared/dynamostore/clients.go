package dynamostore

import (
	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// clientRow is a client as stored in ClientsTable.
type clientRow = storeformat.ClientRow

// clientKind declares how clients are stored: a CPF or CNPJ is unique in the team, inactive
// clients included (deactivation keeps the guard).
var clientKind = kind[patio.Client, clientRow, patio.ClientQuery]{
	Kind: lists.Kind[patio.Client, clientRow, patio.ClientQuery]{
		What: "client", Layout: storeformat.Clients,
		Key:    func(c patio.Client) (string, string) { return c.TeamID, c.ID },
		Encode: storeformat.ToClientRow,
		Decode: clientRow.Client,
		List: lists.Listing[patio.Client, patio.ClientQuery]{
			Statuses: patio.ClientStatuses,
			Query:    func(q patio.ClientQuery) patio.ListQuery { return q.ListQuery },
			Filters: map[string]func(patio.ClientQuery) []string{
				"type": func(q patio.ClientQuery) []string { return q.Type },
			},
			Unique: func(q patio.ClientQuery) *lists.Unique {
				var u *lists.Unique
				for _, doc := range []struct {
					kind  string
					value *string
				}{{"cpf", q.CPF}, {"cnpj", q.CNPJ}} {
					if doc.value == nil {
						continue
					}
					if u == nil {
						u = &lists.Unique{Guard: storeformat.DocumentGuardKey(doc.kind, *doc.value)}
					}
					u.Conds = append(u.Conds, lists.In(doc.kind, []string{*doc.value}))
				}
				return u
			},
			Words: patio.Client.Words,
			Terms: func(q patio.ClientQuery) []string { return q.Terms },
		},
	},
	prefix:       storeformat.Clients.RowPrefix(),
	table:        func(t Tables) string { return t.Clients },
	names:        []string{"pk", "id", "name", "created_at", "updated_at"},
	revision:     func(c patio.Client) int { return c.Revision },
	withRevision: func(c patio.Client, n int) patio.Client { c.Revision = n; return c },
	guards: func(c patio.Client) []guard {
		kind, value := c.Document()
		if kind == "" {
			return nil
		}
		return []guard{{sk: storeformat.DocumentGuardKey(kind, value),
			taken: patio.Errorf(patio.KindDuplicate, "a client with %s %s already exists", kind, value)}}
	},
}

// Clients returns the client store.
func (s *Store) Clients() patio.ClientStore {
	return records[patio.Client, clientRow, patio.ClientQuery]{s.core, &clientKind}
}
