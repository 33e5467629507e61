package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/render"
)

// webhookShow shows a webhook: its configuration (an edit form for those who may), its status and
// why it was disabled, and its actions.
func (c *Console) webhookShow(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	c.render(rq, http.StatusOK, "webhook", view{Title: w.URL, Data: webhookFormData{Groups: eventGroups(), Webhook: &w},
		Form: render.NewForm(webhookValues(w))})
}
