package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// dealListData is a page of the pipeline's list view.
type dealListData struct {
	Items                   []boardCard
	Total                   int
	Next                    string
	Statuses, Phases, Sorts []string
}

// dealList is the pipeline's list view: the team's deals with the public API's filters, sorts
// and q, paged with cursors, each with its client's and vehicle's names.
func (c *Console) dealList(rq *request) {
	q := rq.filters()
	data := dealListData{Statuses: patio.DealStatuses, Phases: patio.DealPhases, Sorts: patio.DealSorts}
	dq, err := form.DealQuery(q, rq.p.Lang, moduleLimit)
	if err == nil {
		if err = parseCursor(q.Get("cursor"), &dq.ListQuery); err != nil {
			err = patio.Invalidf("cursor is not valid for this search")
		}
	}
	var page patio.Page[patio.Deal]
	if err == nil {
		page, err = c.d.Records.Deals.List(rq.ctx(), rq.team.ID, dq)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "deals_list", view{Title: rq.p.T("pipeline.title"), Data: data,
			Form: render.Refused(rq.p, q, err, form.DealFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	if data.Items, err = c.cards(rq, page.Items); err != nil {
		c.fail(rq, err)
		return
	}
	data.Total = page.Total
	data.Next = nextPage(q, form.DealFilters, page.List, page.Next)
	c.render(rq, http.StatusOK, "deals_list", view{Title: rq.p.T("pipeline.title"), Data: data, Form: render.NewForm(q)})
}
