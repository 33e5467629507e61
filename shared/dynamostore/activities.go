package dynamostore

import (
	"github.com/patio-dev/patio/shared/dynamostore/lists"
	"github.com/patio-dev/patio/shared/dynamostore/storeformat"
	"github.com/patio-dev/patio/shared/patio"
)

// activityRow is an activity as stored in ActivitiesTable.
type activityRow struct {
	PK          string  `dynamo:"pk,hash"`
	SK          string  `dynamo:"sk,range"`
	ID          string  `dynamo:"id"`
	Type        string  `dynamo:"type"`
	Title       string  `dynamo:"title"`
	Description *string `dynamo:"description,allowempty"`
	Status      string  `dynamo:"status"`
	DueAt       *string `dynamo:"due_at"`
	VehicleID   *string `dynamo:"vehicle_id"`
	ClientID    *string `dynamo:"client_id"`
	DealID      *string `dynamo:"deal_id"`
	CompletedAt *string `dynamo:"completed_at"`
	CreatedAt   string  `dynamo:"created_at"`
	UpdatedAt   string  `dynamo:"updated_at"`
	Rev         int     `dynamo:"rev"`

	LSIUpdated string `dynamo:"lsi_updated"`
	LSIDue     string `dynamo:"lsi_due"`

	// Timed events: the due_at values each fired for, and the pending alarm's entry in the sparse
	// by_alarm index (alarms.go).
	FiredDueSoon *string `dynamo:"fired_due_soon"`
	FiredOverdue *string `dynamo:"fired_overdue"`
	FiredAt      *string `dynamo:"fired_at"`
	AlarmDay     string  `dynamo:"alarm_day"`
	AlarmKey     string  `dynamo:"alarm_key"`
}

func toActivityRow(a patio.Activity) activityRow {
	row := activityRow{
		PK: a.TeamID, SK: storeformat.Activities.RowKey(a.ID), ID: a.ID, Type: a.Type, Title: a.Title, Description: a.Description,
		Status: string(a.Status), DueAt: tsPtr(a.DueAt), VehicleID: a.VehicleID, ClientID: a.ClientID, DealID: a.DealID,
		CompletedAt: tsPtr(a.CompletedAt), CreatedAt: a.CreatedAt.String(), UpdatedAt: a.UpdatedAt.String(),
		Rev: revAttr(a.Revision),

		LSIUpdated: storeformat.SortKey(string(a.Status), ptrTo(a.UpdatedAt.String()), a.ID),
		LSIDue:     storeformat.SortKey(string(a.Status), tsPtr(a.DueAt), a.ID),

		FiredDueSoon: tsPtr(a.DueSoonFired), FiredOverdue: tsPtr(a.OverdueFired), FiredAt: tsPtr(a.FiredAt),
	}
	if alarm, ok := a.NextAlarm(); ok {
		row.AlarmDay, row.AlarmKey = alarmEntry(patio.ResourceActivity, a.TeamID, a.ID, alarm)
	}
	return row
}

func (r activityRow) activity() (patio.Activity, error) {
	a := patio.Activity{ID: r.ID, TeamID: r.PK, Type: r.Type, Title: r.Title, Description: r.Description,
		Status: patio.ActivityStatus(r.Status), VehicleID: r.VehicleID, ClientID: r.ClientID, DealID: r.DealID, Revision: revisionOf(r.Rev)}
	var err error
	if a.DueAt, err = parseTS(r.DueAt); err != nil {
		return a, err
	}
	if a.CompletedAt, err = parseTS(r.CompletedAt); err != nil {
		return a, err
	}
	if a.DueSoonFired, err = parseTS(r.FiredDueSoon); err != nil {
		return a, err
	}
	if a.OverdueFired, err = parseTS(r.FiredOverdue); err != nil {
		return a, err
	}
	if a.FiredAt, err = parseTS(r.FiredAt); err != nil {
		return a, err
	}
	if a.CreatedAt, err = patio.ParseTimestamp(r.CreatedAt); err != nil {
		return a, err
	}
	a.UpdatedAt, err = patio.ParseTimestamp(r.UpdatedAt)
	return a, err
}

// parseTS reads an optional timestamp attribute.
func parseTS(s *string) (*patio.Timestamp, error) {
	if s == nil {
		return nil, nil
	}
	t, err := patio.ParseTimestamp(*s)
	return &t, err
}

// activityKind declares how activities are stored.
var activityKind = kind[patio.Activity, activityRow, patio.ActivityQuery]{
	Kind: lists.Kind[patio.Activity, activityRow, patio.ActivityQuery]{
		What: "activity", Layout: storeformat.Activities,
		Key:    func(a patio.Activity) (string, string) { return a.TeamID, a.ID },
		Encode: toActivityRow,
		Decode: activityRow.activity,
		List: lists.Listing[patio.Activity, patio.ActivityQuery]{
			Statuses: patio.ActivityStatuses,
			Query:    func(q patio.ActivityQuery) patio.ListQuery { return q.ListQuery },
			Filters: map[string]func(patio.ActivityQuery) []string{
				"type":       func(q patio.ActivityQuery) []string { return q.Type },
				"vehicle_id": func(q patio.ActivityQuery) []string { return lists.One(q.VehicleID) },
				"client_id":  func(q patio.ActivityQuery) []string { return lists.One(q.ClientID) },
				"deal_id":    func(q patio.ActivityQuery) []string { return lists.One(q.DealID) },
			},
			Ranges: []lists.Range[patio.ActivityQuery]{
				{Attr: "due_at", Sort: "due_at", Bounds: func(q patio.ActivityQuery) (lo, hi *lists.Bound) {
					return lists.TextBound(q.DueFrom), lists.TextBound(q.DueTo)
				}},
			},
		},
	},
	prefix:       storeformat.Activities.RowPrefix(),
	table:        func(t Tables) string { return t.Activities },
	revision:     func(a patio.Activity) int { return a.Revision },
	withRevision: func(a patio.Activity, n int) patio.Activity { a.Revision = n; return a },
	guards:       func(patio.Activity) []guard { return nil },
	alarmKey:     func(row activityRow) string { return row.AlarmKey },
}

// Activities returns the activity store.
func (s *Store) Activities() patio.ActivityStore {
	return records[patio.Activity, activityRow, patio.ActivityQuery]{s.core, &activityKind}
}
