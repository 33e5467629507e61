package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// financialMove moves a record to status (cancel, reopen) as the transition table allows.
func (c *Console) financialMove(status string) handler {
	return func(rq *request) {
		id := rq.r.PathValue("id")
		if _, err := c.d.Financial.Update(rq.ctx(), rq.team.ID, id, patio.FinancialInput{Status: patio.Some(status)}); err != nil {
			c.fail(rq, err)
			return
		}
		c.done(rq, financialPath+"/"+id, "done.financial."+status)
	}
}
