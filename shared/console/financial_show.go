package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
)

// financialShow shows a financial record, its payment and transitions, and its edit form.
func (c *Console) financialShow(rq *request) {
	f, err := c.d.Financial.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.renderFinancial(rq, http.StatusOK, f, render.NewForm(c.financialValues(rq, f)), nil, nil)
}
