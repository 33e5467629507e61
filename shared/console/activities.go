package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// activityFilters are the query parameters of the activity list.
var activityFilters = []string{"type", "status", "due_from", "due_to", "vehicle", "client", "deal", "vehicle_id",
	"client_id", "deal_id", "overdue"}

// activityListData is a page of activities.
type activityListData struct {
	Items    []patio.Activity
	Total    int
	Next     string
	Overdue  bool
	Types    []string
	Statuses []string
}

// activityList shows the team's activities, filtered by type, status, due window and linked
// record, sorted by due time, paged with cursors; with overdue=1, the open ones past due.
func (c *Console) activityList(rq *request) {
	q := rq.filters()
	data := activityListData{Overdue: q.Get("overdue") == "1", Types: patio.ActivityTypes, Statuses: patio.ActivityStatuses}
	title := rq.p.T("activities.title")
	if data.Overdue {
		title = rq.p.T("activities.overdue.title")
	}
	aq, err := c.activityQuery(rq, q, data.Overdue)
	var page patio.Page[patio.Activity]
	if err == nil {
		page, err = c.d.Activities.List(rq.ctx(), rq.team.ID, aq)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "activities", view{Title: title, Data: data,
			Form: refused(rq.p, q, err, activityFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Items, data.Total = page.Items, page.Total
	data.Next = nextPage(q, activityFilters, page.List, page.Next)
	c.render(rq, http.StatusOK, "activities", view{Title: title, Data: data, Form: newForm(q)})
}

// activityQuery reads the list's filters: the linked record by the same texts the forms take.
func (c *Console) activityQuery(rq *request, q url.Values, overdue bool) (patio.ActivityQuery, error) {
	var p patio.Problems
	aq := patio.ActivityQuery{ListQuery: patio.ListQuery{Sort: "due_at", Limit: patio.Some(moduleLimit),
		Status: q["status"]}, Type: q["type"], Overdue: overdue, Now: rq.now}
	if err := parseCursor(q.Get("cursor"), &aq.ListQuery); err != nil {
		p.AddError(patio.InQuery, "cursor", err)
	}
	for name, dst := range map[string]**patio.Timestamp{"due_from": &aq.DueFrom, "due_to": &aq.DueTo} {
		t, ok := form.Instant(q.Get(name), rq.p.Loc, name == "due_to")
		if !ok {
			p.Add(patio.InQuery, name, "%s must be a date (YYYY-MM-DD) or a date and time", name)
		} else if !t.IsZero() {
			ts := patio.NewTimestamp(t)
			*dst = &ts
		}
	}
	links := url.Values{}
	for _, k := range []string{"vehicle", "client", "deal", "vehicle_id", "client_id", "deal_id"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			links.Set(k, v)
		}
	}
	if _, err := c.resolveLinks(rq, links); err != nil {
		p.AddError(patio.InQuery, "", err)
	}
	for k, dst := range map[string]**string{"vehicle_id": &aq.VehicleID, "client_id": &aq.ClientID, "deal_id": &aq.DealID} {
		if v := links.Get(k); v != "" {
			*dst = &v
		}
	}
	return aq, p.Err()
}

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
		"status": a.Status}
}

// activityValues are an activity's values as its edit form shows them.
func (c *Console) activityValues(rq *request, a patio.Activity) url.Values {
	return linkedFormValues(activityEditable(rq, a), a.Revision, c.labelLinks(rq.ctx(), rq.team.ID, a.VehicleID, a.ClientID, a.DealID))
}

// activityNew shows the form of a new activity.
func (c *Console) activityNew(rq *request) {
	c.render(rq, http.StatusOK, "activity_new", view{Title: rq.p.T("activities.new.title"),
		Data: activityFormData{Types: patio.ActivityTypes}, Form: newForm(url.Values{"type": {"task"}})})
}

// activityRecords is the activities' part of the modules' shared flows.
func (c *Console) activityRecords() records[patio.Activity, patio.ActivityInput] {
	return records[patio.Activity, patio.ActivityInput]{svc: c.d.Activities, name: "activity", base: "/console/activities/",
		fields: form.ActivityFields, read: form.Activity,
		onEdit: func(in patio.ActivityInput) patio.ActivityInput { in.Status = patio.Opt[string]{}; return in },
		id:     func(a patio.Activity) string { return a.ID },
		links:  func(a patio.Activity) (*string, *string, *string) { return a.VehicleID, a.ClientID, a.DealID },
		values: c.activityValues, editable: activityEditable}
}

// activityCreate creates an activity, linking the records found by what was typed.
func (c *Console) activityCreate(rq *request) {
	c.activityRecords().create(c, rq, func(err error, choices linkChoices) {
		c.render(rq, http.StatusUnprocessableEntity, "activity_new", view{Title: rq.p.T("activities.new.title"),
			Data: activityFormData{Types: patio.ActivityTypes, Choices: choices}, Form: refused(rq.p, rq.r.PostForm, err, form.ActivityFields...)})
	})
}

// activityShow shows an activity, its transitions and (for those who may) its edit form.
func (c *Console) activityShow(rq *request) {
	a, err := c.d.Activities.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	l := c.labelLinks(rq.ctx(), rq.team.ID, a.VehicleID, a.ClientID, a.DealID)
	c.render(rq, http.StatusOK, "activity", view{Title: a.Title, Data: activityFormData{Activity: &a, Types: patio.ActivityTypes,
		Links: l}, Form: newForm(linkedFormValues(activityEditable(rq, a), a.Revision, l))})
}

// activitySave applies the edit form to the revision it was loaded with: an activity changed
// meanwhile is not overwritten (409, with what changed).
func (c *Console) activitySave(rq *request) {
	c.activityRecords().save(c, rq, func(cur patio.Activity, status int, f *formState, choices linkChoices, changed []string) {
		c.render(rq, status, "activity", view{Title: cur.Title, Data: activityFormData{Activity: &cur, Types: patio.ActivityTypes,
			Choices: choices, Changed: changed, Links: c.labelLinks(rq.ctx(), rq.team.ID, cur.VehicleID, cur.ClientID, cur.DealID)},
			Form: f})
	})
}

// activityMove moves an activity to status (start, complete, cancel, reopen) as the transition
// table allows (422 otherwise).
func (c *Console) activityMove(status string) handler {
	return func(rq *request) {
		id := rq.r.PathValue("id")
		if _, err := c.d.Activities.Update(rq.ctx(), rq.team.ID, id, patio.ActivityInput{Status: patio.Some(status)}); err != nil {
			c.fail(rq, err)
			return
		}
		c.done(rq, "/console/activities/"+id, "done.activity."+status)
	}
}
