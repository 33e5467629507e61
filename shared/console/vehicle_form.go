package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/patio"
)

// vehicleFormData is what the vehicle form offers to choose from, and on an edit the vehicle
// edited and what changed since the form was loaded (a stale edit).
type vehicleFormData struct {
	Choices          map[string][]string // fuel, transmission
	Phases, Statuses []string
	Vehicle          *patio.Vehicle
	Changed          []string
}

// newVehicleFormData is the vehicle form's choices: fuels, transmissions, phases and the statuses
// the form may set.
func newVehicleFormData() vehicleFormData {
	return vehicleFormData{Choices: map[string][]string{"fuel": patio.VehicleFuels, "transmission": patio.VehicleTransmissions},
		Phases: patio.VehiclePhases, Statuses: []string{patio.VehicleActive, patio.VehicleReserved}}
}

// vehicleNew shows the new vehicle form.
func (c *Console) vehicleNew(rq *request) {
	c.render(rq, http.StatusOK, "vehicle_new", view{Title: rq.p.T("stock.new.title"), Data: newVehicleFormData(),
		Form: newForm(url.Values{"phase": {"preparacao"}, "status": {patio.VehicleActive}})})
}

// vehicleRecords is the stock's part of the shared create and edit flows.
func (c *Console) vehicleRecords() records[patio.Vehicle, patio.VehicleInput] {
	return records[patio.Vehicle, patio.VehicleInput]{svc: c.d.Records.Vehicles, name: "vehicle", base: "/console/vehicles/",
		fields: form.VehicleFields,
		read: func(values url.Values, _ *time.Location, edit bool) (patio.VehicleInput, error) {
			return form.Vehicle(values, edit)
		},
		id:       func(v patio.Vehicle) string { return v.ID },
		links:    func(patio.Vehicle) (*string, *string, *string) { return nil, nil, nil },
		values:   func(rq *request, v patio.Vehicle) url.Values { return formValues(vehicleEditable(rq, v), v.Revision) },
		editable: vehicleEditable}
}

// vehicleEditable is a vehicle's editable fields as its form holds them: money as the reader
// types it, the status only while the form may move it (ativo, reservado; a sold or archived
// vehicle leaves its status to its own actions).
func vehicleEditable(rq *request, v patio.Vehicle) map[string]string {
	m := map[string]string{"title": v.Title, "brand": v.Brand, "model": v.Model, "version": ptrString(v.Version),
		"plate": ptrString(v.Plate), "renavam": ptrString(v.Renavam), "vin": ptrString(v.VIN),
		"manufacture_year": intString(v.ManufactureYear), "model_year": intString(v.ModelYear), "mileage_km": intString(v.MileageKm),
		"color": ptrString(v.Color), "fuel": ptrString(v.Fuel), "transmission": ptrString(v.Transmission),
		"price": rq.p.Decimal(v.Price), "purchase_price": "", "phase": v.Phase, "description": ptrString(v.Description)}
	if v.PurchasePrice != nil {
		m["purchase_price"] = rq.p.Decimal(*v.PurchasePrice)
	}
	if v.Status == patio.VehicleActive || v.Status == patio.VehicleReserved {
		m["status"] = v.Status
	}
	return m
}

// vehicleCreate registers a vehicle from the form, once per form token, through the same use case
// as the API (its rules, its vehicle.created event); a refused form, a duplicate plate among its
// problems, comes back with the values entered, each problem next to its field.
func (c *Console) vehicleCreate(rq *request) {
	c.vehicleRecords().create(c, rq, func(err error, _ linkChoices) {
		c.render(rq, http.StatusUnprocessableEntity, "vehicle_new", view{Title: rq.p.T("stock.new.title"), Data: newVehicleFormData(),
			Form: refused(rq.p, rq.r.PostForm, err, form.VehicleFields...)})
	})
}

// vehicleSave applies the edit form through the API's use case (its rules and its
// vehicle.updated event, with previous_attributes) to the revision the form was loaded with: a
// vehicle changed meanwhile is not overwritten (409, with what changed).
func (c *Console) vehicleSave(rq *request) {
	c.vehicleRecords().save(c, rq, func(cur patio.Vehicle, status int, f *formState, _ linkChoices, changed []string) {
		c.renderVehicle(rq, status, cur, f, changed)
	})
}
