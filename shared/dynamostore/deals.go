package dynamostore

import (
	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// dealRow is a deal as stored in DealsTable.
type dealRow = storeformat.DealRow

// dealKind declares how deals are stored.
var dealKind = kind[patio.Deal, dealRow, patio.DealQuery]{
	Kind: lists.Kind[patio.Deal, dealRow, patio.DealQuery]{
		What: "deal", Layout: storeformat.Deals,
		Key:    func(d patio.Deal) (string, string) { return d.TeamID, d.ID },
		Encode: storeformat.ToDealRow,
		Decode: dealRow.Deal,
		Brief: []string{"pk", "sk", "id", "title", "client_id", "vehicle_id", "value_cents", "phase", "phase_since", "status",
			"created_at", "updated_at", "rev"},
		List: lists.Listing[patio.Deal, patio.DealQuery]{
			Statuses: patio.DealStatuses,
			Query:    func(q patio.DealQuery) patio.ListQuery { return q.ListQuery },
			Filters: map[string]func(patio.DealQuery) []string{
				"phase":      func(q patio.DealQuery) []string { return q.Phase },
				"client_id":  func(q patio.DealQuery) []string { return lists.One(q.ClientID) },
				"vehicle_id": func(q patio.DealQuery) []string { return lists.One(q.VehicleID) },
			},
			Ranges: []lists.Range[patio.DealQuery]{
				{Attr: "value_cents", Sort: "value", Bounds: func(q patio.DealQuery) (lo, hi *lists.Bound) {
					return lists.CentsBound(q.ValueMin), lists.CentsBound(q.ValueMax)
				}},
			},
			Words: patio.Deal.Words,
			Terms: func(q patio.DealQuery) []string { return q.Terms },
		},
	},
	prefix:       storeformat.Deals.RowPrefix(),
	table:        func(t Tables) string { return t.Deals },
	revision:     func(d patio.Deal) int { return d.Revision },
	withRevision: func(d patio.Deal, n int) patio.Deal { d.Revision = n; return d },
	guards:       func(patio.Deal) []guard { return nil },
}

// Deals returns the deal store.
func (s *Store) Deals() patio.DealStore {
	return records[patio.Deal, dealRow, patio.DealQuery]{s.core, &dealKind}
}
