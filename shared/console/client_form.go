package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// clientNew shows the new client form (a walk-in: a person, by default).
func (c *Console) clientNew(rq *request) {
	c.render(rq, http.StatusOK, "client_new", view{Title: rq.p.T("clients.new.title"), Data: patio.ClientTypes,
		Form: newForm(url.Values{"type": {patio.ClientIndividual}})})
}

// clientCreate registers a client from the form, once per form token, through the same use case
// as the API (its checks of CPF and CNPJ, the alphanumeric CNPJ included; its client.created
// event); a refused form, a duplicate document among its problems, comes back with the values
// entered, each problem next to its field.
func (c *Console) clientCreate(rq *request) {
	values := rq.r.PostForm
	refuse := func(err error) {
		c.render(rq, http.StatusUnprocessableEntity, "client_new", view{Title: rq.p.T("clients.new.title"), Data: patio.ClientTypes,
			Form: refused(rq.p, values, err, form.ClientFields...)})
	}
	in, err := form.Client(values)
	if err != nil {
		refuse(err)
		return
	}
	c.createOnce(rq, values, refuse, "/console/clients/", "done.client.created", func() (string, error) {
		cl, err := c.d.Records.Clients.Create(rq.ctx(), rq.team.ID, in)
		return cl.ID, err
	})
}
