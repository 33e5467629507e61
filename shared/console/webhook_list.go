package console

import (
	"context"
	"net/http"

	"github.com/patio-dev/patio/shared/webhook"
)

// webhookRead reads a team's webhooks (the page's early read: see handleEarly).
func (c *Console) webhookRead(ctx context.Context, teamID string) ([]webhook.Webhook, error) {
	return c.d.Webhooks.List(ctx, teamID, false)
}

// webhookList shows the team's webhooks.
func (c *Console) webhookList(rq *request, hs []webhook.Webhook) {
	c.render(rq, http.StatusOK, "webhooks", view{Title: rq.p.T("webhooks.title"), Data: hs})
}
