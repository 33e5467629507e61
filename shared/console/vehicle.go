package console

import (
	"context"
	"net/url"
	"time"

	"github.com/patio-dev/patio/shared/br"
	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/console/render"
	"github.com/patio-dev/patio/shared/patio"
)

// statusCount is how many of the team's records have a status, and the list of them.
type statusCount struct {
	Status string
	N      int
}

// stockCounts is how many of the team's vehicles have each status: the counts the store keeps,
// in one read.
func (c *Console) stockCounts(ctx context.Context, teamID string) ([]statusCount, error) {
	n, err := c.d.Records.Vehicles.Counts(ctx, teamID)
	counts := make([]statusCount, len(patio.VehicleStatuses))
	for i, s := range patio.VehicleStatuses {
		counts[i] = statusCount{Status: s, N: n[s]}
	}
	return counts, err
}

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
		Phases: patio.VehiclePhases, Statuses: []string{string(patio.VehicleActive), string(patio.VehicleReserved)}}
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
		m["status"] = string(v.Status)
	}
	return m
}

// vehicleRecords is the stock's part of the shared create and edit flows.
func (c *Console) vehicleRecords() records[patio.Vehicle, patio.VehicleInput] {
	return records[patio.Vehicle, patio.VehicleInput]{svc: c.d.Records.Vehicles, name: "vehicle", base: vehiclesPath + "/",
		fields: form.VehicleFields,
		read: func(values url.Values, p locale.Printer, edit bool) (patio.VehicleInput, error) {
			return form.Vehicle(values, p.Lang, edit)
		},
		check:    func(in patio.VehicleInput, now time.Time) error { return in.ValidateNew(now) },
		id:       func(v patio.Vehicle) string { return v.ID },
		links:    func(patio.Vehicle) (*string, *string, *string) { return nil, nil, nil },
		values:   func(rq *request, v patio.Vehicle) url.Values { return formValues(vehicleEditable(rq, v), v.Revision) },
		editable: vehicleEditable}
}

// vehiclePageData is a vehicle's page: its fields (and its edit form's choices), the deals,
// activities and financial records that name it, and its history.
type vehiclePageData struct {
	vehicleFormData
	// Plate is the plate as it was registered; OtherPlate its other spelling (br.OtherPlate), shown
	// beside it with OtherPlateLabel's message ("Mercosul: XYZ9I76"), "" when it has none.
	Plate, OtherPlate, OtherPlateLabel string
	// Photos are the vehicle's photos in their order; PhotosEditable says the console can add,
	// move and delete them (it has the photos' bucket), PhotoToken is the add form's one-time token.
	Photos         []photoView
	PhotosEditable bool
	PhotoToken     string
	// PhotosAtOnce says the page's script may send several files at once, straight to the bucket.
	PhotosAtOnce bool
	related
}

// renderVehicle renders a vehicle's page with its edit form f (nil: its current values) and, after
// a stale edit, what changed.
func (c *Console) renderVehicle(rq *request, status int, v patio.Vehicle, f *render.Form, changed []string) {
	data := vehiclePageData{vehicleFormData: newVehicleFormData()}
	data.Vehicle, data.Changed, data.Photos = &v, changed, photoViews(rq.p, v.Photos)
	data.PhotosEditable, data.PhotoToken = c.d.Photos != nil && v.Status != patio.VehicleArchived, render.NewToken()
	data.PhotosAtOnce = data.PhotosEditable && c.d.PhotosUploadOrigin != ""
	if v.Plate != nil {
		data.Plate = *v.Plate
		if other, ok := br.OtherPlate(*v.Plate); ok {
			data.OtherPlate, data.OtherPlateLabel = other, "stock.plate.mercosul"
			if br.PlateKey(*v.Plate) == *v.Plate { // registered in its Mercosul form
				data.OtherPlateLabel = "stock.plate.old"
			}
		}
	}
	var err error
	if data.related, err = c.relatedTo(rq.ctx(), rq.team.ID, patio.ResourceVehicle, v.ID); err != nil {
		c.fail(rq, err)
		return
	}
	if f == nil {
		f = render.NewForm(c.vehicleRecords().values(rq, v))
	}
	c.allowUploads(rq)
	c.render(rq, status, "vehicle", view{Title: v.Title, Data: data, Form: f})
}

// vehicleName is the title of the path's vehicle, which its archiving's confirmation names.
func (c *Console) vehicleName(rq *request) (string, bool) {
	v, err := c.d.Records.Vehicles.Get(rq.ctx(), rq.team.ID, rq.r.PathValue("id"))
	if err != nil {
		c.fail(rq, err)
		return "", false
	}
	return v.Title, true
}
