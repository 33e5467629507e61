package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// financialReopen puts a record back to pending: a cancelled one at once; a paid one is the
// reversal of its payment ("Estornar"), which asks first.
func (c *Console) financialReopen(rq *request) {
	f, err := c.d.Financial.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	reopen := c.financialMove(string(patio.FinancialPending))
	if f.Status != patio.FinancialPaid {
		reopen(rq)
		return
	}
	c.confirmFirst(confirmation{key: "confirm.financial.reverse", name: c.financialName, back: backToRecord(financialPath + "/")},
		reopen)(rq)
}
