package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/patio"
)

// boardColumn is one phase of the pipeline: its open deals (one page, newest first), how many
// there are, and their value.
type boardColumn struct {
	Phase string
	Deals []boardCard
	phaseTotal
	// More is how many of the phase's deals the column does not show.
	More int
}

// dealBoard shows the pipeline: the team's open deals in columns by phase, each headed by its
// count and value, each read as one page of its own (the board reads one page per column,
// however many deals the team has).
func (c *Console) dealBoard(rq *request) {
	if rq.filters().Get("view") == "list" {
		c.dealList(rq)
		return
	}
	phases, err := c.phases(rq)
	if err != nil {
		c.fail(rq, err)
		return
	}
	var all []patio.Deal
	for _, ph := range phases {
		all = append(all, ph.deals[:min(len(ph.deals), boardCards)]...)
	}
	cards, err := c.cards(rq, all)
	if err != nil {
		c.fail(rq, err)
		return
	}
	cols := make([]boardColumn, len(phases))
	for i, ph := range phases {
		n := min(len(ph.deals), boardCards)
		cols[i] = boardColumn{Phase: ph.Phase, phaseTotal: ph.phaseTotal, More: ph.Total - n, Deals: cards[:n]}
		cards = cards[n:]
	}
	c.render(rq, http.StatusOK, "deals", view{Title: rq.p.T("pipeline.title"), Data: cols})
}
