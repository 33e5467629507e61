package console

import "net/http"

// webhookNew shows the form of a new webhook.
func (c *Console) webhookNew(rq *request) {
	c.render(rq, http.StatusOK, "webhook_new", view{Title: rq.p.T("webhooks.new.title"),
		Data: webhookFormData{Groups: eventGroups()}, Form: rq.newForm(nil)})
}
