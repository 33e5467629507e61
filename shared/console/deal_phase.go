package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// dealPhase moves a deal to another phase of the pipeline (a plain form post of its new phase;
// the board's drag and drop, when there is one, posts the same). It fires deal.phase_changed as
// a change through the API does, and goes back to the board.
//
// A card "moved" to the phase it is in changes nothing (the use case writes nothing either), and
// the board says so rather than "moved".
func (c *Console) dealPhase(rq *request) {
	phase := rq.r.PostForm.Get("phase")
	ctx, id := rq.ctx(), rq.r.PathValue("id")
	d, err := c.d.Records.Deals.Get(ctx, rq.team.ID, id)
	if err != nil {
		c.fail(rq, err)
		return
	}
	if d.Phase == phase && d.Status == patio.DealOpen {
		c.done(rq, dealsPath, "done.deal.unmoved")
		return
	}
	if _, err := c.d.Records.Deals.Update(ctx, rq.team.ID, id, patio.DealInput{Phase: patio.Some(phase)}); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, dealsPath, "done.deal.moved")
}
