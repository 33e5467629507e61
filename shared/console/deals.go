package console

import (
	"net/http"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// boardColumn is one phase of the pipeline: its open deals (one page, newest first), how many
// there are, and the value of the deals shown.
type boardColumn struct {
	Phase string
	Deals []boardCard
	Total int
	Value money.Cents
	// More is how many of the phase's deals the column does not show.
	More int
}

// boardCard is a deal on the board, with its age in days.
type boardCard struct {
	patio.Deal
	Days int
}

// dealBoard shows the pipeline: the team's open deals in columns by phase, each read as one page
// of its own (the board reads at most one page per column, however many deals the team has).
func (c *Console) dealBoard(rq *request) {
	var cols []boardColumn
	for _, phase := range patio.DealPhases {
		page, err := c.d.Records.Deals.List(rq.ctx(), rq.team.ID, patio.DealQuery{
			ListQuery: patio.ListQuery{Limit: patio.Some(moduleLimit), Status: []string{patio.DealOpen}}, Phase: []string{phase}})
		if err != nil {
			c.fail(rq, err)
			return
		}
		col := boardColumn{Phase: phase, Total: page.Total, More: page.Total - len(page.Items)}
		for _, d := range page.Items {
			if d.Value != nil {
				col.Value += *d.Value
			}
			col.Deals = append(col.Deals, boardCard{Deal: d, Days: int(rq.now.Sub(d.CreatedAt.Time()) / (24 * time.Hour))})
		}
		cols = append(cols, col)
	}
	c.render(rq, http.StatusOK, "deals", view{Title: rq.p.T("pipeline.title"), Data: cols})
}

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
