package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
)

// teamPage shows the team's members (and the invitation form, for those who may invite) and its
// settings.
func (c *Console) teamPage(rq *request) {
	c.teamView(rq, http.StatusOK, render.NewForm(nil), nil)
}
