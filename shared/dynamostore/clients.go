package dynamostore

import (
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// clientRow is a client as stored in ClientsTable.
type clientRow = storeformat.ClientRow

// clientKind declares how clients are stored: a CPF or CNPJ is unique in the team, inactive
// clients included (deactivation keeps the guard).
var clientKind = kind[patio.Client, clientRow, patio.ClientQuery]{
	what: "client", layout: storeformat.Clients, prefix: storeformat.Clients.RowPrefix(),
	table:        func(t Tables) string { return t.Clients },
	key:          func(c patio.Client) (string, string) { return c.TeamID, c.ID },
	encode:       storeformat.ToClientRow,
	decode:       clientRow.Client,
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
	list: &listing[patio.Client, patio.ClientQuery]{
		statuses: patio.ClientStatuses,
		query:    func(q patio.ClientQuery) patio.ListQuery { return q.ListQuery },
		filters: map[string]func(patio.ClientQuery) []string{
			"type": func(q patio.ClientQuery) []string { return q.Type },
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
					u = &uniqueFilter{guard: storeformat.DocumentGuardKey(doc.kind, *doc.value)}
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
	return records[patio.Client, clientRow, patio.ClientQuery]{s.core, &clientKind}
}
