package console

import (
	"net/http"
)

// clientShow shows one client of the team, and for those who may their edit form, loaded with
// their current values and revision.
func (c *Console) clientShow(rq *request) {
	cl, err := c.d.Records.Clients.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.renderClient(rq, http.StatusOK, cl, nil, nil)
}
