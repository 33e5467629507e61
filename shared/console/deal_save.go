package console

import (
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// dealSave applies the edit form through the API's use case (its rules and its deal.updated
// event) to the revision the form was loaded with: a deal changed meanwhile is not overwritten
// (409, with what changed).
func (c *Console) dealSave(rq *request) {
	rq.r.PostForm.Del("deal")
	c.dealRecords().save(c, rq, func(cur patio.Deal, status int, f *render.Form, choices linkChoices, changed []string) {
		c.renderDeal(rq, status, cur, nil, f, choices, changed)
	})
}
