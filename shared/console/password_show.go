package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
)

// passwordPage shows the form that changes one's password.
func (c *Console) passwordPage(rq *request) {
	c.render(rq, http.StatusOK, "password", view{Title: rq.p.T("password.title"), Form: render.NewForm(nil)})
}
