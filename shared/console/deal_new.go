package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/patio"
)

// dealNew shows the new deal form.
func (c *Console) dealNew(rq *request) {
	c.render(rq, http.StatusOK, "deal_new", view{Title: rq.p.T("pipeline.new.title"), Data: newDealFormData(),
		Form: rq.newForm(url.Values{"phase": {patio.DefaultDealPhase}})})
}
