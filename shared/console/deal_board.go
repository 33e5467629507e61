package console

import (
	"html/template"
	"net/http"

	"github.com/patio-dev/patio/shared/patio"
)

// boardColumn is one phase of the pipeline: its open deals (one page, newest first), how many
// there are, and their value; with what its head and its cards' move selects print, worked out
// once (see boardCard).
type boardColumn struct {
	Phase, Label string
	Deals        []boardCard
	Total        int
	// Value is the phase's open value in the page's language; Partial says it sums only the
	// newest patio.MaxLimit deals.
	Value   string
	Partial bool
	// More is how many of the phase's deals the column does not show.
	More int
	// Options are a card's move select's options, this phase selected.
	Options template.HTML
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
	var all []patio.Deal // the cards of every column, named in one read
	for _, ph := range phases {
		all = append(all, ph.deals...)
	}
	cards, err := c.cards(rq, all)
	if err != nil {
		c.fail(rq, err)
		return
	}
	cols := make([]boardColumn, len(phases))
	for i, ph := range phases {
		n := len(ph.deals)
		cols[i] = boardColumn{Phase: ph.Phase, Label: rq.p.T("deal.phase." + ph.Phase), Total: ph.Total, Value: rq.p.Money(ph.Value),
			Partial: ph.Partial, More: max(0, ph.Total-n), Deals: cards[:n], Options: phaseOptions(rq.p, ph.Phase)}
		cards = cards[n:]
	}
	c.render(rq, http.StatusOK, "deals", view{Title: rq.p.T("pipeline.title"), Data: cols})
}
