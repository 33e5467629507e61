package form

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/patio-dev/patio/shared/money"
	"github.com/patio-dev/patio/shared/patio"
)

// VehicleFilters are the query parameters of the stock list: the public API's vehicle filters.
var VehicleFilters = []string{"status", "phase", "fuel", "brand", "model", "price_min", "price_max", "year_min", "year_max",
	"plate", "q", "sort"}

// VehicleQuery reads the stock list's filters into the API's vehicle query: enum filters repeated,
// amounts as people type them on a page in lang (Amount), years as plain digits. Empty values are
// "any" (the caller drops them first). The domain's checks run when the list is read.
func VehicleQuery(q url.Values, lang string, limit int) (patio.VehicleQuery, error) {
	var p patio.Problems
	vq := patio.VehicleQuery{ListQuery: patio.ListQuery{Limit: patio.Some(limit), Status: splitEnum(q["status"])},
		Phase: splitEnum(q["phase"]), Fuel: splitEnum(q["fuel"])}
	if s := q.Get("sort"); s != "" {
		vq.Sort, vq.Desc = strings.TrimPrefix(s, "-"), strings.HasPrefix(s, "-")
	}
	for name, dst := range map[string]**string{"brand": &vq.Brand, "model": &vq.Model, "plate": &vq.Plate, "q": &vq.Q} {
		if v := strings.TrimSpace(q.Get(name)); v != "" {
			*dst = &v
		}
	}
	amountFilters(&p, q, lang, map[string]**money.Cents{"price_min": &vq.PriceMin, "price_max": &vq.PriceMax})
	for name, dst := range map[string]**int{"year_min": &vq.YearMin, "year_max": &vq.YearMax} {
		if v := strings.TrimSpace(q.Get(name)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				p.Add(patio.InQuery, name, "%s must be an integer", name)
				continue
			}
			*dst = &n
		}
	}
	return vq, p.Err()
}

// DealFilters are the query parameters of the pipeline's list view: the public API's deal filters.
var DealFilters = []string{"view", "status", "phase", "client_id", "vehicle_id", "value_min", "value_max", "q", "sort"}

// DealQuery reads the pipeline list's filters into the API's deal query: enum filters repeated,
// amounts as people type them on a page in lang (Amount). Empty values are "any" (the caller
// drops them first). The domain's checks run when the list is read.
func DealQuery(q url.Values, lang string, limit int) (patio.DealQuery, error) {
	var p patio.Problems
	dq := patio.DealQuery{ListQuery: patio.ListQuery{Limit: patio.Some(limit), Status: splitEnum(q["status"])},
		Phase: splitEnum(q["phase"])}
	if s := q.Get("sort"); s != "" {
		dq.Sort, dq.Desc = strings.TrimPrefix(s, "-"), strings.HasPrefix(s, "-")
	}
	for name, dst := range map[string]**string{"client_id": &dq.ClientID, "vehicle_id": &dq.VehicleID, "q": &dq.Q} {
		if v := strings.TrimSpace(q.Get(name)); v != "" {
			*dst = &v
		}
	}
	amountFilters(&p, q, lang, map[string]**money.Cents{"value_min": &dq.ValueMin, "value_max": &dq.ValueMax})
	return dq, p.Err()
}

// splitEnum reads an enum filter given repeated or comma-separated.
func splitEnum(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// VehicleFields are the fields of the vehicle form, named as the API names them.
var VehicleFields = []string{"title", "brand", "model", "version", "plate", "renavam", "vin", "manufacture_year", "model_year",
	"mileage_km", "color", "fuel", "transmission", "price", "purchase_price", "phase", "status", "description"}

// Vehicle reads the vehicle form into the API's vehicle input: texts as typed, years and mileage as
// whole numbers (mileage may carry thousands separators), money as people type it on a page in
// lang (Amount). edit makes an emptied optional field null (cleared); an emptied title is left as
// it is (a new vehicle's is made of its brand, model, version and year). The domain's checks run
// when it is saved.
func Vehicle(v url.Values, lang string, edit bool) (patio.VehicleInput, error) {
	var p patio.Problems
	in := patio.VehicleInput{Title: text(v, "title", false), Brand: text(v, "brand", false), Model: text(v, "model", false),
		Version: text(v, "version", edit), Plate: text(v, "plate", edit), Renavam: text(v, "renavam", edit), VIN: text(v, "vin", edit),
		Color: text(v, "color", edit), Fuel: text(v, "fuel", edit), Transmission: text(v, "transmission", edit),
		Phase: text(v, "phase", false), Status: text(v, "status", false), Description: multiline(v, "description", edit)}
	for name, dst := range map[string]*patio.Opt[int]{"manufacture_year": &in.ManufactureYear, "model_year": &in.ModelYear,
		"mileage_km": &in.MileageKm} {
		o := text(v, name, edit)
		switch {
		case o.Null:
			*dst = patio.Null[int]()
		case o.Set():
			n, err := strconv.Atoi(strings.NewReplacer(".", "", ",", "", " ", "").Replace(o.Value))
			if err != nil {
				p.Add(patio.InBody, name, "%s must be an integer", name)
			}
			*dst = patio.Some(n)
		}
	}
	in.Price, in.PurchasePrice = amount(&p, v, "price", lang, false), amount(&p, v, "purchase_price", lang, edit)
	return in, p.Err()
}

// ClientFields are the fields of the client form, named as the API names them.
var ClientFields = []string{"type", "name", "trade_name", "cpf", "cnpj", "email", "phone", "birth_date", "state_registration",
	"notes"}

// Client reads the client form into the API's client input: a CPF, CNPJ or phone as typed (the
// domain takes any punctuation), the birth date as a date field sends it. Fields of the other
// type of client are left out, so that switching the type does not send both documents. edit
// makes an emptied optional field null (cleared).
func Client(v url.Values, edit bool) (patio.ClientInput, error) {
	var p patio.Problems
	in := patio.ClientInput{Type: text(v, "type", false), Name: text(v, "name", false), Email: text(v, "email", edit),
		Phone: text(v, "phone", edit), Notes: multiline(v, "notes", edit)}
	switch in.Type.Value {
	case patio.ClientCompany:
		in.CNPJ, in.TradeName, in.StateRegistration = text(v, "cnpj", edit), text(v, "trade_name", edit), text(v, "state_registration", edit)
	default:
		in.CPF = text(v, "cpf", edit)
		in.BirthDate = date(&p, v, "birth_date", edit)
	}
	return in, p.Err()
}

// DealFields are the fields of the deal form: the API's, with the client and the vehicle found by
// what was typed (a name or CPF, a plate), as the activity form finds its links.
var DealFields = []string{"title", "client", "vehicle", "client_id", "vehicle_id", "value", "phase", "payment_method",
	"expected_close_date", "notes"}

// Deal reads the deal form into the API's deal input (client_id and vehicle_id resolved by the
// console first); the value as people type money on a page in lang (Amount). edit makes an
// emptied optional field null (cleared): a deal's vehicle, value, payment method, expected close
// date or notes.
func Deal(v url.Values, lang string, edit bool) (patio.DealInput, error) {
	var p patio.Problems
	in := patio.DealInput{Title: text(v, "title", false), ClientID: text(v, "client_id", edit), VehicleID: text(v, "vehicle_id", edit),
		Phase: text(v, "phase", false), PaymentMethod: text(v, "payment_method", edit), Notes: multiline(v, "notes", edit)}
	in.Value, in.ExpectedCloseDate = amount(&p, v, "value", lang, edit), date(&p, v, "expected_close_date", edit)
	return in, p.Err()
}
