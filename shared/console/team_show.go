package console

import "net/http"

// teamPage shows the team's members (and the invitation form, for those who may invite) and its
// settings.
func (c *Console) teamPage(rq *request) {
	c.teamView(rq, http.StatusOK, rq.newForm(nil), nil)
}
