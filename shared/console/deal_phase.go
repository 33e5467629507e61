package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// dealPhase moves a deal to another phase of the pipeline (a plain form post of its new phase;
// the board's drag and drop, when there is one, posts the same). It fires deal.phase_changed as
// a change through the API does, and goes back to the board.
func (c *Console) dealPhase(rq *request) {
	phase := rq.r.PostForm.Get("phase")
	_, err := c.d.Records.Deals.Update(rq.ctx(), rq.team.ID, rq.r.PathValue("id"), patio.DealInput{Phase: patio.Some(phase)})
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, "/console/deals", "done.deal.moved")
}
