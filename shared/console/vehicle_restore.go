package console

import (
	"github.com/patio-dev/patio/shared/patio"
)

// vehicleRestore puts an archived vehicle back in the stock with the status posted (ativo when
// none) and goes back to its page.
func (c *Console) vehicleRestore() handler {
	return c.recordAction(vehiclesPath+"/", "done.vehicle.restored", func(rq *request, id string) error {
		status := rq.r.PostForm.Get("status")
		if status == "" {
			status = string(patio.VehicleActive)
		}
		_, err := c.d.Records.Vehicles.Update(rq.ctx(), rq.team.ID, id, patio.VehicleInput{Status: patio.Some(status)})
		return err
	})
}
