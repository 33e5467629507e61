package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/webhook"
)

// webhookRotate gives a webhook a new secret and shows it, once, with the end of the old one's
// grace period.
func (c *Console) webhookRotate(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	w, secret, err := c.d.Webhooks.RotateSecret(rq.ctx(), w.ID, webhook.DefaultGrace)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.render(rq, http.StatusOK, "webhook_secret", view{Title: rq.p.T("webhooks.rotated.title"),
		Data: map[string]any{"Webhook": w, "Secret": secret, "Rotated": true, "Grace": rq.p.Time(rq.now.Add(webhook.DefaultGrace))}})
}
