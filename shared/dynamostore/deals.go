package dynamostore

import (
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// dealRow is a deal as stored in DealsTable.
type dealRow = storeformat.DealRow

// dealKind declares how deals are stored.
var dealKind = kind[patio.Deal, dealRow, patio.DealQuery]{
	what: "deal", layout: storeformat.Deals, prefix: storeformat.Deals.RowPrefix(),
	table:        func(t Tables) string { return t.Deals },
	key:          func(d patio.Deal) (string, string) { return d.TeamID, d.ID },
	encode:       storeformat.ToDealRow,
	decode:       dealRow.Deal,
	revision:     func(d patio.Deal) int { return d.Revision },
	withRevision: func(d patio.Deal, n int) patio.Deal { d.Revision = n; return d },
	guards:       func(patio.Deal) []guard { return nil },
	brief: []string{"pk", "sk", "id", "title", "client_id", "vehicle_id", "value_cents", "phase", "phase_since", "status",
		"created_at", "updated_at", "rev"},
	list: &listing[patio.Deal, patio.DealQuery]{
		statuses: patio.DealStatuses,
		query:    func(q patio.DealQuery) patio.ListQuery { return q.ListQuery },
		filters: map[string]func(patio.DealQuery) []string{
			"phase":      func(q patio.DealQuery) []string { return q.Phase },
			"client_id":  func(q patio.DealQuery) []string { return one(q.ClientID) },
			"vehicle_id": func(q patio.DealQuery) []string { return one(q.VehicleID) },
		},
		ranges: []rangeField[patio.DealQuery]{
			{attr: "value_cents", sort: "value", bounds: func(q patio.DealQuery) (lo, hi *bound) {
				return centsBound(q.ValueMin), centsBound(q.ValueMax)
			}},
		},
		words: patio.Deal.Words,
		terms: func(q patio.DealQuery) []string { return q.Terms },
	},
}

// Deals returns the deal store.
func (s *Store) Deals() patio.DealStore {
	return records[patio.Deal, dealRow, patio.DealQuery]{s.core, &dealKind}
}
