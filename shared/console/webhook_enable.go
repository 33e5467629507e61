package console

import (
	"github.com/patio-dev/patio/shared/webhook"
)

// webhookEnable makes a webhook active again (its failure count starts afresh) and goes back to it.
func (c *Console) webhookEnable(rq *request) {
	c.webhookAction(rq, func(id string) (webhook.Webhook, error) { return c.d.Webhooks.Enable(rq.ctx(), id) },
		"done.webhook.enabled")
}
