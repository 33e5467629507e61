package console

// webhookDelete deletes a webhook and goes back to the list.
func (c *Console) webhookDelete(rq *request) {
	w, ok := c.ownWebhook(rq)
	if !ok {
		return
	}
	if _, err := c.d.Webhooks.Delete(rq.ctx(), w.ID); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, webhooksPath, "done.webhook.deleted")
}
