package console

import (
	"net/http"
)

// vehicleShow shows one vehicle of the team, and for those who may its edit form, loaded with its
// current values and revision.
func (c *Console) vehicleShow(rq *request) {
	v, err := c.d.Records.Vehicles.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return
	}
	c.renderVehicle(rq, http.StatusOK, v, nil, nil)
}
