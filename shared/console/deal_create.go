package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
)

// dealCreate creates a deal from the form, its client and vehicle found by what was typed, once per
// form token, through the API's use case (deal.created).
func (c *Console) dealCreate(rq *request) {
	rq.r.PostForm.Del("deal") // the form links no deal
	c.dealRecords().create(c, rq, func(err error, choices linkChoices) {
		data := newDealFormData()
		data.Choices = choices
		c.render(rq, http.StatusUnprocessableEntity, "deal_new", view{Title: rq.p.T("pipeline.new.title"), Data: data,
			Form: render.Refused(rq.p, rq.r.PostForm, err, form.DealFields...)})
	})
}
