package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// clientCreate registers a client from the form, once per form token, through the same use case
// as the API (its checks of CPF and CNPJ, the alphanumeric CNPJ included; its client.created
// event); a refused form, a duplicate document among its problems, comes back with the values
// entered, each problem next to its field.
func (c *Console) clientCreate(rq *request) {
	c.clientRecords().create(c, rq, func(err error, _ linkChoices) {
		c.render(rq, http.StatusUnprocessableEntity, "client_new", view{Title: rq.p.T("clients.new.title"),
			Data: clientFormData{Types: patio.ClientTypes}, Form: render.Refused(rq.p, rq.r.PostForm, err, form.ClientFields...)})
	})
}
