package console

// clientDeactivate deactivates a client through the API's use case and goes back to their page.
func (c *Console) clientDeactivate() handler {
	return c.recordAction(clientsPath+"/", "done.client.deactivated", func(rq *request, id string) error {
		_, err := c.d.Records.Clients.Archive(rq.ctx(), rq.team.ID, id)
		return err
	})
}
