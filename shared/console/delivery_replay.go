package console

// replayOne re-sends a finished delivery, a delivered one included.
func (c *Console) replayOne(rq *request) {
	d, ok := c.ownDelivery(rq)
	if !ok {
		return
	}
	if _, err := c.d.Deliveries.Replay(rq.ctx(), d.ID); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, deliveriesPath+"/"+d.ID, "done.delivery.replayed")
}
