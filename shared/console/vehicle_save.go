package console

import (
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// vehicleSave applies the edit form through the API's use case (its rules and its
// vehicle.updated event, with previous_attributes) to the revision the form was loaded with: a
// vehicle changed meanwhile is not overwritten (409, with what changed).
func (c *Console) vehicleSave(rq *request) {
	c.vehicleRecords().save(c, rq, func(cur patio.Vehicle, status int, f *render.Form, _ linkChoices, changed []string) {
		c.renderVehicle(rq, status, cur, f, changed)
	})
}
