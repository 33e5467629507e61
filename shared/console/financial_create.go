package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
)

// financialCreate creates a financial record.
func (c *Console) financialCreate(rq *request) {
	c.financialRecords().create(c, rq, func(err error, choices linkChoices) {
		d := c.financialFormData(nil)
		d.Choices = choices
		c.render(rq, http.StatusUnprocessableEntity, "financial_new", view{Title: rq.p.T("financial.new.title"), Data: d,
			Form: render.Refused(rq.p, rq.r.PostForm, err, form.FinancialFields...)})
	})
}
