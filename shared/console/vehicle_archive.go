package console

// vehicleArchive archives a vehicle through the API's use case and goes back to its page.
func (c *Console) vehicleArchive() handler {
	return c.recordAction(vehiclesPath+"/", "done.vehicle.archived", func(rq *request, id string) error {
		_, err := c.d.Records.Vehicles.Archive(rq.ctx(), rq.team.ID, id)
		return err
	})
}
