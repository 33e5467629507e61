package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// financialListData is a page of financial records.
type financialListData struct {
	Items      []patio.FinancialRecord
	Total      int
	Next       string
	Overdue    bool
	Types      []string
	Categories []string
	Statuses   []string
	Methods    []string
	// CSV is the query string of the filtered list's CSV.
	CSV string
}

// allCategories lists every category, by type.
func allCategories() []string {
	var out []string
	for _, t := range patio.FinancialTypes {
		out = append(out, patio.FinancialCategories[t]...)
	}
	return out
}

// newFinancialListData is a financial list's page before its records: the filters' choices.
func newFinancialListData(overdue bool) financialListData {
	return financialListData{Overdue: overdue, Types: patio.FinancialTypes, Categories: allCategories(),
		Statuses: patio.FinancialStatuses, Methods: patio.DealPaymentMethods}
}

// financialList shows the team's financial records filtered by type, category, status, payment
// method and due window, by due date, paged with cursors; with overdue=1, the pending ones past
// their due date in the team's time zone.
func (c *Console) financialList(rq *request) {
	q := rq.filters()
	data := newFinancialListData(q.Get("overdue") == "1")
	title := rq.p.T("financial.title")
	if data.Overdue {
		title = rq.p.T("financial.overdue.title")
	}
	fq, err := financialQuery(q, data.Overdue)
	var page patio.Page[patio.FinancialRecord]
	if err == nil {
		page, err = c.d.Financial.List(rq.ctx(), rq.team.ID, fq)
	}
	if patio.IsKind(err, patio.KindInvalid) {
		c.render(rq, http.StatusBadRequest, "financial", view{Title: title, Data: data, Form: render.Refused(rq.p, q, err, financialFilters...)})
		return
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	data.Items, data.Total = page.Items, page.Total
	data.Next = nextPage(q, financialFilters, page.List, page.Next)
	csvQuery := url.Values{}
	for _, k := range financialFilters {
		if v, ok := q[k]; ok {
			csvQuery[k] = v
		}
	}
	data.CSV = csvQuery.Encode()
	c.render(rq, http.StatusOK, "financial", view{Title: title, Data: data, Form: render.NewForm(q)})
}
