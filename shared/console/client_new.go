package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/patio"
)

// clientNew shows the new client form (a walk-in: a person, by default).
func (c *Console) clientNew(rq *request) {
	c.render(rq, http.StatusOK, "client_new", view{Title: rq.p.T("clients.new.title"), Data: clientFormData{Types: patio.ClientTypes},
		Form: rq.newForm(url.Values{"type": {patio.ClientIndividual}})})
}
