package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/render"
)

// loginPage shows the sign-in form; a signed-in person goes straight on.
func (c *Console) loginPage(rq *request) {
	next := safeNext(rq.r.URL.Query().Get("next"))
	if rq.sess != nil {
		c.redirect(rq, next)
		return
	}
	c.render(rq, http.StatusOK, "login", view{Title: rq.p.T("login.title"),
		Form: render.NewForm(url.Values{"next": {next}})})
}
