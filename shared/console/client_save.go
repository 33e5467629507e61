package console

import (
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// clientSave applies the edit form through the API's use case (its checks of the documents, a
// duplicate CPF or CNPJ refused next to its field; its client.updated event) to the revision the
// form was loaded with: a client changed meanwhile is not overwritten (409, with what changed).
func (c *Console) clientSave(rq *request) {
	c.clientRecords().save(c, rq, func(cur patio.Client, status int, f *render.Form, _ linkChoices, changed []string) {
		c.renderClient(rq, status, cur, f, changed)
	})
}
