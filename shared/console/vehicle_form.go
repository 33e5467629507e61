package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// vehicleFormData is what the vehicle form offers to choose from.
type vehicleFormData struct {
	Choices          map[string][]string // fuel, transmission
	Phases, Statuses []string
}

func newVehicleFormData() vehicleFormData {
	return vehicleFormData{Choices: map[string][]string{"fuel": patio.VehicleFuels, "transmission": patio.VehicleTransmissions},
		Phases: patio.VehiclePhases, Statuses: []string{patio.VehicleActive, patio.VehicleReserved}}
}

// vehicleNew shows the new vehicle form.
func (c *Console) vehicleNew(rq *request) {
	c.render(rq, http.StatusOK, "vehicle_new", view{Title: rq.p.T("stock.new.title"), Data: newVehicleFormData(),
		Form: newForm(url.Values{"phase": {"preparacao"}, "status": {patio.VehicleActive}})})
}

// vehicleCreate registers a vehicle from the form, once per form token, through the same use case
// as the API (its rules, its vehicle.created event); a refused form, a duplicate plate among its
// problems, comes back with the values entered, each problem next to its field.
func (c *Console) vehicleCreate(rq *request) {
	values := rq.r.PostForm
	refuse := func(err error) {
		c.render(rq, http.StatusUnprocessableEntity, "vehicle_new", view{Title: rq.p.T("stock.new.title"), Data: newVehicleFormData(),
			Form: refused(rq.p, values, err, form.VehicleFields...)})
	}
	in, err := form.Vehicle(values, false)
	if err != nil {
		refuse(err)
		return
	}
	c.createOnce(rq, values, refuse, "/console/vehicles/", "done.vehicle.created", func() (string, error) {
		v, err := c.d.Records.Vehicles.Create(rq.ctx(), rq.team.ID, in)
		return v.ID, err
	})
}
