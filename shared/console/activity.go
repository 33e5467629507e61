package console

import (
	"net/url"
	"time"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// activityFormData is what the activity form shows besides its values.
type activityFormData struct {
	Activity *patio.Activity
	Types    []string
	Choices  linkChoices
	Links    linkLabels
	Changed  []string
}

// activityEditable is an activity's editable fields, as its form holds them.
func activityEditable(rq *request, a patio.Activity) map[string]string {
	due := ""
	if a.DueAt != nil {
		due = form.LocalDateTime(*a.DueAt, rq.p.Loc)
	}
	return map[string]string{"type": a.Type, "title": a.Title, "description": ptrString(a.Description), "due_at": due,
		"vehicle_id": ptrString(a.VehicleID), "client_id": ptrString(a.ClientID), "deal_id": ptrString(a.DealID),
		"status": string(a.Status)}
}

// activityValues are an activity's values as its edit form shows them.
func (c *Console) activityValues(rq *request, a patio.Activity) url.Values {
	return linkedFormValues(activityEditable(rq, a), a.Revision, c.labelLinks(rq.ctx(), rq.team.ID, a.VehicleID, a.ClientID, a.DealID))
}

// activityRecords is the activities' part of the modules' shared flows.
func (c *Console) activityRecords() records[patio.Activity, patio.ActivityInput] {
	return records[patio.Activity, patio.ActivityInput]{svc: c.d.Activities, name: "activity", base: activitiesPath + "/",
		fields: form.ActivityFields, read: func(values url.Values, p locale.Printer, edit bool) (patio.ActivityInput, error) {
			return form.Activity(values, p.Loc, edit)
		},
		onEdit: func(in patio.ActivityInput) patio.ActivityInput { in.Status = patio.Opt[string]{}; return in },
		id:     func(a patio.Activity) string { return a.ID },
		links:  func(a patio.Activity) (*string, *string, *string) { return a.VehicleID, a.ClientID, a.DealID },
		values: c.activityValues, editable: activityEditable, notice: pastDue}
}

// pastDue warns of an activity saved with a due time already past (a typo of a year, often): it
// is saved, as the domain allows (it fires activity.overdue at once), and the message says so.
func pastDue(in patio.ActivityInput, now time.Time) string {
	if in.DueAt.Set() && in.DueAt.Value.Time().Before(now) {
		return "_past"
	}
	return ""
}

// activityName is the title of the path's activity, which its cancellation's confirmation names.
func (c *Console) activityName(rq *request) (string, bool) {
	a, err := c.d.Activities.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return a.Title, true
}
