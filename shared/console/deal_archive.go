package console

// dealArchive archives a deal through the API's use case and goes back to its page.
func (c *Console) dealArchive() handler {
	return c.recordAction(dealsPath+"/", "done.deal.archived", func(rq *request, id string) error {
		_, err := c.d.Records.Deals.Archive(rq.ctx(), rq.team.ID, id)
		return err
	})
}
