package console

import (
	"net/http"
)

// overview is the console's home: the team's webhooks and their state.
func (c *Console) overview(rq *request) {
	hs, err := c.d.Webhooks.List(rq.ctx(), rq.team.ID, false)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "overview", view{Title: rq.p.T("overview.title"), Data: map[string]any{"Webhooks": hs}})
}
