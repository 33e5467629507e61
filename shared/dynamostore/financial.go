package dynamostore

import (
	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// financialRow is a financial record as stored in FinancialTable.
type financialRow struct {
	PK            string  `dynamo:"pk,hash"`
	SK            string  `dynamo:"sk,range"`
	ID            string  `dynamo:"id"`
	Type          string  `dynamo:"type"`
	Category      string  `dynamo:"category"`
	Description   string  `dynamo:"description"`
	AmountCents   int64   `dynamo:"amount_cents"`
	DueDate       string  `dynamo:"due_date"`
	Status        string  `dynamo:"status"`
	PaidAt        *string `dynamo:"paid_at"`
	PaymentMethod *string `dynamo:"payment_method"`
	VehicleID     *string `dynamo:"vehicle_id"`
	ClientID      *string `dynamo:"client_id"`
	DealID        *string `dynamo:"deal_id"`
	Notes         *string `dynamo:"notes,allowempty"`
	CreatedAt     string  `dynamo:"created_at"`
	UpdatedAt     string  `dynamo:"updated_at"`
	Rev           int     `dynamo:"rev"`

	LSIUpdated string `dynamo:"lsi_updated"`
	LSIDue     string `dynamo:"lsi_due"`
	LSIAmount  string `dynamo:"lsi_amount"`

	// Timed events: the team's time zone when written, the due_date overdue fired for, and the
	// pending alarm's entry in the sparse by_alarm index (alarms.go).
	Zone         string  `dynamo:"zone"`
	FiredOverdue *string `dynamo:"fired_overdue"`
	FiredAt      *string `dynamo:"fired_at"`
	AlarmDay     string  `dynamo:"alarm_day"`
	AlarmKey     string  `dynamo:"alarm_key"`
}

func toFinancialRow(f patio.FinancialRecord) financialRow {
	row := financialRow{
		PK: f.TeamID, SK: storeformat.Financial.RowKey(f.ID), ID: f.ID, Type: f.Type, Category: f.Category,
		Description: f.Description, AmountCents: int64(f.Amount), DueDate: f.DueDate.String(), Status: string(f.Status),
		PaidAt: tsPtr(f.PaidAt), PaymentMethod: f.PaymentMethod, VehicleID: f.VehicleID, ClientID: f.ClientID,
		DealID: f.DealID, Notes: f.Notes, CreatedAt: f.CreatedAt.String(), UpdatedAt: f.UpdatedAt.String(),
		Rev: revAttr(f.Revision),

		LSIUpdated: storeformat.SortKey(string(f.Status), ptrTo(f.UpdatedAt.String()), f.ID),
		LSIDue:     storeformat.SortKey(string(f.Status), ptrTo(f.DueDate.String()), f.ID),
		LSIAmount:  storeformat.SortKey(string(f.Status), storeformat.Padded(12, int64(f.Amount)), f.ID),

		Zone: f.Zone, FiredOverdue: dateStr(f.OverdueFired), FiredAt: tsPtr(f.FiredAt),
	}
	if alarm, ok := f.NextAlarm(); ok {
		row.AlarmDay, row.AlarmKey = alarmEntry(patio.ResourceFinancial, f.TeamID, f.ID, alarm)
	}
	return row
}

func (r financialRow) record() (patio.FinancialRecord, error) {
	f := patio.FinancialRecord{ID: r.ID, TeamID: r.PK, Type: r.Type, Category: r.Category, Description: r.Description,
		Amount: money.Cents(r.AmountCents), Status: patio.FinancialStatus(r.Status), PaymentMethod: r.PaymentMethod, VehicleID: r.VehicleID,
		ClientID: r.ClientID, DealID: r.DealID, Notes: r.Notes, Revision: revisionOf(r.Rev), Zone: r.Zone}
	var err error
	if r.FiredOverdue != nil {
		d, err := patio.ParseDate(*r.FiredOverdue)
		if err != nil {
			return f, err
		}
		f.OverdueFired = &d
	}
	if f.FiredAt, err = parseTS(r.FiredAt); err != nil {
		return f, err
	}
	if f.DueDate, err = patio.ParseDate(r.DueDate); err != nil {
		return f, err
	}
	if f.PaidAt, err = parseTS(r.PaidAt); err != nil {
		return f, err
	}
	if f.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return f, err
	}
	f.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt)
	return f, err
}

// financialKind declares how financial records are stored.
var financialKind = kind[patio.FinancialRecord, financialRow, patio.FinancialQuery]{
	Kind: lists.Kind[patio.FinancialRecord, financialRow, patio.FinancialQuery]{
		What: "financial record", Layout: storeformat.Financial,
		Key:    func(f patio.FinancialRecord) (string, string) { return f.TeamID, f.ID },
		Encode: toFinancialRow,
		Decode: financialRow.record,
		List: lists.Listing[patio.FinancialRecord, patio.FinancialQuery]{
			Statuses: patio.FinancialStatuses,
			Query:    func(q patio.FinancialQuery) patio.ListQuery { return q.ListQuery },
			Filters: map[string]func(patio.FinancialQuery) []string{
				"type":           func(q patio.FinancialQuery) []string { return q.Type },
				"category":       func(q patio.FinancialQuery) []string { return q.Category },
				"payment_method": func(q patio.FinancialQuery) []string { return q.PaymentMethod },
				"vehicle_id":     func(q patio.FinancialQuery) []string { return lists.One(q.VehicleID) },
				"client_id":      func(q patio.FinancialQuery) []string { return lists.One(q.ClientID) },
				"deal_id":        func(q patio.FinancialQuery) []string { return lists.One(q.DealID) },
			},
			Ranges: []lists.Range[patio.FinancialQuery]{
				{Attr: "due_date", Sort: "due_date", Bounds: func(q patio.FinancialQuery) (lo, hi *lists.Bound) {
					return lists.TextBound(q.DueFrom), lists.TextBound(q.DueTo)
				}},
			},
		},
	},
	prefix:       storeformat.Financial.RowPrefix(),
	table:        func(t Tables) string { return t.Financial },
	revision:     func(f patio.FinancialRecord) int { return f.Revision },
	withRevision: func(f patio.FinancialRecord, n int) patio.FinancialRecord { f.Revision = n; return f },
	guards:       func(patio.FinancialRecord) []guard { return nil },
	alarmKey:     func(row financialRow) string { return row.AlarmKey },
}

// Financial returns the financial record store; it keeps their totals by due month
// (patio.FinancialMonthSums).
func (s *Store) Financial() patio.FinancialStore {
	return financialRecords{records[patio.FinancialRecord, financialRow, patio.FinancialQuery]{s.core, &financialKind}}
}
