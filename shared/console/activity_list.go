package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
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
			Form: render.Refused(rq.p, q, err, activityFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Items, data.Total = page.Items, page.Total
	data.Next = nextPage(q, activityFilters, page.List, page.Next)
	c.render(rq, http.StatusOK, "activities", view{Title: title, Data: data, Form: render.NewForm(q)})
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
