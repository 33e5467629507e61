package console

import (
	"net/http"
	"net/url"

	"github.com/patio-dev/patio/shared/patio"
)

// vehicleNew shows the new vehicle form.
func (c *Console) vehicleNew(rq *request) {
	c.render(rq, http.StatusOK, "vehicle_new", view{Title: rq.p.T("stock.new.title"), Data: newVehicleFormData(),
		Form: rq.newForm(url.Values{"phase": {"preparacao"}, "status": {string(patio.VehicleActive)}})})
}
