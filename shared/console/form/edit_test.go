package form_test

import (
	"net/url"
	"testing"

	"github.com/patio-dev/patio/shared/console/form"
	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// An edit form's emptied optional field clears it (sent as null); a new record's is left out, and
// an emptied required field is left as it is.
func TestEmptiedFieldsClearOnEdit(t *testing.T) {
	values := url.Values{"color": {""}, "title": {" "}, "brand": {"Fiat"}}
	in, err := form.Vehicle(values, locale.PtBR, true)
	if err != nil {
		t.Fatalf("Vehicle(edit) = %v", err)
	}
	if in.Color != patio.Null[string]() || in.Title.Present {
		t.Errorf("Vehicle(edit) color = %+v, title = %+v; want color null (cleared), title absent (kept)", in.Color, in.Title)
	}
	if in, _ := form.Vehicle(values, locale.PtBR, false); in.Color.Present {
		t.Errorf("Vehicle(new) color = %+v; want absent", in.Color)
	}
	deal, err := form.Deal(url.Values{"vehicle_id": {""}, "value": {""}, "title": {"Venda"}}, locale.PtBR, true)
	if err != nil {
		t.Fatalf("Deal(edit) = %v", err)
	}
	if deal.VehicleID != patio.Null[string]() || !deal.Value.Null || !deal.Value.Present {
		t.Errorf("Deal(edit) vehicle_id = %+v, value = %+v; want both null (cleared)", deal.VehicleID, deal.Value)
	}
}
