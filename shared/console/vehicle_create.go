package console

import (
	"net/http"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/render"
)

// vehicleCreate registers a vehicle from the form, once per form token, through the same use case
// as the API (its rules, its vehicle.created event); a refused form, a duplicate plate among its
// problems, comes back with the values entered, each problem next to its field.
func (c *Console) vehicleCreate(rq *request) {
	c.vehicleRecords().create(c, rq, func(err error, _ linkChoices) {
		c.render(rq, http.StatusUnprocessableEntity, "vehicle_new", view{Title: rq.p.T("stock.new.title"), Data: newVehicleFormData(),
			Form: render.Refused(rq.p, rq.r.PostForm, err, form.VehicleFields...)})
	})
}
