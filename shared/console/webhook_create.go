package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// webhookCreate creates a webhook and shows its secret, once. The form's one-time token makes a
// second post of the same form (a reload) create nothing and show no secret.
func (c *Console) webhookCreate(rq *request) {
	values := rq.r.PostForm
	in, err := form.Webhook(values)
	if err != nil {
		c.render(rq, http.StatusUnprocessableEntity, "webhook_new", view{Title: rq.p.T("webhooks.new.title"),
			Data: webhookFormData{Groups: eventGroups()}, Form: render.Refused(rq.p, values, err, form.WebhookFields...)})
		return
	}
	c.once(rq, values, func() (string, bool) {
		w, secret, err := c.d.Webhooks.Create(rq.ctx(), rq.team.ID, in)
		if patio.IsKind(err, patio.KindInvalid) {
			c.render(rq, http.StatusUnprocessableEntity, "webhook_new", view{Title: rq.p.T("webhooks.new.title"),
				Data: webhookFormData{Groups: eventGroups()}, Form: render.Refused(rq.p, values, err, form.WebhookFields...)})
			return "", false
		}
		if err != nil {
			c.fail(rq, err)
			return "", false
		}
		c.render(rq, http.StatusOK, "webhook_secret", view{Title: rq.p.T("webhooks.created.title"),
			Data: map[string]any{"Webhook": w, "Secret": secret, "Created": true}})
		return webhooksPath + "/" + w.ID, true
	})
}
