package console

import (
	"net/http"
	"time"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// boardColumn is one phase of the pipeline: its open deals (one page, newest first), how many
// there are, and the value of them all.
type boardColumn struct {
	Phase string
	Deals []boardCard
	phaseTotal
	// More is how many of the phase's deals the column does not show.
	More int
}

// phaseTotal is how many open deals a phase of the pipeline holds and their value.
type phaseTotal struct {
	Total int
	Value money.Cents
}

// boardCard is a deal on the board, with its age in days.
type boardCard struct {
	patio.Deal
	Days int
}

// dealBoard shows the pipeline: the team's open deals in columns by phase, each column one page
// of its own, headed by the count and value of all the phase's open deals.
func (c *Console) dealBoard(rq *request) {
	totals, err := c.openDeals(rq)
	if err != nil {
		c.fail(rq, err)
		return
	}
	var cols []boardColumn
	for _, phase := range patio.DealPhases {
		page, err := c.d.Records.Deals.List(rq.ctx(), rq.team.ID, patio.DealQuery{
			ListQuery: patio.ListQuery{Limit: patio.Some(moduleLimit), Status: []string{patio.DealOpen}}, Phase: []string{phase}})
		if err != nil {
			c.fail(rq, err)
			return
		}
		col := boardColumn{Phase: phase, phaseTotal: totals[phase], More: page.Total - len(page.Items)}
		for _, d := range page.Items {
			col.Deals = append(col.Deals, boardCard{Deal: d, Days: int(rq.now.Sub(d.CreatedAt.Time()) / (24 * time.Hour))})
		}
		cols = append(cols, col)
	}
	c.render(rq, http.StatusOK, "deals", view{Title: rq.p.T("pipeline.title"), Data: cols})
}

// openDeals counts the team's open deals in each phase and sums their values, reading them all
// a page of patio.MaxLimit at a time.
func (c *Console) openDeals(rq *request) (map[string]phaseTotal, error) {
	totals := map[string]phaseTotal{}
	q := patio.DealQuery{ListQuery: patio.ListQuery{Limit: patio.Some(patio.MaxLimit), Status: []string{patio.DealOpen}}}
	for n := 2; ; n++ {
		page, err := c.d.Records.Deals.List(rq.ctx(), rq.team.ID, q)
		if err != nil {
			return nil, err
		}
		for _, d := range page.Items {
			t := totals[d.Phase]
			t.Total++
			if d.Value != nil {
				t.Value += *d.Value
			}
			totals[d.Phase] = t
		}
		if page.Next == "" {
			return totals, nil
		}
		q.Page, q.After = patio.Some(n), page.Next
	}
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
