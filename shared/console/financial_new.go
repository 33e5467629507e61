package console

import (
	"net/http"
	"net/url"
)

// financialNew shows the form of a new financial record.
//
// A link may prefill it (a won deal's sale: type, category, description, amount, payment method and
// the deal, its client and its vehicle), each linked record shown by its label.
func (c *Console) financialNew(rq *request) {
	values := url.Values{"type": {"revenue"}, "due_date": {rq.now.In(rq.p.Loc).Format("2006-01-02")}}
	q := rq.filters()
	for _, k := range []string{"type", "category", "description", "amount", "payment_method", "vehicle_id", "client_id", "deal_id"} {
		if v := q.Get(k); v != "" {
			values.Set(k, v)
		}
	}
	id := func(k string) *string {
		if v := values.Get(k); v != "" {
			return &v
		}
		return nil
	}
	l := c.labelLinks(rq.ctx(), rq.team.ID, id("vehicle_id"), id("client_id"), id("deal_id"))
	values.Set("vehicle", l.Vehicle)
	values.Set("client", l.Client)
	values.Set("deal", l.Deal)
	c.render(rq, http.StatusOK, "financial_new", view{Title: rq.p.T("financial.new.title"), Data: c.financialFormData(nil),
		Form: rq.newForm(values)})
}
