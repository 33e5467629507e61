package console

import (
	"net/http"
)

// webhookList shows the team's webhooks.
func (c *Console) webhookList(rq *request) {
	hs, err := c.d.Webhooks.List(rq.ctx(), rq.team.ID, false)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "webhooks", view{Title: rq.p.T("webhooks.title"), Data: hs})
}
