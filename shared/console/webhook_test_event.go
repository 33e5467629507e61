package console

import (
	"github.com/patio-dev/patio/shared/webhook"
)

// webhookTest sends a test event of the chosen type and shows its delivery.
func (c *Console) webhookTest(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	typ := rq.r.PostForm.Get("type")
	if typ == "" {
		typ = webhook.VehicleCreated
	}
	d, err := c.d.Webhooks.Test(rq.ctx(), w.ID, typ)
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, deliveriesPath+"/"+d.ID, "done.webhook.tested")
}
