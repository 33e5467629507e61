package console

import (
	"github.com/patio-dev/patio/shared/webhook"
)

// webhookDisable disables a webhook and goes back to it.
func (c *Console) webhookDisable(rq *request) {
	c.webhookAction(rq, func(id string) (webhook.Webhook, error) { return c.d.Webhooks.Disable(rq.ctx(), id) },
		"done.webhook.disabled")
}
