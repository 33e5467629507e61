package dynamostore

import (
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

const dealPrefix = "d#"

// dealRow is a deal as stored in DealsTable.
type dealRow struct {
	PK                string  `dynamo:"pk,hash"`
	SK                string  `dynamo:"sk,range"`
	ID                string  `dynamo:"id"`
	Title             string  `dynamo:"title"`
	ClientID          string  `dynamo:"client_id"`
	VehicleID         *string `dynamo:"vehicle_id"`
	ValueCents        *int64  `dynamo:"value_cents"`
	Phase             string  `dynamo:"phase"`
	Status            string  `dynamo:"status"`
	LostReason        *string `dynamo:"lost_reason"`
	PaymentMethod     *string `dynamo:"payment_method"`
	ExpectedCloseDate *string `dynamo:"expected_close_date"`
	Notes             *string `dynamo:"notes,allowempty"`
	ClosedAt          *string `dynamo:"closed_at"`
	CreatedAt         string  `dynamo:"created_at"`
	UpdatedAt         string  `dynamo:"updated_at"`
	Rev               int     `dynamo:"rev"`

	LSIUpdated string `dynamo:"lsi_updated"`
	LSIValue   string `dynamo:"lsi_value"`
	LSITitle   string `dynamo:"lsi_title"`
	LSIClose   string `dynamo:"lsi_close"`
}

func dealSK(id string) string { return dealPrefix + id }

func dateStr(d *patio.Date) *string {
	if d == nil {
		return nil
	}
	return ptrTo(d.String())
}

func toDealRow(d patio.Deal) dealRow {
	var value *string
	if d.Value != nil {
		value = padded(12, int64(*d.Value))
	}
	return dealRow{
		PK: d.TeamID, SK: dealSK(d.ID), ID: d.ID, Title: d.Title, ClientID: d.ClientID,
		VehicleID: d.VehicleID, ValueCents: centsPtr(d.Value), Phase: d.Phase, Status: d.Status,
		LostReason: d.LostReason, PaymentMethod: d.PaymentMethod, ExpectedCloseDate: dateStr(d.ExpectedCloseDate),
		Notes: d.Notes, ClosedAt: tsPtr(d.ClosedAt), CreatedAt: d.CreatedAt.String(), UpdatedAt: d.UpdatedAt.String(),
		Rev: revAttr(d.Revision),

		LSIUpdated: sortKey(d.Status, ptrTo(d.UpdatedAt.String()), d.ID),
		LSIValue:   sortKey(d.Status, value, d.ID),
		LSITitle:   sortKey(d.Status, foldedText(d.Title), d.ID),
		LSIClose:   sortKey(d.Status, dateStr(d.ExpectedCloseDate), d.ID),
	}
}

func (r dealRow) deal() (patio.Deal, error) {
	d := patio.Deal{
		ID: r.ID, TeamID: r.PK, Title: r.Title, ClientID: r.ClientID, VehicleID: r.VehicleID,
		Phase: r.Phase, Status: r.Status, LostReason: r.LostReason, PaymentMethod: r.PaymentMethod,
		Notes: r.Notes, Revision: revisionOf(r.Rev),
	}
	if r.ValueCents != nil {
		d.Value = ptrTo(money.Cents(*r.ValueCents))
	}
	var err error
	if r.ExpectedCloseDate != nil {
		date, err := patio.ParseDate(*r.ExpectedCloseDate)
		if err != nil {
			return d, err
		}
		d.ExpectedCloseDate = &date
	}
	if r.ClosedAt != nil {
		t, err := patio.ParseTimestamp(*r.ClosedAt)
		if err != nil {
			return d, err
		}
		d.ClosedAt = &t
	}
	if d.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return d, err
	}
	d.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt)
	return d, err
}

// dealKind declares how deals are stored.
var dealKind = kind[patio.Deal, dealRow, patio.DealQuery]{
	what: "deal", prefix: dealPrefix,
	table:        func(t Tables) string { return t.Deals },
	key:          func(d patio.Deal) (string, string) { return d.TeamID, d.ID },
	encode:       toDealRow,
	decode:       dealRow.deal,
	revision:     func(d patio.Deal) int { return d.Revision },
	withRevision: func(d patio.Deal, n int) patio.Deal { d.Revision = n; return d },
	guards:       func(patio.Deal) []guard { return nil },
	sorts: map[string]sortIndex{
		"created_at":          {},
		"updated_at":          {index: "by_updated", attr: "lsi_updated"},
		"value":               {index: "by_value", attr: "lsi_value", optional: true},
		"title":               {index: "by_title", attr: "lsi_title"},
		"expected_close_date": {index: "by_close_date", attr: "lsi_close", optional: true},
	},
	list: &listing[patio.Deal, patio.DealQuery]{
		letter: "d", statuses: patio.DealStatuses, sum: "value_cents",
		query: func(q patio.DealQuery) patio.ListQuery { return q.ListQuery },
		facets: []facet[patio.DealQuery]{
			{name: "phase", attr: "phase", closed: true, filter: func(q patio.DealQuery) []string { return q.Phase }},
			{name: "client_id", attr: "client_id", filter: func(q patio.DealQuery) []string { return one(q.ClientID) }},
			{name: "vehicle_id", attr: "vehicle_id", filter: func(q patio.DealQuery) []string { return one(q.VehicleID) }},
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
	return records[patio.Deal, dealRow, patio.DealQuery]{s, &dealKind}
}
