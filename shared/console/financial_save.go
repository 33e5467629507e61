package console

import (
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// financialSave applies the edit form to the revision it was loaded with (409 with what changed
// otherwise).
func (c *Console) financialSave(rq *request) {
	c.financialRecords().save(c, rq, func(cur patio.FinancialRecord, status int, f *render.Form, choices linkChoices, changed []string) {
		c.renderFinancial(rq, status, cur, f, choices, changed)
	})
}
